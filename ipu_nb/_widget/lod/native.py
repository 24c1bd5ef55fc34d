"""The one-pass summaries of `summaries._summarise_disjoint` and `cells.summary_cells` in C, through ctypes.

`_summary.c`, compiled into the package's C library with the loader's interner (`hatch_build.py`).
Without it (no C compiler at install time, a stale build, a big-endian machine) `NATIVE` is
False and the summaries take their numpy path: the same cells, several times slower.
"""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._load._intern import LIBRARY

__all__ = ["NATIVE", "Candidates", "accumulate", "block_cells", "block_shares"]

#: Must equal IPU_SUMMARY_ABI in _summary.c: a library built from older source is not used.
ABI = 4
_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double


def _load() -> ctypes.CDLL | None:
    if sys.byteorder != "little" or not LIBRARY.is_file():
        return None
    try:
        lib = ctypes.CDLL(str(LIBRARY))
        lib.ipu_summary_abi.restype = _I
        if lib.ipu_summary_abi() != ABI:
            return None
        lib.ipu_summarise_disjoint.restype = _I
        lib.ipu_summarise_disjoint.argtypes = [_I, _P, _P, _P, _P, _P, _P, _D, _D, _I, ctypes.c_int, _P, _P, _P, _P]
        lib.ipu_block_cells.restype = _I
        lib.ipu_block_cells.argtypes = [_I, _P, _P, _P, _P, _P, _P, _D, _D, _I, ctypes.c_int, _I, _P]
        lib.ipu_block_shares.restype = _I
        lib.ipu_block_shares.argtypes = [_I, _P, _P, _P, _P, _P, _D, _D, _I, ctypes.c_int, _I, _I, _P]
    except (OSError, AttributeError):
        return None
    return lib


_LIB = _load()
#: Whether the compiled summary is loaded.
NATIVE = _LIB is not None


def _address(array: np.ndarray | None, dtype: type) -> int | None:
    if array is None:
        return None
    assert array.dtype == dtype and array.flags.c_contiguous, (array.dtype, dtype)
    return int(array.ctypes.data)


@dataclass(frozen=True)
class Candidates:
    """A window's candidate samples as the C passes read them, in the index's order.

    `pos` (int64, None meaning 0 .. count - 1) indexes `start_f`, `end_f` (float64) and
    `row` (int64) of the index in place; `cls` (uint8) and `ok` (bool, None: all match) are
    per candidate.
    """

    pos: np.ndarray | None
    count: int
    start_f: np.ndarray
    end_f: np.ndarray
    row: np.ndarray
    cls: np.ndarray
    ok: np.ndarray | None

    @classmethod
    def of(cls, index: Any, pos: np.ndarray | slice, classes: np.ndarray, ok: np.ndarray | None) -> Candidates:
        """The candidates at `pos` (a slice: all) of a `TimelineIndex` or `UnsortedSamples`."""
        return cls(
            pos=None if isinstance(pos, slice) else np.ascontiguousarray(pos, dtype=np.int64),
            count=len(classes),
            start_f=index.start_f,
            end_f=index.end_f,
            row=index.row,
            cls=np.ascontiguousarray(classes, dtype=np.uint8),
            ok=None if ok is None else np.ascontiguousarray(ok, dtype=np.bool_).view(np.uint8),
        )

    def window(self, start: float, width: float, bins: int) -> list[Any]:
        """The leading arguments of both C passes: the candidates, then the window's cells."""
        return [
            self.count,
            _address(self.pos, np.int64),
            _address(self.start_f, np.float64),
            _address(self.end_f, np.float64),
            _address(self.row, np.int64),
            _address(self.cls, np.uint8),
            _address(self.ok, np.uint8),
            float(start),
            float(width),
            bins,
            int(start > 0),
        ]


def accumulate(
    candidates: Candidates,
    start: float,
    width: float,
    bins: int,
    coverage: np.ndarray,
    matched: np.ndarray,
    best: np.ndarray,
    owner: np.ndarray,
) -> bool:
    """Accumulate the candidates into the window's per-cell arrays; False if C could not run.

    The cell arrays are written in place exactly as the numpy loop of `_summarise_disjoint` does.
    """
    if _LIB is None:
        return False
    done = _LIB.ipu_summarise_disjoint(
        *candidates.window(start, width, bins),
        _address(coverage, np.float64),
        _address(matched, np.float64),
        _address(best, np.int32),
        _address(owner, np.int32),
    )
    return done == 0


def block_cells(candidates: Candidates, start: float, width: float, bins: int, rows: int) -> np.ndarray | None:
    """The window's cell bytes in one pass (``rows`` × ``bins``, as `cells.cell_bytes`); None if C could not.

    The candidates must come in the index's order (by row, then start, never overlapping
    within a row), else None too.
    """
    if _LIB is None:
        return None
    out = np.zeros((rows, bins), dtype=np.uint8)
    done = _LIB.ipu_block_cells(*candidates.window(start, width, bins), rows, _address(out, np.uint8))
    return out if done == 0 else None


def block_shares(
    start_f: np.ndarray,
    end_f: np.ndarray,
    row: np.ndarray,
    pos: np.ndarray | slice,
    slot: np.ndarray,
    start: float,
    width: float,
    bins: int,
    rows: int,
    planes: int,
) -> np.ndarray | None:
    """`shares.share_window`'s planes (``planes`` × ``rows`` × ``bins`` u8) in one pass; None if C could not.

    The candidates (``start_f``/``end_f``/``row`` at `pos`, a slice meaning all in order; `slot`
    each one's plane) must come in the index's order, by row then start, never overlapping
    within a row: else None too.
    """
    if _LIB is None or planes > 256:
        return None
    at = None if isinstance(pos, slice) else np.ascontiguousarray(pos, dtype=np.int64)
    slots = np.ascontiguousarray(slot, dtype=np.uint8)
    out = np.zeros((planes, rows, bins), dtype=np.uint8)
    done = _LIB.ipu_block_shares(
        len(slots),
        _address(at, np.int64),
        _address(np.ascontiguousarray(start_f, dtype=np.float64), np.float64),
        _address(np.ascontiguousarray(end_f, dtype=np.float64), np.float64),
        _address(np.ascontiguousarray(row, dtype=np.int64), np.int64),
        _address(slots, np.uint8),
        float(start),
        float(width),
        bins,
        int(start > 0),
        rows,
        planes,
        _address(out, np.uint8),
    )
    return out if done == 0 else None
