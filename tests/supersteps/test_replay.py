"""`what_if()`: factor 1 reproduces the measurement, a replay reference, the model by hand, and errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl
import pytest
import superstep_reference as sref
import superstep_strategies as strat
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st
from untyped import untyped

from ipu_nb import QueryError, WhatIf, supersteps, what_if


def _kernels(tiles: list[T]) -> list[str]:
    return sorted({s.kernel for t in tiles for s in t.samples})


@settings(max_examples=examples(200))
@given(tiles=strat.PROFILES, flags=strat.FILTERS)
def test_every_factor_at_one_reproduces_the_measured_supersteps(tiles: list[T], flags: dict[str, Any]) -> None:
    profile = profile_from_tiles(tiles)
    result = what_if(profile, dict.fromkeys(_kernels(tiles), 1.0), **flags)
    measured = supersteps(profile, **flags)
    table = result.supersteps
    assert table.select("phase", "epoch", "start", "span_cycles").equals(
        measured.select("phase", "epoch", "start", "span_cycles")
    )
    assert table.get_column("estimated_cycles").to_list() == measured.get_column("span_cycles").to_list()
    assert (table.get_column("saved_cycles") == 0).all()
    assert table.get_column("estimated_critical_tile").to_list() == measured.get_column("critical_tile").to_list()
    assert result.estimated_cycles == result.measured_cycles == int(measured.get_column("span_cycles").sum())


@settings(max_examples=examples(200))
@given(
    tiles=strat.PROFILES,
    factors=st.lists(st.sampled_from([0.0, 0.5, 0.8, 1.0, 1.25, 3.0]), min_size=5, max_size=5),
    flags=strat.FILTERS,
)
def test_matches_the_replay_reference(tiles: list[T], factors: list[float], flags: dict[str, Any]) -> None:
    kernels = _kernels(tiles)
    scale = dict(zip(kernels, factors, strict=False))
    profile = profile_from_tiles(tiles)
    result = what_if(profile, scale, **flags)
    expected = sref.replayed(tiles, scale, flags)
    for row in result.supersteps.iter_rows(named=True):
        key = (row["phase"], row["epoch"])
        for name in ("estimated_cycles", "estimated_critical_tile", "estimated_critical_cycles"):
            assert row[name] == expected[key][name], (key, name)
        assert row["saved_cycles"] == row["span_cycles"] - row["estimated_cycles"]
    assert result.estimated_cycles == sum(v["estimated_cycles"] for v in expected.values())
    # file order, not row order, is execution order: the same answer from a shuffled frame
    shuffled = dataclasses.replace(profile, samples=profile.samples.reverse())
    assert what_if(shuffled, scale, **flags).supersteps.equals(result.supersteps)


def test_the_model_by_hand() -> None:
    # One superstep p0/0 on two tiles; tile 1 runs "slow" then "tail", tile 2 runs "fast".
    #   tile 1: slow [0,100) · gap · tail [110,130)      tile 2: fast [0,90)
    # measured: [0,100) ∪ [110,130) ∪ [0,90) = 120. slow × 0.5 -> [0,50); the tail keeps its gap:
    # [60,80); the span is 90 (tile 2 now ends last, and is the critical tile).
    tiles = [T(1, [S(0, 100, kernel="slow"), S(110, 130, kernel="tail")]), T(2, [S(7, 97, kernel="fast")])]
    tiles.append(T(3, [S(0, 40, kernel="fast", phase=1)]))  # another superstep, untouched
    result = what_if(profile_from_tiles(tiles), {"slow": 0.5})
    rows = result.supersteps.select(
        "phase", "span_cycles", "estimated_cycles", "scaled_samples", "critical_tile", "estimated_critical_tile"
    ).rows()
    assert rows == [(0, 120, 90, 1, 1, 2), (1, 40, 40, 0, 3, 3)]
    assert (result.measured_cycles, result.estimated_cycles, result.saved_cycles) == (160, 130, 30)
    assert result.speedup == 160 / 130 and isinstance(result, WhatIf)
    assert "160 → 130 cycles" in repr(result)
    # factor 3 on "fast": [0,270) on tile 2 and [0,120) on tile 3; 0 leaves nothing of them
    assert what_if(profile_from_tiles(tiles), {"fast": 3}).supersteps.get_column("estimated_cycles").to_list() == [
        270,
        120,
    ]
    gone = what_if(profile_from_tiles(tiles), {"fast": 0}).supersteps
    assert gone.get_column("estimated_cycles").to_list() == [120, 0]
    # rounding: 5 cycles × 0.5 = 2.5 -> 2, 7 × 0.5 = 3.5 -> 4 (halves to even)
    halves = [T(0, [S(0, 5, kernel="k")]), T(1, [S(0, 7, kernel="k", phase=1)])]
    assert what_if(profile_from_tiles(halves), {"k": 0.5}).supersteps.get_column("estimated_cycles").to_list() == [
        2,
        4,
    ]


def test_counter_wrap_and_epochs() -> None:
    tiles = [
        T(0, [S(2**32 - 10, 20, kernel="k"), S(20, 50, kernel="j", epoch=1), S(50, 60, kernel="k", epoch=1)]),
        T(4, [S(2**32 - 3, 2**32 - 1, kernel="k"), S(2**32 - 1, 8, kernel="j", epoch=1)]),
    ]
    # offsets: tile 0 [0,30) p0/0, [30,60) j p0/1, [60,70) p0/1; tile 4 [0,2) p0/0, [2,11) j p0/1
    profile = profile_from_tiles(tiles)
    measured = supersteps(profile)
    assert measured.select("epoch", "span_cycles").rows() == [(0, 30), (1, 40 + 9)]
    same = what_if(profile, {"k": 1, "j": 1})
    assert same.supersteps.get_column("estimated_cycles").to_list() == [30, 49]
    # j × 0.5: tile 0 [30,45) then k moves to [45,55); tile 4 [2,6) (4.5 rounds to 4): 25 + 4
    faster = what_if(profile, {"j": 0.5})
    assert faster.supersteps.get_column("estimated_cycles").to_list() == [30, 29]


def test_filters_choose_the_supersteps() -> None:
    tiles = [T(0, [S(0, 10, kernel="k"), S(10, 30, "exchange", kernel="")]), T(1, [S(0, 4, kernel="k")])]
    result = what_if(profile_from_tiles(tiles), {"k": 2}, kind="compute")
    assert result.supersteps.select("span_cycles", "estimated_cycles").rows() == [(10, 20)]
    assert result.query.kind == "compute"


def test_empty_scale_and_empty_profiles() -> None:
    tiles = [T(0, [S(0, 10, kernel="k")])]
    assert what_if(profile_from_tiles(tiles), {}).saved_cycles == 0
    empty = what_if(profile_from_tiles([T(0, [])]), {})
    assert empty.supersteps.height == 0 and empty.speedup == 1.0


def test_errors_name_the_problem() -> None:
    tiles = [T(0, [S(0, 5, kernel="gemm_f32_accumulate"), S(5, 9, kernel="gemm_f16_init"), S(9, 9, kernel="")])]
    profile = profile_from_tiles(tiles)
    with pytest.raises(QueryError, match=r"unknown kernel 'gemm' in scale; did you mean 'gemm_f16_init', "):
        what_if(profile, {"gemm": 0.8})
    with pytest.raises(QueryError, match=r"did you mean 'gemm_f32_accumulate'\?"):
        what_if(profile, {"gemm_f32_acumulate": 0.8})
    with pytest.raises(QueryError, match=r"the profile's kernels are '', 'gemm_f16_init', 'gemm_f32_accumulate'$"):
        what_if(profile, {"softmax": 2})
    with pytest.raises(QueryError, match=r"samples without a kernel have the kernel ''"):
        what_if(profile, {"(no kernel)": 2})
    for bad in (-1, float("nan"), float("inf"), True, "2", None):
        with pytest.raises(QueryError, match=r"scale\['gemm_f16_init'\] must be a"):
            untyped(what_if)(profile, {"gemm_f16_init": bad})
    with pytest.raises(QueryError, match=r"stretches the supersteps beyond 4.61e\+18 cycles"):
        what_if(profile, {"gemm_f16_init": 1e300})
    assert what_if(profile, {"gemm_f16_init": 1e6}).estimated_cycles == 4_000_000 + 5
    with pytest.raises(QueryError, match="scale must be a mapping"):
        what_if(profile, [("gemm_f16_init", 2)])  # type: ignore[arg-type]
    with pytest.raises(QueryError, match="scale keys must be kernel names"):
        what_if(profile, {3: 2})  # type: ignore[dict-item]
    with pytest.raises(QueryError, match="unknown filter 'limit'"):
        untyped(what_if)(profile, {}, limit=3)


def test_generated_profile(demo_small: tuple[Any, list[T]]) -> None:
    profile, tiles = demo_small
    kernels = profile.samples.get_column("kernel").cast(pl.String).unique().to_list()
    same = what_if(profile, dict.fromkeys(kernels, 1))
    measured = supersteps(profile)
    assert same.supersteps.get_column("estimated_cycles").to_list() == measured.get_column("span_cycles").to_list()
    scale = {"gemm_f32_accumulate_large_rows": 0.8}
    faster = what_if(profile, scale)
    assert 0 < faster.saved_cycles < faster.measured_cycles
    expected = sref.replayed(tiles, scale, {})
    assert faster.estimated_cycles == sum(v["estimated_cycles"] for v in expected.values())


def test_wide_phase_and_epoch_ids() -> None:
    """Phase, epoch and tile bits beyond 64 take dense superstep ids; the replay is the same."""
    tiles = [
        T(5000, [S(0, 10, kernel="k", phase=2**32 - 1, epoch=2**32 - 1), S(10, 30, kernel="j", phase=2**32 - 1)]),
        T(7, [S(0, 25, kernel="j", phase=2**32 - 1, epoch=2**32 - 1), S(25, 26, kernel="k", phase=3)]),
    ]
    scale = {"k": 2.0, "j": 0.5}
    result = what_if(profile_from_tiles(tiles), scale)
    expected = sref.replayed(tiles, scale, {})
    assert {(r["phase"], r["epoch"]): r["estimated_cycles"] for r in result.supersteps.iter_rows(named=True)} == {
        key: value["estimated_cycles"] for key, value in expected.items()
    }
    assert result.supersteps.height == 3
