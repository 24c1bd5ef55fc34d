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
    "SampleColumns",
    "TimelineIndexError",
    "build_index",
    "sorted_index",
    "timeline_facts",
    "unsorted_samples",
]

_LOOKUP_TILES = 1 << 20
"""Physical ids below this map to rows through a table; larger (hostile) ids are binary-searched."""
_CHUNK = 1 << 20
"""Samples per block where a pass needs only small temporaries (the span, the kernel totals)."""


class TimelineIndexError(RuntimeError):
    """Building a profile's timeline index failed; the message says why (the cause is chained)."""


class SampleColumns:
    """Columns of ``samples`` as numpy arrays, each converted once (``kind`` and ``kernel``: physical codes).

    A column of several chunks (as loaded from a cache file) is copied whenever it is converted.
    """

    def __init__(self, samples: pl.DataFrame) -> None:
        self.samples = samples
        self._held: dict[str, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        found = self._held.get(name)
        if found is None:
            column = self.samples.get_column(name)
            found = (column.to_physical() if name in ("kind", "kernel") else column).to_numpy()
            self._held[name] = found
        return found


def _rows_of(row_tiles: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """The timeline row (index into the sorted unique `row_tiles`) of each of `tiles`."""
    if len(row_tiles) and int(row_tiles[-1]) < _LOOKUP_TILES:
        table = np.zeros(int(row_tiles[-1]) + 1, dtype=np.int64)
        table[row_tiles] = np.arange(len(row_tiles))
        return table[tiles]
    return np.searchsorted(row_tiles, tiles).astype(np.int64)


def _run_order(rows: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`_order` without a sort when each row's samples are one run of the file in offset order, else None.

    Runtime files list each tile's samples together in offset order (with rising sample
    ids, checked by the caller): the order is then those runs put in row order. Returns
    it and the first file row of each run.
    """
    n = len(rows)
    change = rows[1:] != rows[:-1]
    firsts = np.flatnonzero(np.r_[True, change])
    run_rows = rows[firsts]
    if len(np.unique(run_rows)) != len(run_rows) or not bool(np.all((offsets[1:] >= offsets[:-1]) | change)):
        return None
    ends = np.r_[firsts[1:], n]
    order = np.empty(n, dtype=np.int64)
    at = 0
    for run in np.argsort(run_rows).tolist():  # one run per row: a loop over the rows, no long temporaries
        first, end = int(firsts[run]), int(ends[run])
        order[at : at + end - first] = np.arange(first, end)
        at += end - first
    return order, firsts


def _order(rows: np.ndarray, offsets: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The permutation sorting samples by timeline row, offset and sample id, and the file's runs if it keeps them.

    Files list each tile's samples together, mostly in offset order: when sample ids rise
    with the rows (as the loader numbers them) those runs give the order (`_run_order`;
    then each row's samples keep their file order, and the first file row of each run is
    returned too), or a stable sort of one ``row << 40 | offset`` key does; otherwise
    the three keys are sorted outright.
    """
    if len(ids) < 2:
        return np.arange(len(ids), dtype=np.int64), np.zeros(min(len(ids), 1), dtype=np.int64)
    if bool(np.all(ids[1:] > ids[:-1])):
        runs = _run_order(rows, offsets)
        if runs is not None:
            return runs
        clamped = np.minimum(offsets, (1 << int(KEY_SHIFT)) - 1).astype(np.int64)
        return np.argsort((rows << KEY_SHIFT) | clamped, kind="stable"), None
    return np.lexsort((ids, offsets, rows)), None


def _kernel_classes(samples: pl.DataFrame, columns: SampleColumns) -> tuple[list[str], np.ndarray]:
    """Kernels ranked by total cycles (then name) get classes 1..30, the rest share the last one.

    Returns the legend and the class of each physical code of the ``kernel`` column.
    """
    present = samples.get_column("kernel").unique()  # the distinct kernels first: cheap on a categorical
    codes = present.to_physical().to_numpy().astype(np.int64)
    found = present.cast(pl.String).to_list()
    physical, durations = columns["kernel"], columns["duration"]
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


def timeline_facts(samples: pl.DataFrame, tiles: pl.DataFrame, columns: SampleColumns | None = None) -> TimelineFacts:
    """Rows, span and kernel legend of a profile (one pass over a few columns, no long temporaries).

    Raises
    ------
    ValueError
        Offsets reaching 2**40, beyond what the index's keys hold.
    """
    columns = columns or SampleColumns(samples)
    row_tiles = np.unique(tiles.get_column("tile").to_numpy()).astype(np.uint32)
    offsets, durations = columns["offset"], columns["duration"]
    span = 0
    for lo in range(0, len(offsets), _CHUNK):
        span = max(span, int(np.max(offsets[lo : lo + _CHUNK] + durations[lo : lo + _CHUNK])))
    if span >= 1 << int(KEY_SHIFT):
        raise ValueError(f"sample offsets reach {span}; the timeline index holds offsets below 2**{KEY_SHIFT}")
    names, lookup = _kernel_classes(samples, columns)
    return TimelineFacts(row_tiles=row_tiles, kernel_names=names, kernel_lookup=lookup, span=span)


def _overlapping(row: np.ndarray, start_f: np.ndarray, end_f: np.ndarray, firsts: np.ndarray | None = None) -> bool:
    """Whether a sample starts before the previous one of its row ends.

    Arrays in index order, or in file order with `firsts`, the first file row of each
    row's one run (`_run_order`): neighbours in a row are then neighbours in the file.
    """
    if len(row) < 2:
        return False
    starts_early = start_f[1:] < end_f[:-1]
    if firsts is None:
        starts_early &= row[1:] == row[:-1]
    else:
        starts_early[firsts[1:] - 1] = False  # a run's first sample follows another row's
    return bool(starts_early.any())


def unsorted_samples(
    samples: pl.DataFrame, facts: TimelineFacts, columns: SampleColumns | None = None
) -> UnsortedSamples:
    """The columns windows read, per file row, and the order that sorts them (`UnsortedSamples`)."""
    columns = columns or SampleColumns(samples)
    offsets, ids = columns["offset"], columns["sample"]
    row = _rows_of(facts.row_tiles, columns["tile"])
    order, firsts = _order(row, offsets, ids)
    start_f = offsets.astype(np.float64)
    end_f = np.add(offsets, columns["duration"], dtype=np.float64)  # exact below 2**53
    # KIND_CLASSES follows the Enum order (exchange, compute, synchronization, idle).
    kind_class = columns["kind"].astype(np.uint8)
    kind_class += 1
    kind_class[columns["inactive"]] = KIND_CLASSES.index("idle") + 1
    kernel_class = facts.kernel_lookup[columns["kernel"]]
    if firsts is not None:
        overlaps = _overlapping(row, start_f, end_f, firsts)
    else:
        overlaps = _overlapping(row[order], start_f[order], end_f[order])
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
        self._columns: SampleColumns | None = SampleColumns(samples)
        self.facts = timeline_facts(samples, tiles, self._columns)
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
            assert self._columns is not None
            self._unsorted = unsorted_samples(self._columns.samples, self.facts, self._columns)
            self._columns = None
            self._unsorted_ready.set()
            self._sort.wait(self.SORT_DELAY)
            self._index = sorted_index(self._unsorted)
        except (Exception, PanicException) as error:  # kept for whoever asks next
            self._error = error
        finally:
            self._columns = self._unsorted = None  # the index holds what windows need from here on
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
