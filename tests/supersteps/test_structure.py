"""`supersteps()`: hand-computed cases, the query core's phaseCycles, and a brute-force reference on random profiles."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
import superstep_reference as sref
import superstep_strategies as strat
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from untyped import untyped

import ipu_nb
from ipu_nb import Query, QueryError, query, supersteps


def _by_hand() -> list[T]:
    # Offsets per tile (first sample = 0). Tile 7's counter wraps.
    #   tile 7:  [0,10) compute k "a" p1/0 · [10,14) sync p2/0 · [14,20) compute "b" p1/1
    #   tile 3:  [0,6) compute "a" p1/0 · [6,10) compute "b" p1/0 · [10,11) sync p2/0 · [11,11) idle p2/0
    #   tile 5:  [0,10) compute "b" p1/0 (ties tile 7 and tile 3 at 10 cycles in p1/0)
    #   tile 9:  no samples
    return [
        T(7, [S(2**32 - 4, 6, kernel="a", phase=1), S(6, 10, "synchronization", kernel="", phase=2),
              S(10, 16, kernel="b", phase=1, epoch=1)]),
        T(3, [S(100, 106, kernel="a", phase=1), S(106, 110, kernel="b", phase=1),
              S(110, 111, "synchronization", kernel="", phase=2), S(111, 111, "idle", kernel="", phase=2)]),
        T(5, [S(50, 60, kernel="b", phase=1)]),
        T(9, []),
    ]  # fmt: skip


def test_by_hand() -> None:
    steps = supersteps(profile_from_tiles(_by_hand(), clock_hz=1000))
    assert steps.select("phase", "epoch").rows() == [(1, 0), (2, 0), (1, 1)]  # by start: 0, 10, 14
    first, second, third = steps.to_dicts()
    assert (first["start"], first["end"], first["span_cycles"], first["span_ms"]) == (0, 10, 10, 10.0)
    # p1/0: tiles 7, 3, 5 at 10 cycles each: the tie goes to the smallest physical id
    assert (first["tile_count"], first["critical_tile"], first["critical_cycles"]) == (3, 3, 10)
    assert (first["mean_tile_cycles"], first["recoverable_cycles"], first["imbalance"]) == (10.0, 0.0, 1.0)
    # kernels: "a" 10 + 6 = 16, "b" 4 + 10 = 14
    assert (first["dominant_kernel"], first["dominant_kernel_cycles"]) == ("a", 16)
    assert (first["compute_cycles"], first["work_cycles"], first["sample_count"]) == (30, 30, 4)
    # p2/0: tile 7 sync [10,14) (4), tile 3 sync [10,11) (1) + idle [11,11): span 4, mean 2.5
    assert (second["span_cycles"], second["critical_tile"], second["critical_cycles"]) == (4, 7, 4)
    assert (second["mean_tile_cycles"], second["recoverable_cycles"], second["imbalance"]) == (2.5, 1.5, 1.6)
    assert (second["synchronization_cycles"], second["idle_cycles"], second["dominant_kind"]) == (
        5,
        0,
        "synchronization",
    )
    assert second["dominant_kernel"] == "" and second["recoverable_ms"] == 1.5
    assert (third["span_cycles"], third["critical_tile"], third["dominant_operation"]) == (6, 7, "op")


def test_ties_in_dominant_names_go_to_byte_order() -> None:
    # "b" and "a" both 5 cycles; "é" (0xc3 0xa9) and "Z" both 7 in the second phase
    tiles = [
        T(0, [S(0, 5, kernel="b", operation="é"), S(5, 12, kernel="é", operation="Z", phase=1)]),
        T(1, [S(0, 5, kernel="a", operation="Z"), S(5, 12, kernel="Z", operation="é", phase=1)]),
    ]
    steps = supersteps(profile_from_tiles(tiles))
    assert steps.select("dominant_kernel", "dominant_operation").rows() == [("a", "Z"), ("Z", "Z")]
    assert steps.get_column("critical_tile").to_list() == [0, 0]


def test_zero_length_samples_count_as_tiles_at_zero() -> None:
    steps = supersteps(profile_from_tiles([T(0, [S(5, 5)]), T(1, [S(9, 9)])]))
    row = steps.row(0, named=True)
    assert (row["span_cycles"], row["tile_count"], row["critical_tile"], row["critical_cycles"]) == (0, 2, 0, 0)
    assert (row["mean_tile_cycles"], row["recoverable_cycles"], row["imbalance"]) == (0.0, 0.0, 1.0)


def test_filters_that_empty_a_phase_drop_it_and_change_its_tiles() -> None:
    profile = profile_from_tiles(_by_hand())
    compute = supersteps(profile, kind="compute")
    assert compute.select("phase", "epoch").rows() == [(1, 0), (1, 1)]
    only_b = supersteps(profile, kernel="b")
    assert only_b.select("phase", "epoch", "critical_tile", "critical_cycles", "tile_count").rows() == [
        (1, 0, 5, 10, 2),
        (1, 1, 7, 6, 1),
    ]
    assert supersteps(profile, kind="exchange").height == 0
    assert supersteps(profile, Query(kind="idle", group_by="tile")).get_column("phase").to_list() == [2]


def test_empty_answers_keep_the_schema() -> None:
    empty = supersteps(profile_from_tiles([T(0, []), T(1, [])]))
    full = supersteps(profile_from_tiles(_by_hand()))
    assert empty.height == 0 and empty.schema == full.schema
    assert supersteps(profile_from_tiles(_by_hand()), tiles=[12345]).schema == full.schema


def test_only_filters_are_accepted() -> None:
    profile = profile_from_tiles(_by_hand())
    with pytest.raises(QueryError, match="unknown filter 'group_by'; the filters are kind, kernel"):
        untyped(supersteps)(profile, group_by="tile")
    with pytest.raises(QueryError, match="kind must be one of"):
        untyped(supersteps)(profile, kind="bogus")
    with pytest.raises(QueryError, match=r"query must be an ipu_nb\.Query"):
        supersteps(profile, "compute")  # type: ignore[arg-type]
    assert supersteps(profile, Query(kind="compute"), kind="synchronization").get_column("phase").to_list() == [2]


def test_public_api() -> None:
    assert ipu_nb.supersteps is supersteps
    assert {"supersteps", "tile_balance", "what_if", "findings", "WhatIf", "Findings", "Finding"} <= set(ipu_nb.__all__)


# --------------------------------------------------------------------------- against the references


def _phase_cycles(profile: Any, flags: dict[str, Any]) -> dict[tuple[int, int], dict[str, int]]:
    groups = query(profile, group_by="phase", limit=0, **flags).groups
    out = {}
    for g in groups.iter_rows(named=True):
        dims = {d["name"]: int(d["value"]) for d in g["dimensions"]}
        out[(dims["phase"], dims["epoch"])] = {
            "span_cycles": g["phase_cycles"],
            "work_cycles": g["work_cycles"],
            "tile_count": g["tile_count"],
            "sample_count": g["sample_count"],
            "start": g["first_offset"],
            "end": g["last_offset"],
        }
    return out


def check(tiles: list[T], clock_hz: int, flags: dict[str, Any]) -> pl.DataFrame:
    profile = profile_from_tiles(tiles, clock_hz=clock_hz)
    steps = supersteps(profile, **flags)
    assert steps.to_dicts() == sref.supersteps(tiles, clock_hz, flags)
    core = _phase_cycles(profile, flags)
    ours = {(r["phase"], r["epoch"]): {k: r[k] for k in next(iter(core.values()), {})} for r in steps.to_dicts()}
    assert ours == core  # span_cycles is exactly the core's phaseCycles, group by group
    return steps


@settings(max_examples=examples(250))
@given(tiles=strat.PROFILES, clock_hz=strat.st.sampled_from([0, 7, 1_500_000_000]), flags=strat.FILTERS)
def test_matches_reference(tiles: list[T], clock_hz: int, flags: dict[str, Any]) -> None:
    check(tiles, clock_hz, flags)


def test_unpacked_union_path_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Phase and epoch ids too wide for one packed sort key take the multi-column path."""
    tiles = [
        T(0, [S(0, 5, phase=2**31, epoch=2**31), S(5, 9, phase=2**31, epoch=2**31), S(2, 3, phase=1)]),
        T(1, [S(10, 20, phase=2**31, epoch=2**31), S(2**32 - 1, 4, phase=1)]),
    ]
    check(tiles, 1000, {})
    from ipu_nb._query import intervals

    monkeypatch.setattr(intervals, "_KEY_BITS", 0)
    check(strat_tiles_seeded(), 1000, {})


def strat_tiles_seeded() -> list[T]:
    import random

    rng = random.Random(5)
    return [
        T(t, [S(o := rng.randrange(0, 100), o + rng.randrange(0, 30), phase=rng.randrange(3)) for _ in range(6)])
        for t in range(4)
    ]


def test_generated_profile_matches_query_and_reference(demo_small: tuple[Any, list[T]]) -> None:
    profile, tiles = demo_small
    for flags in ({}, {"kind": "compute"}, {"kind": "synchronization", "tiles": (0, 2, 64)}):
        steps = supersteps(profile, **flags)
        assert steps.height > 0
        assert steps.to_dicts() == sref.supersteps(tiles, profile.clock_hz, flags)
        core = _phase_cycles(profile, flags)
        assert {(r["phase"], r["epoch"]): r["span_cycles"] for r in steps.to_dicts()} == {
            k: v["span_cycles"] for k, v in core.items()
        }
