"""The predicate builder: the one place a `Query`'s filters become a row selection (docs/reference/query.md#filters).

`row_predicates` turns each filter into a polars expression or, where a scan of another
frame is cheaper (metadata), a per-row boolean array. Both views of the selection are
built from that one list: `filtered` (a lazy frame, for the query plan and the analyses)
and `filter_mask` (a boolean array, for the widget and the charts). A new filter is one
more entry in `row_predicates`, and every surface sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._model.index import index_of
from .flags import FILTER_FLAGS, FILTERS, Query, QueryError, check_keywords, filters_only, make_query
from .window import clipped_cycles, overlaps

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._model.profile import ProfileData
    from .keywords import FilterFlags, Filters

__all__ = ["Predicate", "filter_mask", "filter_samples", "filtered", "row_predicates", "window_samples"]

#: A filter over ``profile.samples``: an expression, or a boolean array with one value per row.
Predicate = pl.Expr | np.ndarray


def _operation_where(profile: ProfileData, keep: Callable[[Any], Any]) -> pl.Expr:
    """``operation`` is a name `keep` selects (a boolean per name), compared by category code where it has codes."""
    if profile.samples.schema["operation"] != pl.Categorical():
        expr: pl.Expr = keep(pl.col("operation").cast(pl.String))
        return expr
    names = index_of(profile).distinct("operation")
    hits = names.filter(keep(names.cast(pl.String)))
    return pl.col("operation").to_physical().is_in(hits.to_physical().implode())


def _in_set(column: str, values: tuple[int, ...]) -> pl.Expr:
    """The u32 `column` is one of `values`."""
    return pl.col(column).is_in(pl.Series(values, dtype=pl.UInt32).implode())


def row_predicates(profile: ProfileData, q: Query) -> list[Predicate]:
    """One predicate per filter of `q` that is set, all to be ANDed (an empty list selects every sample)."""
    out: list[Predicate] = []
    if q.metadata:
        out.append(index_of(profile).metadata_mask(q.metadata))
    if q.kind is not None:
        out.append(pl.col("kind") == q.kind)
    if q.kernel is not None:
        out.append((pl.col("kernel") == q.kernel).fill_null(False))
    if q.operation:
        names = pl.Series(q.operation, dtype=pl.String).implode()
        out.append(_operation_where(profile, lambda ops: ops.is_in(names)))
    if q.operation_contains is not None:
        text = q.operation_contains
        out.append(_operation_where(profile, lambda ops: ops.str.contains(text, literal=True)))
    if q.tiles:
        out.append(_in_set("tile", q.tiles))
    if q.phases:
        out.append(_in_set("phase", q.phases))
    if q.at is not None:
        at = pl.lit(q.at, dtype=pl.UInt64)
        out.append((pl.col("offset") <= at) & (at < pl.col("offset") + pl.col("duration").cast(pl.UInt64)))
    if q.window is not None:
        out.append(overlaps(q.window))
    return out


def filtered(profile: ProfileData, q: Query, extra: tuple[pl.Series, ...] = ()) -> pl.LazyFrame:
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


def filter_mask(profile: ProfileData, query: Query | None = None, **filters: Unpack[Filters]) -> np.ndarray:
    """Per row of ``profile.samples``: whether the sample matches the query's filters.

    The same selection as `filtered` (and so as ``profile.filter``), as a boolean array,
    cheap to recompute on every change of a widget's filters. Grouping, sorting and
    limits are ignored. `ProfileIndex.by_id` re-indexes it by sample id.

    >>> mask = filter_mask(profile, kind="compute")
    >>> int(mask.sum()) == profile.filter(kind="compute").height
    True
    """
    check_keywords(filters, FILTERS, "filter")
    q = make_query(query, **filters)
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


def filter_samples(profile: ProfileData, query: Query | None = None, **flags: Unpack[FilterFlags]) -> pl.DataFrame:
    """The samples matching the query's filters, in file order, with their metadata.

    Only the filters count (`FILTERS`: kind, kernel, operation, operation_contains,
    tiles, phases, metadata, at, window); grouping, sorting and limits are ignored. The
    result has every ``profile.samples`` column plus ``metadata``: a list of {name,
    value} in stored order. With ``clip=True`` (which needs a window) a
    ``clipped_cycles`` column, each sample's cycles inside the window, comes before
    ``metadata``.

    >>> filter_samples(profile, tiles=[0], kind="compute").columns[-1]
    'metadata'
    """
    check_keywords(flags, FILTER_FLAGS, "filter")
    q = make_query(query, **flags)
    matched = filtered(profile, q)
    if q.clip:
        assert q.window is not None  # make_query refuses clip without a window
        matched = matched.with_columns(clipped_cycles(q.window))
    frame = matched.collect()
    ids = frame.get_column("sample").to_numpy()
    return frame.with_columns(index_of(profile).metadata_lists(ids, strings=False))


def window_samples(
    profile: ProfileData, query: Query | None, window: tuple[int, int], tiles: Iterable[int] | None = None
) -> pl.DataFrame:
    """The samples matching `query`'s filters that overlap `window` on `tiles`, with their cycles inside it.

    What an area selection holds: the rows of ``profile.samples`` (file order, every
    column) plus ``clipped_cycles`` (Int64), each sample's overlap with the window.
    `tiles` are physical tile ids; None means every tile, an empty list none. Both
    narrow the query rather than replace its filters: a window or tiles filter of
    `query` still holds as well. Grouping, sorting, limits and ``clip`` of `query`
    are ignored. No metadata is gathered, so it stays cheap for large areas.

    Raises
    ------
    QueryError
        A bad window or tile id, or a bad filter in `query`.

    >>> window_samples(profile, None, (0, 1000), tiles=[0]).columns[-1]
    'clipped_cycles'
    """
    area = make_query(window=window).window
    if area is None:
        raise QueryError("window_samples needs a window: a (start, end) pair of integers, got None")
    q = filters_only(query)
    lf = filtered(profile, q).filter(overlaps(area))
    if tiles is not None:
        picked = make_query(tiles=tiles).tiles
        lf = lf.filter(_in_set("tile", picked)) if picked else lf.head(0)
    return lf.with_columns(clipped_cycles(area)).collect()
