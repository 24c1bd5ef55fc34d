"""Area-conserving summaries: for each (row, bin), how much of its cycles each colour class covers.

A summarised window is drawn one pixel a cell, coloured ``Σ share_k · colour_k + (1 − Σ share_k) ·
background`` (in sRGB), so the mean colour of any region is the cycle-weighted mean of the kind
colours over it, gaps as background. A share is a u8 in 255ths; the classes of one window are its
*planes*: only those some candidate sample has, in ascending class order, class `GREY` (0) holding
the samples that do not match the filters. Shares are rounded cumulatively over the planes
(`quantise`), so each is within one unit of the exact share and a cell's shares never add past 255.

With bins of ``2**L`` cycles over rows that never overlap (the timeline's cache blocks) the C
library (`native.block_shares`) writes the cells in one pass; elsewhere numpy does the same
arithmetic, with the same bytes (every piece is then a multiple of ``2**-L``: sums are exact).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import native as _native
from .index import GREY, Windowed, positions
from .runs import FileRuns

__all__ = ["ShareWindow", "quantise", "share_window"]

_CELLS_AT_ONCE = 1 << 22
"""Cells × planes summed at a time by numpy (32 MB of float64): many classes over a wide window stay small."""


@dataclass(frozen=True)
class ShareWindow:
    """A window in ``bins`` cells a row: ``planes[p, row, bin]`` is the share (in 255ths) of the cell's
    cycles covered by samples of colour class ``classes[p]`` (`GREY`: not matching the filters)."""

    start: int
    end: int
    bins: int
    classes: np.ndarray
    planes: np.ndarray
    sample_count: int

    def cut(self, first: int, bins: int, start: int, end: int, count: int) -> ShareWindow:
        """Bins ``[first, first + bins)`` of this window, as the window ``[start, end)`` with `count` samples."""
        return ShareWindow(start, end, bins, self.classes, self.planes[:, :, first : first + bins], count)


def quantise(shares: np.ndarray) -> np.ndarray:
    """Exact shares (float, planes first; a cell's adding up to at most 1) as u8 255ths, rounded cumulatively.

    Share ``p`` becomes ``round(255 · Σ_{q≤p} s_q) − round(255 · Σ_{q<p} s_q)``: each within one
    unit of ``255 · s_p``, and a cell's add up to ``round(255 · Σ s)`` (no more than 255).

    >>> quantise(np.array([[0.5], [0.5]])).ravel().tolist()
    [128, 127]
    >>> quantise(np.array([[0.3], [0.0], [0.2]])).ravel().tolist()
    [77, 0, 51]
    """
    cum = np.cumsum(shares, axis=0)
    np.minimum(cum, 1.0, out=cum)
    cum *= 255.0
    cum += 0.5
    levels = np.floor(cum).astype(np.int16)
    out = np.diff(levels, axis=0, prepend=np.int16(0))
    return out.astype(np.uint8)


def share_window(
    index: Windowed, start: int, end: int, bins: int, matched: np.ndarray | None, color_by: str = "kind"
) -> ShareWindow:
    """The shares of ``[start, end)`` in ``bins`` cells a row (`matched`: per position of `index`, None: all match)."""
    start, end = int(start), int(end)
    stop = max(end, start + 1)
    bins = max(1, int(bins))
    rows = index.rows
    pos: np.ndarray | slice
    if isinstance(index, FileRuns):
        pos = index.positions(start, stop)
        s = index.take("offset", pos).astype(np.float64)
        e = s + index.take("duration", pos)
        row = index.row_of(pos).astype(np.int64)
        # The C pass reads the gathered columns in order.
        source: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | slice] = (s, e, row, slice(None))
    else:
        pos = positions(index, start, stop)
        s, e, row = index.start_f[pos], index.end_f[pos], index.row[pos]
        source = (index.start_f, index.end_f, index.row, pos)
    overlaps = bool(index.overlaps)
    cls = index.classes(color_by)[pos]
    count = len(cls)
    slot_class = cls.astype(np.uint8) if matched is None else np.where(matched[pos], cls, GREY).astype(np.uint8)
    some = e > s
    classes = np.unique(slot_class[some])
    slot = np.searchsorted(classes, slot_class).astype(np.uint8)
    width = (stop - start) / bins
    planes = None
    if _native.NATIVE and not overlaps and math.frexp(width)[0] == 0.5 and len(classes):
        planes = _native.block_shares(*source, slot, start, width, bins, rows, len(classes))
    if planes is None:
        planes = _numpy_planes(s, e, row, slot, some, start, width, bins, rows, len(classes), overlaps)
    return ShareWindow(start, stop, bins, classes, planes, count)


def _numpy_planes(
    s: np.ndarray,
    e: np.ndarray,
    row: np.ndarray,
    slot: np.ndarray,
    some: np.ndarray,
    start: int,
    width: float,
    bins: int,
    rows: int,
    planes: int,
    overlaps: bool,
) -> np.ndarray:
    """`share_window`'s cells by plain sums: each sample cut into a first piece, whole cells and a last piece."""
    cells = rows * bins
    if not planes:
        return np.zeros((0, rows, bins), dtype=np.uint8)
    s, e, row, slot = s[some], e[some], row[some], slot[some]
    u = np.maximum(np.subtract(s, float(start)), 0.0) / width
    v = np.minimum(np.subtract(e, float(start)) / width, float(bins))
    f = np.floor(u)
    c0 = f.astype(np.int64)
    m = np.minimum(f + 1.0, v)  # end of the first piece
    last_cell = np.ceil(v) - 1.0  # start of the last cell touched
    c1 = last_cell.astype(np.int64)
    first = m - u
    last = v - np.maximum(last_cell, m)  # 0 when the sample stays in one cell
    base = row.astype(np.int64) * bins
    inner = np.maximum(c1 - c0 - 1, 0)
    has = np.flatnonzero(inner)
    n_inner = inner[has]
    total = int(n_inner.sum())
    whole = np.repeat(base[has] + c0[has] + 1 - (np.cumsum(n_inner) - n_inner), n_inner) + np.arange(total)
    # Keys cell-major (``cell · planes + plane``): a range of cells is a range of keys.
    p = slot.astype(np.int64)
    keys = np.concatenate(((base + c0) * planes + p, (base + np.maximum(c1, c0)) * planes + p))
    keys = np.concatenate((keys, whole * planes + np.repeat(p[has], n_inner)))
    weights = np.concatenate((first, last, np.ones(total)))
    out = np.empty((planes, cells), dtype=np.uint8)
    step = max(1, _CELLS_AT_ONCE // planes)
    for lo in range(0, cells, step):
        hi = min(cells, lo + step)
        some_keys = slice(None) if (lo, hi) == (0, cells) else (keys >= lo * planes) & (keys < hi * planes)
        sums = np.bincount(keys[some_keys] - lo * planes, weights[some_keys], (hi - lo) * planes)
        sums = sums.astype(np.float64).reshape(hi - lo, planes).T
        if overlaps:  # overlapping samples may cover a cell more than once: then shares of its cover
            cover = sums.sum(axis=0)
            over = cover > 1.0
            sums[:, over] /= cover[over]
        out[:, lo:hi] = quantise(sums)
    return out.reshape(planes, rows, bins)
