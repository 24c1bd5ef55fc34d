"""The consistency a `Columns` needs before it is written: lengths that agree, counts that sum, values that fit."""

from __future__ import annotations

import numpy as np

from .._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns

__all__ = ["check_columns"]


def check_columns(c: Columns) -> None:
    """Raise ValueError naming the first inconsistency between the columns."""
    n_tiles = _length(c.tiles, "tiles")
    n = _length(c.start, "start")
    counts = _counts(c.tile_sample_counts, "tile_sample_counts", n_tiles, n, "samples")
    del counts
    for name in ("local_index", "phase", "epoch", "kind", "end", "exchange_event_cycles"):
        if _length(getattr(c, name), name) != n:
            raise ValueError(f"{name} has {len(getattr(c, name))} rows, expected {n} (one per sample)")
    for name in ("operation", "kernel"):
        if len(getattr(c, name).codes) != n:
            raise ValueError(f"{name} has {len(getattr(c, name).codes)} rows, expected {n} (one per sample)")
    n_meta = len(c.metadata_name.codes)
    _counts(c.metadata_counts, "metadata_counts", n, n_meta, "metadata entries")
    if len(c.metadata_value.codes) != n_meta:
        raise ValueError(f"metadata_value has {len(c.metadata_value.codes)} rows but metadata_name has {n_meta}")
    n_act = _length(c.activity_kind, "activity_kind")
    _counts(c.activity_counts, "activity_counts", n, n_act, "activities")
    for name in ("activity_start", "activity_end"):
        if _length(getattr(c, name), name) != n_act:
            raise ValueError(f"{name} has {len(getattr(c, name))} rows, expected {n_act} (one per activity)")
    for name, limit in [
        ("tiles", 1 << 32),
        ("local_index", 1 << 32),
        ("phase", 1 << 32),
        ("epoch", 1 << 32),
        ("start", 1 << 32),
        ("end", 1 << 32),
        ("exchange_event_cycles", 1 << 32),
        ("kind", len(STEP_KINDS)),
        ("activity_kind", len(ACTIVITY_KINDS)),
        ("activity_start", 1 << 32),
        ("activity_end", 1 << 32),
    ]:
        values = getattr(c, name)
        if values.dtype.kind not in "iu":
            raise ValueError(f"{name} must be an integer array, not {values.dtype}")
        if len(values) and (int(values.min()) < 0 or int(values.max()) >= limit):
            raise ValueError(f"{name} has a value outside 0..{limit - 1}")
    if not 0 <= int(c.schema_version) < 1 << 32:
        raise ValueError(f"schema_version {c.schema_version} does not fit in a UInt32")
    if not 0 <= int(c.clock_hz) < 1 << 64:
        raise ValueError(f"clock_hz {c.clock_hz} does not fit in a UInt64")


def _length(values: np.ndarray, name: str) -> int:
    if not isinstance(values, np.ndarray) or values.ndim != 1:
        raise ValueError(f"{name} must be a 1-d numpy array")
    return len(values)


def _counts(counts: np.ndarray, name: str, owners: int, children: int, what: str) -> np.ndarray:
    if _length(counts, name) != owners:
        raise ValueError(f"{name} has {len(counts)} rows, expected {owners}")
    if counts.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer array, not {counts.dtype}")
    if owners and int(counts.min()) < 0:
        raise ValueError(f"{name} has a negative count")
    total = int(counts.sum(dtype=np.int64)) if owners else 0
    if total != children:
        raise ValueError(f"{name} sums to {total} but there are {children} {what}")
    return counts
