"""The query core: `profile-query` and `profile-inspect` as lazy polars plans (docs/reference/query.md).

`keywords` declares what each query keyword accepts (`QueryFlags` and its parts);
`flags` holds `Query` and the validation of its flags; `signature` the signatures
`help()` shows for them; `filters_codec` the filters as the widget holds them; `predicate`
the one predicate builder (the filtered frame, `filter_mask`, `filter_samples` and an
area's `window_samples`, through the per-profile lookups of `ipu_nb._model.index`); `window`
the overlap and clipping rules of a window; `intervals` the union-of-intervals rule; `plan`
the aggregation; `result` `query` and `QueryResult` (`repr_html` its notebook repr), and the newest
runtime's `HeadQueryResult` from `head` (``semantics="head"``, docs/reference/head.md);
`render` the runtime's text and JSON bytes; `inspect` `profile-inspect`. This package
imports no widget, IPython or Altair, and nothing above it in the layers (pyproject.toml).
"""

from .._model.index import ProfileIndex, index_of
from .._model.vocabulary import GROUP_BYS, KINDS, MISSING, NO_KERNEL, SORT_BYS
from .flags import (
    FILTER_FLAGS,
    FILTERS,
    QUERY_FLAGS,
    Query,
    QueryError,
    QueryWarning,
    check_keywords,
    check_metadata_key,
    filters_only,
    make_query,
    parse_metadata_filter,
)
from .inspect import inspect_operations
from .keywords import FilterFlags, Filters, QueryFlags
from .predicate import filter_mask, filter_samples, filtered, window_samples
from .result import HeadQueryResult, QueryResult, head_query, query

__all__ = [
    "FILTERS",
    "FILTER_FLAGS",
    "GROUP_BYS",
    "KINDS",
    "MISSING",
    "NO_KERNEL",
    "QUERY_FLAGS",
    "SORT_BYS",
    "FilterFlags",
    "Filters",
    "HeadQueryResult",
    "ProfileIndex",
    "Query",
    "QueryError",
    "QueryFlags",
    "QueryResult",
    "QueryWarning",
    "check_keywords",
    "check_metadata_key",
    "filter_mask",
    "filter_samples",
    "filtered",
    "filters_only",
    "head_query",
    "index_of",
    "inspect_operations",
    "make_query",
    "parse_metadata_filter",
    "query",
    "window_samples",
]
