"""Hypothesis strategies for random profiles and queries, and the check of a query against `spec_reference`.

Shared by the query-core property tests (tests/query/): the profiles mix small and
wrapping counters, zero-length and huge samples, awkward strings and metadata; the
queries draw every flag, the ipu-nb extensions (``operation``, ``window``, ``clip``)
included, so each filter is tested in combination with all the others.
"""

from __future__ import annotations

from typing import Any

import spec_reference as ref
from builders import S, T, profile_from_tiles
from hypothesis import strategies as st

from ipu_nb import _query
from ipu_nb._query import filter_samples, make_query, query

__all__ = ["NAMES", "QUERIES", "VALUES", "WINDOWS", "check_against_reference", "records", "samples", "tiles"]

TEXT = st.text(alphabet=st.sampled_from(list('ab "\\\n\t\r\x00\x01\x7fé漢😀\u0301\u00a0\u200b=')), max_size=4)
KERNELS = st.one_of(st.sampled_from(["", "gemm", "copy", "Z", "é"]), TEXT)
OPERATIONS = st.one_of(st.sampled_from(["", "op a", "op b", "exchange"]), TEXT)
NAMES = ["a", "b", "", "é"]
VALUES = ["1", "2", "", "(missing)", "x=y"]


@st.composite
def samples(draw: Any) -> S:
    start = draw(st.one_of(st.integers(0, 60), st.integers(2**32 - 40, 2**32 - 1)))
    duration = draw(st.one_of(st.integers(0, 40), st.just(0), st.integers(2**31, 2**32 - 1)))
    metadata = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.one_of(st.sampled_from(VALUES), TEXT)), max_size=3))
    return S(
        start=start,
        end=(start + duration) % 2**32,
        kind=draw(st.sampled_from(_query.KINDS)),
        operation=draw(OPERATIONS),
        kernel=draw(KERNELS),
        phase=draw(st.integers(0, 3)),
        epoch=draw(st.integers(0, 2)),
        metadata=metadata,
    )


@st.composite
def tiles(draw: Any) -> list[T]:
    ids = draw(st.lists(st.one_of(st.integers(0, 8), st.integers(1000, 5000)), max_size=5))
    return [T(i, draw(st.lists(samples(), max_size=6))) for i in ids]


def _window(start: int, length: int) -> tuple[int, int]:
    start = min(start, 2**64 - 2)
    return start, min(start + length, 2**64 - 1)


#: Windows among small offsets, around the 32-bit wrap, over the whole span and far beyond it.
WINDOWS = st.builds(
    _window,
    st.one_of(st.integers(0, 80), st.integers(2**32 - 60, 2**32 + 60), st.integers(2**31, 2**33), st.just(2**64 - 2)),
    st.one_of(st.integers(1, 40), st.just(1), st.integers(2**31, 2**34)),
)

_BASE = st.fixed_dictionaries(
    {
        "group_by": st.sampled_from(_query.GROUP_BYS),
        "sort_by": st.sampled_from(_query.SORT_BYS),
        "metadata_key": st.sampled_from(NAMES),
        "limit": st.sampled_from([0, 1, 2, 20]),
        "samples": st.sampled_from([0, 1, 3, 50]),
    },
    optional={
        "kind": st.sampled_from(_query.KINDS),
        "kernel": KERNELS,
        "operation": st.one_of(st.sampled_from(["", "op a", "op b"]), st.lists(OPERATIONS, max_size=3).map(tuple)),
        "operation_contains": st.sampled_from(["", "op", "a", "é", "\\"]),
        "tiles": st.lists(st.integers(0, 8), min_size=1, max_size=3).map(tuple),
        "phases": st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple),
        "metadata": st.lists(
            st.tuples(st.sampled_from(NAMES[:2]), st.one_of(st.none(), st.sampled_from(VALUES))), max_size=2
        ).map(tuple),
        "at": st.one_of(st.integers(0, 70), st.integers(2**31, 2**33)),
        "window": WINDOWS,
    },
)


def _drawn(flags: dict[str, Any], clip: bool) -> dict[str, Any]:
    if flags["group_by"] != "metadata":
        flags = {k: v for k, v in flags.items() if k != "metadata_key"}  # a key there only warns (test_keywords)
    return {**flags, "clip": True} if clip and "window" in flags else flags


#: Every flag; ``metadata_key`` with metadata grouping, ``clip`` (drawn only with a window, as it requires one)
#: half of the time.
QUERIES = st.builds(_drawn, _BASE, st.booleans())


def records(result: _query.QueryResult) -> dict[str, Any]:
    """The result as the report object the reference builds."""
    scalars, groups, listed = result._records()
    return {**scalars, "groups": groups, "samples": listed}


def check_against_reference(tile_list: list[T], clock_hz: int, flags: dict[str, Any]) -> None:
    """`query` and `filter_samples` on the profile of `tile_list` agree with `spec_reference`, to the byte."""
    profile = profile_from_tiles(tile_list, clock_hz=clock_hz)
    result = query(profile, **flags)
    expected = ref.run(tile_list, clock_hz, flags)
    assert records(result) == expected
    assert result.to_json() == ref.to_json(expected)
    assert result.to_text() == ref.to_text(expected)
    matched = filter_samples(profile, make_query(**flags))  # a whole Query: its filters and clip count
    flat = ref.flatten(tile_list)
    picked = [s for s in flat if ref.matches(s, flags)]
    assert matched.get_column("sample").to_list() == [s.index for s in picked]
    if flags.get("clip"):
        window = flags["window"]
        assert matched.get_column("clipped_cycles").to_list() == [
            hi - lo for lo, hi in (ref.inside(s, window) for s in picked)
        ]
    else:
        assert "clipped_cycles" not in matched.columns
