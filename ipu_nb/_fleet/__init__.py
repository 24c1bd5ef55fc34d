"""Fleets of profiles: one query or comparison over many, on local processes or a Dask cluster, and Parquet datasets.

Modules: `sources` (which files), `walk` (glob patterns, no directory symlink followed
under ``**``), `files` (what a path is, looked at before anything opens it), `labels`
(sidecars, file-name patterns, mappings), `tasks` (what a worker does for one profile),
`runner` (processes, Dask, progress, dead workers), `results` (tidy frames),
`comparison` (`FleetComparison`, baselines), `gate` (the regression rule of
``profile-check``), `errors`, and `fleet` (`Fleet`). Every answer comes from the query
core (`ipu_nb.query`, `ipu_nb.compare`) run on one profile at a time; the Parquet dataset
layout (`scan_parquet`) and the label values it holds are the writers' (`ipu_nb._io`).

The package imports nothing itself, so reaching one module loads only what it needs.
"""
