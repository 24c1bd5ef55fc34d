"""The timeline widget's kernel side: `ProfileWidget` and everything it answers the front end with.

`widget` holds the anywidget class, `side_views` the worker that sends the views beside
the timeline, `filters` the `filters` trait and its `Query`, `messages` the checks on what
the browser sends, `protocol` the typed messages, `flame` the flame graph, `lod` the
level-of-detail index, window summaries and their binary codec.

Importing this package does not import anywidget; `ipu_nb.ProfileWidget` does.
"""
