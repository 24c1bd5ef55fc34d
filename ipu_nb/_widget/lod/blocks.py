"""Answers for the timeline's cache blocks: block ``k`` of level ``L`` covers ``[k·B·2**L, (k+1)·B·2**L)``.

The front end (js/timeline/levels.ts, js/timeline/tilecache.ts) keeps what it is sent per level and block,
so a pan or zoom draws from what it holds while the kernel refines. A block with few
samples is sent raw (and then serves every finer level too); the others are summaries of
``B`` cells a row (`shares.share_window`: each class's share of each cell). Neighbouring summary
blocks of one request are computed in one pass over their samples and cut apart, which costs
about what one of them alone would.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .index import Windowed, count
from .shares import ShareWindow, share_window
from .summaries import RawWindow, window

__all__ = ["BLOCK_RAW_LIMIT", "MAX_BLOCK_BINS", "MAX_LEVEL", "MAX_RUN", "Block", "block_range", "blocks"]

MAX_BLOCK_BINS = 1280
"""Widest block a request may ask for (cells a row)."""
MAX_LEVEL = 62
"""Coarsest level a request may name (bins of 2**62 cycles)."""
MAX_RUN = 4
"""Summary blocks computed in one pass at most (their temporaries grow with the run)."""
BLOCK_RAW_LIMIT = 8_192
"""A block overlapping more samples is sent as its summary: raw it would weigh more (15 to 19
bytes a sample; 8,192 make at most 156 KB) than its packed cells (50 to 150 KB for 1,472 rows
of 512), and a refinement the kernel answers waits mostly for its bytes to reach the page."""


@dataclass(frozen=True)
class Block:
    """One block's answer and what it cost to compute (seconds, its share of a shared pass)."""

    index: int
    answer: RawWindow | ShareWindow
    seconds: float


def block_range(level: int, bins: int, index: int) -> tuple[int, int]:
    """``[start, end)`` of block `index` of `level`, `bins` bins of ``2**level`` cycles."""
    width = bins << level
    return index * width, (index + 1) * width


def blocks(
    index: Windowed,
    level: int,
    bins: int,
    wanted: list[int],
    matched: np.ndarray | None,
    color_by: str,
    raw_limit: int = BLOCK_RAW_LIMIT,
) -> Iterator[Block]:
    """The answers for blocks `wanted` of `level`, in that order (each as soon as it is ready).

    A block overlapping at most `raw_limit` samples comes as raw intervals, any other as a
    summary of `bins` cells per row; `matched` marks the sorted positions matching the
    filters (None: all), per position of `index` (file rows for `UnsortedSamples`).
    """
    pending: list[tuple[int, int]] = []  # (block, samples) of summaries not yet computed

    def flush() -> Iterator[Block]:
        if not pending:
            return
        began = time.perf_counter()
        first = pending[0][0]
        start = block_range(level, bins, first)[0]
        end = block_range(level, bins, pending[-1][0])[1]
        run = share_window(index, start, end, bins * len(pending), matched, color_by)
        share = (time.perf_counter() - began) / len(pending)
        for part, (k, overlapping) in enumerate(pending):
            a, b = block_range(level, bins, k)
            yield Block(k, run.cut(part * bins, bins, a, b, overlapping), share)
        pending.clear()

    for k in wanted:
        began = time.perf_counter()
        start, end = block_range(level, bins, k)
        overlapping = count(index, start, end)
        if overlapping <= raw_limit:
            yield from flush()
            answer = window(index, start, end, bins, matched, color_by, raw_limit=raw_limit)
            assert isinstance(answer, RawWindow)  # the same count, at most raw_limit
            yield Block(k, answer, time.perf_counter() - began)
            continue
        if pending and (pending[-1][0] != k - 1 or len(pending) >= MAX_RUN):
            yield from flush()
        pending.append((k, overlapping))
    yield from flush()
