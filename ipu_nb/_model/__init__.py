"""The data model every layer shares, at the bottom of the layers above the small utilities.

`columns` (decoded or generated columns, before polars), `profile` (`ProfileData`: the
frames and scalars), `index` (`ProfileIndex`: per-profile lookups, computed once),
`vocabulary` (kinds, group-bys, field names), `palette` (kind colours), `grid` (the C600
tile grid), `text` (file names as frame text) and `json_text` (serde_json string literals).
Nothing here imports the loader, the writers, the query core or any UI: they all build on it.
"""
