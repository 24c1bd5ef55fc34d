"""Area-conserving summaries: each cell's shares per colour class against a plain reference from the samples."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from builders import S, T, profile_from_tiles
from test_cells import block_windows
from test_lod import kind_class, random_profile

from ipu_nb._widget.lod import GREY, KIND_CLASSES, build_index, timeline_facts, unsorted_samples
from ipu_nb._widget.lod import native as _native
from ipu_nb._widget.lod import shares as _shares
from ipu_nb._widget.lod.build import file_runs
from ipu_nb._widget.lod.shares import ShareWindow, quantise, share_window

needs_c = pytest.mark.skipif(not _native.NATIVE, reason="the C library is not built")


def reference(
    profile: Any, start: int, end: int, bins: int, matched_ids: set[int] | None
) -> dict[tuple[int, int, int], Fraction]:
    """``{(class, row, bin): exact share}`` by kind, from the samples frame: cycles covered over the bin's cycles."""
    rows = sorted(profile.tiles.get_column("tile").to_list())
    width = Fraction(end - start, bins)
    out: dict[tuple[int, int, int], Fraction] = {}
    for s in profile.samples.iter_rows(named=True):
        a, b = s["offset"], s["offset"] + s["duration"]
        if b <= start or a >= end or a == b:
            continue
        cls = kind_class(s) if matched_ids is None or s["sample"] in matched_ids else GREY
        r = rows.index(s["tile"])
        for j in range(bins):
            lo, hi = start + j * width, start + (j + 1) * width
            o = max(Fraction(0), min(b, hi) - max(a, lo)) / width
            if o > 0:
                out[(cls, r, j)] = out.get((cls, r, j), Fraction(0)) + o
    return out


def assert_shares_match(got: ShareWindow, expected: dict[tuple[int, int, int], Fraction], rows: int) -> None:
    """Every share within one 255th of the exact one, and each cell's total exactly its cover rounded."""
    classes = got.classes.tolist()
    assert sorted(classes) == classes and len(set(classes)) == len(classes)
    assert {c for c, _, _ in expected} <= set(classes)
    assert got.planes.shape == (len(classes), rows, got.bins) and got.planes.dtype == np.uint8
    exact = np.zeros((len(classes), rows, got.bins))
    for (c, r, j), share in expected.items():
        exact[classes.index(c), r, j] = float(share)
    np.testing.assert_array_less(np.abs(got.planes - 255 * exact), 1.0 + 1e-9)
    total = np.minimum(exact.sum(axis=0), 1.0)
    np.testing.assert_array_equal(got.planes.sum(axis=0, dtype=np.int64), np.floor(255 * total + 0.5))


@pytest.mark.parametrize("seed", range(6))
def test_shares_are_the_cycle_weighted_cover_of_each_class(seed: int) -> None:
    """Any window and width, filtered or not: each kind's share of each cell, grey for samples not matching."""
    profile = random_profile(seed + 40, tiles=6, per_tile=60, durations=(1, 2, 3, 16, 50, 400, 5000))
    index = build_index(profile.samples, profile.tiles)
    rng = random.Random(seed)
    for _ in range(4):
        start = rng.randrange(0, max(1, index.span // 2))
        end = start + rng.randrange(1, index.span + 1)
        bins = rng.choice([1, 3, 8, 17, 64])
        matched_ids = None if rng.random() < 0.3 else {i for i in range(profile.sample_count) if rng.random() < 0.6}
        mask = None if matched_ids is None else np.isin(index.sample, list(matched_ids))
        got = share_window(index, start, end, bins, mask, "kind")
        assert (got.start, got.end, got.bins) == (start, end, bins)
        assert_shares_match(got, reference(profile, start, end, bins, matched_ids), index.rows)


@pytest.mark.parametrize("seed", range(3))
def test_overlapping_samples_share_the_cell_they_overfill(seed: int) -> None:
    """Where a row's samples overlap, a cell covered more than once shows each class in proportion."""
    profile = random_profile(seed + 70, overlap=True)
    index = build_index(profile.samples, profile.tiles)
    assert index.overlaps
    got = share_window(index, 0, index.span, 16, None, "kind")
    expected = reference(profile, 0, index.span, 16, None)
    cover: dict[tuple[int, int], Fraction] = {}
    for (_, r, j), share in expected.items():
        cover[(r, j)] = cover.get((r, j), Fraction(0)) + share
    scaled = {(c, r, j): s / max(Fraction(1), cover[(r, j)]) for (c, r, j), s in expected.items()}
    assert_shares_match(got, scaled, index.rows)


@needs_c
@pytest.mark.parametrize("seed", range(6))
def test_the_c_pass_and_numpy_give_the_same_shares(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cache-block windows (bins of 2**L cycles): the C pass's bytes are numpy's, in both colourings."""
    profile = random_profile(seed + 500, tiles=9, per_tile=200, durations=(1, 2, 3, 16, 50, 400, 5000))
    index = build_index(profile.samples, profile.tiles)
    rng = random.Random(seed)
    calls: list[int] = []
    block_shares = _native.block_shares

    def counted(*args: Any) -> Any:
        calls.append(1)
        return block_shares(*args)

    for start, end, bins in block_windows(index.span, rng, rng.choice([4, 16, 64])):
        mask = None if rng.random() < 0.3 else np.array([rng.random() < 0.6 for _ in index.sample])
        colour = rng.choice(["kind", "kernel"])
        monkeypatch.setattr(_native, "block_shares", counted)
        fast = share_window(index, start, end, bins, mask, colour)
        monkeypatch.setattr(_native, "NATIVE", False)
        slow = share_window(index, start, end, bins, mask, colour)
        monkeypatch.setattr(_native, "NATIVE", True)
        np.testing.assert_array_equal(fast.classes, slow.classes)
        np.testing.assert_array_equal(fast.planes, slow.planes)
        assert fast.sample_count == slow.sample_count
    assert calls, "the C pass never ran"


@needs_c
@pytest.mark.parametrize("seed", range(3))
def test_file_order_samples_give_the_same_shares(seed: int) -> None:
    """Before the index is sorted (`UnsortedSamples`, `FileRuns`), the same shares as the index's."""
    profile = random_profile(seed + 700, tiles=7, per_tile=120, durations=(1, 3, 50, 400))
    index = build_index(profile.samples, profile.tiles)
    facts = timeline_facts(profile.samples, profile.tiles)
    early = unsorted_samples(profile.samples, facts)
    runs = file_runs(facts, profile.samples)
    rng = random.Random(seed)
    for start, end, bins in block_windows(index.span, rng, 32):
        mask = np.array([rng.random() < 0.5 for _ in index.sample])
        by_file_row = np.empty_like(mask)
        by_file_row[early.order] = mask
        late = share_window(index, start, end, bins, mask, "kernel")
        for first in [early, runs]:
            if first is None:
                continue
            got = share_window(first, start, end, bins, by_file_row, "kernel")
            np.testing.assert_array_equal(got.classes, late.classes)
            np.testing.assert_array_equal(got.planes, late.planes)


def test_a_thin_sync_between_long_computes_fills_its_pixel() -> None:
    """A 200-cycle sync between computes: a whole cell of its own at 200-cycle bins, its fraction at coarser ones."""
    profile = profile_from_tiles(
        [T(0, [S(0, 4000, kind="compute"), S(4000, 4200, kind="synchronization"), S(4200, 8000, kind="compute")])]
    )
    index = build_index(profile.samples, profile.tiles)
    sync = 1 + KIND_CLASSES.index("synchronization")
    compute = 1 + KIND_CLASSES.index("compute")
    fine = share_window(index, 0, 8000, 40, None)  # 200 cycles a cell
    planes = dict(zip(fine.classes.tolist(), fine.planes[:, 0], strict=True))
    assert planes[sync][20] == 255 and planes[compute][20] == 0
    coarse = share_window(index, 0, 8000, 5, None)  # 1600 cycles a cell: 200/1600 of cell 2
    planes = dict(zip(coarse.classes.tolist(), coarse.planes[:, 0], strict=True))
    assert planes[sync].tolist() == [0, 0, 32, 0, 0]  # round(255 / 8)
    assert planes[compute].tolist() == [255, 255, 223, 255, 255]


def test_quantised_shares_never_exceed_a_cell() -> None:
    rng = np.random.default_rng(5)
    raw = rng.random((7, 1000))
    raw /= raw.sum(axis=0) * rng.uniform(1.0, 1.5, 1000)
    q = quantise(raw)
    assert (q.sum(axis=0, dtype=np.int64) <= 255).all()
    assert (np.abs(q - 255 * raw) <= 1.0 + 1e-9).all()


def test_numpy_sums_a_few_cells_at_a_time_with_the_same_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many classes over a wide window are summed in slices of cells: the same bytes as all at once."""
    profile = random_profile(81, tiles=9, per_tile=200)
    index = build_index(profile.samples, profile.tiles)
    monkeypatch.setattr(_native, "NATIVE", False)
    whole = share_window(index, 5, index.span, 37, None, "kernel")
    monkeypatch.setattr(_shares, "_CELLS_AT_ONCE", 7)
    sliced = share_window(index, 5, index.span, 37, None, "kernel")
    np.testing.assert_array_equal(whole.planes, sliced.planes)
    by_kind = share_window(index, 5, index.span, 37, None, "kind")
    assert_shares_match(by_kind, reference(profile, 5, index.span, 37, None), index.rows)
