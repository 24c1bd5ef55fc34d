"""The filters as the widget holds them (its `filters` trait), to and from the `Query` they stand for.

`normalise_filters` checks each value with the query core's own flag rules
(`make_query`), so every state the widget accepts is a valid `Query`; `filters_query`
makes that Query once per change, and every widget view (timeline mask, flame graph,
overview, panel, groups) selects samples through the query core with it. `filters_of`
goes the other way: the analyses hand their findings to the widget in this form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .flags import FILTERS, Query, QueryError, make_query

__all__ = ["FILTER_KEYS", "MAX_SAFE_INTEGER", "empty_filters", "filters_of", "filters_query", "normalise_filters"]

#: The largest integer a browser's Number holds exactly (``Number.MAX_SAFE_INTEGER``): a window's end at most.
MAX_SAFE_INTEGER = 2**53 - 1

#: The `filters` trait's keys: the query filters, ``at`` being a trait of its own.
FILTER_KEYS: tuple[str, ...] = tuple(name for name in FILTERS if name != "at")


def empty_filters() -> dict[str, Any]:
    """The `filters` value that selects every sample."""
    return {
        "kind": None,
        "kernel": None,
        "operation_contains": None,
        "tiles": [],
        "phases": [],
        "metadata": [],
        "operation": [],
        "window": None,
    }


def normalise_filters(value: Any) -> dict[str, Any]:
    """Validate a (possibly partial) filters dict and fill in the missing keys.

    Metadata filters become ``[name, value]`` pairs (value None: "has an entry named
    name"), the form the front end sends and shows; ``"name"`` / ``"name=value"``
    strings are accepted for convenience and split at the first ``=``, as the CLI does,
    so a name containing ``=`` needs the pair form. Tiles, phases and ``operation`` (exact
    operation names, any of them; a single name is accepted) become sorted lists without
    repeats; ``window`` becomes ``[start, end]``; an empty ``kind`` or ``operation_contains``
    means no filter.

    Raises
    ------
    QueryError
        Naming the key and what it must be.

    >>> normalise_filters({"tiles": [9, 5, 9], "metadata": ["layer=3"]})["metadata"]
    [['layer', '3']]
    """
    if value is None:
        return empty_filters()
    if not isinstance(value, Mapping):
        raise QueryError(f"filters must be a dict with keys {', '.join(FILTER_KEYS)}; got {value!r}")
    unknown = sorted(map(repr, set(value) - set(FILTER_KEYS)))
    if unknown:
        raise QueryError(f"unknown filters key(s) {', '.join(unknown)}; expected some of {', '.join(FILTER_KEYS)}")
    out = empty_filters()
    for key in FILTER_KEYS:
        v = value.get(key)
        if key in ("kind", "operation_contains") and isinstance(v, str) and not v:
            v = None
        if key == "metadata" and not (v is None or isinstance(v, (str, list, tuple, Mapping))):
            raise QueryError(
                f"filters['metadata'] must be a list of [name, value] pairs (value None: any value) or"
                f" 'name' / 'name=value' strings, got {type(v).__name__} {v!r}"
            )
        try:
            flag: dict[str, Any] = {key: v}
            checked = getattr(make_query(**flag), key)
        except QueryError as error:
            raise QueryError(f"filters[{key!r}]: {error}") from None
        if key in ("tiles", "phases", "operation"):
            checked = sorted(set(checked))
        elif key == "window" and checked is not None:
            if checked[1] > MAX_SAFE_INTEGER:
                limit = f"at most {MAX_SAFE_INTEGER} (the integers a browser holds exactly)"
                raise QueryError(f"filters['window']: the end must be {limit}, got {checked[1]}")
            checked = list(checked)
        elif key == "metadata":
            checked = [list(pair) for pair in dict.fromkeys(checked)]
        out[key] = checked
    return out


def filters_query(filters: Mapping[str, Any]) -> Query:
    """The `Query` (filters only) that normalised `filters` stand for."""
    pairs = tuple((name, value) for name, value in filters["metadata"])
    return make_query(**{**filters, "metadata": pairs})


def filters_of(q: Query) -> dict[str, Any]:
    """The `filters` value showing the filters of `q` (its ``at`` aside).

    >>> filters_of(make_query(kind="compute", tiles=[5], metadata="layer=3"))["metadata"]
    [['layer', '3']]
    """
    return normalise_filters({name: getattr(q, name) for name in FILTER_KEYS})
