"""The Altair charts behind the public facade `ipu_nb.charts`.

`common` holds the shared inputs (profile or result, sizes, kind colours, field names),
`data` the per-chart frames, `groups` and `samples` the chart builders, `export` the
spec, PNG/SVG/HTML saving.
"""
