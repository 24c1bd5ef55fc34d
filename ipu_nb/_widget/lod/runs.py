"""Windows from the samples in file order, with no copy as long as the profile: the first picture's path.

Runtime files list each tile's samples as one run in offset order (with rising sample ids).
Read run by run in row order, the file's samples then are the timeline index's sequence,
so the C library (`_summary.c`) answers any window from the loaded columns as the index
would, byte for byte, in one pass and without the sorted copies or even `UnsortedSamples`'
file-order ones (about a gigabyte of fresh memory at ten million samples, which alone takes
longer than the first picture's budget). `find_runs` finds the runs (None when the file is
laid out otherwise, the samples overlap, or the C library is not built: `UnsortedSamples`
then answers; `build.file_runs` makes the `FileRuns`).
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

import numpy as np

from . import native as _native
from .facts import TimelineFacts

__all__ = ["FileRuns", "Pieces", "find_runs"]

_P, _I, _D, _U = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_uint64


def _library() -> ctypes.CDLL | None:
    lib = _native._LIB
    if lib is None:
        return None
    lib.ipu_runs_find.restype = _I
    lib.ipu_runs_find.argtypes = [_I, _P, _P, _P, _P, _P, _P, _I, _I, _P, _P, _P]
    lib.ipu_runs_visit.restype = _I
    lib.ipu_runs_visit.argtypes = [_I, _P, _P, _P, _I, _P, _P, _P, _U, _U, _P, _P, _P, _D, _D, _I, ctypes.c_int]
    lib.ipu_runs_visit.argtypes += [_P, _P, _P, _P]
    return lib


_LIB = _library()


def _at(array: np.ndarray | None, dtype: type) -> int | None:
    if array is None:
        return None
    assert array.dtype == dtype and array.flags.c_contiguous, (array.dtype, dtype)
    return int(array.ctypes.data)


class Pieces:
    """Columns of the loaded samples where the loader put them: piece k holds file rows ``[at[k], at[k + 1])``.

    `columns` maps a name to its arrays, one per piece (numpy views of the loaded chunks, no copy).
    """

    def __init__(self, columns: dict[str, list[np.ndarray]]) -> None:
        self.columns = columns
        lengths = [len(a) for a in next(iter(columns.values()))]
        self.at = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
        self._addresses: dict[str, np.ndarray] = {}

    @property
    def count(self) -> int:
        """Pieces."""
        return len(self.at) - 1

    def addresses(self, name: str) -> np.ndarray:
        """The address of each piece of column `name` (what the C functions read)."""
        found = self._addresses.get(name)
        if found is None:
            found = np.array([a.ctypes.data for a in self.columns[name]], dtype=np.uintp)
            self._addresses[name] = found
        return found

    def take(self, name: str, pos: np.ndarray) -> np.ndarray:
        """Column `name` at file rows `pos`, in that order."""
        parts = self.columns[name]
        piece = np.searchsorted(self.at, pos, side="right") - 1
        out = np.empty(len(pos), dtype=parts[0].dtype if parts else np.int64)
        for k in np.unique(piece).tolist():
            sel = piece == k
            out[sel] = parts[k][pos[sel] - self.at[k]]
        return out


def find_runs(pieces: Pieces, table: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """Each row's run ``(run_first, run_end)`` and whether a sample has no length, when the file lists
    every row's samples as one run in offset order, with rising sample ids and no overlap; else None
    (`pieces`: ``tile``, ``offset``, ``duration``, ``sample``; `table`: row of each tile id, -1: none).

    Columns of other types than the loader's, or the C library not built (or `native.NATIVE` off): None.
    """
    wanted = {"tile": np.uint32, "offset": np.uint64, "duration": np.uint32, "sample": np.uint32}
    typed = all(a.dtype == t and a.flags.c_contiguous for n, t in wanted.items() for a in pieces.columns[n])
    if _LIB is None or not _native.NATIVE or not typed:
        return None
    run_first = np.zeros(rows, dtype=np.int64)
    run_end = np.zeros(rows, dtype=np.int64)
    flags = np.zeros(3, dtype=np.int64)
    found = _LIB.ipu_runs_find(
        pieces.count,
        _at(pieces.at, np.int64),
        *(_at(pieces.addresses(n), np.uintp) for n in wanted),
        _at(table, np.int64),
        len(table),
        rows,
        _at(run_first, np.int64),
        _at(run_end, np.int64),
        _at(flags, np.int64),
    )
    runs_ok, overlaps, empty = flags.tolist()
    return None if found != 0 or not runs_ok or overlaps else (run_first, run_end, bool(empty))


@dataclass(frozen=True)
class FileRuns(TimelineFacts):
    """A profile's samples in file order, one run per row in offset order, read as the timeline index.

    Attributes (beyond `TimelineFacts`)
    -----------------------------------
    run_first, run_end : np.ndarray
        Each row's run of file rows ``[first, end)`` (int64; empty for a row without samples).
    pieces : Pieces
        The loaded columns ``offset``, ``duration``, ``sample``, ``tile`` (uint64, uint32, uint32,
        uint32) and ``kernel`` (physical codes), chunk by chunk.
    table : np.ndarray
        The row (int64) of each physical tile id (-1: none).
    kind_class : np.ndarray
        Colour class (uint8) per file row when colouring by kind, as in `TimelineIndex`.
    empty : bool
        Whether some sample has zero duration.
    """

    run_first: np.ndarray
    run_end: np.ndarray
    pieces: Pieces
    table: np.ndarray
    kind_class: np.ndarray
    empty: bool

    overlaps = False  # `find_runs` takes only files whose rows' samples never overlap

    @property
    def size(self) -> int:
        """Number of samples."""
        return int(self.pieces.at[-1])

    @functools.cached_property
    def kernel_class(self) -> np.ndarray:
        """Colour class (uint8) per file row when colouring by kernel (made when first asked for)."""
        return np.concatenate([self.kernel_lookup[codes] for codes in self.pieces.columns["kernel"]] or [[]]).astype(
            np.uint8
        )

    def classes(self, color_by: str) -> np.ndarray:
        """Colour class per file row for ``color_by`` ("kind" or "kernel")."""
        return self.kernel_class if color_by == "kernel" else self.kind_class

    def _bounds(self, start: int, end: int) -> tuple[int, int] | None:
        """``[start, end)`` clamped to ``[0, span]``, where every sample lies (None: nothing there)."""
        start, end = max(int(start), 0), min(int(end), self.span)
        return None if end <= start else (start, end)

    def _visit(
        self,
        lo: int,
        hi: int,
        matched: np.ndarray | None,
        pos: np.ndarray | None = None,
        cls: np.ndarray | None = None,
        window: tuple[float, float, int] = (0.0, 1.0, 1),
        cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> tuple[int, int]:
        """``ipu_runs_visit`` over the samples of ``[lo, hi)`` (clamped): their count and how many match."""
        p = self.pieces
        ok = None if matched is None else np.ascontiguousarray(matched, dtype=np.bool_).view(np.uint8)
        coverage, matched_coverage, best, owner = cells or (None, None, None, None)
        good = ctypes.c_int64()
        assert _LIB is not None
        count = _LIB.ipu_runs_visit(
            p.count,
            _at(p.at, np.int64),
            _at(p.addresses("offset"), np.uintp),
            _at(p.addresses("duration"), np.uintp),
            self.rows,
            _at(self.run_first, np.int64),
            _at(self.run_end, np.int64),
            _at(ok, np.uint8),
            lo,
            hi,
            _at(pos, np.int64),
            ctypes.byref(good),
            _at(None if cls is None else np.ascontiguousarray(cls, dtype=np.uint8), np.uint8),
            float(window[0]),
            float(window[1]),
            window[2],
            int(window[0] > 0),
            _at(coverage, np.float64),
            _at(matched_coverage, np.float64),
            _at(best, np.int32),
            _at(owner, np.int32),
        )
        if count < 0:
            raise MemoryError("no memory for the timeline summary's scratch space")
        return count, good.value

    def select(
        self, start: int, end: int, matched: np.ndarray | None = None, *, listed: bool = False
    ) -> tuple[int, int, np.ndarray | None]:
        """Samples overlapping ``[start, end)`` with a length: how many, how many of them `matched`
        (per file row, None: all), and with `listed` their file rows in the index's order."""
        bounds = self._bounds(start, end)
        if bounds is None:
            return 0, 0, np.zeros(0, dtype=np.int64) if listed else None
        lo, hi = bounds
        if not listed and lo == 0 and hi == self.span and not self.empty:  # every sample (the home view)
            return self.size, self.size if matched is None else int(np.count_nonzero(matched)), None
        pos = np.empty(self._visit(lo, hi, None)[0], dtype=np.int64) if listed else None
        count, good = self._visit(lo, hi, matched, pos)
        return count, good, pos

    def count(self, start: int, end: int) -> int:
        """How many samples overlap ``[start, end)`` with a length (`UnsortedSamples.count`)."""
        return self.select(start, end)[0]

    def positions(self, start: int, end: int) -> np.ndarray:
        """File rows of the samples overlapping ``[start, end)`` (zero-length ones excluded), in the index's order."""
        pos = self.select(start, end, listed=True)[2]
        assert pos is not None
        return pos

    def take(self, name: str, pos: np.ndarray) -> np.ndarray:
        """Column `name` (``offset``, ``duration``, ``sample``, ``tile``) at file rows `pos`."""
        return self.pieces.take(name, pos)

    def row_of(self, pos: np.ndarray) -> np.ndarray:
        """The timeline row (int64) of file rows `pos`."""
        return self.table[self.take("tile", pos)]

    def accumulate(
        self,
        start: int,
        end: int,
        cls: np.ndarray,
        ok: np.ndarray | None,
        window: tuple[float, float, int],
        cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        """`native.accumulate` for the samples of ``[start, end)``: `cls` and `ok` per file row (None: all
        match), `window` the cells' origin, width and count a row, into `cells` (coverage, matched
        coverage, best, owner)."""
        bounds = self._bounds(start, end)
        if bounds is not None:
            self._visit(*bounds, ok, None, cls, window, cells)
