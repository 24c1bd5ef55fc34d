"""The widget's filters: validation of the `filters` trait, its `Query`, and a fast boolean mask.

`normalise_filters` checks each value with the query core's own flag rules, so every
state the widget accepts is a valid `Query`. `filter_mask` selects exactly the samples
`ipu_nb.query` would (tested against `Profile.filter`), as a per-sample-id array the
timeline greys by.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl
import traitlets

from .._model.profile import Profile
from .._query import Query, QueryError, _metadata_mask, make_query

__all__ = ["FILTER_KEYS", "empty_filters", "filter_mask", "metadata_pairs", "normalise_filters", "query_from_state"]

FILTER_KEYS = ("kind", "kernel", "operation_contains", "tiles", "phases", "metadata")


def empty_filters() -> dict[str, Any]:
    return {"kind": None, "kernel": None, "operation_contains": None, "tiles": [], "phases": [], "metadata": []}


def normalise_filters(value: Any) -> dict[str, Any]:
    """Validate a (possibly partial) filters dict and fill in the missing keys.

    Metadata filters become ``[name, value]`` pairs (value None: "has an entry named
    name"), the form the front end sends and shows; ``"name"`` / ``"name=value"``
    strings are accepted for convenience and split at the first ``=``, as the CLI does,
    so a name containing ``=`` needs the pair form. Tiles and phases become sorted
    lists without repeats; an empty ``kind`` or ``operation_contains`` means no filter.

    Raises
    ------
    traitlets.TraitError
        Naming the key and what it must be.
    """
    if value is None:
        return empty_filters()
    if not isinstance(value, Mapping):
        raise traitlets.TraitError(f"filters must be a dict with keys {', '.join(FILTER_KEYS)}; got {value!r}")
    unknown = sorted(map(repr, set(value) - set(FILTER_KEYS)))
    if unknown:
        raise traitlets.TraitError(
            f"unknown filters key(s) {', '.join(unknown)}; expected some of {', '.join(FILTER_KEYS)}"
        )
    out = empty_filters()
    for key in FILTER_KEYS:
        v = value.get(key)
        if key in ("kind", "operation_contains") and v == "":
            v = None
        if key == "metadata" and not (v is None or isinstance(v, (str, list, tuple, Mapping))):
            raise traitlets.TraitError(
                f"filters['metadata'] must be a list of [name, value] pairs (value None: any value) or"
                f" 'name' / 'name=value' strings, got {type(v).__name__} {v!r}"
            )
        try:
            checked = getattr(make_query(**{key: v}), key)
        except (QueryError, TypeError, ValueError) as error:
            raise traitlets.TraitError(f"filters[{key!r}]: {error}") from None
        if key in ("tiles", "phases"):
            checked = sorted(set(checked))
        elif key == "metadata":
            checked = [list(pair) for pair in dict.fromkeys(checked)]
        out[key] = checked
    return out


def metadata_pairs(filters: dict[str, Any]) -> tuple[tuple[str, str | None], ...]:
    """The metadata filters of normalised `filters` as the query core's ``(name, value)`` tuples."""
    return tuple((name, value) for name, value in filters["metadata"])


def query_from_state(filters: dict[str, Any], group_by: str, metadata_key: str | None) -> Query:
    """The `Query` a widget state stands for (without ``at``)."""
    f = normalise_filters(filters)
    return make_query(group_by=group_by, metadata_key=metadata_key, **{**f, "metadata": metadata_pairs(f)})


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
        rows = rows & _metadata_mask(profile, metadata_pairs(f))
    return _row_mask_to_ids(profile, rows)
