"""The query keywords as typed dictionaries: what each keyword of `ipu_nb.query` and friends accepts.

`Query` (`ipu_nb._query.flags`) holds each flag's canonical value and default; these
`TypedDict`\\ s hold the values a caller may pass for it (``tiles=5`` as well as
``tiles=[5, 9]``). Functions take them as ``**flags: Unpack[QueryFlags]`` (PEP 692), so
mypy and editors check every keyword and its type, and `keyword_signature`
(`ipu_nb._query.signature`) turns the same dictionaries into the signature `help()`
shows. Three levels, each adding to the last:

- `Filters`: the sample filters (`FILTERS`), what the charts and the analyses take
  (`FiltersBesideKind` is the same without ``kind``, for an analysis with a ``kind`` default of its own);
- `FilterFlags`: the filters plus ``clip``, what `Profile.filter` takes;
- `QueryFlags`: every `Query` field (grouping, sorting, limits too), what `query` takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeAlias, TypedDict

from .._model.vocabulary import GroupBy, Kind, SortBy

__all__ = [
    "FILTERS",
    "FILTER_FLAGS",
    "FilterFlags",
    "Filters",
    "FiltersBesideKind",
    "MetadataCondition",
    "MetadataFilter",
    "QueryFlags",
]

#: One metadata condition: ``"NAME"``, ``"NAME=VALUE"`` (split at the first ``=``) or a
#: ``(name, value)`` pair, value None meaning "has an entry named name".
MetadataCondition: TypeAlias = str | tuple[str, str | None]
#: The ``metadata`` keyword: one condition as a string, a list or tuple of conditions
#: (all must hold; a pair only ever inside one: ``[("layer", "3")]``), or a
#: ``{name: value}`` mapping (docs/reference/query.md#metadata-from-python).
MetadataFilter: TypeAlias = str | Sequence[MetadataCondition] | Mapping[str, str | None] | None


class _KindFilter(TypedDict, total=False):
    kind: Kind | None


class FiltersBesideKind(TypedDict, total=False):
    """`Filters` without ``kind``: for analyses whose own ``kind`` keyword has another default."""

    kernel: str | None
    operation: str | Iterable[str] | None
    operation_contains: str | None
    tiles: int | Iterable[int] | None
    phases: int | Iterable[int] | None
    metadata: MetadataFilter
    at: int | None
    window: tuple[int, int] | Sequence[int] | None


class Filters(_KindFilter, FiltersBesideKind, total=False):
    """The sample filters, all ANDed (docs/reference/query.md#filters); ``operation`` and ``window`` are extensions."""


class FilterFlags(Filters, total=False):
    """`Filters` plus ``clip``: cut every sample to the window (docs/reference/query.md#clip)."""

    clip: bool


class QueryFlags(FilterFlags, total=False):
    """Every `Query` field: the filters, ``clip``, and how the report groups, sorts and cuts them."""

    group_by: GroupBy
    metadata_key: str | None
    sort_by: SortBy
    limit: int
    samples: int


#: The `Query` fields that select samples; the others (grouping, sorting, limits, clipping) shape a report.
#: The predicate builder (`ipu_nb._query.predicate`) turns exactly these into row predicates.
#: ``operation`` and ``window`` are ipu-nb extensions (docs/reference/query.md#ipu-nb-extensions).
FILTERS: tuple[str, ...] = tuple(Filters.__annotations__)
#: What `Profile.filter` takes: the filters and ``clip``.
FILTER_FLAGS: tuple[str, ...] = tuple(FilterFlags.__annotations__)
