"""Level-of-detail windows for the timeline widget (pure polars/numpy, no UI).

The front end asks for a window ``[start, end)`` of per-tile offsets drawn ``pixels``
wide. `TimelineIndex` is built once per profile (samples sorted by row, then offset)
so each answer is a handful of vectorised operations:

- few samples in the window: the raw intervals (`RawWindow`);
- otherwise one cell per (row, pixel bin) holding the colour class of the sample
  covering most of the cell (a matching sample beats a filtered-out one) and the
  exact fraction of the cell covered (`LodWindow`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = [
    "GREY",
    "MAX_BINS",
    "MAX_CLASSES",
    "RAW_LIMIT",
    "LodWindow",
    "RawWindow",
    "TimelineIndex",
    "build_index",
    "encode_window",
    "overview",
    "pack_cells",
    "samples_at",
    "unpack_cells",
    "window",
]

RAW_LIMIT = 60_000
"""At most this many intervals are sent raw (15 bytes each); beyond, cells are summarised."""
MAX_BINS = 1280
"""Cells per row in a summarised window (1,472 rows × 1,280 one-byte cells ≈ 1.9 MB before packing)."""
MAX_CLASSES = 31
"""Colour classes 1..31 fit in 5 bits; class 0 (`GREY`) marks samples not matching the filters."""
GREY = 0
KIND_CLASSES = ("exchange", "compute", "synchronization", "idle")
"""Class 1 + index of these names when colouring by kind (inactive compute counts as idle)."""
_KEY_SHIFT = np.int64(40)
"""Sort keys are ``row << 40 | offset``: exact while offsets stay below 2**40, so every lookup
first clamps its offsets to ``[0, span]`` (runtime offsets are below 2**33, SPEC §2)."""


@dataclass(frozen=True)
class TimelineIndex:
    """Samples of one profile sorted by timeline row (physical tile order), then offset.

    Attributes
    ----------
    row_tiles : np.ndarray
        Physical tile id of each row (rows sorted by physical id, tiles without samples included).
    sample : np.ndarray
        Sample id of each sorted position.
    row, start, end : np.ndarray
        Row, offset and offset + duration of each sorted position.
    key : np.ndarray
        ``row << 40 | offset``, sorted: a window is a searchsorted per row (offsets < 2**40).
    row_max_duration : np.ndarray
        Longest sample per row, so a window also catches samples starting before it.
    kind_class, kernel_class : np.ndarray
        Colour class (1..31) of each sorted position for ``color_by`` kind / kernel.
    kernel_names : list of str
        Legend of the kernel classes (class i + 1 is ``kernel_names[i]``).
    span : int
        ``profileSpanCycles``.
    overlaps : bool
        Whether samples of a row overlap (never in runtime files, where a tile's samples
        are contiguous); windows then take a slower path that accumulates repeated cells.
    start_f, end_f : np.ndarray
        ``start`` and ``end`` as float64 (exact below 2**53), so windows skip the conversion.
    empty : bool
        Whether some sample has zero duration (such samples are never drawn).
    end_key : np.ndarray or None
        ``row << 40 | end`` when rows don't overlap (then it is sorted too), else None.
    """

    row_tiles: np.ndarray
    sample: np.ndarray
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    key: np.ndarray
    row_max_duration: np.ndarray
    kind_class: np.ndarray
    kernel_class: np.ndarray
    kernel_names: list[str]
    span: int
    overlaps: bool
    start_f: np.ndarray
    end_f: np.ndarray
    empty: bool
    end_key: np.ndarray | None

    @property
    def rows(self) -> int:
        return len(self.row_tiles)

    def classes(self, color_by: str) -> np.ndarray:
        """Colour class per sorted position for ``color_by`` ("kind" or "kernel")."""
        return self.kernel_class if color_by == "kernel" else self.kind_class

    def legend(self, color_by: str) -> list[str]:
        """Name of class 1, 2, …"""
        return list(self.kernel_names) if color_by == "kernel" else list(KIND_CLASSES)

    def sample_at(self, row: int, at: int) -> int | None:
        """Id of the sample of ``row`` covering offset ``at`` (the latest-starting one), or None."""
        if not 0 <= row < self.rows or not 0 <= at < self.span:  # no sample ends beyond the span
            return None
        lo = int(np.searchsorted(self.key, (row << 40) + max(0, at - int(self.row_max_duration[row]))))
        hi = int(np.searchsorted(self.key, (row << 40) + at, side="right"))
        hits = np.flatnonzero(self.end[lo:hi] > at)
        return int(self.sample[lo + hits[-1]]) if len(hits) else None


def build_index(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineIndex:
    """Sort a profile's samples for windowing; done once per widget."""
    row_tiles = np.unique(tiles.get_column("tile").to_numpy()).astype(np.uint32)
    by = samples.select(
        "sample",
        "tile",
        "offset",
        "kernel",
        end=pl.col("offset") + pl.col("duration").cast(pl.UInt64),
        kind=pl.col("kind").to_physical(),
        inactive="inactive",
    ).sort("tile", "offset", "sample")
    tile = by.get_column("tile").to_numpy()
    row = np.searchsorted(row_tiles, tile).astype(np.int64)
    start = by.get_column("offset").to_numpy().astype(np.int64)
    end = by.get_column("end").to_numpy().astype(np.int64)
    kind = by.get_column("kind").to_numpy().astype(np.int64)
    # KIND_CLASSES follows the Enum order (exchange, compute, synchronization, idle).
    kind_class = (kind + 1).astype(np.uint8)
    kind_class[by.get_column("inactive").to_numpy()] = KIND_CLASSES.index("idle") + 1

    # Kernels ranked by total cycles get classes 1..30, the rest share the last one.
    weight = (
        by.group_by("kernel")
        .agg(d=(pl.col("end") - pl.col("offset")).sum(), code=pl.col("kernel").to_physical().first())
        .with_columns(name=pl.col("kernel").cast(pl.String))
        .sort(["d", "name"], descending=[True, False])
    )
    names = weight.get_column("name").to_list()
    codes = weight.get_column("code").to_numpy().astype(np.int64)
    if len(names) > MAX_CLASSES:
        names = [*names[: MAX_CLASSES - 1], "(other kernels)"]
    classes = np.minimum(np.arange(1, len(codes) + 1), MAX_CLASSES).astype(np.uint8)
    physical = by.get_column("kernel").to_physical().to_numpy().astype(np.int64)
    lookup = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.uint8)
    lookup[codes] = classes
    kernel_class = lookup[physical] if len(physical) else np.zeros(0, dtype=np.uint8)
    names = [n if n else "(no kernel)" for n in names]

    span = int(end.max()) if len(end) else 0
    if span >= 1 << int(_KEY_SHIFT):
        raise ValueError(f"sample offsets reach {span}; the timeline index holds offsets below 2**{_KEY_SHIFT}")
    row_max = np.zeros(len(row_tiles), dtype=np.int64)
    if len(row):
        np.maximum.at(row_max, row, end - start)
    overlaps = bool(np.any((start[1:] < end[:-1]) & (row[1:] == row[:-1]))) if len(row) > 1 else False
    return TimelineIndex(
        row_tiles=row_tiles,
        sample=by.get_column("sample").to_numpy().astype(np.uint32),
        row=row,
        start=start,
        end=end,
        key=(row << _KEY_SHIFT) + start,
        row_max_duration=row_max,
        kind_class=kind_class,
        kernel_class=kernel_class,
        kernel_names=names,
        span=span,
        overlaps=overlaps,
        start_f=start.astype(np.float64),
        end_f=end.astype(np.float64),
        empty=bool(np.any(end == start)),
        end_key=None if overlaps else (row << _KEY_SHIFT) + end,
    )


def _positions(index: TimelineIndex, start: int, end: int) -> np.ndarray | slice:
    """Sorted positions of samples overlapping ``[start, end)`` (zero-length ones excluded).

    A slice (no copy) when every sample qualifies, as in the home view. Any integers may
    come in: the range is clamped to ``[0, span]`` (where every sample lies) before it
    meets the row keys, which hold offsets below 2**40 only.
    """
    start, end = max(int(start), 0), min(int(end), index.span)
    if end <= start:
        return np.zeros(0, dtype=np.int64)
    rows = np.arange(index.rows, dtype=np.int64) << _KEY_SHIFT
    exact = index.end_key is not None and not index.empty
    if exact:  # ends sorted too: the first sample ending after start, none to drop
        lo = np.searchsorted(index.end_key, rows + start, side="right")
    else:
        lo = np.searchsorted(index.key, rows + np.maximum(0, start - index.row_max_duration))
    hi = np.searchsorted(index.key, rows + end)
    counts = hi - lo
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    if total == len(index.key):
        if exact:
            return slice(None)
        keep = (index.end > start) & (index.end > index.start)
        return slice(None) if keep.all() else np.flatnonzero(keep)
    candidates = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total, dtype=np.int64)
    if exact:
        return candidates
    keep = (index.end[candidates] > start) & (index.end[candidates] > index.start[candidates])
    return candidates if keep.all() else candidates[keep]


def samples_at(index: TimelineIndex, at: int) -> np.ndarray:
    """Sorted positions of the samples active at offset ``at`` (``start <= at < end``)."""
    pos = _positions(index, at, at + 1)
    return np.arange(len(index.key))[pos] if isinstance(pos, slice) else pos


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
    index: TimelineIndex,
    start: int,
    end: int,
    pixels: int,
    matched: np.ndarray | None,
    color_by: str = "kind",
    raw_limit: int = RAW_LIMIT,
) -> RawWindow | LodWindow:
    """Answer one timeline request.

    Parameters
    ----------
    index : TimelineIndex
    start, end : int
        Window in per-tile offsets (end exclusive, end > start). Any integers: the samples
        are found exactly however far the window reaches past ``[0, span]``; cell geometry
        is float64 (exact below 2**53).
    pixels : int
        Drawn width; summaries use ``min(pixels, MAX_BINS)`` bins.
    matched : np.ndarray or None
        Per sorted position, whether the sample matches the filters (None: all match).
    color_by : str
        "kind" or "kernel".
    raw_limit : int
        Send raw intervals when at most this many samples overlap the window.
    """
    start, end = int(start), int(end)
    if end <= start:
        end = start + 1
    pos = _positions(index, start, end)
    classes = index.classes(color_by)[pos]
    count = len(classes)
    ok = np.ones(count, dtype=bool) if matched is None else matched[pos]
    if count <= raw_limit:
        return RawWindow(
            start=start,
            end=end,
            sample=index.sample[pos],
            row=index.row[pos],
            x0=index.start[pos],
            x1=index.end[pos],
            cls=classes,
            matched=ok,
        )
    return _summarise(index, pos, classes, ok, start, end, max(1, min(int(pixels), MAX_BINS)))


def _summarise(
    index: TimelineIndex, pos: np.ndarray | slice, classes: np.ndarray, ok: np.ndarray, start: int, end: int, bins: int
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
    index: TimelineIndex, pos: np.ndarray | slice, classes: np.ndarray, ok: np.ndarray, start: int, end: int, bins: int
) -> LodWindow:
    """`_summarise` for rows whose samples never overlap: at most one sample per whole cell.

    Each sample is cut into a first piece (in cell ``c0``), whole cells, and an end piece
    (in ``c1``, the last cell it touches; empty when ``c1 == c0``). Whole cells come from one
    running sum of their owners' keys instead of being listed one by one. Samples go in
    blocks of `_CHUNK` so the temporaries stay small: at a million samples, fresh pages and
    cache misses cost more than the arithmetic.
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
    for lo in range(0, count, _CHUNK):
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

    np.cumsum(owner, out=owner)
    owner = owner[:cells]
    coverage += owner != 0
    if not all_ok:  # a whole cell's key has bit 25, and bit 24 when its owner matches (lower bits < 2**24)
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


def encode_window(answer: RawWindow | LodWindow, compress: bool = True) -> tuple[dict, list[bytes]]:
    """JSON header + binary buffers for the front end (little-endian typed arrays).

    Raw: ``[x0 f32, x1 f32 (relative to start), row u16, flags u8 (class | 0x80 when matching),
    sample u32]``. Summary: one u8 per cell, row-major, ``class | level << 5`` where level
    0..7 is the covered fraction rounded up (matching coverage for matching cells); with
    ``compress`` packed by `pack_cells` (header ``"compressed": "xor-runs"``, ``"runs"``):
    1.6 MB become 0.2–0.5 MB in ~3 ms, and the browser unpacks them in a few ms without
    leaving the message handler (inflating zlib there took 10–20 ms, asynchronously).
    """
    if isinstance(answer, RawWindow):
        flags = answer.cls.astype(np.uint8) | (answer.matched.astype(np.uint8) << 7)
        header = {"mode": "raw", "start": answer.start, "end": answer.end, "count": len(answer.sample)}
        return header, [
            np.subtract(answer.x0, float(answer.start)).astype("<f4").tobytes(),
            np.subtract(answer.x1, float(answer.start)).astype("<f4").tobytes(),
            answer.row.astype("<u2").tobytes(),
            flags.tobytes(),
            answer.sample.astype("<u4").tobytes(),
        ]
    shown = answer.matched_coverage.astype(np.float32)
    if answer.matched_coverage is not answer.coverage:  # grey cells show all their coverage
        np.copyto(shown, answer.coverage, casting="same_kind", where=answer.cls == GREY)
    np.minimum(shown, 1.0, out=shown)
    shown *= 7
    np.ceil(shown, out=shown)
    cells = shown.astype(np.uint8)
    cells <<= 5
    cells |= answer.cls
    header = {
        "mode": "lod",
        "start": answer.start,
        "end": answer.end,
        "rows": answer.cls.shape[0],
        "bins": answer.bins,
        "count": answer.sample_count,
        "compressed": "xor-runs" if compress else None,
    }
    if not compress:
        return header, [cells.tobytes()]
    runs, buffers = pack_cells(cells)
    header["runs"] = runs
    return header, buffers


def _counts(values: np.ndarray) -> bytes:
    """Each value as one byte when below 255, else 255 and the value as u32 little-endian."""
    values = values.astype(np.int64)
    big = values >= 255
    size = 1 + 4 * big.astype(np.int64)
    at = np.cumsum(size) - size
    out = np.empty(int(size.sum()), dtype=np.uint8)
    out[at] = np.where(big, 255, values)
    if big.any():
        wide = values[big].astype("<u4").view(np.uint8).reshape(-1, 4)
        out[(at[big] + 1)[:, None] + np.arange(4)] = wide
    return out.tobytes()


def pack_cells(cells: np.ndarray) -> tuple[int, list[bytes]]:
    """Pack a (rows, bins) u8 cell grid: each row XOR the row above, then the runs of non-zero bytes.

    Neighbouring tiles mostly do the same thing at the same time, so the XOR leaves ~85 %
    zeros. Returns the number of runs and three buffers: the zeros before each run and the
    run lengths (`_counts`), and the run bytes. `unpack_cells` (and ``js/buffers.ts``) undo it.
    """
    bins = cells.shape[1]
    flat = np.ascontiguousarray(cells).reshape(-1)
    diff = flat.copy()
    np.bitwise_xor(diff[bins:], flat[:-bins], out=diff[bins:])
    nonzero = np.flatnonzero(diff != 0)
    if not len(nonzero):
        return 0, [b"", b"", b""]
    breaks = np.flatnonzero(np.diff(nonzero) != 1) + 1
    starts = nonzero[np.concatenate(([0], breaks))]
    lengths = np.diff(np.concatenate(([0], breaks, [len(nonzero)])))
    ends = starts + lengths
    gaps = starts - np.concatenate(([0], ends[:-1]))
    return len(starts), [_counts(gaps), _counts(lengths), diff[nonzero].tobytes()]


def unpack_cells(rows: int, bins: int, runs: int, buffers: list[bytes]) -> np.ndarray:
    """Inverse of `pack_cells` (a plain reference for tests; the browser has its own)."""

    def counts(data: bytes) -> list[int]:
        out, at = [], 0
        while at < len(data):
            if data[at] < 255:
                out.append(data[at])
                at += 1
            else:
                out.append(int.from_bytes(data[at + 1 : at + 5], "little"))
                at += 5
        return out

    gaps, lengths = counts(buffers[0]), counts(buffers[1])
    if len(gaps) != runs or len(lengths) != runs:
        raise ValueError(f"expected {runs} runs, got {len(gaps)} gaps and {len(lengths)} lengths")
    flat = np.zeros(rows * bins, dtype=np.uint8)
    literals = np.frombuffer(buffers[2], dtype=np.uint8)
    at = used = 0
    for gap, length in zip(gaps, lengths, strict=True):
        at += gap
        flat[at : at + length] = literals[used : used + length]
        at += length
        used += length
    for row in range(1, rows):
        flat[row * bins : (row + 1) * bins] ^= flat[(row - 1) * bins : row * bins]
    return flat.reshape(rows, bins)


def overview(index: TimelineIndex, active: np.ndarray, bins: int) -> np.ndarray:
    """Average number of rows busy with ``active`` positions per bin over ``[0, span)``.

    ``active`` is a per-sorted-position mask (e.g. compute and not inactive); the result
    (float64, ``bins`` long) is Σ overlap / bin width, so it is exact tile-occupancy.
    """
    span = max(index.span, 1)
    out = np.zeros(bins)
    if not active.any():
        return out
    width = span / bins
    a = index.start[active] / width
    b = index.end[active] / width
    i0 = np.minimum(a.astype(np.int64), bins - 1)
    i1 = np.minimum(b.astype(np.int64), bins)
    same = i0 == i1
    first = np.where(same, b - a, (i0 + 1) - a)
    last = np.where(same | (i1 >= bins), 0.0, b - i1)
    out += np.bincount(i0, first, bins)
    out += np.bincount(np.minimum(i1, bins - 1), last, bins)
    inner = np.maximum(i1 - i0 - 1, 0)
    diff = np.bincount(i0 + 1, inner > 0, bins + 1) - np.bincount(i0 + 1 + inner, inner > 0, bins + 1)
    out += np.cumsum(diff)[:bins]
    return out
