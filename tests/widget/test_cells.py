"""Summary cells in wire form: the C pass against `cell_bytes(summarise(...))` and a brute-force reference."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from builders import S, T, profile_from_tiles
from test_lod import brute, kind_class, random_profile

from ipu_nb._widget.lod import GREY, KIND_CLASSES, build_index, summarise, timeline_facts, unsorted_samples
from ipu_nb._widget.lod import native as _native
from ipu_nb._widget.lod.cells import CellWindow, cell_bytes, summary_cells

needs_c = pytest.mark.skipif(not _native.NATIVE, reason="the C library is not built")


def block_windows(span: int, rng: random.Random, bins: int) -> list[tuple[int, int, int]]:
    """(start, end, bins) of cache-block-like windows: bins of 2**L cycles, starting at a multiple of the width."""
    out = []
    for level in (0, 1, 3, 5, 8):
        width = bins << level
        blocks = max(1, math.ceil(span / width))
        k = rng.randrange(blocks)
        run = rng.choice([1, 1, 2, 3])
        out.append((k * width, (k + run) * width, bins * run))
    out.append((0, bins << max(0, (span // bins).bit_length()), bins))  # one block over the whole profile
    return out


def expected_levels(profile, start: int, end: int, bins: int, matched_ids: set[int]) -> np.ndarray:
    """Coverage levels from the brute-force fractions: of the matching samples, or of all where none matches."""
    cover, mcover, best = brute(profile, start, end, bins, matched_ids)
    out = np.zeros(cover.shape, dtype=np.uint8)
    for (r, j), entries in best.items():
        shown = mcover[r, j] if any(ok for ok, _, _ in entries) else cover[r, j]
        out[r, j] = math.ceil(min(float(np.float32(shown)), 1.0) * 7)
    return out


@needs_c
@pytest.mark.parametrize("seed", range(8))
def test_the_c_cells_are_the_summary_bytes(seed):
    """Disjoint rows with runs, gaps, samples inside one cell and on cell edges; filtered or not; both colourings."""
    profile = random_profile(seed + 500, tiles=9, per_tile=200, durations=(1, 2, 3, 16, 50, 400, 5000))
    index = build_index(profile.samples, profile.tiles)
    assert not index.overlaps
    rng = random.Random(seed)
    for start, end, bins in block_windows(index.span, rng, rng.choice([4, 16, 64])):
        mask = None if rng.random() < 0.3 else np.array([rng.random() < 0.6 for _ in index.sample])
        colour = rng.choice(["kind", "kernel"])
        got = summary_cells(index, start, end, bins, mask, colour)
        assert isinstance(got, CellWindow)
        reference = summarise(index, start, end, bins, mask, colour)
        np.testing.assert_array_equal(got.cells, cell_bytes(reference))
        assert (got.start, got.end, got.bins, got.sample_count) == (start, end, bins, reference.sample_count)


@needs_c
@pytest.mark.parametrize("seed", range(4))
def test_the_c_cells_match_brute_force(seed):
    """Independently of `summarise`: levels from exact fractions, the dominant matching class, grey otherwise."""
    profile = random_profile(seed + 600, tiles=5, per_tile=40, durations=(1, 3, 8, 50, 400))
    index = build_index(profile.samples, profile.tiles)
    rng = random.Random(seed)
    matched_ids = {i for i in range(profile.sample_count) if rng.random() < 0.5}
    mask = np.isin(index.sample, list(matched_ids))
    for start, end, bins in block_windows(index.span, rng, 8):
        got = summary_cells(index, start, end, bins, mask, "kind").cells
        np.testing.assert_array_equal(got >> 5, expected_levels(profile, start, end, bins, matched_ids))
        _, _, best = brute(profile, start, end, bins, matched_ids)
        for r, j in zip(*np.nonzero(got), strict=True):
            matching = [(o, s) for ok, o, s in best[(r, j)] if ok]
            if matching:
                top = max(o for o, _ in matching)
                allowed = {kind_class(s) for o, s in matching if o >= top - 1 / 65535}
            else:
                allowed = {GREY}
            assert got[r, j] & 31 in allowed, (r, j, best[(r, j)])


@needs_c
def test_the_c_pass_writes_every_cell_it_answers(monkeypatch):
    """The C pass answers a block (no silent fallback), and whole cells, pieces and empty cells come out right."""
    profile = profile_from_tiles(
        [
            T(0, [S(0, 3, kind="exchange"), S(3, 40, kind="compute"), S(40, 41, kind="idle"), S(41, 42, kind="idle")]),
            T(1, [S(0, 1, kind="exchange"), S(8, 16, kind="exchange")]),
        ]
    )
    index = build_index(profile.samples, profile.tiles)
    called: list[int] = []
    block_cells = _native.block_cells

    def counted(*a: Any) -> np.ndarray | None:
        called.append(1)
        return block_cells(*a)

    monkeypatch.setattr(_native, "block_cells", counted)
    got = summary_cells(index, 0, 64, 8, None).cells  # cells of 8 cycles
    assert called
    exchange, compute, idle = (1 + KIND_CLASSES.index(kind) for kind in ("exchange", "compute", "idle"))
    full = 7 << 5
    # Row 0: cell 0 is exchange 3/8 then compute 5/8 (compute wins, full); cells 1-4 compute whole;
    # cell 5 (40..48): two idle samples of 1 cycle, 2/8 covered -> level ceil(1.75) = 2.
    assert got[0].tolist() == [compute | full, *[compute | full] * 4, idle | 2 << 5, 0, 0]
    # Row 1 (offsets from its first sample): 1/8 of cell 0 (level 1), then exactly cell 1.
    assert got[1].tolist() == [exchange | 1 << 5, exchange | full, 0, 0, 0, 0, 0, 0]


def test_summaries_elsewhere_take_the_reference_path(monkeypatch):
    """Overlapping rows, windows of other widths and a missing C library: `cell_bytes(summarise(...))`."""
    monkeypatch.setattr(_native, "block_cells", lambda *a: pytest.fail("the C pass ran"))
    overlapping = random_profile(3, overlap=True)
    index = build_index(overlapping.samples, overlapping.tiles)
    assert index.overlaps
    for start, end, bins in [(0, 512, 16), (5, 1000, 7)]:
        got = summary_cells(index, start, end, bins, None, "kind")
        np.testing.assert_array_equal(got.cells, cell_bytes(summarise(index, start, end, bins, None, "kind")))
    disjoint = random_profile(4)
    index = build_index(disjoint.samples, disjoint.tiles)
    got = summary_cells(index, 3, 1000, 7, None, "kind")  # 997/7 cycles a cell
    np.testing.assert_array_equal(got.cells, cell_bytes(summarise(index, 3, 1000, 7, None, "kind")))


@needs_c
@pytest.mark.parametrize("seed", range(3))
def test_file_order_samples_give_the_same_cells(seed):
    """`UnsortedSamples` lists a window's file rows in the index's order: the same bytes as the index."""
    profile = random_profile(seed + 700, tiles=7, per_tile=120, durations=(1, 3, 50, 400))
    index = build_index(profile.samples, profile.tiles)
    early = unsorted_samples(profile.samples, timeline_facts(profile.samples, profile.tiles))
    rng = random.Random(seed)
    order = early.order
    for start, end, bins in block_windows(index.span, rng, 32):
        mask = np.array([rng.random() < 0.5 for _ in index.sample])
        by_file_row = np.empty_like(mask)
        by_file_row[order] = mask
        late = summary_cells(index, start, end, bins, mask, "kernel").cells
        first = summary_cells(early, start, end, bins, by_file_row, "kernel").cells
        np.testing.assert_array_equal(late, first)


@needs_c
def test_candidates_out_of_order_are_refused():
    """The C pass checks the order it relies on: a row going back, or a sample starting in an earlier cell."""
    start_f = np.array([0.0, 10.0, 4.0])
    end_f = np.array([3.0, 12.0, 6.0])
    cls = np.array([1, 1, 1], dtype=np.uint8)

    def cells(row: list[int], pos: list[int] | None = None) -> np.ndarray | None:
        count = 3 if pos is None else len(pos)
        at = None if pos is None else np.array(pos, dtype=np.int64)
        rows = np.array(row, dtype=np.int64)
        candidates = _native.Candidates(at, count, start_f, end_f, rows, cls[:count], None)
        return _native.block_cells(candidates, 0.0, 2.0, 8, 2)

    assert cells([1, 1, 0]) is None  # a row going back
    assert cells([0, 0, 0]) is None  # the third sample starts in a cell before the second's
    got = cells([0, 0, 0], pos=[0, 1])
    assert got is not None and got[0].tolist() == [1 | 7 << 5, 1 | 4 << 5, 0, 0, 0, 1 | 7 << 5, 0, 0]
