"""`tile_balance()`: a hand-computed case and the brute-force reference on random profiles."""

from __future__ import annotations

from typing import Any

import pytest
import superstep_reference as sref
import superstep_strategies as strat
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings

from ipu_nb import tile_balance


def test_by_hand() -> None:
    # Two supersteps over three tiles (logical order 7, 3, 5):
    #   p0/0: tile 7 = 10, tile 3 = 4, tile 5 = 10 -> critical 5 (tie, smaller id), span 10, mean 8, recoverable 2
    #   p1/0: tile 7 = 6 (two samples with a gap), tile 3 = 9 -> critical 3, span [10,...): see offsets
    tiles = [
        T(7, [S(0, 10), S(10, 13, phase=1), S(14, 17, phase=1)]),
        T(3, [S(0, 4, kind="idle"), S(10, 19, phase=1)]),
        T(5, [S(100, 110)]),
    ]
    rows = {r["tile"]: r for r in tile_balance(profile_from_tiles(tiles)).to_dicts()}
    assert list(rows) == [3, 5, 7]  # critical once, once, never; then by tile
    assert rows[5]["critical_count"] == 1 and rows[5]["critical_share"] == 0.5
    assert rows[5]["recoverable_cycles"] == 2.0 and rows[5]["slack_cycles"] == 0
    # tile 3 is critical in p1/0: 9 vs tile 7's 6 -> mean 7.5, recoverable 1.5; slack in p0/0: 10 - 4
    assert rows[3]["recoverable_cycles"] == 1.5 and rows[3]["slack_cycles"] == 6
    assert (rows[3]["idle_cycles"], rows[3]["compute_cycles"], rows[3]["tile_index"]) == (4, 9, 1)
    # tile 7: slack 0 + 3, busy 16 over spans 10 + 9 ([10,17) ∪ [10,19) = 9)
    assert (rows[7]["slack_cycles"], rows[7]["busy_cycles"], rows[7]["span_cycles"]) == (3, 16, 19)
    assert rows[7]["busy_share"] == 16 / 19 and rows[7]["phase_count"] == 2


def _check(tiles: list[T], flags: dict[str, Any]) -> None:
    frame = tile_balance(profile_from_tiles(tiles), **flags)
    expected = sref.tile_balance(tiles, 1_500_000_000, flags)
    got = frame.to_dicts()
    assert [r["tile"] for r in got] == [r["tile"] for r in expected]
    for ours, theirs in zip(got, expected, strict=True):
        assert ours["recoverable_cycles"] == pytest.approx(theirs.pop("recoverable_cycles"), rel=1e-12, abs=1e-9)
        ours.pop("recoverable_cycles")
        assert ours == theirs


@settings(max_examples=examples(200))
@given(tiles=strat.PROFILES, flags=strat.FILTERS)
def test_matches_reference(tiles: list[T], flags: dict[str, Any]) -> None:
    _check(tiles, flags)


def test_generated_profile_matches_reference(demo_small: tuple[Any, list[T]]) -> None:
    profile, tiles = demo_small
    for flags in ({"kind": "compute"}, {"phases": (1, 2, 3)}):
        frame = tile_balance(profile, **flags)
        assert frame.height > 0
        expected = sref.tile_balance(tiles, profile.clock_hz, flags)
        assert frame.drop("recoverable_cycles").to_dicts() == [
            {k: v for k, v in r.items() if k != "recoverable_cycles"} for r in expected
        ]
