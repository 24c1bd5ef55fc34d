"""Building the timeline index in steps, so that the first picture need not wait for the sorted copies.

`timeline_facts` (rows, span, kernel legend) is cheap and comes first; `file_runs` finds
the file's tile runs, enough to answer any window exactly from the loaded columns
(`FileRuns`, when the file lists each tile's samples together as the runtime writes them);
`unsorted_samples` gathers the columns in file order with the permutation that sorts them,
enough too (`UnsortedSamples`, for any file); `sorted_index` then makes the sorted copies of
the `TimelineIndex`, about ten arrays as long as the profile (seconds at ten million samples,
bound by memory). `IndexBuild` runs the last three on a thread of their own.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import polars as pl
from polars.exceptions import PanicException

from ..._model.chunks import column_chunks
from ..._model.kernel_classes import KERNEL_CLASSES, kernel_classes
from .index import KEY_SHIFT, KIND_CLASSES, MAX_CLASSES, TimelineFacts, TimelineIndex, UnsortedSamples
from .runs import FileRuns, Pieces, find_runs

__all__ = [
    "IndexBuild",
    "SampleColumns",
    "TimelineIndexError",
    "build_index",
    "file_runs",
    "sorted_index",
    "timeline_facts",
    "unsorted_samples",
]

_LOOKUP_TILES = 1 << 20
"""Physical ids below this map to rows through a table; larger (hostile) ids are binary-searched."""

assert KERNEL_CLASSES <= MAX_CLASSES  # the kernel classes fit the index's 5 class bits


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


def timeline_facts(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineFacts:
    """Rows, span and kernel legend of a profile (chunk by chunk over a few columns: no copy of any).

    Raises
    ------
    ValueError
        Offsets reaching 2**40, beyond what the index's keys hold.
    """
    row_tiles = np.unique(tiles.get_column("tile").to_numpy()).astype(np.uint32)
    span = 0
    for offsets, durations in column_chunks(samples, ("offset", "duration")):
        if len(offsets):
            span = max(span, int(np.max(offsets + durations)))
    if span >= 1 << int(KEY_SHIFT):
        raise ValueError(f"sample offsets reach {span}; the timeline index holds offsets below 2**{KEY_SHIFT}")
    names, lookup = kernel_classes(samples)
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


def _kind_classes(kind: np.ndarray, inactive: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Colour class (uint8) per sample when colouring by kind (inactive compute counts as idle), into `out`."""
    # KIND_CLASSES follows the Enum order (exchange, compute, synchronization, idle).
    out = np.add(kind, 1, out=out, dtype=np.uint8, casting="unsafe")
    out[inactive] = KIND_CLASSES.index("idle") + 1
    return out


def file_runs(facts: TimelineFacts, samples: pl.DataFrame) -> FileRuns | None:
    """The `FileRuns` of a profile whose file lists each row's samples as one disjoint run in offset
    order (as the runtime writes them), else None (`UnsortedSamples` then answers). Reads the loaded
    chunks in place: the class per sample (one byte) is all it writes as long as the profile."""
    row_tiles = facts.row_tiles
    if not len(row_tiles) or int(row_tiles[-1]) >= _LOOKUP_TILES:
        return None
    names = ("tile", "offset", "duration", "sample", "kind", "inactive", "kernel")
    chunks = column_chunks(samples, names)
    pieces = Pieces({name: [chunk[i] for chunk in chunks] for i, name in enumerate(names)})
    table = np.full(int(row_tiles[-1]) + 1, -1, dtype=np.int64)
    table[row_tiles] = np.arange(len(row_tiles))
    runs = find_runs(pieces, table, facts.rows)
    if runs is None:
        return None
    kind_class = np.empty(samples.height, dtype=np.uint8)
    for k, (kind, inactive) in enumerate(zip(pieces.columns["kind"], pieces.columns["inactive"], strict=True)):
        _kind_classes(kind, inactive, out=kind_class[pieces.at[k] : pieces.at[k + 1]])
    return FileRuns(
        row_tiles=row_tiles,
        kernel_names=facts.kernel_names,
        kernel_lookup=facts.kernel_lookup,
        span=facts.span,
        run_first=runs[0],
        run_end=runs[1],
        pieces=pieces,
        table=table,
        kind_class=kind_class,
        empty=runs[2],
    )


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
    kind_class = _kind_classes(columns["kind"], columns["inactive"])
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


def sorted_index(unsorted: UnsortedSamples, activity_class: np.ndarray | None = None) -> TimelineIndex:
    """The `TimelineIndex`: `unsorted`'s columns gathered in its order, and the keys windows search.

    `activity_class` (per file row, optional) becomes the index's classes for colour mode "activity".
    """
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
        activity_class=None if activity_class is None else activity_class[order],
    )


def build_index(samples: pl.DataFrame, tiles: pl.DataFrame) -> TimelineIndex:
    """Sort a profile's samples for windowing (all three steps, here and now)."""
    return sorted_index(unsorted_samples(samples, timeline_facts(samples, tiles)))


class IndexBuild:
    """One profile's timeline index, built on a thread of its own from construction on.

    `facts` are there at once. `early` answers windows until `index` is ready: the file's
    runs read in place (`FileRuns`, found in a few tens of milliseconds at ten million
    samples) when the file lists each tile's samples together, else the file-order columns
    (`UnsortedSamples`, a fraction of a second at ten million samples, and a gigabyte of
    fresh memory). `index` waits for the sorted index. What is not needed for the first
    picture (the file-order columns after the runs, then the sort) starts once it is
    answered (`start_sorting`), when something asks for the index, or after `SORT_DELAY`
    seconds, so that on two cores it does not slow the first picture down. A failed build
    raises `TimelineIndexError` from both, every time they are asked, never hangs.
    ``threaded=False`` builds the index in the constructor.
    """

    SORT_DELAY = 3.0

    def __init__(self, samples: pl.DataFrame, tiles: pl.DataFrame, *, threaded: bool = True) -> None:
        self.marks: dict[str, float] = {"began": time.time()}
        """Wall-clock times of the build's steps (``facts``, ``runs``, ``unsorted``, ``sorting``, ``sorted``)."""
        self._columns: SampleColumns | None = SampleColumns(samples)
        self.facts = timeline_facts(samples, tiles)
        self.marks["facts"] = time.time()
        self._early: FileRuns | UnsortedSamples | None = None
        self._index: TimelineIndex | None = None
        self._error: BaseException | None = None
        self._early_ready = threading.Event()
        self._sort = threading.Event()
        self._ready = threading.Event()
        if threaded:
            threading.Thread(target=self._build, args=(True,), name="ipu-nb timeline index", daemon=True).start()
        else:
            self._sort.set()
            self._build(False)

    def _build(self, early: bool) -> None:
        try:
            columns = self._columns
            assert columns is not None
            self._early = file_runs(self.facts, columns.samples) if early else None
            self.marks["runs"] = time.time()
            if self._early is not None:  # the first picture needs nothing more
                self._early_ready.set()
                self._sort.wait(self.SORT_DELAY)
            unsorted = unsorted_samples(columns.samples, self.facts, columns)
            self._columns = None
            self.marks["unsorted"] = time.time()
            if self._early is None:
                self._early = unsorted
                self._early_ready.set()
                self._sort.wait(self.SORT_DELAY)
            self.marks["sorting"] = time.time()
            self._index = sorted_index(unsorted)
            self.marks["sorted"] = time.time()
        except (Exception, PanicException) as error:  # kept for whoever asks next
            self._error = error
        finally:
            self._columns = self._early = None  # the index holds what windows need from here on
            self._early_ready.set()
            self._ready.set()

    @property
    def ready(self) -> bool:
        """Whether the build is over (the index is there, or its error)."""
        return self._ready.is_set()

    def start_sorting(self) -> None:
        """Sort now (the first picture is out, or the index is needed)."""
        self._sort.set()

    def early(self) -> FileRuns | UnsortedSamples | None:
        """What answers windows while the index is being built; None once it is ready (or failed)."""
        if self._ready.is_set():
            return None
        self._early_ready.wait()
        return self._early

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
