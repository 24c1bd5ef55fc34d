"""The samples a superstep analysis reads: the query core's filters, applied by the query core.

Every function of this package takes filters exactly as `ipu_nb.query` does and gets its
samples here, so a superstep table and a `query` with the same flags see the same samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from .._query import Query, QueryError, _filtered, make_query

if TYPE_CHECKING:
    from .._model.profile import Profile

__all__ = ["FILTERS", "filter_query", "matching"]

#: The `Query` fields that select samples; the others (grouping, sorting, limits) shape a report.
FILTERS: tuple[str, ...] = ("kind", "kernel", "operation_contains", "tiles", "phases", "metadata", "at")

#: The columns the analyses read, as `Profile.samples` holds them.
_COLUMNS = ("sample", "tile", "tile_index", "phase", "epoch", "kind", "kernel", "operation", "offset", "duration")


def filter_query(query: Query | None = None, **filters: Any) -> Query:
    """A validated `Query` holding only the filters of ``query`` and ``filters`` (the rest at defaults).

    Raises
    ------
    QueryError
        A keyword that is not a filter (naming the filters), or a bad filter value.
    """
    if query is not None and not isinstance(query, Query):
        raise QueryError(f"query must be an ipu_nb.Query, got {type(query).__name__}")
    extra = sorted(set(filters) - set(FILTERS))
    if extra:
        raise QueryError(f"unknown filter {extra[0]!r}; the filters are {', '.join(FILTERS)}")
    base = {name: getattr(query, name) for name in FILTERS} if query is not None else {}
    return make_query(**{**base, **filters})


def matching(profile: Profile, q: Query) -> pl.LazyFrame:
    """The samples matching `q`'s filters, in file order, with the columns the analyses read."""
    # re-point to the predicate builder after the restructure
    return _filtered(profile, q).select(_COLUMNS)
