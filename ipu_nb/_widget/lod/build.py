"""Building the timeline index in steps, so that the first picture need not wait for the sorted copies.

`timeline_facts` (rows, span, kernel legend) is cheap and comes first; `unsorted_samples`
gathers the columns in file order with the permutation that sorts them, enough to answer
any window exactly (`UnsortedSamples`); `sorted_index` then makes the sorted copies of the
`TimelineIndex`, about ten arrays as long as the profile (seconds at ten million samples,
bound by memory). `IndexBuild` runs the last two on a thread of their own.
"""

from __future__ import annotations

import threading

import numpy as np
import polars as pl
from polars.exceptions import PanicException

from ..._model.vocabulary import NO_KERNEL
from .index import KEY_SHIFT, KIND_CLASSES, MAX_CLASSES, TimelineFacts, TimelineIndex, UnsortedSamples

__all__ = [
    "IndexBuild",
    "TimelineIndexError",
    "build_index",
    "sorted_index",
    "timeline_facts",
    "unsorted_samples",
]

_LOOKUP_TILES = 1 << 20
"""Physical ids below this map to rows through a table; larger (hostile) ids are binary-searched."""
_CHUNK = 1 << 20
"""Samples per block where a pass only needs a small temporary (the span)."""


class TimelineIndexError(RuntimeError):
    """Building a profile's timeline index failed; the message says why (the cause is chained)."""


def _rows_of(row_tiles: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """The timeline row (index into the sorted unique `row_tiles`) of each of `tiles`."""
    if len(row_tiles) and int(row_tiles[-1]) < _LOOKUP_TILES:
        table = np.zeros(int(row_tiles[-1]) + 1, dtype=np.int64)
        table[row_tiles] = np.arange(len(row_tiles))
        return table[tiles]
    return np.searchsorted(row_tiles, tiles).astype(np.int64)


def _run_order(rows: np.ndarray, offsets: np.ndarray) -> np.ndarray | None:
    """`_order` without a sort when each row's samples are one run of the file in offset order, else None.

    Runtime files list each tile's samples together in offset order (with rising sample
    ids, checked by the caller): the order is then those runs put in row order.
    """
    n = len(rows)
    change = rows[1:] != rows[:-1]
    firsts = np.flatnonzero(np.r_[True, change])
    run_rows = rows[firsts]
    if len(np.unique(run_rows)) != len(run_rows) or not bool(np.all((offsets[1:] >= offsets[:-1]) | change)):
        return None
    by_row = np.argsort(run_rows)
    lengths = np.diff(np.r_[firsts, n])[by_row]
    return np.repeat(firsts[by_row] - (np.cumsum(lengths) - lengths), lengths) + np.arange(n, dtype=np.int64)


def _order(rows: np.ndarray, offsets: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, bool]:
    """The permutation sorting samples by timeline row, offset and sample id, and whether it keeps runs.

    Files list each tile's samples together, mostly in offset order: when sample ids rise
    with the rows (as the loader numbers them) those runs give the order (`_run_order`:
    then True, each row's samples keep their file order), or a stable sort of one
    ``row << 40 | offset`` key does; otherwise the three keys are sorted outright.
    """
    if len(ids) < 2:
        return np.arange(len(ids), dtype=np.int64), True
    if bool(np.all(ids[1:] > ids[:-1])):
        runs = _run_order(rows, offsets)
        if runs is not None:
            return runs, True
        clamped = np.minimum(offsets, (1 << int(KEY_SHIFT)) - 1).astype(np.int64)
        return np.argsort((rows << KEY_SHIFT) | clamped, kind="stable"), False
    return np.lexsort((ids, offsets, rows)), False


def _kernel_classes(samples: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """Kernels ranked by total cycles (then name) get classes 1..30, the rest share the last one.

    Returns the legend and the class of each physical code of the ``kernel`` column.
    """
    present = samples.get_column("kernel").unique()  # the distinct kernels first: cheap on a categorical
    codes = present.to_physical().to_numpy().astype(np.int64)
    found = present.cast(pl.String).to_list()
    physical = samples.get_column("kernel").to_physical().to_numpy()
    durations = samples.get_column("duration").to_numpy()
    # In blocks: bincount's float copies stay small. The sums are exact integers (below 2**53).
    totals = np.zeros(int(codes.max()) + 1 if len(codes) else 0)
    for lo in range(0, len(physical), _CHUNK):
        totals += np.bincount(physical[lo : lo + _CHUNK], durations[lo : lo + _CHUNK], len(totals))
    ranked = sorted(zip(found, codes.tolist(), strict=True), key=lambda nc: (-int(totals[nc[1]]), nc[0] or ""))
    names = [name for name, _ in ranked]
    if len(names) > MAX_CLASSES:
        names = [*names[: MAX_CLASSES - 1], "(other kernels)"]
    lookup = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.uint8)
    lookup[[code for _, code in ranked]] = np.minimum(np.arange(1, len(ranked) + 1), MAX_CLASSES)
    return [n if n else NO_KERNEL for n in names], lookup


def timeline_facts(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineFacts:
    """Rows, span and kernel legend of a profile (one pass over a few columns, no copies of them).

    Raises
    ------
    ValueError
        Offsets reaching 2**40, beyond what the index's keys hold.
    """
    row_tiles = np.unique(tiles.get_column("tile").to_numpy()).astype(np.uint32)
    offsets = samples.get_column("offset").to_numpy()
    durations = samples.get_column("duration").to_numpy()
    span = 0
    for lo in range(0, len(offsets), _CHUNK):
        span = max(span, int(np.max(offsets[lo : lo + _CHUNK] + durations[lo : lo + _CHUNK])))
    if span >= 1 << int(KEY_SHIFT):
        raise ValueError(f"sample offsets reach {span}; the timeline index holds offsets below 2**{KEY_SHIFT}")
    names, lookup = _kernel_classes(samples)
    return TimelineFacts(row_tiles=row_tiles, kernel_names=names, kernel_lookup=lookup, span=span)


def _overlapping(row: np.ndarray, start_f: np.ndarray, end_f: np.ndarray) -> bool:
    """Whether a sample starts before the previous one of its row ends (arrays in index order)."""
    return bool(np.any((start_f[1:] < end_f[:-1]) & (row[1:] == row[:-1]))) if len(row) > 1 else False


def unsorted_samples(samples: pl.DataFrame, facts: TimelineFacts) -> UnsortedSamples:
    """The columns windows read, per file row, and the order that sorts them (`UnsortedSamples`)."""
    offsets = samples.get_column("offset").to_numpy()
    row = _rows_of(facts.row_tiles, samples.get_column("tile").to_numpy())
    ids = samples.get_column("sample").to_numpy()
    order, in_runs = _order(row, offsets, ids)
    start_f = offsets.astype(np.float64)
    end_f = np.add(offsets, samples.get_column("duration").to_numpy(), dtype=np.float64)  # exact below 2**53
    # KIND_CLASSES follows the Enum order (exchange, compute, synchronization, idle).
    kind_class = samples.get_column("kind").to_physical().to_numpy().astype(np.uint8)
    kind_class += 1
    kind_class[samples.get_column("inactive").to_numpy()] = KIND_CLASSES.index("idle") + 1
    kernel_class = facts.kernel_lookup[samples.get_column("kernel").to_physical().to_numpy()]
    # With runs kept, neighbours in a row are neighbours in the file.
    overlaps = _overlapping(row, start_f, end_f) if in_runs else _overlapping(row[order], start_f[order], end_f[order])
    return UnsortedSamples(
        row_tiles=facts.row_tiles,
        kernel_names=facts.kernel_names,
        kernel_lookup=facts.kernel_lookup,
        span=facts.span,
        order=order,
        sample=ids,
        row=row,
        start=offsets.view(np.int64) if offsets.dtype == np.uint64 else offsets.astype(np.int64),
        start_f=start_f,
        end_f=end_f,
        kind_class=kind_class,
        kernel_class=kernel_class,
        overlaps=overlaps,
        empty=bool(np.any(end_f == start_f)),
    )


def sorted_index(unsorted: UnsortedSamples) -> TimelineIndex:
    """The `TimelineIndex`: `unsorted`'s columns gathered in its order, and the keys windows search."""
    order = unsorted.order
    row = unsorted.row[order]
    start = unsorted.start[order]
    start_f = unsorted.start_f[order]
    end_f = unsorted.end_f[order]
    end = end_f.astype(np.int64)  # exact: offsets are below 2**40
    row_max = np.zeros(unsorted.rows, dtype=np.int64)
    if len(row):  # rows are contiguous now: one maximum per run
        firsts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        row_max[row[firsts]] = np.maximum.reduceat(end - start, firsts)
    return TimelineIndex(
        row_tiles=unsorted.row_tiles,
        kernel_names=unsorted.kernel_names,
        kernel_lookup=unsorted.kernel_lookup,
        span=unsorted.span,
        sample=unsorted.sample[order].astype(np.uint32, copy=False),
        row=row,
        start=start,
        end=end,
        key=(row << KEY_SHIFT) + start,
        row_max_duration=row_max,
        kind_class=unsorted.kind_class[order],
        kernel_class=unsorted.kernel_class[order],
        overlaps=unsorted.overlaps,
        start_f=start_f,
        end_f=end_f,
        empty=unsorted.empty,
        end_key=None if unsorted.overlaps else (row << KEY_SHIFT) + end,
    )


def build_index(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineIndex:
    """Sort a profile's samples for windowing (all three steps, here and now)."""
    return sorted_index(unsorted_samples(samples, timeline_facts(samples, tiles)))


class IndexBuild:
    """One profile's timeline index, built on a thread of its own from construction on.

    `facts` are there at once. `unsorted` waits for the file-order columns (a fraction of
    a second at ten million samples) and answers windows until `index` is ready; `index`
    waits for the sorted index. The sort starts once the first picture is answered
    (`start_sorting`), when something asks for the index, or after `SORT_DELAY` seconds,
    so that on two cores it does not slow the first picture down. A failed build raises
    `TimelineIndexError` from both, every time they are asked, never hangs.
    ``threaded=False`` builds everything in the constructor.
    """

    SORT_DELAY = 3.0

    def __init__(self, samples: pl.DataFrame, tiles: pl.DataFrame, *, threaded: bool = True) -> None:
        self.facts = timeline_facts(samples, tiles)
        self._samples: pl.DataFrame | None = samples
        self._unsorted: UnsortedSamples | None = None
        self._index: TimelineIndex | None = None
        self._error: BaseException | None = None
        self._unsorted_ready = threading.Event()
        self._sort = threading.Event()
        self._ready = threading.Event()
        if not threaded:
            self._sort.set()
        if threaded:
            threading.Thread(target=self._build, name="ipu-nb timeline index", daemon=True).start()
        else:
            self._build()

    def _build(self) -> None:
        try:
            assert self._samples is not None
            self._unsorted = unsorted_samples(self._samples, self.facts)
            self._unsorted_ready.set()
            self._sort.wait(self.SORT_DELAY)
            self._index = sorted_index(self._unsorted)
        except (Exception, PanicException) as error:  # kept for whoever asks next
            self._error = error
        finally:
            self._samples = self._unsorted = None  # the index holds what windows need from here on
            self._unsorted_ready.set()
            self._ready.set()

    @property
    def ready(self) -> bool:
        """Whether the build is over (the index is there, or its error)."""
        return self._ready.is_set()

    def start_sorting(self) -> None:
        """Sort now (the first picture is out, or the index is needed)."""
        self._sort.set()

    def unsorted(self) -> UnsortedSamples | None:
        """The file-order columns while the index is being sorted; None once it is ready (or failed)."""
        if self._ready.is_set():
            return None
        self._unsorted_ready.wait()
        return self._unsorted

    def index(self, timeout: float | None = None, *, hurry: bool = True) -> TimelineIndex:
        """The sorted index, once built (`TimelineIndexError` if that failed or took over `timeout` s).

        ``hurry=False`` waits without starting the sort (for work that can come after the first picture).
        """
        if hurry:
            self._sort.set()
        if not self._ready.wait(timeout):
            raise TimelineIndexError(f"the timeline index is not built after {timeout} s")
        if self._index is None:
            error = self._error
            raise TimelineIndexError(f"building the timeline index failed: {type(error).__name__}: {error}") from error
        return self._index
