"""Fleets of profiles: one query or comparison over many, on local processes or a Dask cluster, and Parquet datasets.

Modules: `sources` (which files), `labels` (sidecars, file-name patterns, mappings),
`tasks` (what a worker does for one profile), `runner` (processes, Dask, progress,
dead workers), `results` (tidy frames), `comparison` (`FleetComparison`, baselines),
`parquet` (the dataset layout, `scan_parquet`), `gate` (the regression rule of
``profile-check``), `errors`, and `fleet` (`Fleet`). Every answer comes from the query
core (`ipu_nb.query`, `ipu_nb.compare`) run on one profile at a time.
"""

from __future__ import annotations

from .comparison import FleetComparison
from .errors import FleetError, LabelError
from .fleet import Fleet
from .parquet import ParquetDataset, scan_parquet

__all__ = ["Fleet", "FleetComparison", "FleetError", "LabelError", "ParquetDataset", "scan_parquet"]
