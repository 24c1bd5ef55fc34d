"""`make_query` and `filters_only`: every wrong value of every keyword is a `QueryError` naming it.

The CLI, the magics, the widget's `filters` trait, the charts and the analyses all build
their `Query` here, so a wrong type must come out as the one typed error users see
(never a TypeError or ValueError from deep inside), and the message must say which
keyword was wrong.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import numpy as np
import pytest
from untyped import untyped

from ipu_nb._query import FILTERS, Query, QueryError, filters_only, make_query
from ipu_nb._query.filters_codec import FILTER_KEYS, normalise_filters
from ipu_nb._query.flags import MAX_METADATA_CONDITIONS, MAX_TEXT


class _Unhashable:
    """Compares by raising, as some user objects do: the check must not rely on == or hashing."""

    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        raise TypeError("no comparison")


# Values wrong for every keyword: the wrong type, or a container of the wrong type.
_WRONG_EVERYWHERE: list[Any] = [
    1.5,
    math.nan,
    b"bytes",
    object(),
    _Unhashable(),
    [_Unhashable()],
    slice(1),
    [[]],
    [b"a"],
    {1.5},
    np.array(5),  # iterable in type only
    np.array([[1, 2]]),
    np.float64(1.0),
]

#: One character longer than any text filter takes.
_LONG = "x" * (MAX_TEXT + 1)

# Values right for some keywords (so only listed where they are wrong).
_WRONG: dict[str, list[Any]] = {
    "group_by": [5, True, None, "bogus", ["kind"], "Kind"],
    "sort_by": [5, True, None, "cycles", ["name"]],
    "kind": [5, True, "bogus", ["compute"], np.array(["compute", "idle"])],
    "kernel": [5, True, ["k"], ("k",), np.array(["a", "b"]), _LONG],
    "operation_contains": [5, True, ["x"], np.array(["a", "b"]), _LONG],
    "operation": [5, True, [5], [None], ("a", 5), _LONG, ["a", _LONG]],
    "window": [5, True, "1:2", (1,), (1, 2, 3), (5, 3), (4, 4), (-1, 5), (True, 5), (1.5, 2), [None, 5]],
    "clip": [5, None, "yes", [True]],
    "metadata_key": [5, True, ["layer"], _LONG],
    "tiles": [-1, 2**32, True, "5", [1.5], ["1"], [None], [True], [-1], {"a": 1}, np.uint64(2**63), [2**32]],
    "phases": [-1, 2**32, True, "5", [1.5], [None], (1, "2")],
    "metadata": [
        5,
        True,
        _LONG,
        "a=" + _LONG,
        ("a", 5),
        (None, "x"),
        [(None, "x")],
        [("a", "b", "c")],
        [("a",)],
        [["a", 1]],
        [{"a"}],
        ("a", ("b",)),
        {_LONG: "x"},
        {"a": 5},
        [("a", _LONG)],
        [5],
        [f"n{i}" for i in range(MAX_METADATA_CONDITIONS + 1)],
        dict.fromkeys(f"n{i}" for i in range(MAX_METADATA_CONDITIONS + 1)),
    ],
    "at": [-1, 2**64, True, "5", [5], np.int64(-1)],
    "limit": [-1, 2**64, True, None, "5", [5]],
    "samples": [-1, 2**64, True, None, "5", [5]],
}

_FIELDS = [f.name for f in dataclasses.fields(Query)]
_CASES = [(name, value) for name in _FIELDS for value in [*_WRONG[name], *_WRONG_EVERYWHERE]]


def _case_id(case: tuple[str, Any]) -> str:
    name, value = case
    shown = re.sub(r" at 0x[0-9a-f]+", "", repr(value))  # no addresses: every process collects the same ids
    return f"{name}={type(value).__name__}:{shown}"[:60]


def test_every_keyword_has_wrong_values() -> None:
    assert set(_WRONG) == set(_FIELDS)


@pytest.mark.parametrize("case", _CASES, ids=map(_case_id, _CASES))
def test_make_query_refuses_a_wrong_value_naming_the_keyword(case: tuple[str, Any]) -> None:
    name, value = case
    with pytest.raises(QueryError) as raised:
        make_query(**{name: value})
    assert raised.value.usage is True
    assert name in str(raised.value), f"the message does not say which keyword: {raised.value}"


@pytest.mark.parametrize(
    "case", [c for c in _CASES if c[0] in FILTERS], ids=map(_case_id, [c for c in _CASES if c[0] in FILTERS])
)
def test_filters_only_and_the_widget_refuse_it_the_same_way(case: tuple[str, Any]) -> None:
    name, value = case
    with pytest.raises(QueryError, match=name):
        filters_only(**{name: value})
    if name in FILTER_KEYS:
        with pytest.raises(QueryError, match=name):
            normalise_filters({name: value})


@pytest.mark.parametrize("value", [5, "group_by=tile", {"group_by": "tile"}, Query, None.__class__])
def test_the_base_query_must_be_a_query(value: Any) -> None:
    with pytest.raises(QueryError, match=r"query must be an ipu_nb\.Query"):
        make_query(value)
    with pytest.raises(QueryError, match=r"query must be an ipu_nb\.Query"):
        filters_only(value)


def test_unknown_keywords_are_named() -> None:
    with pytest.raises(QueryError, match="unknown query flag 'group'"):
        untyped(make_query)(group="tile")
    with pytest.raises(QueryError, match="unknown filter 'limit'"):
        untyped(filters_only)(limit=3)


def test_a_bad_field_of_a_ready_made_query_is_caught_too() -> None:
    # Query is a plain dataclass: its constructor checks nothing, make_query does.
    with pytest.raises(QueryError, match="metadata"):
        make_query(Query(metadata=5))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("flags", "field", "expected"),
    [
        ({"tiles": np.array([3, 1])}, "tiles", (3, 1)),
        ({"tiles": np.uint32(7)}, "tiles", (7,)),
        ({"phases": range(2)}, "phases", (0, 1)),
        ({"at": np.uint64(2**64 - 1)}, "at", 2**64 - 1),
        ({"metadata": {"a": None, "b": "1"}}, "metadata", (("a", None), ("b", "1"))),
        ({"metadata": [["a", "x=y"]]}, "metadata", (("a", "x=y"),)),
    ],
)
def test_convenient_forms_still_pass(flags: dict[str, Any], field: str, expected: Any) -> None:
    assert getattr(make_query(**flags), field) == expected
