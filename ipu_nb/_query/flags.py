"""`Query`, one `profile-query` invocation, and the rules that validate its flags (docs/reference/query.md).

`make_query` is the one door: the CLI, the magics, the widget's `filters` trait, the
charts and the analyses all build their `Query` through it, so every surface accepts
and refuses the same values with the same `QueryError`. Messages name the Python
keyword (``metadata_key``); the few a command line can meet also carry its wording
(``--metadata-key``) as ``cli_message``, which the CLI and ``%ipu_query`` print.
"""

from __future__ import annotations

import dataclasses
import difflib
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .._model.vocabulary import GROUP_BYS, KINDS, SORT_BYS, GroupBy, Kind, SortBy
from .keywords import FILTER_FLAGS, FILTERS, Filters, QueryFlags

if TYPE_CHECKING:
    from types import FrameType

    from typing_extensions import Unpack

__all__ = [
    "FILTERS",
    "FILTER_FLAGS",
    "MAX_METADATA_CONDITIONS",
    "MAX_TEXT",
    "QUERY_FLAGS",
    "Query",
    "QueryError",
    "QueryWarning",
    "check_keywords",
    "check_metadata_key",
    "filters_only",
    "make_query",
    "parse_metadata_filter",
]

_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1
#: The longest text a filter takes (kernel, operation, operation_contains, metadata names and
#: values, metadata_key), in characters: far beyond any name a profile holds, and short enough
#: that every match stays one cheap scan (polars refuses a substring pattern of ~327,000).
MAX_TEXT = 65_536
#: The most ``metadata`` conditions one query takes: each is a term of one pass over the
#: metadata entries, and a sample would need as many entries to meet them all.
MAX_METADATA_CONDITIONS = 1_000


class QueryError(ValueError):
    """A query that cannot run: a bad flag value (`usage` True) or a missing requirement.

    The message names the Python keyword; ``cli_message`` says the same in the command
    line's terms (the message itself when the two read alike).
    """

    def __init__(self, message: str, *, usage: bool = True, cli_message: str | None = None) -> None:
        super().__init__(message)
        self.usage = usage
        self.cli_message = message if cli_message is None else cli_message


class QueryWarning(UserWarning):
    """A query that runs but holds a flag with no effect (``metadata_key`` without metadata grouping)."""

    def __init__(self, message: str, *, cli_message: str) -> None:
        super().__init__(message)
        self.cli_message = cli_message


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
    kind: Kind | None = None
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


def _text(value: Any, what: str, flag: str) -> str:
    """`value`, a string of at most `MAX_TEXT` characters (`flag`: the command line's name for it)."""
    if not isinstance(value, str):
        raise QueryError(f"{what} must be a string, got {value!r}")
    if len(value) > MAX_TEXT:
        raise QueryError(
            f"{what} must be at most {MAX_TEXT} characters, got {len(value)}",
            cli_message=f"{flag} must be at most {MAX_TEXT} characters, got {len(value)}",
        )
    return value


def _condition(name: str, value: str | None) -> tuple[str, str | None]:
    """One metadata condition with its name and value bounded (an empty name is one an entry may have)."""
    _text(name, "metadata name", "--metadata NAME")
    if value is not None:
        _text(value, "metadata value", "--metadata VALUE")
    return name, value


def parse_metadata_filter(text: str) -> tuple[str, str | None]:
    """``"name"`` or ``"name=value"`` (split at the first ``=``) as a filter pair.

    The name may be empty (``"=x"``: an entry named ``""`` with the value ``x``); the
    command line refuses that as ``--metadata`` does (docs/reference/query.md#metadata-filters).

    >>> parse_metadata_filter("layer=3=a")
    ('layer', '3=a')
    >>> parse_metadata_filter("active")
    ('active', None)
    """
    name, eq, value = text.partition("=")
    return _condition(name, value if eq else None)


_METADATA_FORMS = "'NAME', 'NAME=VALUE', a list of them or of (name, value) pairs, or a {name: value} dict"


def _metadata_pair(item: Any) -> tuple[str, str | None]:
    """One condition inside a list: a string, or a (name, value) tuple or list."""
    if isinstance(item, str):
        return parse_metadata_filter(item)
    if not (isinstance(item, (tuple, list)) and len(item) == 2):
        raise QueryError(f"metadata condition must be 'NAME', 'NAME=VALUE' or a (name, value) pair, got {item!r}")
    name, value = item
    if not isinstance(name, str) or not (value is None or isinstance(value, str)):
        raise QueryError(f"metadata (name, value) pair must hold a string and a string or None, got {item!r}")
    return _condition(name, value)


def _refuse_bare_pair(value: tuple[Any, ...] | list[Any]) -> None:
    """Refuse ``(name, value)`` given as the whole ``metadata`` (not inside a list), naming what to write."""
    name, other = value
    pair = f"[{(name, other)!r}]"
    if other is None:  # not two conditions: only the pair reading is left
        raise QueryError(
            f"metadata={value!r}: a list or tuple holds conditions; a (name, value) pair goes inside one: {pair}"
        )
    conditions = [parse_metadata_filter(v) for v in value]
    raise QueryError(
        f"metadata={value!r} is ambiguous: it reads as the entry {name}={other} or as the two conditions "
        f"{name!r} and {other!r}; write {pair} (or {f'{name}={other}'!r}) for the entry, "
        f"or {conditions!r} for the two conditions"
    )


def _metadata(value: Any) -> tuple[tuple[str, str | None], ...]:
    """The ``metadata`` keyword's conditions (docs/reference/query.md#metadata-from-python).

    A string is one condition; a list or tuple is always a sequence of conditions
    (strings or (name, value) pairs), so a pair goes inside one: ``[("layer", "3")]``;
    a mapping is ``{name: value}``. ``("layer", "3")`` on its own reads two ways, the
    pair layer=3 or the names layer and 3, and is refused rather than guessed.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return (parse_metadata_filter(value),)
    if not isinstance(value, (tuple, list, Mapping)):
        raise QueryError(f"metadata must be {_METADATA_FORMS}; got {value!r}")
    if len(value) > MAX_METADATA_CONDITIONS:
        raise QueryError(
            f"metadata holds {len(value)} conditions; at most {MAX_METADATA_CONDITIONS} are allowed",
            cli_message=f"--metadata is given {len(value)} times; at most {MAX_METADATA_CONDITIONS} are allowed",
        )
    if isinstance(value, Mapping):
        return tuple(_metadata_pair(item) for item in value.items())
    if (
        len(value) == 2
        and isinstance(value[0], str)
        and "=" not in value[0]
        and isinstance(value[1], (str, type(None)))
    ):
        _refuse_bare_pair(value)
    return tuple(_metadata_pair(item) for item in value)


def _strs(value: Any, what: str, flag: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (_text(value, what, flag),)
    error = f"{what} must be a string or a list of strings, got {value!r}"
    if isinstance(value, Mapping):
        raise QueryError(error)
    items = tuple(_listed(value, error))
    if not all(isinstance(v, str) for v in items):
        raise QueryError(error)
    return tuple(_text(v, what, flag) for v in items)


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
    return None if value is None else _text(value, what, "--" + what.replace("_", "-"))


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
        raise QueryError(
            "clip=True requires a window: pass window=(start, end)", cli_message="--clip requires --window START:END"
        )
    return dataclasses.replace(
        q,
        kernel=_optional_str(q.kernel, "kernel"),
        operation=_strs(q.operation, "operation", "--operation"),
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


def check_keywords(given: Iterable[str], allowed: tuple[str, ...], what: str) -> None:
    """`QueryError` naming the first of `given` not in `allowed` (with the likeliest meant one), if any.

    >>> check_keywords(["tile"], ("tiles", "phases"), "filter")
    Traceback (most recent call last):
    ...
    ipu_nb._query.flags.QueryError: unknown filter 'tile' (did you mean 'tiles'?); the filters are tiles, phases
    """
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise QueryError(f"unknown {what} {name!r}{hint}; the {what}s are {', '.join(allowed)}")


def make_query(query: Query | None = None, **flags: Unpack[QueryFlags]) -> Query:
    """A validated `Query`: ``query`` (default `Query()`) with ``flags`` overriding its fields.

    Flags accept convenient forms: ``tiles=5`` or ``[5, 9]``, ``metadata="name=value"``,
    ``["a=1", "b"]``, ``[("a", None)]`` or ``{"a": "1"}`` (the rule: `_metadata`),
    ``operation="name"`` or ``["a", "b"]``, ``window=(start, end)`` or ``[start, end]``.

    Raises
    ------
    QueryError
        An unknown flag name or a bad value (``usage`` True), naming the flag.

    Examples
    --------
    >>> make_query(tiles=5, metadata=["layer=3", "active"]).metadata
    (('layer', '3'), ('active', None))
    >>> make_query(limit=-1)
    Traceback (most recent call last):
    ...
    ipu_nb._query.flags.QueryError: limit must be between 0 and 18446744073709551615, got -1
    """
    if query is not None and not isinstance(query, Query):
        raise QueryError(f"query must be an ipu_nb.Query, got {type(query).__name__}")
    check_keywords(flags, QUERY_FLAGS, "query flag")
    given: dict[str, Any] = dict(flags)  # the caller's forms; `_validated` makes them canonical
    return _validated(dataclasses.replace(query or Query(), **given))


def filters_only(query: Query | None = None, **filters: Unpack[Filters]) -> Query:
    """A validated `Query` holding only the filters of ``query`` and ``filters`` (the rest at defaults).

    Raises
    ------
    QueryError
        A keyword that is not a filter (naming the filters), or a bad filter value.
    """
    if query is not None and not isinstance(query, Query):
        raise QueryError(f"query must be an ipu_nb.Query, got {type(query).__name__}")
    check_keywords(filters, FILTERS, "filter")
    base = {name: getattr(query, name) for name in FILTERS} if query is not None else {}
    return make_query(**{**base, **filters})


def check_metadata_key(q: Query) -> None:
    """The runtime's rule for ``metadata_key``: needed by ``group_by="metadata"``, of no effect without it.

    Without a key, metadata grouping is a `QueryError` (not a usage error: the runtime's
    exit 1, with its message as ``cli_message``). A key with another grouping runs, as
    on the runtime's command line, which accepts and ignores it; here it also gives a
    `QueryWarning`, since it is almost always a forgotten ``group_by="metadata"``.
    """
    if q.group_by == "metadata" and q.metadata_key is None:
        raise QueryError(
            "group_by='metadata' requires metadata_key='NAME', the metadata entry to group by",
            usage=False,
            cli_message="--group-by metadata requires --metadata-key NAME",
        )
    if q.group_by != "metadata" and q.metadata_key is not None:
        warnings.warn(
            QueryWarning(
                f"metadata_key={q.metadata_key!r} has no effect unless group_by='metadata' "
                f"(this query groups by {q.group_by})",
                cli_message="--metadata-key has no effect without --group-by metadata",
            ),
            stacklevel=_caller_level(),
        )


def _caller_level() -> int:
    """The `warnings.warn` stacklevel, for its caller, of the first frame outside ipu-nb: the user's line."""
    frame: FrameType | None = sys._getframe(2)  # this function's caller calls `warn`; its caller is level 2
    level = 2
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "ipu_nb":
        level, frame = level + 1, frame.f_back
    return level


#: Every `Query` field, in the order of `QueryFlags` (the filters first).
QUERY_FLAGS: tuple[str, ...] = tuple(QueryFlags.__annotations__)
if set(QUERY_FLAGS) != {f.name for f in dataclasses.fields(Query)}:  # one flag set: the two must agree
    raise TypeError(f"QueryFlags {sorted(QUERY_FLAGS)} and Query {[f.name for f in dataclasses.fields(Query)]} differ")
