"""The Altair charts behind the public facade `ipu_nb.charts`.

`common` holds the shared inputs (profile or result, sizes, kind colours, field names),
`data` the per-chart frames, `grid` the physical tile grid every heat-map draws on,
`groups` and `samples` the chart builders of one profile, `deltas` those of two profiles
compared, `steps` those of the superstep analytics, `spec` the spec every export and
report takes (saving a chart to a file is `ipu_nb._report.export`'s).
"""
