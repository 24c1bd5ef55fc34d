"""The timeline index: one profile's samples sorted by timeline row, then offset (made by `build`), and its lookups."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .facts import GREY, KIND_CLASSES, MAX_CLASSES, TimelineFacts
from .runs import FileRuns

__all__ = [
    "GREY",
    "KEY_SHIFT",
    "KIND_CLASSES",
    "MAX_CLASSES",
    "TimelineFacts",
    "TimelineIndex",
    "UnsortedSamples",
    "Windowed",
    "count",
    "count_in",
    "positions",
    "samples_at",
]

KEY_SHIFT = np.int64(40)
"""Sort keys are ``row << 40 | offset``: exact while offsets stay below 2**40, so every lookup
first clamps its offsets to ``[0, span]`` (runtime offsets are below 2**33:
docs/reference/format.md#offsets-and-durations)."""


@dataclass(frozen=True)
class TimelineIndex(TimelineFacts):
    """Samples of one profile sorted by timeline row (physical tile order), then offset.

    Attributes (beyond `TimelineFacts`)
    -----------------------------------
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
    overlaps : bool
        Whether samples of a row overlap (never in runtime files, where a tile's samples
        are contiguous); windows then take a slower path that accumulates repeated cells.
    start_f, end_f : np.ndarray
        ``start`` and ``end`` as float64 (exact below 2**53), so windows skip the conversion.
    empty : bool
        Whether some sample has zero duration (such samples are never drawn).
    end_key : np.ndarray or None
        ``row << 40 | end`` when rows don't overlap (then it is sorted too), else None.
    activity_class : np.ndarray or None
        Colour class of each sorted position for ``color_by`` activity (`lod.activity`: an index of
        display pieces); None in an index of samples, which then colours activity by kind.
    """

    sample: np.ndarray
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    key: np.ndarray
    row_max_duration: np.ndarray
    kind_class: np.ndarray
    kernel_class: np.ndarray
    overlaps: bool
    start_f: np.ndarray
    end_f: np.ndarray
    empty: bool
    end_key: np.ndarray | None
    activity_class: np.ndarray | None = None

    @property
    def size(self) -> int:
        """Number of samples."""
        return len(self.key)

    def classes(self, color_by: str) -> np.ndarray:
        """Colour class per sorted position for ``color_by`` ("kind", "kernel" or "activity")."""
        if color_by == "activity" and self.activity_class is not None:
            return self.activity_class
        return self.kernel_class if color_by == "kernel" else self.kind_class

    def sample_at(self, row: int, at: int) -> int | None:
        """Id of the sample of ``row`` covering offset ``at`` (the latest-starting one), or None."""
        pos = self.position_at(row, at)
        return None if pos is None else int(self.sample[pos])

    def position_at(self, row: int, at: int) -> int | None:
        """Sorted position of the interval of ``row`` covering offset ``at`` (the latest-starting one), or None."""
        if not 0 <= row < self.rows or not 0 <= at < self.span:  # no sample ends beyond the span
            return None
        lo = int(np.searchsorted(self.key, (row << 40) + max(0, at - int(self.row_max_duration[row]))))
        hi = int(np.searchsorted(self.key, (row << 40) + at, side="right"))
        hits = np.flatnonzero(self.end[lo:hi] > at)
        return lo + int(hits[-1]) if len(hits) else None


@dataclass(frozen=True)
class UnsortedSamples(TimelineFacts):
    """A profile's samples in file order, with `order`, the permutation that sorts them as `TimelineIndex`.

    Windows answer from it exactly as from the index: `positions` lists a window's file
    rows in the index's order, so every sum runs in the same order and the cells come out
    the same. The first picture so needs no sorted copies (seconds at ten million samples).
    The other attributes are `TimelineIndex`'s per file row (``start`` as int64).
    """

    order: np.ndarray
    sample: np.ndarray
    row: np.ndarray
    start: np.ndarray
    start_f: np.ndarray
    end_f: np.ndarray
    kind_class: np.ndarray
    kernel_class: np.ndarray
    overlaps: bool
    empty: bool

    @property
    def size(self) -> int:
        """Number of samples."""
        return len(self.order)

    def classes(self, color_by: str) -> np.ndarray:
        """Colour class per file row for ``color_by`` ("kind" or "kernel"; "activity" as kind: samples are not cut)."""
        return self.kernel_class if color_by == "kernel" else self.kind_class

    def positions(self, start: int, end: int) -> np.ndarray:
        """File rows of the samples overlapping ``[start, end)`` (zero-length ones excluded), in the index's order."""
        keep = self._overlapping(start, end)
        if keep is None:
            return self.order
        return self.order if keep.all() else self.order[keep[self.order]]

    def count(self, start: int, end: int) -> int:
        """How many samples `positions` lists (without listing them)."""
        keep = self._overlapping(start, end)
        return self.size if keep is None else int(np.count_nonzero(keep))

    def _overlapping(self, start: int, end: int) -> np.ndarray | None:
        """Per file row, whether the sample overlaps ``[start, end)`` and has a length; None: every one does."""
        start, end = max(int(start), 0), min(int(end), self.span)
        if end <= start:
            return np.zeros(self.size, dtype=bool)
        if start == 0 and end == self.span and not self.empty:  # every sample lies in [0, span) and has a length
            return None
        keep = np.greater(self.end_f, start)
        keep &= np.less(self.start_f, end)
        if self.empty:
            keep &= np.greater(self.end_f, self.start_f)
        return keep


Windowed = TimelineIndex | UnsortedSamples | FileRuns
"""What windows are answered from: the index, or the file-order samples until it is ready (`FileRuns`
when the file lists them tile by tile, else `UnsortedSamples`)."""


def positions(index: Windowed, start: int, end: int) -> np.ndarray | slice:
    """Sorted positions of samples overlapping ``[start, end)`` (zero-length ones excluded).

    A slice (no copy) when every sample qualifies, as in the home view. Any integers may
    come in: the range is clamped to ``[0, span]`` (where every sample lies) before it
    meets the row keys, which hold offsets below 2**40 only. For `UnsortedSamples`, their
    file rows in the same order (`UnsortedSamples.positions`).
    """
    if not isinstance(index, TimelineIndex):
        return index.positions(start, end)
    start, end = max(int(start), 0), min(int(end), index.span)
    if end <= start:
        return np.zeros(0, dtype=np.int64)
    rows = np.arange(index.rows, dtype=np.int64) << KEY_SHIFT
    exact = index.end_key is not None and not index.empty
    if index.end_key is not None and exact:  # ends sorted too: the first sample ending after start, none to drop
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


def count(index: Windowed, start: int, end: int) -> int:
    """How many samples `positions` lists for ``[start, end)``."""
    if not isinstance(index, TimelineIndex):
        return index.count(start, end)
    pos = positions(index, start, end)
    return index.size if isinstance(pos, slice) else len(pos)  # a slice is every sample


def count_in(index: Windowed, start: int, end: int, matched: np.ndarray | None = None) -> tuple[int, int]:
    """Samples overlapping ``[start, end)``, and those of them `matched` (per position of `index`) marks."""
    if isinstance(index, FileRuns):
        return index.select(start, end, matched)[:2]
    pos = positions(index, start, end)
    count = index.size if isinstance(pos, slice) else len(pos)  # a slice is every sample
    if matched is None:
        return count, count
    return count, int(np.count_nonzero(matched[pos]))


def samples_at(index: TimelineIndex, at: int) -> np.ndarray:
    """Sorted positions of the samples active at offset ``at`` (``start <= at < end``)."""
    pos = positions(index, at, at + 1)
    return np.arange(len(index.key))[pos] if isinstance(pos, slice) else pos
