"""Level-of-detail windows: every summary checked against brute force over the samples."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import polars as pl
import pytest
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from ipu_nb._widget.lod import (
    GREY,
    KIND_CLASSES,
    RawWindow,
    ShareWindow,
    build_index,
    encode_window,
    overview,
    pack_cells,
    summarise,
    unpack_cells,
    window,
)
from ipu_nb._widget.lod import native as _native
from ipu_nb._widget.lod import summaries as _summaries

KINDS = ["exchange", "compute", "synchronization", "idle"]


def random_profile(
    seed: int, tiles: int = 7, per_tile: int = 40, overlap: bool = False, durations=(0, 1, 3, 50, 400, 5000)
):
    rng = random.Random(seed)
    ids = rng.sample(range(200), tiles)
    out = []
    for t in ids:
        cursor = rng.randrange(2**32)  # counters wrap: the offsets must not care
        samples = []
        for i in range(rng.randrange(per_tile)):
            d = rng.choice(durations)
            kind = rng.choice(KINDS)
            meta = [("active", "false")] if kind == "compute" and rng.random() < 0.2 else []
            samples.append(S(cursor, cursor + d, kind=kind, kernel=rng.choice(["a", "b", ""]), phase=i, metadata=meta))
            cursor += rng.randrange(0, d + 1) if overlap else d + rng.choice([0, 0, 7])
        out.append(T(t, samples))
    out.append(T(999, []))  # a tile without samples still gets a row
    return profile_from_tiles(out)


def brute(profile, start, end, bins, matched_ids=None):
    """Per (row, bin) exact coverage and per-cell overlaps, in pure Python."""
    rows = sorted(profile.tiles.get_column("tile").to_list())
    width = (end - start) / bins
    cover = np.zeros((len(rows), bins))
    mcover = np.zeros((len(rows), bins))
    best: dict[tuple[int, int], list[tuple[bool, float, dict[str, Any]]]] = {}
    for s in profile.samples.iter_rows(named=True):
        a, b = s["offset"], s["offset"] + s["duration"]
        if b <= start or a >= end or a == b:
            continue
        r = rows.index(s["tile"])
        ok = matched_ids is None or s["sample"] in matched_ids
        for j in range(bins):
            lo, hi = start + j * width, start + (j + 1) * width
            o = max(0.0, min(b, hi) - max(a, lo)) / width
            if o > 0:
                cover[r, j] += o
                if ok:
                    mcover[r, j] += o
                best.setdefault((r, j), []).append((ok, o, s))
    return cover, mcover, best


def kind_class(s) -> int:
    return KIND_CLASSES.index("idle" if s["inactive"] else s["kind"]) + 1


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("overlap", [False, True])
def test_summary_matches_brute_force(seed, overlap):
    profile = random_profile(seed, overlap=overlap)
    index = build_index(profile.samples, profile.tiles)
    rng = random.Random(seed)
    span = index.span
    start = rng.randrange(0, max(1, span // 3))
    end = start + rng.randrange(1, span + 1)
    assert_summary_matches_brute(profile, index, start, end, rng.choice([1, 5, 17, 64]), rng)


def assert_summary_matches_brute(profile, index, start, end, bins, rng):
    matched_ids = {i for i in range(profile.sample_count) if rng.random() < 0.5}
    mask = np.isin(index.sample, list(matched_ids))
    got = summarise(index, start, end, bins, mask)
    cover, mcover, best = brute(profile, start, end, bins, matched_ids)
    np.testing.assert_allclose(got.coverage, cover, atol=1e-6)
    np.testing.assert_allclose(got.matched_coverage, mcover, atol=1e-6)
    # Total coverage equals the clipped durations summed over the window.
    clipped = sum(
        max(0, min(s["offset"] + s["duration"], end) - max(s["offset"], start))
        for s in profile.samples.iter_rows(named=True)
    )
    assert got.coverage.sum() * (end - start) / bins == pytest.approx(clipped, rel=1e-9, abs=1e-6)
    for r in range(index.rows):
        for j in range(bins):
            entries = best.get((r, j), [])
            if not entries:
                assert got.cls[r, j] == GREY and got.coverage[r, j] == 0
                continue
            if not any(ok for ok, _, _ in entries):
                assert got.cls[r, j] == GREY
                continue
            top = max(o for ok, o, _ in entries if ok)
            allowed = {kind_class(s) for ok, o, s in entries if ok and o >= top - 1 / 65535}
            assert got.cls[r, j] in allowed, (r, j, entries)
    unfiltered = summarise(index, start, end, bins, None)
    np.testing.assert_array_equal(unfiltered.coverage, got.coverage)
    assert unfiltered.matched_coverage is unfiltered.coverage
    for r, j in zip(*np.nonzero(unfiltered.coverage), strict=True):
        top = max(o for _, o, _ in best[(r, j)])
        allowed = {kind_class(s) for _, o, s in best[(r, j)] if o >= top - 1 / 65535}
        assert unfiltered.cls[r, j] in allowed, (r, j, best[(r, j)])


@pytest.fixture(params=["C", "numpy"])
def summary_path(request, monkeypatch):
    """Both summaries of disjoint rows: the C library's one pass (when built) and numpy's blocks."""
    if request.param == "C" and not _native.NATIVE:
        pytest.skip("the C library is not built")
    monkeypatch.setattr(_native, "NATIVE", request.param == "C")
    return request.param


@pytest.mark.parametrize("seed", range(4))
def test_contiguous_rows_in_small_blocks_match_brute_force(seed, monkeypatch, summary_path):
    """Runtime-like rows (no overlap, no empty samples) take the exact-search, disjoint path."""
    monkeypatch.setattr(_summaries, "_CHUNK", 7)  # numpy's blocks split rows anywhere
    profile = random_profile(seed + 100, tiles=6, per_tile=60, durations=(1, 3, 50, 400, 5000))
    index = build_index(profile.samples, profile.tiles)
    assert not index.overlaps and not index.empty and index.end_key is not None
    rng = random.Random(seed)
    span = index.span
    windows = [(0, span), (span // 3, span // 3 + 1), (rng.randrange(span // 2), rng.randrange(span // 2, span) + 1)]
    windows.append((span // 2 - 4000, span + 9000))  # past both ends
    edge = int(index.end[len(index.end) // 3])  # a sample ends exactly at the window's start
    windows.append((edge, edge + span // 4))
    for start, end in windows:
        assert_summary_matches_brute(profile, index, start, end, rng.choice([1, 7, 33, 90]), rng)
        raw = window(index, start, end, 10, None, raw_limit=10**9)
        assert isinstance(raw, RawWindow)
        expected = {
            s["sample"]
            for s in profile.samples.iter_rows(named=True)
            if s["offset"] < end and s["offset"] + s["duration"] > start
        }
        assert sorted(raw.sample.tolist()) == sorted(expected)


def test_raw_window_lists_exactly_the_overlapping_samples():
    profile = random_profile(3, overlap=True)
    index = build_index(profile.samples, profile.tiles)
    start, end = index.span // 4, index.span // 2
    got = window(index, start, end, 100, None)
    assert isinstance(got, RawWindow)
    expected = {
        s["sample"]
        for s in profile.samples.iter_rows(named=True)
        if s["duration"] > 0 and s["offset"] < end and s["offset"] + s["duration"] > start
    }
    assert set(got.sample.tolist()) == expected
    assert len(got.sample) == len(expected)
    by_id = {s["sample"]: s for s in profile.samples.iter_rows(named=True)}
    for sid, row, x0, x1, cls in zip(got.sample, got.row, got.x0, got.x1, got.cls, strict=True):
        s = by_id[int(sid)]
        assert index.row_tiles[row] == s["tile"]
        assert (x0, x1) == (s["offset"], s["offset"] + s["duration"])
        assert cls == kind_class(s)


def test_rows_sorted_by_physical_tile_including_empty_tiles():
    profile = profile_from_tiles([T(64, [S(0, 10)]), T(2, [S(5, 9)]), T(7, [])])
    index = build_index(profile.samples, profile.tiles)
    assert index.row_tiles.tolist() == [2, 7, 64]
    assert index.sample_at(0, 3) == 1  # tile 2's only sample, offset 0..4
    assert index.sample_at(0, 4) is None
    assert index.sample_at(2, 9) == 0
    assert index.sample_at(1, 0) is None


def test_kernel_classes_rank_by_total_duration():
    profile = profile_from_tiles([T(0, [S(0, 10, kernel="small"), S(10, 110, kernel="big"), S(110, 111, kernel="")])])
    index = build_index(profile.samples, profile.tiles)
    assert index.kernel_names == ["big", "small", "(no kernel)"]
    got = window(index, 0, 111, 10, None, color_by="kernel")
    assert isinstance(got, RawWindow)
    assert got.cls.tolist() == [2, 1, 3]  # raw intervals in offset order: small, big, no kernel


def test_encode_packs_each_class_share_as_a_plane():
    profile = profile_from_tiles([T(0, [S(0, 10, kind="exchange"), S(10, 15, kind="idle")])])
    index = build_index(profile.samples, profile.tiles)
    answer = window(index, 0, 20, 2, None, raw_limit=0)
    assert isinstance(answer, ShareWindow)
    header, buffers = encode_window(answer)
    assert header["mode"] == "lod" and header["bins"] == 2 and header["rows"] == 1
    assert header["compressed"] == "xor-runs"
    exchange, idle = (1 + KIND_CLASSES.index(kind) for kind in ("exchange", "idle"))
    assert header["classes"] == sorted([exchange, idle]) and header["planes"] == 2
    cells = unpack_cells(2, 2, header["runs"], buffers).ravel()
    assert encode_window(answer, compress=False)[1][0] == cells.tobytes()
    # Cell 0: exchange covers it whole; cell 1: idle covers half of it (the rest is background).
    planes = dict(zip(header["classes"], cells.reshape(2, 2).tolist(), strict=True))
    assert planes == {exchange: [255, 0], idle: [0, 128]}
    raw_header, raw = encode_window(window(index, 5, 20, 2, None))
    assert raw_header["mode"] == "raw" and raw_header["count"] == 2
    assert np.frombuffer(raw[0], "<f4").tolist() == [-5.0, 5.0]
    assert np.frombuffer(raw[3], np.uint8).tolist() == [0x81, 0x84]


def test_overview_is_exact_tile_occupancy():
    profile = random_profile(11, tiles=5, per_tile=30)
    index = build_index(profile.samples, profile.tiles)
    active = index.kind_class == KIND_CLASSES.index("compute") + 1
    bins = 13
    got = overview(index, active, bins)
    width = max(index.span, 1) / bins
    expected = np.zeros(bins)
    compute = profile.samples.filter(kind="compute", inactive=False)
    for s in compute.iter_rows(named=True):
        a, b = s["offset"], s["offset"] + s["duration"]
        for j in range(bins):
            expected[j] += max(0.0, min(b, (j + 1) * width) - max(a, j * width)) / width
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_packed_cells_round_trip_and_stay_small():
    rng = np.random.default_rng(5)
    for rows, bins in ((1, 1), (3, 4), (7, 5), (40, 33), (2, 70_000)):
        cells = rng.integers(0, 256, (rows, bins)).astype(np.uint8)
        cells[rng.random((rows, bins)) < 0.6] = 0
        same = rng.random((rows, bins)) < 0.8  # mostly like the row above, as neighbouring tiles are
        for r in range(1, rows):
            cells[r, same[r]] = cells[r - 1, same[r]]
        runs, buffers = pack_cells(cells)
        assert np.array_equal(unpack_cells(rows, bins, runs, buffers), cells)
    # Rows equal to the row above cost nothing; long gaps and runs take the 5-byte form.
    cells = np.zeros((300, 1000), dtype=np.uint8)
    cells[:, 10] = 3
    cells[299, 500:] = 9
    runs, (gaps, lengths, data) = pack_cells(cells)
    assert runs == 2 and data == bytes([3]) + bytes([9]) * 500
    assert gaps == bytes([10]) + bytes([255]) + (299 * 1000 + 500 - 11).to_bytes(4, "little")
    assert lengths == bytes([1, 255]) + (500).to_bytes(4, "little")
    assert np.array_equal(unpack_cells(300, 1000, runs, [gaps, lengths, data]), cells)
    assert pack_cells(np.zeros((3, 3), dtype=np.uint8)) == (0, [b"", b"", b""])


# ---- offsets far outside the profile: the row keys (row << 40 | offset) never collide ------------------


from ipu_nb._widget.lod import samples_at  # noqa: E402

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def overlapping(profile, start, end):
    return sorted(
        s["sample"]
        for s in profile.samples.iter_rows(named=True)
        if s["duration"] > 0 and s["offset"] < end and s["offset"] + s["duration"] > start
    )


@pytest.fixture(scope="module", params=[False, True], ids=["disjoint", "overlapping"])
def indexed(request):
    profile = random_profile(21, tiles=6, per_tile=30, overlap=request.param)
    return profile, build_index(profile.samples, profile.tiles)


@settings(max_examples=examples(150))
@given(data=st.data())
def test_any_int64_window_lists_exactly_its_samples(indexed, data):
    profile, index = indexed
    span = index.span
    near = st.integers(min_value=-50, max_value=span + 50)
    start = data.draw(st.one_of(near, INT64))
    end = data.draw(st.one_of(near, INT64, st.sampled_from([10**15, 2**40, 2**40 + span // 2, 2**63 - 1])))
    got = window(index, start, end, 10, None, raw_limit=10**9)
    assert isinstance(got, RawWindow)
    expected = overlapping(profile, start, max(end, start + 1))
    assert sorted(got.sample.tolist()) == expected
    summary = window(index, start, end, 7, None, raw_limit=0)  # raw only when nothing overlaps
    assert (summary.sample_count if isinstance(summary, ShareWindow) else len(summary.sample)) == len(expected)


@pytest.mark.parametrize("shift", [0, 2**32, 2**40, 2**41 + 3, 2**62])
def test_cursor_and_clicks_beyond_the_span_find_nothing(indexed, shift):
    profile, index = indexed
    for at in (index.span // 3, index.span - 1, index.span, index.span + 17):
        at += shift
        expected = sorted(s for s in overlapping(profile, at, at + 1))
        assert sorted(index.sample[samples_at(index, at)].tolist()) == expected
        for row in range(index.rows):
            sid = index.sample_at(row, at)
            tile = index.row_tiles[row]
            covering = [
                s["sample"]
                for s in profile.samples.iter_rows(named=True)
                if s["tile"] == tile and s["offset"] <= at < s["offset"] + s["duration"]
            ]
            assert (sid is None) == (not covering)
            assert sid is None or sid in covering


def test_the_issue_window_counts_only_its_samples():
    """A window ending at 1e15 used to wrap rows into each other and count samples many times over."""
    profile = random_profile(4, tiles=8, per_tile=40)
    index = build_index(profile.samples, profile.tiles)
    whole = window(index, 0, index.span, 100, None, raw_limit=0)
    wide = window(index, 0, 10**15, 100, None, raw_limit=0)
    assert isinstance(whole, ShareWindow) and isinstance(wide, ShareWindow)
    assert wide.sample_count == whole.sample_count == len(overlapping(profile, 0, index.span))


def test_offsets_beyond_the_key_range_are_refused():
    profile = random_profile(5, tiles=2, per_tile=5, durations=(3, 50))
    far = profile.samples.with_columns(offset=pl.col("offset") + 2**40)
    with pytest.raises(ValueError, match=r"below 2\*\*40"):
        build_index(far, profile.tiles)


@pytest.mark.skipif(not _native.NATIVE, reason="the C library is not built")
@pytest.mark.parametrize("seed", range(5))
def test_the_c_summary_is_bit_for_bit_numpys(seed, monkeypatch):
    """Same arithmetic in the same order: equal cells, coverage sums and classes, filtered or not."""
    profile = random_profile(seed + 300, tiles=9, per_tile=300, durations=(1, 2, 3, 50, 400, 5000))
    index = build_index(profile.samples, profile.tiles)
    assert not index.overlaps
    rng = random.Random(seed)
    span = index.span
    for _ in range(6):
        start = rng.randrange(0, span)
        end = start + rng.randrange(1, span)
        bins = rng.choice([1, 3, 64, 512, 1300])
        mask = None if rng.random() < 0.3 else np.array([rng.random() < 0.6 for _ in index.sample])
        colour = rng.choice(["kind", "kernel"])
        answers = []
        for native in (True, False):
            monkeypatch.setattr(_native, "NATIVE", native)
            answers.append(_summaries.summarise(index, start, end, bins, mask, colour))
        c, n = answers
        np.testing.assert_array_equal(c.cls, n.cls)
        np.testing.assert_array_equal(c.coverage, n.coverage)
        np.testing.assert_array_equal(c.matched_coverage, n.matched_coverage)
        assert (c.matched_coverage is c.coverage) == (n.matched_coverage is n.coverage)


@pytest.mark.parametrize("shuffle_ids", [False, True])
def test_the_index_order_is_tile_offset_then_sample(shuffle_ids):
    """Sorted by physical tile, offset and sample id, whether or not the ids rise with the rows."""
    profile = random_profile(7, tiles=8, per_tile=80, overlap=True)
    samples = profile.samples
    if shuffle_ids:
        ids = np.random.default_rng(1).permutation(samples.height).astype(np.uint32)
        samples = samples.with_columns(sample=pl.Series(ids))
    index = build_index(samples, profile.tiles)
    expected = samples.sort("tile", "offset", "sample")
    assert index.sample.tolist() == expected.get_column("sample").to_list()
    assert index.start.tolist() == expected.get_column("offset").to_list()
    rows = sorted(profile.tiles.get_column("tile").to_list())
    assert [rows[r] for r in index.row] == expected.get_column("tile").to_list()
