"""The timeline index built on a thread: the first picture from the file-order samples is the index's, byte for byte.

`lod.build` answers windows from `UnsortedSamples` until the sorted `TimelineIndex` is ready;
every answer must be the one the index gives, on profiles whose files list samples in
tile runs (as the runtime writes them), interleaved, shuffled, overlapping or with empty
samples. The widget answers requests before the index is ready (or waits for it) and
turns a failed build into error replies and a `TimelineIndexError`, never a hang.
"""

from __future__ import annotations

import functools
import random
import threading
from typing import Any

import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from test_lod import random_profile
from test_timeline import Recorder, blocks_message

import ipu_nb._widget.lod as lod
from ipu_nb._widget.lod import build as _build
from ipu_nb._widget.lod import native as _native
from ipu_nb._widget.widget import ProfileWidget


def _variants() -> dict[str, tuple[pl.DataFrame, pl.DataFrame]]:
    """(samples, tiles) laid out as files may hold them."""
    runtime = random_profile(101, tiles=6, per_tile=120, durations=(1, 3, 50, 400, 5000))
    gaps = random_profile(102, tiles=7, per_tile=90)  # zero-length samples too
    overlap = random_profile(103, tiles=6, per_tile=90, overlap=True)
    interleaved = runtime.samples.sort("offset", "tile").with_columns(sample=pl.int_range(pl.len(), dtype=pl.UInt32))
    shuffled = overlap.samples.sample(fraction=1.0, shuffle=True, seed=5)  # ids no longer rise
    return {
        "runtime": (runtime.samples, runtime.tiles),
        "gaps": (gaps.samples, gaps.tiles),
        "overlap": (overlap.samples, overlap.tiles),
        "interleaved": (interleaved, runtime.tiles),
        "shuffled": (shuffled, overlap.tiles),
    }


VARIANTS = _variants()


def _answers(windowed: lod.Windowed, matched: np.ndarray | None, start: int, end: int, bins: int, colour: str):
    raw = lod.encode_window(lod.window(windowed, start, end, bins, matched, colour, raw_limit=10**9))
    summary = lod.encode_window(lod.window(windowed, start, end, bins, matched, colour, raw_limit=0))
    return raw, summary, lod.count_in(windowed, start, end, matched)


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_file_order_answers_are_the_index_answers(name, native, monkeypatch):
    if native and not _native.NATIVE:
        pytest.skip("the C library is not built")
    monkeypatch.setattr(_native, "NATIVE", native)
    samples, tiles = VARIANTS[name]
    unsorted = lod.unsorted_samples(samples, lod.timeline_facts(samples, tiles))
    index = lod.sorted_index(unsorted)
    assert index.sample.tolist() == samples.sort("tile", "offset", "sample").get_column("sample").to_list()
    assert index.overlaps == (name in ("overlap", "shuffled"))
    rng = random.Random(name)
    span = index.span
    windows = [(0, span), (0, span + 5000), (span // 3, span // 3 + 1), (-50, span // 2), (span - 10, span + 10)]
    windows += [(a, a + rng.randrange(1, span)) for a in (rng.randrange(span) for _ in range(4))]
    runs = _runs(samples, tiles)
    assert (runs is not None) == (name in ("runtime", "gaps") and _native.NATIVE)  # tile by tile, disjoint
    for start, end in windows:
        for colour in ("kind", "kernel"):
            bins = rng.choice([1, 7, 64, 512])
            row_mask = np.array([rng.random() < 0.6 for _ in range(samples.height)])
            for mask in (None, row_mask):
                sorted_mask = None if mask is None else mask[unsorted.order]
                late = _answers(index, sorted_mask, start, end, bins, colour)
                assert _answers(unsorted, mask, start, end, bins, colour) == late, (start, end, bins, colour)
                if runs is not None:
                    assert _answers(runs, mask, start, end, bins, colour) == late, (start, end, bins, colour)


def _runs(samples: pl.DataFrame, tiles: pl.DataFrame) -> lod.FileRuns | None:
    facts = lod.timeline_facts(samples, tiles)
    return lod.file_runs(facts, samples)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_file_order_blocks_are_the_index_blocks(name):
    """The front end's first request (every block of the home view, neighbours summarised in one pass)."""
    samples, tiles = VARIANTS[name]
    unsorted = lod.unsorted_samples(samples, lod.timeline_facts(samples, tiles))
    index = lod.sorted_index(unsorted)
    runs = _runs(samples, tiles)
    mask = np.arange(samples.height) % 3 != 0
    for level, bins in ((0, 16), (3, 64), (6, 16), (12, 512)):
        wanted = list(range(min(9, index.span // (bins << level) + 1)))
        for matched, sorted_mask in ((None, None), (mask, mask[unsorted.order])):
            late = [
                (b.index, lod.encode_window(b.answer))
                for b in lod.blocks(index, level, bins, wanted, sorted_mask, "kind", raw_limit=40)
            ]
            for early in (unsorted, runs) if runs is not None else (unsorted,):
                answers = [
                    (b.index, lod.encode_window(b.answer))
                    for b in lod.blocks(early, level, bins, wanted, matched, "kind", raw_limit=40)
                ]
                assert answers == late, type(early).__name__


@pytest.fixture
def profile():
    """Five tiles of runtime-like samples (contiguous, tile by tile in the file)."""
    tiles = []
    for t, phys in enumerate([66, 2, 0, 64, 1411]):
        cursor, samples = 1000 * t, []
        for p in range(40):
            d = 50 + 37 * ((t + p) % 7)
            kernel = "gemm" if p % 3 else "copy"
            samples.append(S(cursor, cursor + d, kind=["compute", "exchange"][p % 2], kernel=kernel, phase=p))
            cursor += d
        tiles.append(T(phys, samples))
    return profile_from_tiles(tiles)


@pytest.fixture(autouse=True)
def side_views_threaded(monkeypatch):
    """Widgets warm their side views up on the worker thread, as in a kernel (inline, they would wait for the index)."""
    from ipu_nb._widget import widget as module

    monkeypatch.setattr(module, "in_kernel", lambda: True)


@pytest.fixture
def held(monkeypatch):
    """The sort step of every index build waits until the returned event is set (set at the end anyway)."""
    release = threading.Event()
    original = _build.sorted_index

    def sort_later(unsorted: lod.UnsortedSamples) -> lod.TimelineIndex:
        assert release.wait(30), "the test never released the sort"
        return original(unsorted)

    monkeypatch.setattr(_build, "sorted_index", sort_later)
    yield release
    release.set()


ANSWERS = {"blocks": ("window", "blocks"), "hover": ("hover",), "search": ("search",)}


def _replies(widget: ProfileWidget, message: dict[str, Any]) -> list[tuple[dict[str, Any], list[bytes]]]:
    """What answers `message` (side views the worker sends meanwhile left out)."""
    widget.recorder.sent.clear()
    widget._handle_custom_msg(message, [])
    if message["type"] == "search":
        widget._side.wait()
    kind = message["type"]
    return [
        ({k: v for k, v in c.items() if k != "cost_ms"}, b)  # the time spent differs
        for c, b in widget.recorder.sent
        if c["type"] in ANSWERS[kind] or (c["type"] == "error" and c.get("request") == kind)
    ]


def _widget(profile, **traits: Any) -> ProfileWidget:
    w = ProfileWidget(profile, **traits)
    w.recorder = Recorder(w)
    return w


@pytest.mark.parametrize("mode", ["raw", "lod"])
@pytest.mark.parametrize("traits", [{}, {"filters": {"kind": "compute"}}, {"color_by": "kernel"}])
def test_the_first_picture_comes_before_the_index_and_is_its_picture(profile, held, traits, mode, monkeypatch):
    if mode == "lod":  # a few hundred samples come raw unless summaries are asked for
        monkeypatch.setattr(lod, "blocks", functools.partial(lod.blocks, raw_limit=0))
    widget = _widget(profile, **traits)
    span = widget.info["span"]
    level = max(0, int(np.ceil(np.log2(span / 64))) - 1)  # the home view in two blocks of 64 bins
    message = blocks_message(widget, level, [0, 1], bins=64)
    early = _replies(widget, message)
    assert not widget._shown_now().side.build.ready  # answered while the index was still being sorted
    if _native.NATIVE:  # read from the file's tile runs in place
        assert isinstance(widget._shown_now().side.build.early(), lod.FileRuns)
    assert [c["type"] for c, _ in early] == ["window", "window", "blocks"]
    assert [c["mode"] for c, _ in early[:2]] == [mode, mode]
    held.set()
    widget._shown_now().side.build.index(timeout=30)
    widget._answers.forget()
    assert _replies(widget, message) == early


def _later(event: threading.Event, seconds: float = 0.3) -> threading.Timer:
    timer = threading.Timer(seconds, event.set)
    timer.start()
    return timer


def test_requests_needing_the_index_wait_for_it(profile, held):
    facts = lod.timeline_facts(profile.samples, profile.tiles)
    reference = lod.sorted_index(lod.unsorted_samples(profile.samples, facts))  # the package's: not held
    widget = _widget(profile)
    row, x = 3, int(reference.start[reference.row == 3][5]) + 1
    expected = reference.sample_at(row, x)
    assert expected is not None
    assert widget.selection_samples.height == 0  # nothing here needs the index
    _later(held)
    replies = _replies(widget, {"type": "hover", "view": "v", "id": 2, "row": row, "x": x})
    assert widget._shown_now().side.build.ready  # it waited
    assert [c["sample"]["sample"] for c, _ in replies if c["type"] == "hover"] == [expected]
    widget._handle_custom_msg({"type": "pick", "row": row, "x": x}, [])
    assert widget.selected == expected
    assert widget.highlight(profile.samples.head(3)) == 3


def test_python_side_reads_wait_for_the_index(profile, held):
    widget = _widget(profile)
    _later(held)
    assert widget.zoom_to(sample=7) == widget.view
    assert widget._shown_now().side.build.ready
    assert widget.search("gemm").height == profile.samples.filter(pl.col("kernel") == "gemm").height


@pytest.fixture(params=["sort", "columns"])
def failing(request, monkeypatch):
    """One of the build's steps fails."""

    def fail(*_: Any) -> Any:
        raise MemoryError("no room for the sorted copies")

    monkeypatch.setattr(_build, "sorted_index" if request.param == "sort" else "unsorted_samples", fail)


def test_a_failed_build_is_an_error_in_the_widget_not_a_hang(profile, failing):
    widget = _widget(profile)
    widget._shown_now().side.build.start_sorting()
    assert widget._shown_now().side.build._ready.wait(30)
    for message in (
        blocks_message(widget, 4, [0, 1], bins=64),
        {"type": "hover", "view": "v", "id": 3, "row": 1, "x": 100},
        {"type": "search", "id": 4, "text": "gemm"},
    ):
        errors = [c for c, _ in _replies(widget, message) if c["type"] == "error"]
        assert len(errors) == 1, message
        assert "TimelineIndexError: building the timeline index failed: MemoryError: no room" in errors[0]["message"]
    with pytest.raises(lod.TimelineIndexError, match="no room for the sorted copies"):
        widget.highlight(profile.samples.head(2))
    assert widget.view == [0, widget.info["span"]]  # what needs no index still works
    widget.filters = {"kind": "compute"}
    assert widget.filtered.height == profile.filter(kind="compute").height


def test_an_unfinished_build_says_so_after_the_timeout(profile, held):
    build = lod.IndexBuild(profile.samples, profile.tiles)
    with pytest.raises(lod.TimelineIndexError, match=r"not built after 0\.05 s"):
        build.index(timeout=0.05)
    assert build.early() is not None
    held.set()
    assert build.index(timeout=30).size == profile.sample_count
    assert build.early() is None  # the index answers from here on


def test_an_inline_build_is_ready_at_once(profile):
    build = lod.IndexBuild(profile.samples, profile.tiles, threaded=False)
    assert build.ready and build.early() is None
    assert build.index().size == profile.sample_count


def _long_rows(seed: int, tiles: tuple[int, ...] = (7, 3, 11), per_tile: int = 60_000) -> pl.DataFrame:
    """Runtime-like samples, tile by tile (not in id order), many to a cell: runs cross the summaries' chunks."""
    from ipu_nb._model.vocabulary import STEP_KINDS

    rng = np.random.default_rng(seed)
    frames = []
    for tile in tiles:
        duration = rng.choice(np.array([0, 1, 3, 17, 250, 9000], dtype=np.uint32), per_tile)
        gap = rng.choice(np.array([0, 0, 5], dtype=np.uint64), per_tile)
        offset = np.cumsum(duration.astype(np.uint64) + gap) - duration - gap
        frames.append(
            pl.DataFrame(
                {
                    "tile": np.full(per_tile, tile, dtype=np.uint32),
                    "offset": offset,
                    "duration": duration,
                    "kind": pl.Series(rng.choice(list(STEP_KINDS), per_tile), dtype=pl.Enum(list(STEP_KINDS))),
                    "kernel": pl.Series(rng.choice(["a", "b", "c", ""], per_tile), dtype=pl.Categorical),
                    "inactive": rng.random(per_tile) < 0.1,
                }
            )
        )
    samples = pl.concat(frames).with_columns(sample=pl.int_range(pl.len(), dtype=pl.UInt32)).rechunk()
    # In chunks that do not follow the tiles, as a profile loaded from a cache file holds them.
    return pl.concat([samples[at : at + 7777] for at in range(0, samples.height, 7777)], rechunk=False)


def test_file_runs_cross_the_summary_chunks_as_the_index_does():
    """Rows longer than the C summary's blocks of 65,536 samples, many samples to a cell: the same sums."""
    if not _native.NATIVE:
        pytest.skip("the C library is not built")
    samples = _long_rows(7)
    assert samples.n_chunks() > 20
    tiles = pl.DataFrame({"tile": [3, 7, 11, 20]}, schema={"tile": pl.UInt32})
    runs = _runs(samples, tiles)
    assert runs is not None and runs.pieces.count == samples.n_chunks()  # read in place
    unsorted = lod.unsorted_samples(samples, lod.timeline_facts(samples, tiles))
    index = lod.sorted_index(unsorted)
    mask = np.random.default_rng(1).random(samples.height) < 0.7
    span = index.span
    for start, end, bins in ((0, span, 512), (0, 2 * span, 300), (span // 5, span // 2, 1280), (span // 3, span, 64)):
        for colour in ("kind", "kernel"):
            for matched in (None, mask):
                sorted_mask = None if matched is None else matched[unsorted.order]
                late = lod.summarise(index, start, end, bins, sorted_mask, colour)
                early = lod.summarise(runs, start, end, bins, matched, colour)
                for field in ("cls", "coverage", "matched_coverage"):  # the sums exactly, before any rounding
                    assert np.array_equal(getattr(early, field), getattr(late, field)), (start, end, field)
                drawn = lod.share_window(runs, start, end, bins, matched, colour)
                assert lod.encode_window(drawn) == lod.encode_window(
                    lod.share_window(index, start, end, bins, sorted_mask, colour)
                )
                assert lod.count_in(runs, start, end, matched) == lod.count_in(index, start, end, sorted_mask)
    raw = (span // 2, span // 2 + 20_000)
    assert lod.encode_window(lod.window(runs, *raw, 800, mask, "kernel")) == lod.encode_window(
        lod.window(index, *raw, 800, mask[unsorted.order], "kernel")
    )
    # Columns chunked unlike the others are read in one piece each: the same answers.
    unaligned = samples.with_columns(pl.Series("offset", samples.get_column("offset").to_numpy()))
    whole = _runs(unaligned, tiles)
    assert whole is not None and whole.pieces.count == 1
    assert lod.encode_window(lod.share_window(whole, 0, span, 512, mask, "kind")) == lod.encode_window(
        lod.share_window(index, 0, span, 512, mask[unsorted.order], "kind")
    )


def test_file_runs_only_for_files_laid_out_tile_by_tile():
    """A tile in two runs, or samples out of offset order in their run: the sorted path answers instead."""
    if not _native.NATIVE:
        pytest.skip("the C library is not built")
    samples = _long_rows(8, per_tile=50)
    tiles = pl.DataFrame({"tile": [3, 7, 11]}, schema={"tile": pl.UInt32})
    assert _runs(samples, tiles) is not None
    split = pl.concat([samples[:20], samples[60:], samples[20:60]]).with_columns(
        sample=pl.int_range(pl.len(), dtype=pl.UInt32)
    )
    assert _runs(split, tiles) is None
    swapped = samples.with_columns(offset=pl.when(pl.col("sample") == 5).then(10**9).otherwise(pl.col("offset")))
    assert _runs(swapped, tiles) is None
    falling = samples.with_columns(sample=pl.col("sample").reverse())
    assert _runs(falling, tiles) is None
