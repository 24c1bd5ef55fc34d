"""A profile to a trace or a Parquet dataset: the query core picks the samples, the I/O layer writes them.

`Profile.to_trace`, `Profile.to_parquet` and ``ipu-nb export-trace`` come here, so a
query's filters and a profile's labels are applied the same way by all of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io.labels import checked
from .._io.parquet import default_label, write_profile
from .._io.trace import Written, write_trace
from .._query import filter_mask

if TYPE_CHECKING:
    from .._model.profile import ProfileData
    from .._query import Query

__all__ = ["export_parquet", "export_trace"]


def export_trace(
    profile: ProfileData, path: str | os.PathLike[str], query: Query | None = None, *, progress: bool | None = None
) -> Written:
    """Write the samples matching `query`'s filters (all without one) as a trace (`Profile.to_trace`)."""
    mask = None if query is None else filter_mask(profile, query)
    return write_trace(profile, path, mask, progress=progress)


def export_parquet(
    profile: ProfileData,
    folder: str | os.PathLike[str],
    label: str | None = None,
    *,
    labels: Mapping[str, Any] | None = None,
) -> Path:
    """Write `profile` into the dataset at `folder` under `label` (`Profile.to_parquet`); returns the folder."""
    if label is None:
        if profile.path is None:
            raise ValueError("label= is required: this profile was not read from a file")
        label = default_label(Path(profile.path.name))
    root = Path(folder)
    write_profile(profile, root, label, checked(labels or {}, "labels"))
    return root
