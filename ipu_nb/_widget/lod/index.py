"""The timeline index: one profile's samples sorted by timeline row, then offset, built once per widget."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from ..._model.vocabulary import NO_KERNEL, STEP_KINDS

__all__ = [
    "GREY",
    "KIND_CLASSES",
    "MAX_CLASSES",
    "TimelineIndex",
    "build_index",
    "count_in",
    "positions",
    "samples_at",
]

MAX_CLASSES = 31
"""Colour classes 1..31 fit in 5 bits; class 0 (`GREY`) marks samples not matching the filters."""
GREY = 0
KIND_CLASSES = STEP_KINDS
"""Class 1 + index of these names when colouring by kind (inactive compute counts as idle)."""
_KEY_SHIFT = np.int64(40)
"""Sort keys are ``row << 40 | offset``: exact while offsets stay below 2**40, so every lookup
first clamps its offsets to ``[0, span]`` (runtime offsets are below 2**33:
docs/reference/format.md#offsets-and-durations)."""


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


_LOOKUP_TILES = 1 << 20
"""Physical ids below this map to rows through a table; larger (hostile) ids are binary-searched."""


def _rows_of(row_tiles: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """The timeline row (index into the sorted unique `row_tiles`) of each of `tiles`."""
    if len(row_tiles) and int(row_tiles[-1]) < _LOOKUP_TILES:
        table = np.zeros(int(row_tiles[-1]) + 1, dtype=np.int64)
        table[row_tiles] = np.arange(len(row_tiles))
        return table[tiles]
    return np.searchsorted(row_tiles, tiles).astype(np.int64)


def _order(rows: np.ndarray, offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The permutation sorting samples by timeline row, offset and sample id.

    Files list each tile's samples together, mostly in offset order: a stable sort of one
    ``row << 40 | offset`` key, which finds those runs, gives the order when sample ids rise
    with the rows (as the loader numbers them); otherwise the three keys are sorted outright.
    """
    if len(ids) < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return np.argsort((rows << _KEY_SHIFT) | np.minimum(offsets, (1 << int(_KEY_SHIFT)) - 1), kind="stable")
    return np.lexsort((ids, offsets, rows))


def build_index(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineIndex:
    """Sort a profile's samples for windowing; done once per widget (columns taken once, then gathered)."""
    row_tiles = np.unique(tiles.get_column("tile").to_numpy()).astype(np.uint32)
    columns = samples.select(
        "sample",
        "offset",
        "inactive",
        end=pl.col("offset") + pl.col("duration").cast(pl.UInt64),
        kind=pl.col("kind").to_physical(),
        kernel_code=pl.col("kernel").to_physical(),
    )
    offsets = columns.get_column("offset").to_numpy().astype(np.int64)
    rows_in_file = _rows_of(row_tiles, samples.get_column("tile").to_numpy())
    ids = columns.get_column("sample").to_numpy()
    order = _order(rows_in_file, offsets, ids)
    row = rows_in_file[order]
    start = offsets[order]
    end = columns.get_column("end").to_numpy().astype(np.int64)[order]
    # KIND_CLASSES follows the Enum order (exchange, compute, synchronization, idle).
    kind_class = (columns.get_column("kind").to_numpy() + 1).astype(np.uint8)[order]
    kind_class[columns.get_column("inactive").to_numpy()[order]] = KIND_CLASSES.index("idle") + 1

    # Kernels ranked by total cycles get classes 1..30, the rest share the last one.
    weight = (
        samples.group_by("kernel")
        .agg(d=pl.col("duration").cast(pl.UInt64).sum(), code=pl.col("kernel").to_physical().first())
        .with_columns(name=pl.col("kernel").cast(pl.String))
        .sort(["d", "name"], descending=[True, False])
    )
    names = weight.get_column("name").to_list()
    codes = weight.get_column("code").to_numpy().astype(np.int64)
    if len(names) > MAX_CLASSES:
        names = [*names[: MAX_CLASSES - 1], "(other kernels)"]
    classes = np.minimum(np.arange(1, len(codes) + 1), MAX_CLASSES).astype(np.uint8)
    lookup = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.uint8)
    lookup[codes] = classes
    physical = columns.get_column("kernel_code").to_numpy()
    kernel_class = lookup[physical][order] if len(physical) else np.zeros(0, dtype=np.uint8)
    names = [n if n else NO_KERNEL for n in names]

    span = int(end.max()) if len(end) else 0
    if span >= 1 << int(_KEY_SHIFT):
        raise ValueError(f"sample offsets reach {span}; the timeline index holds offsets below 2**{_KEY_SHIFT}")
    row_max = np.zeros(len(row_tiles), dtype=np.int64)
    if len(row):  # rows are contiguous now: one maximum per run
        firsts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        row_max[row[firsts]] = np.maximum.reduceat(end - start, firsts)
    overlaps = bool(np.any((start[1:] < end[:-1]) & (row[1:] == row[:-1]))) if len(row) > 1 else False
    return TimelineIndex(
        row_tiles=row_tiles,
        sample=ids.astype(np.uint32)[order],
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


def positions(index: TimelineIndex, start: int, end: int) -> np.ndarray | slice:
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


def count_in(index: TimelineIndex, start: int, end: int, matched: np.ndarray | None = None) -> tuple[int, int]:
    """Samples overlapping ``[start, end)``, and those of them `matched` (per sorted position) marks."""
    pos = positions(index, start, end)
    count = len(index.key) if isinstance(pos, slice) else len(pos)  # a slice is every sample
    if matched is None:
        return count, count
    return count, int(np.count_nonzero(matched[pos]))


def samples_at(index: TimelineIndex, at: int) -> np.ndarray:
    """Sorted positions of the samples active at offset ``at`` (``start <= at < end``)."""
    pos = positions(index, at, at + 1)
    return np.arange(len(index.key))[pos] if isinstance(pos, slice) else pos
