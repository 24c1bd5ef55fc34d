"""Summaries in their wire form: one byte per (row, bin), ``class | level << 5``, as the front end draws them.

`cell_bytes` is the one rule that turns a `LodWindow`'s exact coverage into those bytes.
`summary_cells` answers a window in that form directly: for the timeline's cache blocks
(bins of ``2**L`` cycles) over rows that never overlap, the C library (`native.block_cells`)
writes each cell's byte as soon as the cell is complete, in one pass over the samples and
without the per-cell sums of `summarise` (several times faster); elsewhere it is
`cell_bytes` of `summarise`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import native as _native
from .index import GREY, Windowed, positions
from .runs import FileRuns
from .summaries import LodWindow, summarise

__all__ = ["CellWindow", "cell_bytes", "summary_cells"]


@dataclass(frozen=True)
class CellWindow:
    """A window summarised into ``bins`` cells a row, as bytes (`cell_bytes`), and how many samples overlap it."""

    start: int
    end: int
    bins: int
    cells: np.ndarray
    sample_count: int


def cell_bytes(answer: LodWindow) -> np.ndarray:
    """``class | level << 5`` per cell (uint8, rows × bins).

    ``level`` (0..7) is the covered fraction rounded up to sevenths, in float32: of the
    matching samples for a coloured cell, of all samples for a grey one (class `GREY`).
    """
    shown = answer.matched_coverage.astype(np.float32)
    if answer.matched_coverage is not answer.coverage:  # grey cells show all their coverage
        np.copyto(shown, answer.coverage, casting="same_kind", where=answer.cls == GREY)
    np.minimum(shown, 1.0, out=shown)
    shown *= 7
    np.ceil(shown, out=shown)
    cells = shown.astype(np.uint8)
    cells <<= 5
    cells |= answer.cls
    return cells


def summary_cells(
    index: Windowed, start: int, end: int, bins: int, matched: np.ndarray | None, color_by: str = "kind"
) -> CellWindow:
    """`cell_bytes` of `summarise`'s answer for ``[start, end)`` in ``bins`` cells a row, the same bytes.

    The C pass adds each cell's pieces in the order `summarise` does within one of its
    blocks of samples; with bins of ``2**L`` cycles every piece is a multiple of ``2**-L``,
    so the sums are exact whatever the order and the bytes equal `summarise`'s always.
    """
    start, end = int(start), int(end)
    stop = max(end, start + 1)
    width = (stop - start) / bins
    dyadic = math.frexp(width)[0] == 0.5
    if _native.NATIVE and dyadic and not isinstance(index, FileRuns) and not index.overlaps:
        pos = positions(index, start, end)
        classes = index.classes(color_by)[pos]
        count = len(classes)
        ok = None if matched is None else matched[pos]
        candidates = _native.Candidates.of(index, pos, classes, None if ok is None or ok.all() else ok)
        cells = _native.block_cells(candidates, start, width, bins, index.rows)
        if cells is not None:
            return CellWindow(start=start, end=stop, bins=bins, cells=cells, sample_count=count)
    answer = summarise(index, start, end, bins, matched, color_by)
    return CellWindow(start=start, end=stop, bins=bins, cells=cell_bytes(answer), sample_count=answer.sample_count)
