"""Fleets of profiles: one query or comparison over many, on local processes or a Dask cluster, and Parquet datasets.

Modules: `sources` (which files), `walk` (glob patterns, no directory symlink followed
under ``**``), `files` (what a path is, looked at before anything opens it), `text` (file
names as text a frame holds), `labels`
(sidecars, file-name patterns, mappings), `tasks` (what a worker does for one profile),
`runner` (processes, Dask, progress, dead workers), `results` (tidy frames),
`comparison` (`FleetComparison`, baselines), `parquet` (the dataset layout,
`scan_parquet`), `gate` (the regression rule of ``profile-check``), `errors`, and
`fleet` (`Fleet`). Every answer comes from the query
core (`ipu_nb.query`, `ipu_nb.compare`) run on one profile at a time.

The package imports nothing itself: `Profile.to_parquet` reaches `labels` and `parquet`
without pulling in `fleet` (and through it the compare layer above the model).
"""
