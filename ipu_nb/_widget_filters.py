"""The widget's filters: validation of the `filters` trait, its `Query`, and a fast boolean mask.

`filter_mask` selects exactly the samples `ipu_nb.query` would (tested against
`Profile.filter`), as a per-sample-id array the timeline greys by.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import traitlets

from ._profile import Profile
from ._query import KINDS, Query, _metadata_mask

__all__ = ["FILTER_KEYS", "empty_filters", "filter_mask", "normalise_filters", "parse_metadata", "query_from_state"]

FILTER_KEYS = ("kind", "kernel", "operation_contains", "tiles", "phases", "metadata")


def empty_filters() -> dict[str, Any]:
    return {"kind": None, "kernel": None, "operation_contains": None, "tiles": [], "phases": [], "metadata": []}


def parse_metadata(entry: Any) -> tuple[str, str | None]:
    """``"name"`` or ``"name=value"`` (split at the first ``=``) to a Query pair."""
    if not isinstance(entry, str):
        raise traitlets.TraitError(f"filters['metadata'] entries must be strings like 'name=value', got {entry!r}")
    name, sep, value = entry.partition("=")
    if not name:
        raise traitlets.TraitError(
            f"filters['metadata'] entry {entry!r} has an empty name; write 'name' or 'name=value'"
        )
    return name, (value if sep else None)


def normalise_filters(value: Any) -> dict[str, Any]:
    """Validate a (possibly partial) filters dict and fill in the missing keys."""
    if value is None:
        return empty_filters()
    if not isinstance(value, dict):
        raise traitlets.TraitError(f"filters must be a dict with keys {', '.join(FILTER_KEYS)}; got {value!r}")
    unknown = sorted(set(value) - set(FILTER_KEYS))
    if unknown:
        raise traitlets.TraitError(f"unknown filters key(s) {unknown}; expected some of {', '.join(FILTER_KEYS)}")
    out = empty_filters()
    for key in ("kind", "kernel", "operation_contains"):
        v = value.get(key)
        if v is not None and not isinstance(v, str):
            raise traitlets.TraitError(f"filters[{key!r}] must be a string or None, got {v!r}")
        out[key] = v if v != "" or key == "kernel" else None
    if out["kind"] is not None and out["kind"] not in KINDS:
        raise traitlets.TraitError(f"filters['kind'] must be one of {', '.join(KINDS)}, got {out['kind']!r}")
    for key in ("tiles", "phases"):
        items = value.get(key) or []
        if isinstance(items, (str, bytes)) or not all(isinstance(i, int) and i >= 0 for i in items):
            raise traitlets.TraitError(f"filters[{key!r}] must be a list of non-negative ints, got {items!r}")
        out[key] = sorted({int(i) for i in items})
    metadata = value.get("metadata") or []
    if isinstance(metadata, str):
        metadata = [metadata]
    for entry in metadata:
        parse_metadata(entry)
    out["metadata"] = list(dict.fromkeys(metadata))
    return out


def query_from_state(filters: dict[str, Any], group_by: str, metadata_key: str | None) -> Query:
    """The `Query` a widget state stands for (without ``at``)."""
    f = normalise_filters(filters)
    return Query(
        group_by=group_by,  # type: ignore[arg-type]
        metadata_key=metadata_key,
        kind=f["kind"],
        kernel=f["kernel"],
        operation_contains=f["operation_contains"],
        tiles=tuple(f["tiles"]),
        phases=tuple(f["phases"]),
        metadata=tuple(parse_metadata(m) for m in f["metadata"]),
    )


def _row_mask_to_ids(profile: Profile, rows: np.ndarray) -> np.ndarray:
    """A per-row mask re-indexed by sample id (the identity for loaded profiles)."""
    ids = profile.samples.get_column("sample").to_numpy()
    if len(ids) and (ids[-1] != len(ids) - 1 or not np.array_equal(ids, np.arange(len(ids)))):
        out = np.zeros(int(ids.max()) + 1, dtype=bool)
        out[ids] = rows
        return out
    return rows


def filter_mask(profile: Profile, filters: dict[str, Any]) -> np.ndarray:
    """Per sample id, whether it matches ``filters`` (SPEC §3 semantics, no ``at``).

    The same set as ``profile.filter(...)`` (tested), but a boolean array, cheap to
    recompute on every filter change: categorical columns are compared by code.
    """
    f = normalise_filters(filters)
    samples = profile.samples
    expr = pl.lit(True)
    if f["kind"] is not None:
        expr &= pl.col("kind") == f["kind"]
    if f["kernel"] is not None:
        expr &= pl.col("kernel") == f["kernel"]
    if f["operation_contains"] is not None:
        ops = samples.select(pl.col("operation").unique())
        hits = ops.filter(pl.col("operation").cast(pl.String).str.contains(f["operation_contains"], literal=True))
        expr &= pl.col("operation").to_physical().is_in(hits.get_column("operation").to_physical().implode())
    if f["tiles"]:
        expr &= pl.col("tile").is_in(f["tiles"])
    if f["phases"]:
        expr &= pl.col("phase").is_in(f["phases"])
    rows = samples.select(expr.alias("m")).get_column("m").to_numpy()
    if rows.shape != (samples.height,):
        rows = np.broadcast_to(rows, (samples.height,)).copy()
    if f["metadata"]:
        rows = rows & _metadata_mask(profile, tuple(parse_metadata(m) for m in f["metadata"]))
    return _row_mask_to_ids(profile, rows)
