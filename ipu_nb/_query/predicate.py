"""The predicate builder: the one place a `Query`'s filters become a row selection (docs/reference/query.md#filters).

`row_predicates` turns each filter into a polars expression or, where a scan of another
frame is cheaper (metadata), a per-row boolean array. Both views of the selection are
built from that one list: `filtered` (a lazy frame, for the query plan and the analyses)
and `filter_mask` (a boolean array, for the widget and the charts). A new filter is one
more entry in `row_predicates`, and every surface sees it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .flags import Query, make_query
from .index import index_of

if TYPE_CHECKING:
    from .._model.profile import Profile

__all__ = ["Predicate", "filter_mask", "filter_samples", "filtered", "row_predicates"]

#: A filter over ``profile.samples``: an expression, or a boolean array with one value per row.
Predicate = pl.Expr | np.ndarray


def _operation_contains(profile: Profile, text: str) -> pl.Expr:
    """``operation`` contains `text` (case-sensitive), compared by category code where the column has codes."""
    if profile.samples.schema["operation"] != pl.Categorical():
        return pl.col("operation").cast(pl.String).str.contains(text, literal=True)
    names = index_of(profile).distinct("operation")
    hits = names.filter(names.cast(pl.String).str.contains(text, literal=True))
    return pl.col("operation").to_physical().is_in(hits.to_physical().implode())


def row_predicates(profile: Profile, q: Query) -> list[Predicate]:
    """One predicate per filter of `q` that is set, all to be ANDed (an empty list selects every sample)."""
    out: list[Predicate] = []
    if q.metadata:
        out.append(index_of(profile).metadata_mask(q.metadata))
    if q.kind is not None:
        out.append(pl.col("kind") == q.kind)
    if q.kernel is not None:
        out.append((pl.col("kernel") == q.kernel).fill_null(False))
    if q.operation_contains is not None:
        out.append(_operation_contains(profile, q.operation_contains))
    if q.tiles:
        out.append(pl.col("tile").is_in(pl.Series(q.tiles, dtype=pl.UInt32).implode()))
    if q.phases:
        out.append(pl.col("phase").is_in(pl.Series(q.phases, dtype=pl.UInt32).implode()))
    if q.at is not None:
        at = pl.lit(q.at, dtype=pl.UInt64)
        out.append((pl.col("offset") <= at) & (at < pl.col("offset") + pl.col("duration").cast(pl.UInt64)))
    return out


def filtered(profile: Profile, q: Query, extra: tuple[pl.Series, ...] = ()) -> pl.LazyFrame:
    """The samples (plus `extra` per-row columns) matching every filter of `q`, in file order."""
    predicates = row_predicates(profile, q)
    masks = [pl.Series(f"_mask{i}", p) for i, p in enumerate(predicates) if isinstance(p, np.ndarray)]
    exprs = [p for p in predicates if isinstance(p, pl.Expr)] + [pl.col(m.name) for m in masks]
    base = profile.samples
    if extra or masks:
        base = base.with_columns([*extra, *masks])
    lf = base.lazy()
    if exprs:
        lf = lf.filter(*exprs)
    return lf.drop([m.name for m in masks]) if masks else lf


def filter_mask(profile: Profile, query: Query | None = None, **flags: Any) -> np.ndarray:
    """Per row of ``profile.samples``: whether the sample matches the query's filters.

    The same selection as `filtered` (and so as ``profile.filter``), as a boolean array,
    cheap to recompute on every change of a widget's filters. Grouping, sorting and
    limits are ignored. `ProfileIndex.by_id` re-indexes it by sample id.

    >>> mask = filter_mask(profile, kind="compute")
    >>> int(mask.sum()) == profile.filter(kind="compute").height
    True
    """
    q = make_query(query, **flags)
    height = profile.samples.height
    mask = np.ones(height, dtype=bool)
    predicates = row_predicates(profile, q)
    exprs = [p for p in predicates if isinstance(p, pl.Expr)]
    if exprs:
        mask &= profile.samples.select(pl.all_horizontal(exprs).alias("m")).to_series().to_numpy()
    for p in predicates:
        if isinstance(p, np.ndarray):
            mask &= p
    return mask


def filter_samples(profile: Profile, query: Query | None = None, **flags: Any) -> pl.DataFrame:
    """The samples matching the query's filters, in file order, with their metadata.

    Only the filters count (kind, kernel, operation_contains, tiles, phases, metadata,
    at); grouping, sorting and limits are ignored. The result has every
    ``profile.samples`` column plus ``metadata``: a list of {name, value} in stored order.

    >>> filter_samples(profile, tiles=[0], kind="compute").columns[-1]
    'metadata'
    """
    q = make_query(query, **flags)
    matched = filtered(profile, q).collect()
    ids = matched.get_column("sample").to_numpy()
    return matched.with_columns(index_of(profile).metadata_lists(ids, strings=False))
