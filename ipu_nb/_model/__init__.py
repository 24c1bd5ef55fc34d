"""The data model every layer shares: `Columns` (decoded or generated columns, before polars) and `Profile`.

Nothing here imports the loader, the query core or any UI: the reader, the writer, the
generator and the query core all build on these types.
"""
