"""`Query`, one `profile-query` invocation, and the rules that validate its flags (docs/reference/query.md).

`make_query` is the one door: the CLI, the magics, the widget's `filters` trait, the
charts and the analyses all build their `Query` through it, so every surface accepts
and refuses the same values with the same `QueryError`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._model.vocabulary import GROUP_BYS, KINDS, SORT_BYS, GroupBy, SortBy

__all__ = [
    "FILTERS",
    "Query",
    "QueryError",
    "filters_only",
    "make_query",
    "parse_metadata_filter",
    "require_metadata_key",
]

_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1

#: The `Query` fields that select samples; the others (grouping, sorting, limits, clipping) shape a report.
#: The predicate builder (`ipu_nb._query.predicate`) turns exactly these into row predicates.
#: ``operation`` and ``window`` are ipu-nb extensions (docs/reference/query.md#ipu-nb-extensions).
FILTERS: tuple[str, ...] = (
    "kind",
    "kernel",
    "operation",
    "operation_contains",
    "tiles",
    "phases",
    "metadata",
    "at",
    "window",
)


class QueryError(ValueError):
    """A query that cannot run: a bad flag value (`usage` True) or a missing requirement."""

    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class Query:
    """One `profile-query` invocation; field names follow the flags (docs/reference/query.md#command-line).

    ``metadata`` holds ``(name, value)`` pairs, value None meaning "has an entry
    with that name". ``limit`` 0 means unlimited. Values use the CLI's spelling
    (``sort_by="phase-cycles"``), so a UI state and a command line map one to one.
    The ipu-nb extensions: ``operation`` (exact operation names, any of them),
    ``window`` (``(start, end)``: samples overlapping that offset range) and
    ``clip`` (aggregate only the part of each sample inside the window).

    >>> q = Query(group_by="tile", limit=5)
    >>> q.sort_by, q.limit, q.tiles
    ('phase-cycles', 5, ())
    """

    group_by: GroupBy = "kernel"
    sort_by: SortBy = "phase-cycles"
    kind: str | None = None
    kernel: str | None = None
    operation_contains: str | None = None
    tiles: tuple[int, ...] = field(default=())
    phases: tuple[int, ...] = field(default=())
    metadata: tuple[tuple[str, str | None], ...] = field(default=())
    metadata_key: str | None = None
    at: int | None = None
    limit: int = 20
    samples: int = 0
    operation: tuple[str, ...] = field(default=())
    window: tuple[int, int] | None = None
    clip: bool = False


def _int(value: Any, what: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise QueryError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if not 0 <= value <= maximum:
        raise QueryError(f"{what} must be between 0 and {maximum}, got {value}")
    return value


def _listed(value: Any, error: str) -> list[Any]:
    """The items of a list-like flag value; a string, bytes or anything that does not iterate raises ``error``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise QueryError(error)
    try:
        return list(value)
    except TypeError:  # iterable in type only, like a 0-d numpy array
        raise QueryError(error) from None


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if isinstance(value, (int, np.integer)):
        return (_int(value, what, _U32_MAX),)
    items = _listed(value, f"{what} must be an integer or a list of integers, got {value!r}")
    return tuple(_int(v, what, _U32_MAX) for v in items)


def parse_metadata_filter(text: str) -> tuple[str, str | None]:
    """``"name"`` or ``"name=value"`` (split at the first ``=``) as a filter pair.

    >>> parse_metadata_filter("layer=3=a")
    ('layer', '3=a')
    >>> parse_metadata_filter("active")
    ('active', None)
    """
    name, eq, value = text.partition("=")
    if not name:
        raise QueryError(f"--metadata needs a NAME or NAME=VALUE with a non-empty NAME, got {text!r}")
    return name, (value if eq else None)


def _metadata(value: Any) -> tuple[tuple[str, str | None], ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (parse_metadata_filter(value),)
    if isinstance(value, Mapping):
        value = list(value.items())
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and not isinstance(value[1], tuple):
        value = [value]
    items = _listed(
        value, f"metadata must be 'name', 'name=value', a (name, value) pair or a list of them, got {value!r}"
    )
    pairs = []
    for item in items:
        if isinstance(item, str):
            pairs.append(parse_metadata_filter(item))
            continue
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise QueryError(f"metadata filter must be 'name', 'name=value' or (name, value), got {item!r}")
        name, val = item
        if not isinstance(name, str) or not (val is None or isinstance(val, str)):
            raise QueryError(f"metadata filter names and values must be strings, got {item!r}")
        if not name:
            raise QueryError("metadata filter name must not be empty")
        pairs.append((name, val))
    return tuple(pairs)


def _strs(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    error = f"{what} must be a string or a list of strings, got {value!r}"
    if isinstance(value, Mapping):
        raise QueryError(error)
    items = tuple(_listed(value, error))
    if not all(isinstance(v, str) for v in items):
        raise QueryError(error)
    return items


def _window(value: Any) -> tuple[int, int] | None:
    """A window as ``(start, end)`` offsets, ``start < end`` (docs/reference/query.md#window)."""
    if value is None:
        return None
    error = f"window must be a (start, end) pair of integers, got {value!r}"
    items = [] if isinstance(value, Mapping) else _listed(value, error)
    if len(items) != 2:
        raise QueryError(error)
    start, end = _int(items[0], "window start", _U64_MAX), _int(items[1], "window end", _U64_MAX)
    if start >= end:
        raise QueryError(f"window start must be less than its end, got ({start}, {end})")
    return start, end


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise QueryError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def _optional_str(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise QueryError(f"{what} must be a string, got {value!r}")
    return value


def _choice(value: Any, what: str, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in choices:
        raise QueryError(f"{what} must be one of {', '.join(choices)}; got {value!r}")


def _validated(q: Query) -> Query:
    """Check every field and normalise convenient spellings to the canonical ones."""
    _choice(q.group_by, "group_by", GROUP_BYS)
    _choice(q.sort_by, "sort_by", SORT_BYS)
    if q.kind is not None:
        _choice(q.kind, "kind", KINDS)
    window = _window(q.window)
    clip = _bool(q.clip, "clip")
    if clip and window is None:
        raise QueryError("clip requires a window: window=(start, end) (--clip requires --window START:END)")
    return dataclasses.replace(
        q,
        kernel=_optional_str(q.kernel, "kernel"),
        operation=_strs(q.operation, "operation"),
        operation_contains=_optional_str(q.operation_contains, "operation_contains"),
        metadata_key=_optional_str(q.metadata_key, "metadata_key"),
        tiles=_ints(q.tiles, "tiles"),
        phases=_ints(q.phases, "phases"),
        metadata=_metadata(q.metadata),
        at=None if q.at is None else _int(q.at, "at", _U64_MAX),
        limit=_int(q.limit, "limit", _U64_MAX),
        samples=_int(q.samples, "samples", _U64_MAX),
        window=window,
        clip=clip,
    )


def make_query(query: Query | None = None, **flags: Any) -> Query:
    """A validated `Query`: ``query`` (default `Query()`) with ``flags`` overriding its fields.

    Flags accept convenient forms: ``tiles=5`` or ``[5, 9]``, ``metadata="name=value"``,
    ``["a", "b=c"]`` or ``[("a", None)]``, ``operation="name"`` or ``["a", "b"]``,
    ``window=(start, end)`` or ``[start, end]``.

    Raises
    ------
    QueryError
        An unknown flag name or a bad value (``usage`` True), naming the flag.

    Examples
    --------
    >>> make_query(tiles=5, metadata=["layer=3", "active"]).metadata
    (('layer', '3'), ('active', None))
    >>> make_query(metadata=5)
    Traceback (most recent call last):
    ...
    ipu_nb._query.flags.QueryError: metadata must be 'name', 'name=value', a (name, value) pair or a list of them, got 5
    """
    if query is not None and not isinstance(query, Query):
        raise QueryError(f"query must be an ipu_nb.Query, got {type(query).__name__}")
    names = {f.name for f in dataclasses.fields(Query)}
    unknown = sorted(set(flags) - names)
    if unknown:
        raise QueryError(f"unknown query flag {unknown[0]!r}; expected one of {', '.join(sorted(names))}")
    return _validated(dataclasses.replace(query or Query(), **flags))


def filters_only(query: Query | None = None, **filters: Any) -> Query:
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


def require_metadata_key(q: Query) -> None:
    """`QueryError` (not a usage error: the runtime's exit 1) for ``group_by="metadata"`` without a key."""
    if q.group_by == "metadata" and q.metadata_key is None:
        raise QueryError("--group-by metadata requires --metadata-key NAME", usage=False)
