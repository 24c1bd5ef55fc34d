"""The samples a superstep analysis reads: the query core's filters, applied by the query core.

Every function of this package takes filters exactly as `ipu_nb.query` does and gets its
samples here, so a superstep table and a `query` with the same flags see the same samples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from .._query import FILTERS, Query, filtered, filters_only

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile
    from .._query import Filters

__all__ = ["FILTERS", "filter_query", "matching"]

#: The columns the analyses read, as `Profile.samples` holds them.
_COLUMNS = ("sample", "tile", "tile_index", "phase", "epoch", "kind", "kernel", "operation", "offset", "duration")


def filter_query(query: Query | None = None, **filters: Unpack[Filters]) -> Query:
    """A validated `Query` holding only the filters of ``query`` and ``filters`` (`ipu_nb._query.filters_only`)."""
    return filters_only(query, **filters)


def matching(profile: Profile, q: Query) -> pl.LazyFrame:
    """The samples matching `q`'s filters, in file order, with the columns the analyses read."""
    return filtered(profile, q).select(_COLUMNS)
