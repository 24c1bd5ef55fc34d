"""The query core: `profile-query` and `profile-inspect` as lazy polars plans (docs/reference/query.md).

`flags` holds `Query` and the validation of its flags; `index` the per-profile lookups
(`ProfileIndex`); `predicate` the one predicate builder (the filtered frame,
`filter_mask`, `filter_samples` and an area's `window_samples`); `window` the overlap
and clipping rules of a window; `intervals` the union-of-intervals rule; `plan` the aggregation; `result`
`query` and `QueryResult`; `render` the runtime's text and JSON bytes; `inspect`
`profile-inspect`. This package imports no widget, IPython or Altair.
"""

from .._model.vocabulary import GROUP_BYS, KINDS, MISSING, NO_KERNEL, SORT_BYS
from .flags import FILTERS, Query, QueryError, filters_only, make_query, parse_metadata_filter, require_metadata_key
from .index import ProfileIndex, index_of
from .inspect import inspect_operations
from .predicate import filter_mask, filter_samples, filtered, window_samples
from .result import QueryResult, query

__all__ = [
    "FILTERS",
    "GROUP_BYS",
    "KINDS",
    "MISSING",
    "NO_KERNEL",
    "SORT_BYS",
    "ProfileIndex",
    "Query",
    "QueryError",
    "QueryResult",
    "filter_mask",
    "filter_samples",
    "filtered",
    "filters_only",
    "index_of",
    "inspect_operations",
    "make_query",
    "parse_metadata_filter",
    "query",
    "require_metadata_key",
    "window_samples",
]
