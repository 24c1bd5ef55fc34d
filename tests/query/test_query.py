"""The query core against docs/reference/query.md.

Hand-computed cases, then a property test against `spec_reference`.
"""

from __future__ import annotations

import sys
import types
from typing import Any
from unittest import mock

import polars as pl
import pytest
import spec_reference as ref
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st
from query_properties import QUERIES, check_against_reference
from query_properties import tiles as tiles_strategy

import ipu_nb
from ipu_nb import _query
from ipu_nb._query import Query, QueryError, filter_samples, inspect_operations, make_query, query
from ipu_nb._query import plan as _plan
from ipu_nb._query.keywords import QueryFlags

# --------------------------------------------------------------------------- hand-computed


def _union_profile() -> Any:
    # Offsets (per tile, first sample = 0):
    #   tile 10: [0,10) p1/0, [30,40) p2/0, [50,55) p2/0
    #   tile 20: [0,15) p1/0, [15,25) p1/1
    #   tile 30: [0,0) p1/0 (zero length)
    #   tile 40: no samples
    return profile_from_tiles(
        [
            T(10, [S(1000, 1010, phase=1), S(1030, 1040, phase=2), S(1050, 1055, phase=2)]),
            T(20, [S(5, 20, phase=1), S(20, 30, phase=1, epoch=1)]),
            T(30, [S(7, 7, phase=1)]),
            T(40, []),
        ],
        clock_hz=1000,
    )


def test_union_of_intervals_and_statistics_by_hand() -> None:
    result = query(_union_profile())
    assert result.groups.height == 1
    g = result.groups.row(0, named=True)
    # (1,0): [0,10) ∪ [0,15) ∪ [0,0) = 15; (2,0): [30,40) ∪ [50,55) = 15; (1,1): [15,25) = 10
    assert g["phase_cycles"] == 40
    assert g["phase_count"] == 3
    assert g["work_cycles"] == 10 + 10 + 5 + 15 + 10 + 0
    assert (g["sample_count"], g["tile_count"]) == (6, 3)
    assert g["average_active_tiles"] == 50 / 40
    assert g["mean_cycles"] == 50 / 6
    # sorted durations [0, 5, 10, 10, 10, 15]: d[5*50//100] = d[2], d[5*95//100] = d[4]
    assert (g["p50_cycles"], g["p95_cycles"], g["maximum_cycles"]) == (10, 10, 15)
    assert (g["first_offset"], g["last_offset"]) == (0, 55)
    assert g["phase_ms"] == 40.0
    assert (result.tile_count, result.sample_count, result.matched_sample_count) == (4, 6, 6)
    assert (result.profile_span_cycles, result.profile_span_ms) == (55, 55.0)
    assert result.to_text().splitlines()[2] == "k\t3\t3\t6\t40\t40.000000\t50\t1.25\t8.33\t10\t10\t15"


def test_touching_intervals_merge_and_repeated_steps_count_once() -> None:
    profile = profile_from_tiles(
        [T(0, [S(0, 5), S(5, 8), S(8, 8), S(2, 4)]), T(1, [S(100, 103)])],
    )
    g = query(profile).groups.row(0, named=True)
    # tile 0: [0,5) [5,8) [8,8) [2,4) -> union [0,8); tile 1: [0,3) inside it
    assert g["phase_cycles"] == 8
    assert g["work_cycles"] == 5 + 3 + 0 + 2 + 3


def test_counter_wrap_uses_modular_subtraction() -> None:
    profile = profile_from_tiles([T(3, [S(2**32 - 5, 5), S(5, 20)])])
    frame = filter_samples(profile)
    assert frame.get_column("offset").to_list() == [0, 10]
    assert frame.get_column("duration").to_list() == [10, 15]
    assert query(profile).groups.row(0, named=True)["phase_cycles"] == 25


def test_percentiles_use_integer_indexing() -> None:
    durations = [7, 3, 61, 12, 5, 40, 33, 2, 9, 18, 27]  # n = 11
    profile = profile_from_tiles([T(0, [S(i * 100, i * 100 + d) for i, d in enumerate(durations)])])
    g = query(profile).groups.row(0, named=True)
    ordered = sorted(durations)
    assert g["p50_cycles"] == ordered[10 * 50 // 100] == 12
    assert g["p95_cycles"] == ordered[10 * 95 // 100] == 40
    assert g["maximum_cycles"] == 61


def test_group_order_ties_break_on_first_offset_then_byte_order_of_names() -> None:
    # Every group has phaseCycles 10. "b" starts at offset 5, the others at 0.
    # Byte order: "Z" (0x5a) < "a" (0x61) < "é" (0xc3 0xa9); inserted out of order on purpose.
    tiles = [
        T(0, [S(0, 10, kernel="é")]),
        T(1, [S(0, 10, kernel="a")]),
        T(2, [S(0, 1, kernel="x"), S(5, 15, kernel="b", phase=1)]),
        T(3, [S(0, 10, kernel="Z")]),
    ]
    profile = profile_from_tiles(tiles)
    names = query(profile, limit=0).groups.get_column("name").to_list()
    assert names == ["Z", "a", "é", "b", "x"]
    assert query(profile, sort_by="name").groups.get_column("name").to_list() == ["Z", "a", "b", "x", "é"]
    assert query(profile, limit=2).groups.get_column("name").to_list() == ["Z", "a"]
    assert query(profile, limit=1, sort_by="samples").groups.get_column("name").to_list() == ["Z"]


def test_group_names_and_dimensions() -> None:
    tiles = [
        T(7, [S(0, 4, kernel="", phase=3, epoch=2, metadata=[("layer", "1"), ("layer", "2")])]),
        T(9, [S(0, 2, kernel="(no kernel)", kind="idle", metadata=[("other", "x")])]),
    ]
    profile = profile_from_tiles(tiles)

    def groups(**flags: Any) -> list[tuple[str, list[dict[str, str]]]]:
        frame = query(profile, **flags).groups
        return list(zip(frame.get_column("name").to_list(), frame.get_column("dimensions").to_list(), strict=True))

    # an empty kernel prints as "(no kernel)" and groups with a kernel of that name
    assert groups() == [("(no kernel)", [])]
    assert groups(group_by="kind") == [("compute", []), ("idle", [])]
    assert groups(group_by="phase") == [
        ("phase 3/2", [{"name": "epoch", "value": "2"}, {"name": "phase", "value": "3"}]),
        ("phase 0/0", [{"name": "epoch", "value": "0"}, {"name": "phase", "value": "0"}]),
    ]
    assert groups(group_by="tile") == [
        ("tile 7", [{"name": "physicalTile", "value": "7"}]),
        ("tile 9", [{"name": "physicalTile", "value": "9"}]),
    ]
    # the FIRST entry named KEY wins; no entry -> "(missing)"
    assert groups(group_by="metadata", metadata_key="layer") == [
        ("1", [{"name": "metadataKey", "value": "layer"}, {"name": "metadataValue", "value": "1"}]),
        ("(missing)", [{"name": "metadataKey", "value": "layer"}, {"name": "metadataValue", "value": "(missing)"}]),
    ]


def test_metadata_filters_and_at_semantics() -> None:
    tiles = [
        T(
            0,
            [
                S(0, 10, metadata=[("a", "1"), ("b", "2")]),
                S(10, 10, metadata=[("a", "1")]),  # zero length at offset 10
                S(10, 30, metadata=[("a", "x=y"), ("a", "1")]),
            ],
        ),
        T(1, [S(100, 120, metadata=[("b", "1")])]),
    ]
    profile = profile_from_tiles(tiles)

    def matched(**flags: Any) -> list[int]:
        return filter_samples(profile, **flags).get_column("sample").to_list()

    assert matched(metadata="a") == [0, 1, 2]
    assert matched(metadata="a=1") == [0, 1, 2]
    assert matched(metadata="a=x=y") == [2]  # split at the first "="
    assert matched(metadata=["a=1", "b"]) == [0]  # AND, satisfied by different entries
    assert matched(metadata=[("b", None)]) == [0, 3]
    assert matched(metadata="b=") == []
    assert matched(metadata="nope") == []
    assert matched(at=0) == [0, 3]
    assert matched(at=9) == [0, 3]
    assert matched(at=10) == [2, 3]  # [0,10) ended; the zero-length sample never matches
    assert matched(at=29) == [2]
    assert matched(at=30) == []
    assert matched(at=10, metadata="a") == [2]
    result = query(profile, at=10)
    assert (result.at_offset, result.matched_sample_count) == (10, 2)
    assert result.to_text().splitlines()[0].endswith(" at=10")
    assert query(profile).to_text().splitlines()[0].endswith(" at=-")


def test_other_filters() -> None:
    tiles = [
        T(5, [S(0, 1, kind="exchange", operation="exchange for gemm", kernel="", phase=1)]),
        T(9, [S(0, 2, operation="GEMM block", kernel="gemm", phase=2), S(2, 3, kind="idle", phase=1)]),
    ]
    profile = profile_from_tiles(tiles)

    def matched(**flags: Any) -> list[int]:
        return filter_samples(profile, **flags).get_column("sample").to_list()

    assert matched(kind="idle") == [2]
    assert matched(kernel="") == [0]
    assert matched(kernel="gemm") == [1]
    assert matched(kernel="gem") == []
    assert matched(operation_contains="gemm") == [0]  # case-sensitive
    assert matched(operation_contains="") == [0, 1, 2]
    assert matched(tiles=9) == [1, 2]
    assert matched(tiles=[5, 9], phases=[1]) == [0, 2]
    assert matched(tiles=[4]) == []


def test_longest_samples_order_and_metadata() -> None:
    tiles = [
        T(8, [S(0, 5, metadata=[("n", "1"), ("n", "0")]), S(5, 10)]),
        T(2, [S(50, 55, kind="idle"), S(55, 56)]),
    ]
    result = query(profile_from_tiles(tiles), samples=3)
    frame = result.samples
    # duration 5 ties: tile 2 first; within tile 8, offset 0 before 5
    assert frame.select("tile", "offset", "duration").rows() == [(2, 0, 5), (8, 0, 5), (8, 5, 5)]
    assert frame.get_column("metadata").to_list() == [
        [],
        [{"name": "n", "value": "1"}, {"name": "n", "value": "0"}],
        [],
    ]
    assert frame.get_column("kind").to_list() == ["idle", "compute", "compute"]
    assert query(profile_from_tiles(tiles), samples=10).samples.height == 4
    assert query(profile_from_tiles(tiles)).samples.height == 0


def test_empty_and_sampleless_profiles() -> None:
    for profile in (profile_from_tiles([]), profile_from_tiles([T(3, []), T(4, [])], clock_hz=0)):
        result = query(profile, samples=5, group_by="phase")
        assert result.groups.height == 0 and result.samples.height == 0
        assert result.profile_span_cycles == 0 and result.profile_span_ms == 0.0
        assert result.tile_count == profile.tiles.height
        assert '"groups": [],\n  "samples": []\n}\n' in result.to_json()


def test_zero_clock_gives_zero_ms() -> None:
    result = query(profile_from_tiles([T(0, [S(0, 10)])], clock_hz=0))
    assert result.profile_span_ms == 0.0
    assert result.groups.get_column("phase_ms").to_list() == [0.0]


def test_derived_floats_follow_spec_operation_order() -> None:
    # (c * 1000.0) / clock differs in the last bit from c * (1000.0 / clock) for these values.
    clock = 3
    cycles = 7
    assert (cycles * 1000.0) / clock != cycles * (1000.0 / clock)
    result = query(profile_from_tiles([T(0, [S(0, cycles)])], clock_hz=clock))
    assert result.groups.row(0, named=True)["phase_ms"] == (cycles * 1000.0) / clock


def test_filter_samples_columns_order_and_metadata() -> None:
    tiles = [T(4, [S(0, 3, metadata=[("a", "1")]), S(3, 9)]), T(1, [S(0, 2, metadata=[("a", "2"), ("b", "")])])]
    profile = profile_from_tiles(tiles)
    frame = filter_samples(profile, kind="compute")
    assert frame.columns == [*profile.samples.columns, "metadata"]
    assert frame.get_column("sample").to_list() == [0, 1, 2]
    assert frame.get_column("metadata").to_list() == [
        [{"name": "a", "value": "1"}],
        [],
        [{"name": "a", "value": "2"}, {"name": "b", "value": ""}],
    ]
    assert profile.filter(metadata="b").get_column("sample").to_list() == [2]
    assert filter_samples(profile, kind="idle").height == 0


def test_inspect_operations_by_hand() -> None:
    tiles = [
        T(0, [S(0, 10, operation="b", phase=1), S(10, 15, operation="a", phase=2), S(15, 45, operation="b", phase=3)]),
        T(1, [S(0, 12, operation="b", phase=1), S(12, 20, operation="b", phase=1, epoch=1)]),
    ]
    frame = inspect_operations(profile_from_tiles(tiles))
    # "b": (1,0) max 12, (3,0) 30, (1,1) 8 -> 3 phases, 50 cycles, max 30; "a": (2,0) 5
    assert frame.rows() == [("a", 1, 5, 5), ("b", 3, 50, 30)]


# --------------------------------------------------------------------------- flags


def test_flag_forms_normalise() -> None:
    q = make_query(tiles=5, phases=[1, 2], metadata=["a", "b=c=d", "e"], kind="idle")
    assert q.tiles == (5,) and q.phases == (1, 2)
    assert q.metadata == (("a", None), ("b", "c=d"), ("e", None))
    assert make_query(metadata=[("a", None)]).metadata == (("a", None),)
    assert make_query(metadata=[("a", "1"), "b="]).metadata == (("a", "1"), ("b", ""))
    assert make_query(Query(limit=3), samples=2) == Query(limit=3, samples=2)


@pytest.mark.parametrize(
    "flags",
    [
        {"bogus": 1},
        {"kind": "bogus"},
        {"group_by": "nope"},
        {"sort_by": "cycles"},
        {"metadata": [f"n{i}" for i in range(1_001)]},
        {"operation_contains": "a" * 400_000},
        {"limit": -1},
        {"samples": 1.5},
        {"tiles": "5"},
        {"tiles": [2**32]},
        {"at": -1},
        {"limit": True},
    ],
)
def test_bad_flags_are_usage_errors(flags: dict[str, Any]) -> None:
    with pytest.raises(QueryError) as info:
        query(profile_from_tiles([T(0, [S(0, 1)])]), **flags)
    assert info.value.usage is True


def test_group_by_metadata_requires_a_key() -> None:
    with pytest.raises(QueryError, match=r"^group_by='metadata' requires metadata_key='NAME', the metadata") as info:
        query(profile_from_tiles([T(0, [S(0, 1)])]), group_by="metadata")
    assert info.value.usage is False
    assert (
        info.value.cli_message == "--group-by metadata requires --metadata-key NAME"
    )  # docs/reference/query.md#group-keys-and-dimensions


def test_sample_ids_no_sample_can_have_are_not_samples() -> None:
    from ipu_nb._query import index_of

    profile = profile_from_tiles([T(0, [S(0, 1), S(1, 2)])])
    index = index_of(profile)
    assert [index.row_of(sid) for sid in (0, 1, 2, -1, 2**32, 2**63, 10**30)] == [0, 1, -1, -1, -1, -1, -1]
    assert index.is_sample(1) and not index.is_sample(10**30)


def test_public_api_and_html_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ipu_nb.query is query and ipu_nb.Query is Query and ipu_nb.QueryResult is _query.QueryResult
    result = query(profile_from_tiles([T(0, [S(0, 1)])]))
    fake = types.ModuleType("ipu_nb._query.repr_html")
    fake.query_result_html = lambda r: f"<b>{r.groups.height}</b>"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ipu_nb._query.repr_html", fake)
    assert result._repr_html_() == "<b>1</b>"
    assert "1 groups" in repr(result)


# --------------------------------------------------------------------------- property test


@settings(max_examples=examples(200))
@given(tiles=tiles_strategy(), clock_hz=st.sampled_from([0, 3, 1_500_000_000]), flags=QUERIES)
def test_matches_reference(tiles: list[T], clock_hz: int, flags: dict[str, Any]) -> None:
    check_against_reference(tiles, clock_hz, flags)


@settings(max_examples=examples(60))
@given(tiles=tiles_strategy(), flags=QUERIES)
def test_matches_reference_on_the_multi_column_sort_path(tiles: list[T], flags: dict[str, Any]) -> None:
    with mock.patch.object(_plan, "_KEY_BITS", 0):
        check_against_reference(tiles, 1_500_000_000, flags)


def test_categorical_physical_order_does_not_leak_into_name_order() -> None:
    # Register "zz" before "aa" in the global categories so their codes run against byte order.
    pl.Series(["zz_first_code", "aa_second_code"]).cast(pl.Categorical)
    tiles = [T(0, [S(0, 5, kernel="zz_first_code")]), T(1, [S(0, 5, kernel="aa_second_code")])]
    names = query(profile_from_tiles(tiles)).groups.get_column("name").to_list()
    assert names == ["aa_second_code", "zz_first_code"]


def test_frames_in_another_order_give_the_same_answers() -> None:
    """Metadata rows out of (sample, position) order, sample ids that are not row numbers, String columns."""
    import dataclasses

    tiles = [
        T(4, [S(0, 3, kernel="a", metadata=[("k", "1"), ("k", "2")]), S(3, 9, kernel="b", metadata=[("j", "")])]),
        T(1, [S(0, 2, metadata=[("k", "2"), ("j", "x")]), S(2, 2), S(2, 7, kernel="a", metadata=[("k", "1")])]),
    ]
    profile = profile_from_tiles(tiles)
    shuffled = dataclasses.replace(profile, metadata=profile.metadata.reverse())
    reordered = dataclasses.replace(profile, samples=profile.samples.reverse())
    plain_strings = dataclasses.replace(
        profile,
        samples=profile.samples.with_columns(pl.col("operation", "kernel").cast(pl.String)),
        metadata=profile.metadata.with_columns(pl.col("name", "value").cast(pl.String)),
    )
    cases: list[QueryFlags] = [
        {"group_by": "metadata", "metadata_key": "k", "samples": 5},
        {"group_by": "metadata", "metadata_key": "j", "kernel": ""},
        {"metadata": ["k=1", "j"], "samples": 5, "group_by": "tile"},
        {"metadata": "k", "at": 2, "samples": 2},
    ]
    for flags in cases:
        expected = query(profile, **flags).to_json()
        assert query(shuffled, **flags).to_json() == expected
        assert query(reordered, **flags).to_json() == expected
        assert query(plain_strings, **flags).to_json() == expected
        by_kernel: QueryFlags = {**flags, "group_by": "kernel", "metadata_key": None}
        assert query(plain_strings, **by_kernel).to_json() == query(profile, **by_kernel).to_json()
        q = make_query(**flags)
        rows = filter_samples(profile, q)
        assert filter_samples(shuffled, q).equals(rows)
        assert filter_samples(reordered, q).sort("sample").equals(rows)


def _seeded_tiles(seed: int) -> list[T]:
    import random

    rng = random.Random(seed)
    words = ["", "gemm", 'q"\\', "é\n", "Z", "(no kernel)", "(missing)"]
    tiles = []
    for tile in rng.sample(range(3000), 6):
        samples = []
        for _ in range(rng.randrange(0, 9)):
            start = rng.choice([rng.randrange(0, 80), rng.randrange(2**32 - 50, 2**32)])
            metadata = [(rng.choice("ab"), rng.choice(words)) for _ in range(rng.randrange(0, 4))]
            samples.append(
                S(
                    start,
                    (start + rng.randrange(0, 60)) % 2**32,
                    rng.choice(_query.KINDS),
                    rng.choice(words),
                    rng.choice(words),
                    rng.randrange(0, 4),
                    rng.randrange(0, 2),
                    metadata=metadata,
                )
            )
        tiles.append(T(tile, samples))
    return tiles


@pytest.mark.parametrize("group_by", _query.GROUP_BYS)
@pytest.mark.parametrize("sort_by", _query.SORT_BYS)
def test_every_group_by_and_sort_by_against_reference(group_by: str, sort_by: str) -> None:
    for seed in range(3):
        key = {"metadata_key": "a"} if group_by == "metadata" else {}
        flags = {"group_by": group_by, "sort_by": sort_by, **key, "limit": 0, "samples": 4}
        check_against_reference(_seeded_tiles(seed), 1_500_000_000, flags)


@pytest.mark.parametrize(
    "flags",
    [
        {"group_by": "kernel", "samples": 5},
        {"group_by": "kind", "sort_by": "work-cycles"},
        {"group_by": "operation", "limit": 0, "sort_by": "maximum-cycles"},
        {"group_by": "phase", "limit": 0, "sort_by": "name"},
        {"group_by": "tile", "limit": 0, "sort_by": "samples"},
        {"group_by": "metadata", "metadata_key": "role", "limit": 0},
        {"metadata": [("active", "true")], "kind": "exchange", "group_by": "phase", "samples": 3},
        {"at": 200_000, "group_by": "tile", "limit": 0, "samples": 10},
    ],
)
def test_generated_profile_matches_reference(demo_small: tuple[Any, list[T]], flags: dict[str, Any]) -> None:
    profile, tiles = demo_small
    expected = ref.run(tiles, profile.clock_hz, flags)
    result = query(profile, **flags)
    assert result.matched_sample_count > 0
    assert result.to_json() == ref.to_json(expected)
    assert result.to_text() == ref.to_text(expected)
