"""The timeline widget's kernel side: `ProfileWidget` and everything it answers the front end with.

`widget` holds the anywidget class: its traits, their checks (`traits`) and the public
methods. What it shows is one immutable value (`shown.Shown`: the profile, what the filters
select, the colouring and grouping), swapped whole when a trait defining it changes; every
answer the kernel keeps is keyed by it (`answers`, bounded caches from `kept`). `handlers`
answers each message from the front end (checked by `messages`, typed in `protocol`),
`pushes` and `inspector` build the payloads, `views` sends the side views from the
`side_views` worker, `flip` switches to the baseline, `findings_panel` computes the findings,
`zoom` says where to zoom; `flame` is the flame graph, `lod` the level-of-detail index,
window summaries and their binary codec.

Importing this package does not import anywidget; `ipu_nb.ProfileWidget` does.
"""
