"""``semantics="head"``: the newest runtime's query against a plain reference, and its rules one by one.

The reference (tests/helpers/head_reference.py) shares no code with the package; the
Hypothesis profiles (tests/helpers/query_properties.py) hold wrapping and huge counters,
zero-length samples, empty and repeated metadata names and strings that need escaping.
"""

from __future__ import annotations

from typing import Any

import head_reference as ref
import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from hypothesis import given
from hypothesis import strategies as st
from query_properties import KERNELS, OPERATIONS, records, tiles

import ipu_nb
from ipu_nb import HeadQueryResult, QueryError, QueryResult
from ipu_nb._query import GROUP_BYS, KINDS, SORT_BYS
from ipu_nb._query.head import cycle_origin, head_clock

HEAD_QUERIES = st.fixed_dictionaries(
    {
        "group_by": st.sampled_from(GROUP_BYS),
        "sort_by": st.sampled_from(SORT_BYS),
        "limit": st.sampled_from([0, 1, 2, 20]),
        "samples": st.sampled_from([0, 1, 3, 50]),
        "shared_clock": st.booleans(),
    },
    optional={
        "kind": st.sampled_from(KINDS),
        "kernel": KERNELS,
        "operation_contains": st.one_of(st.sampled_from(["", "op", "a", "é", "\\"]), OPERATIONS),
        "tiles": st.lists(st.integers(0, 8), min_size=1, max_size=3).map(tuple),
        "phases": st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple),
        "at_offset": st.one_of(st.integers(0, 70), st.integers(2**31, 2**33)),
    },
)


def check(tile_list: list[T], clock_hz: int, flags: dict[str, Any]) -> HeadQueryResult:
    result = ipu_nb.query(profile_from_tiles(tile_list, clock_hz=clock_hz), semantics="head", **flags)
    expected = ref.query(tile_list, clock_hz, flags)
    assert isinstance(result, HeadQueryResult)
    assert records(result) == expected
    assert result.to_json() == ref.to_json(expected)
    assert result.to_text() == ref.to_text(expected)
    return result


@given(tile_list=tiles(), clock_hz=st.sampled_from([1_500_000_000, 1_000, 0]), flags=HEAD_QUERIES)
def test_head_query_matches_the_reference(tile_list: list[T], clock_hz: int, flags: dict[str, Any]) -> None:
    check(tile_list, clock_hz, flags)


@given(tile_list=tiles())
def test_the_origin_and_crop_match_the_reference(tile_list: list[T]) -> None:
    profile = profile_from_tiles(tile_list)
    assert cycle_origin(profile) == ref.origin(tile_list)
    assert head_clock(profile).crop == ref.crop(tile_list, False)
    assert head_clock(profile, True).crop == 0


def test_the_origin_reads_first_starts_as_signed_differences() -> None:
    # tile 9 starts just after the wrap: later than tile 1, whose counter is 15 cycles before it
    wrapped = [T(1, [S(2**32 - 10, 2**32 - 5)]), T(9, [S(5, 25)])]
    assert cycle_origin(profile_from_tiles(wrapped)) == 2**32 - 10
    # the first tile in the file need not be the earliest
    assert cycle_origin(profile_from_tiles([T(4, [S(100, 120)]), T(5, [S(50, 60)]), T(6, [])])) == 50
    assert cycle_origin(profile_from_tiles([T(4, []), T(5, [])])) == 0
    result = check(wrapped, 1_500_000_000, {"shared_clock": False, "samples": 5})
    # crop 15: tile 1's sample [0,5) is cut away, tile 9's [15,35) becomes [0,20)
    assert result.crop_cycles == 15 and result.samples.get_column("offset").to_list() == [0]


def test_zero_length_samples_are_dropped_before_filters_but_count_in_the_span() -> None:
    tile_list = [T(1, [S(0, 10, kernel="k"), S(10, 10, kernel="k"), S(10, 30, kernel="k")]), T(2, [S(40, 40)])]
    # origin 0, crop 40 (tile 2's only sample): every sample ends by 40 and is dropped
    result = check(tile_list, 1_000, {"shared_clock": False})
    assert (result.matched_sample_count, result.profile_span_cycles, result.groups.height) == (0, 0, 0)
    shared = check(tile_list, 1_000, {"shared_clock": True, "samples": 9})
    assert shared.matched_sample_count == 2 and shared.profile_span_cycles == 40
    assert shared.samples.get_column("duration").to_list() == [20, 10]


def test_phase_cycles_are_one_union_per_group_not_a_sum_per_phase() -> None:
    tile_list = [T(1, [S(0, 100, phase=0), S(50, 150, phase=1)]), T(2, [S(0, 10, phase=0)])]
    head = check(tile_list, 1_000, {"shared_clock": False, "group_by": "kernel"})
    default = ipu_nb.query(profile_from_tiles(tile_list), group_by="kernel")
    assert head.groups.row(0, named=True)["phase_cycles"] == 150  # [0,100) ∪ [50,150)
    assert head.groups.row(0, named=True)["phase_count"] == 2
    assert default.groups.row(0, named=True)["phase_cycles"] == 200  # 100 + 100, per phase


def test_metadata_groups_by_the_first_entry_with_an_empty_name() -> None:
    tile_list = [
        T(1, [S(0, 10, metadata=[("a", "1"), ("", "first"), ("", "second")]), S(10, 30, metadata=[("", "")])]),
        T(2, [S(0, 5, metadata=[("b", "(missing)")]), S(5, 9)]),
    ]
    result = check(tile_list, 1_000, {"shared_clock": True, "group_by": "metadata", "sort_by": "name"})
    assert result.groups.get_column("name").to_list() == ["", "(missing)", "first"]
    dims = [{d["name"]: d["value"] for d in row} for row in result.groups.get_column("dimensions").to_list()]
    assert dims[0] == {"metadataKey": "", "metadataValue": ""}


def test_ties_go_to_the_first_offset_then_the_name() -> None:
    tile_list = [
        T(1, [S(0, 10, kernel="b"), S(10, 20, kernel="a"), S(20, 30, kernel="c")]),
        T(2, [S(10, 20, kernel="d")]),
    ]
    result = check(tile_list, 1_000, {"shared_clock": True})
    assert result.groups.get_column("name").to_list() == ["b", "a", "d", "c"]  # all 10 cycles


def test_strings_that_need_escaping_are_written_as_the_runtime_writes_them() -> None:
    tile_list = [T(3, [S(0, 10, operation='q"\\\n\t\x00\x01é漢\u200b', kernel="k\x7f", metadata=[("", 'v"\n')])])]
    result = check(tile_list, 1_000, {"shared_clock": True, "samples": 1, "group_by": "metadata"})
    text = result.to_text()
    assert 'name="v\\"\\n"' in text
    assert 'operation="q\\"\\\\\\n\\t\\0\\u{1}é漢\\u{200b}" kernel="k\\u{7f}"' in text
    assert '"operation": "q\\"\\\\\\n\\t\\u0000\\u0001é漢\u200b"' in result.to_json()


def test_head_keeps_the_query_result_frames() -> None:
    profile = profile_from_tiles([T(1, [S(0, 10), S(10, 30, kernel="z")])])
    head, default = ipu_nb.query(profile, semantics="head", samples=2), ipu_nb.query(profile, samples=2)
    assert isinstance(head, QueryResult) and head.groups.schema == default.groups.schema
    assert head.samples.schema == default.samples.schema
    assert repr(head).startswith("<HeadQueryResult group_by=kernel shared_clock=False: 2 groups")
    assert profile.query(samples=2).to_text() == default.to_text()  # the default stays the default


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"metadata": "layer"}, "metadata filters are not part of the newest runtime"),
        ({"group_by": "metadata", "metadata_key": "layer"}, "metadata_key is not part"),
        ({"at": 5}, "at_offset="),
        ({"operation": "op"}, "operation is an ipu-nb extension"),
        ({"window": (0, 9)}, "window is an ipu-nb extension"),
        ({"window": (0, 9), "clip": True}, "window is an ipu-nb extension"),
        ({"at_offset": -1}, "at_offset must be between 0 and"),
        ({"shared_clock": 1}, "shared_clock must be True or False"),
        ({"limit": -1}, "limit must be between"),
    ],
)
def test_what_the_newest_runtime_lacks_is_refused(flags: dict[str, Any], message: str) -> None:
    profile = profile_from_tiles([T(1, [S(0, 10)])])
    with pytest.raises(QueryError, match=message) as caught:
        ipu_nb.query(profile, semantics="head", **flags)
    assert caught.value.usage


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"shared_clock": True}, "shared_clock=True needs semantics='head'"),
        ({"at_offset": 3}, "at_offset=3 needs semantics='head'"),
        ({"semantics": "HEAD"}, "semantics must be one of ba7339c, head"),
        ({"semantics": "ba7339c", "shared_clock": True, "limit": -1}, "limit must be between"),
    ],
)
def test_the_default_semantics_refuses_the_newest_runtime_s_flags(flags: dict[str, Any], message: str) -> None:
    profile = profile_from_tiles([T(1, [S(0, 10)])])
    with pytest.raises(QueryError, match=message):
        ipu_nb.query(profile, **flags)


def test_the_default_semantics_spelled_out_is_the_default() -> None:
    profile = profile_from_tiles([T(1, [S(0, 10)]), T(2, [S(5, 25)])])
    spelled = ipu_nb.query(profile, semantics="ba7339c", shared_clock=False, at_offset=None)
    assert type(spelled) is QueryResult and spelled.to_json() == ipu_nb.query(profile).to_json()


def test_the_cropped_clock_is_computed_once_per_profile_and_choice() -> None:
    profile = profile_from_tiles([T(1, [S(0, 10)]), T(2, [S(5, 25)])])
    assert head_clock(profile) is head_clock(profile) and head_clock(profile, True) is not head_clock(profile)
    assert head_clock(profile).profile.samples.schema == profile.samples.schema
    assert head_clock(profile).profile.samples.get_column("offset").to_list() == [0, 0]
    assert profile.samples.get_column("offset").to_list() == [0, 0]  # the profile itself is untouched
    assert isinstance(head_clock(profile).profile.samples, pl.DataFrame)
