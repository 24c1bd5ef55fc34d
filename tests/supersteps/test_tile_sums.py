"""The dense per-tile sums of `measure` against the polars group-by they replace, on both of their paths."""

from __future__ import annotations

import polars as pl
import pytest

from ipu_nb._supersteps import structure
from ipu_nb._supersteps.structure import _collected_tile_sums, keyed, tile_sums


def _samples(durations: list[int]) -> pl.DataFrame:
    n = len(durations)
    return pl.DataFrame(
        {
            "tile": pl.Series([i % 5 * 3 for i in range(n)], dtype=pl.UInt32),
            "phase": pl.Series([i % 7 for i in range(n)], dtype=pl.UInt32),
            "epoch": pl.Series([i % 2 for i in range(n)], dtype=pl.UInt32),
            "duration": pl.Series(durations, dtype=pl.UInt32),
        }
    )


@pytest.mark.parametrize("dense_bits", [24, 0])  # 0: every cell is too wide, the polars path
@pytest.mark.parametrize("durations", [[], [0, 0, 5], [2**32 - 1] * 40, [(i * 7919) % 1000 for i in range(300)]])
def test_collected_tile_sums_match_the_group_by(
    durations: list[int], dense_bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(structure, "_DENSE_CELL_BITS", dense_bits)
    m, keys = keyed(_samples(durations))
    expected = tile_sums(m.lazy(), keys).collect().sort("_cell")
    got = _collected_tile_sums(m, keys)
    assert got.schema == expected.schema
    assert got.sort("_cell").equals(expected)  # zero-duration cells included


def test_a_total_past_float_precision_takes_the_exact_group_by(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structure, "_EXACT_FLOAT", 10)
    m, keys = keyed(_samples([3, 4, 5, 6]))
    got = _collected_tile_sums(m, keys)
    assert got.sort("_cell").equals(tile_sums(m.lazy(), keys).collect().sort("_cell"))
