"""Window answers for the timeline: raw intervals when few, else one summarised cell per (row, pixel bin).

The front end asks for a window ``[start, end)`` of per-tile offsets drawn ``pixels``
wide; with the `TimelineIndex` each answer is a handful of vectorised operations:

- few samples in the window: the raw intervals (`RawWindow`);
- otherwise one cell per (row, pixel bin) holding each colour class's share of it
  (`shares.ShareWindow`), what the front end draws.

`summarise` answers the same cells as the colour class of the sample covering most of
each (a matching sample beats a filtered-out one) and the exact fraction covered (`LodWindow`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import native as _native
from .index import GREY, TimelineIndex, UnsortedSamples, Windowed, positions
from .overview_shares import bin_sums
from .runs import FileRuns
from .shares import ShareWindow, share_window

__all__ = ["MAX_BINS", "RAW_LIMIT", "LodWindow", "RawWindow", "overview", "summarise", "window"]

RAW_LIMIT = 60_000
"""At most this many intervals are sent raw (15 bytes each); beyond, cells are summarised."""
MAX_BINS = 1280
"""Cells per row in a summarised window (1,472 rows × 1,280 one-byte cells ≈ 1.9 MB before packing)."""


@dataclass(frozen=True)
class RawWindow:
    """Every interval overlapping the window (unclipped offsets)."""

    start: int
    end: int
    sample: np.ndarray
    row: np.ndarray
    x0: np.ndarray
    x1: np.ndarray
    cls: np.ndarray
    matched: np.ndarray


@dataclass(frozen=True)
class LodWindow:
    """Per (row, bin) summary of a window split into ``bins`` equal cells.

    ``coverage`` and ``matched_coverage`` are exact fractions of each cell covered by
    samples (all / matching the filters; overlapping samples add up); ``cls`` is the
    colour class of the sample overlapping the cell most, a matching one first
    (`GREY` when only filtered-out samples touch it).
    """

    start: int
    end: int
    bins: int
    cls: np.ndarray
    coverage: np.ndarray
    matched_coverage: np.ndarray
    sample_count: int


def window(
    index: Windowed,
    start: int,
    end: int,
    pixels: int,
    matched: np.ndarray | None,
    color_by: str = "kind",
    raw_limit: int = RAW_LIMIT,
) -> RawWindow | ShareWindow:
    """Answer one timeline request: raw intervals, or each class's share of each cell (`share_window`).

    Parameters
    ----------
    index : TimelineIndex or UnsortedSamples
        The same answer from either (`UnsortedSamples` answers while the index is sorted).
    start, end : int
        Window in per-tile offsets (end exclusive, end > start). Any integers: the samples
        are found exactly however far the window reaches past ``[0, span]``; cell geometry
        is float64 (exact below 2**53).
    pixels : int
        Drawn width; summaries use ``min(pixels, MAX_BINS)`` bins.
    matched : np.ndarray or None
        Per position of `index`, whether the sample matches the filters (None: all match).
    color_by : str
        "kind" or "kernel".
    raw_limit : int
        Send raw intervals when at most this many samples overlap the window.
    """
    start, end = int(start), int(end)
    if end <= start:
        end = start + 1
    bins = max(1, min(int(pixels), MAX_BINS))
    if isinstance(index, FileRuns):
        return _runs_window(index, start, end, bins, matched, color_by, raw_limit)
    pos = positions(index, start, end)
    classes = index.classes(color_by)[pos]
    count = len(classes)
    if count > raw_limit:
        return share_window(index, start, end, bins, matched, color_by)
    ok = np.ones(count, dtype=bool) if matched is None else matched[pos]
    return RawWindow(
        start=start,
        end=end,
        sample=index.sample[pos],
        row=index.row[pos],
        x0=index.start[pos],
        x1=index.end_f[pos].astype(np.int64),  # exact: offsets are below 2**40
        cls=classes,
        matched=ok,
    )


def summarise(
    index: Windowed, start: int, end: int, bins: int, matched: np.ndarray | None, color_by: str = "kind"
) -> LodWindow:
    """`window`'s summary of ``[start, end)`` in exactly ``bins`` cells a row, however few samples.

    The cache blocks of the timeline (`ipu_nb._widget.lod.blocks`) summarise several
    neighbouring blocks in one pass: ``bins`` may exceed `MAX_BINS`.
    """
    start, end = int(start), int(end)
    if isinstance(index, FileRuns):
        count, good, _ = index.select(start, end, matched)
        return _summarise_runs(index, count, good, matched, color_by, start, end, max(1, int(bins)))
    pos = positions(index, start, end)
    classes = index.classes(color_by)[pos]
    ok = np.ones(len(classes), dtype=bool) if matched is None else matched[pos]
    return _summarise(index, pos, classes, ok, start, max(end, start + 1), max(1, int(bins)))


def _runs_window(
    index: FileRuns, start: int, end: int, bins: int, matched: np.ndarray | None, color_by: str, raw_limit: int
) -> RawWindow | ShareWindow:
    """`window` from the file-order runs: the same answer as the index's, with no copy of the columns."""
    count = index.count(start, end)
    if count > raw_limit:
        return share_window(index, start, end, bins, matched, color_by)
    pos = index.positions(start, end)
    offset = index.take("offset", pos)
    return RawWindow(
        start=start,
        end=end,
        sample=index.take("sample", pos),
        row=index.row_of(pos),
        x0=offset.astype(np.int64),
        x1=(offset + index.take("duration", pos)).astype(np.int64),
        cls=index.classes(color_by)[pos],
        matched=np.ones(count, dtype=bool) if matched is None else matched[pos],
    )


def _summarise_runs(
    index: FileRuns,
    count: int,
    good: int,
    matched: np.ndarray | None,
    color_by: str,
    start: int,
    end: int,
    bins: int,
) -> LodWindow:
    """`_summarise_disjoint` of the `count` samples of ``[start, end)`` (`good` of them matching), read run by run."""
    size = index.rows * bins
    all_ok = good == count
    coverage = np.zeros(size)
    matched_coverage = coverage if all_ok else np.zeros(size)
    owner = np.zeros(size + 1, dtype=np.int32)
    best = np.zeros(size, dtype=np.int32)
    stop = max(end, start + 1)
    ok = None if all_ok else matched
    cells = (coverage, matched_coverage, best, owner)
    index.accumulate(start, end, index.classes(color_by), ok, (start, (stop - start) / bins, bins), cells)
    return _whole_cells(start, stop, index.rows, bins, coverage, matched_coverage, best, owner, count)


def _summarise(
    index: TimelineIndex | UnsortedSamples,
    pos: np.ndarray | slice,
    classes: np.ndarray,
    ok: np.ndarray,
    start: int,
    end: int,
    bins: int,
) -> LodWindow:
    if not index.overlaps:
        return _summarise_disjoint(index, pos, classes, ok, start, end, bins)
    rows = index.rows
    cells = rows * bins
    width = (end - start) / bins
    # In float64 (exact below 2**53) so that no window, however far out, overflows int64.
    u = np.maximum(index.start_f[pos], float(start)) - float(start)
    u = u / width
    v = np.minimum(index.end_f[pos], float(end)) - float(start)
    v = v / width
    i0 = u.astype(np.int64)
    i1 = v.astype(np.int64)  # cell holding the end; == bins when the sample runs to the window's end
    base = index.row[pos] * bins
    # Partial cells: the first and last cell each sample touches (zero where it is the same cell).
    first = np.minimum(v, i0 + 1) - u
    last = v - i1
    last *= i1 > i0
    c0 = base + i0
    c1 = base + np.minimum(i1, bins - 1)
    # Whole cells strictly between them, listed one by one (at most one sample per cell
    # unless samples overlap, so their total is bounded by the cells).
    inner = i1 - i0 - 1
    has_inner = np.flatnonzero(inner > 0)
    n_inner = inner[has_inner]
    total = int(n_inner.sum())
    whole = np.repeat(c0[has_inner] + 1 - (np.cumsum(n_inner) - n_inner), n_inner) + np.arange(total)
    owner = np.repeat(has_inner, n_inner)
    overlapping = index.overlaps

    def cover(weight: np.ndarray | None) -> np.ndarray:
        """Exact covered fraction per cell (overlapping samples add up)."""
        if weight is None:
            out = np.bincount(c0, first, cells)
            out += np.bincount(c1, last, cells)
            _add(out, whole, 1.0, overlapping)
        else:
            out = np.bincount(c0, first * weight, cells)
            out += np.bincount(c1, last * weight, cells)
            w = weight[owner].astype(np.float64)
            _add(out, whole, w, overlapping)
        return out

    coverage = cover(None)
    matched_coverage = coverage if ok.all() else cover(ok)

    # Dominant class: the largest single overlap wins, matching samples before others.
    # Key: matching bit 24, overlap in bits 8..23, class in bits 0..7; 0 for no overlap.
    tag = (ok.astype(np.int32) << 24) | classes.astype(np.int32)
    best = np.zeros(cells, dtype=np.int32)
    for c, part in ((c0, first), (c1, last)):
        key = (part * 65535).astype(np.int32) << 8
        key |= tag
        key *= part > 0
        np.maximum.at(best, c, key)
    if total:
        key = tag[owner] | np.int32(65535 << 8)
        if overlapping:
            np.maximum.at(best, whole, key)
        else:
            best[whole] = key  # a whole cell has no other overlapping sample
    cls = (best & 0xFF).astype(np.uint8)
    cls[best < (1 << 24)] = GREY
    return _lod_window(start, end, rows, bins, cls, coverage, matched_coverage, len(classes))


_CHUNK = 1 << 16
"""Samples per block in `_summarise_disjoint`: its temporaries stay in cache and are never fresh pages."""


def _summarise_disjoint(
    index: TimelineIndex | UnsortedSamples,
    pos: np.ndarray | slice,
    classes: np.ndarray,
    ok: np.ndarray,
    start: int,
    end: int,
    bins: int,
) -> LodWindow:
    """`_summarise` for rows whose samples never overlap: at most one sample per whole cell.

    Each sample is cut into a first piece (in cell ``c0``), whole cells, and an end piece
    (in ``c1``, the last cell it touches; empty when ``c1 == c0``). Whole cells come from one
    running sum of their owners' keys instead of being listed one by one. Samples go in
    blocks of `_CHUNK` so the temporaries stay small: at a million samples, fresh pages and
    cache misses cost more than the arithmetic. With the C library (`native`) that loop is
    one pass over the index in place, with the same arithmetic in the same order.
    """
    rows = index.rows
    cells = rows * bins
    width = (end - start) / bins
    count = len(classes)
    all_ok = bool(ok.all())
    coverage = np.zeros(cells)
    matched_coverage = coverage if all_ok else np.zeros(cells)
    # Whole cells c0 < k < c1 hold the owner's full-overlap key: +key at c0 + 1, -key at c1,
    # then a running sum. Bit 25 keeps it nonzero and stays above every other key bit.
    owner = np.zeros(cells + 1, dtype=np.int32)
    after = owner[1:]
    best = np.zeros(cells, dtype=np.int32)
    whole_key = np.int32(65535 << 8 | 1 << 25)
    clip_start = start > 0  # offsets are never negative
    native = _native.NATIVE and _native.accumulate(
        _native.Candidates.of(index, pos, classes, None if all_ok else ok),
        start,
        width,
        bins,
        coverage,
        matched_coverage,
        best,
        owner,
    )
    for lo in range(0, 0 if native else count, _CHUNK):
        hi = min(lo + _CHUNK, count)
        at = slice(lo, hi) if isinstance(pos, slice) else pos[lo:hi]
        u = np.subtract(index.start_f[at], float(start))
        if clip_start:
            np.maximum(u, 0.0, out=u)
        u /= width
        v = np.subtract(index.end_f[at], float(start))
        v /= width
        np.minimum(v, float(bins), out=v)  # clips to the window and keeps the last cell in the row
        m = np.floor(u)
        c0 = m.astype(np.intp)
        m += 1.0
        np.minimum(m, v, out=m)  # end of the first piece
        e = np.ceil(v)
        e -= 1.0  # start of the last cell touched (v > u, so e >= floor(u))
        c1 = e.astype(np.intp)
        np.maximum(e, m, out=e)
        first = np.subtract(m, u, out=u)
        last = np.subtract(v, e, out=v)  # 0 when the sample stays in one cell
        base = index.row[at] * bins
        c0 += base
        c1 += base

        tag = classes[lo:hi].astype(np.int32)
        if all_ok:
            tag |= np.int32(1 << 24)
        else:  # filtered-out samples keep class 0 (GREY) in their keys: they only win when grey
            good = ok[lo:hi]
            tag *= good
            tag |= good.astype(np.int32) << 24
        owned = tag | whole_key
        owned *= c1 > c0
        np.add.at(after, c0, owned)
        np.subtract.at(owner, c1, owned)
        np.add.at(coverage, c0, first)
        np.add.at(coverage, c1, last)
        if not all_ok:
            np.add.at(matched_coverage, c0, first * good)
            np.add.at(matched_coverage, c1, last * good)
        # Dominant class key as in `_summarise`; an empty end piece only lands in its own first cell.
        key = np.multiply(first, 65535.0, out=m).astype(np.int32)
        key <<= 8
        key |= tag
        np.maximum.at(best, c0, key)
        np.multiply(last, 65535.0, out=key, casting="unsafe")
        key <<= 8
        key |= tag
        np.maximum.at(best, c1, key)

    return _whole_cells(start, end, rows, bins, coverage, matched_coverage, best, owner, count)


def _whole_cells(
    start: int,
    end: int,
    rows: int,
    bins: int,
    coverage: np.ndarray,
    matched_coverage: np.ndarray,
    best: np.ndarray,
    owner: np.ndarray,
    count: int,
) -> LodWindow:
    """The end of `_summarise_disjoint`: the whole cells from the running sum of their owners' keys."""
    np.cumsum(owner, out=owner)
    owner = owner[: rows * bins]
    coverage += owner != 0
    if matched_coverage is not coverage:  # a whole cell's key has bit 25, and bit 24 when its owner matches
        matched_coverage += owner >= np.int32(3 << 24)
    best |= owner  # no piece lands in a whole cell
    cls = best.astype(np.uint8)  # the low byte: the class
    return _lod_window(start, end, rows, bins, cls, coverage, matched_coverage, count)


def _add(out: np.ndarray, cells: np.ndarray, value: float | np.ndarray, repeats: bool) -> None:
    """``out[cells] += value``, accumulating repeated cells only when there can be some."""
    if repeats:
        np.add.at(out, cells, value)
    else:
        out[cells] += value


def _lod_window(
    start: int,
    end: int,
    rows: int,
    bins: int,
    cls: np.ndarray,
    coverage: np.ndarray,
    matched_coverage: np.ndarray,
    count: int,
) -> LodWindow:
    """Shape flat per-cell arrays into a `LodWindow`; coverage stays one object when nothing is filtered."""
    shaped = coverage.reshape(rows, bins)
    return LodWindow(
        start=start,
        end=end,
        bins=bins,
        cls=cls.reshape(rows, bins),
        coverage=shaped,
        matched_coverage=shaped if matched_coverage is coverage else matched_coverage.reshape(rows, bins),
        sample_count=count,
    )


def overview(index: TimelineIndex, active: np.ndarray, bins: int) -> np.ndarray:
    """Average number of rows busy with ``active`` positions per bin over ``[0, span)``.

    ``active`` is a per-sorted-position mask (e.g. compute and not inactive); the result
    (float64, ``bins`` long) is Σ overlap / bin width, so it is exact tile-occupancy
    (`overview_shares.bin_sums`; the overview strip draws `overview_shares.overview_shares`).
    """
    width = max(index.span, 1) / bins
    a = index.start[active] / width
    b = index.end[active] / width
    return bin_sums(a, b, np.zeros(len(a), dtype=np.int64), 1, bins)[0]
