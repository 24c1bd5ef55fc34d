"""Metadata entries numbered by their (name, value) pair, for `ipu_nb._model.metadata.CompactMetadata`.

A profile's entries repeat a few pairs millions of times, so each entry is stored as a
u16 code into a table of its distinct pairs. The C library numbers them in one pass
(first-occurrence order, a table of at most `PAIRS` pairs), or in parallel passes over
ranges of entries merged into the same numbering; without it numpy sorts them.
Past `PAIRS` distinct pairs the caller keeps each entry's own name and value codes.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from concurrent.futures import Executor

import numpy as np

from ._intern import _LIB
from ._passes import row_ranges, run_all

__all__ = ["PAIRS", "pair_codes"]

#: Most distinct pairs a u16 code numbers (must equal PAIRS in _intern.c).
PAIRS = 1 << 16
_SLICE = 1 << 22  # entries per C call (the GIL is released during each)


class _Table:
    """One numbering of pairs in first-occurrence order (the C function's hash table and pair lists)."""

    def __init__(self) -> None:
        self.keys = np.zeros(2 * PAIRS, dtype=np.uint64)
        self.slot_codes = np.zeros(2 * PAIRS, dtype=np.uint16)
        self.names = np.empty(PAIRS, dtype=np.uint32)
        self.values = np.empty(PAIRS, dtype=np.uint32)
        self.count = ctypes.c_int64(0)

    def code(self, names: np.ndarray, values: np.ndarray, codes: np.ndarray) -> bool:
        """Number the pairs of `names` and `values` into `codes`, continuing the numbering; False past `PAIRS`."""
        assert _LIB is not None
        for lo in range(0, len(names), _SLICE):
            n = min(_SLICE, len(names) - lo)
            done = _LIB.ipu_pair_codes(
                names[lo:].ctypes.data,
                values[lo:].ctypes.data,
                n,
                codes[lo:].ctypes.data,
                self.keys.ctypes.data,
                self.slot_codes.ctypes.data,
                self.names.ctypes.data,
                self.values.ctypes.data,
                ctypes.byref(self.count),
            )
            if done != n:
                return False
        return True

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct pairs' names and values, in code order."""
        return self.names[: self.count.value], self.values[: self.count.value]


def pair_codes(
    names: np.ndarray, values: np.ndarray, pool: Executor | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each entry's pair code (u16) and each pair's name and value codes (u32); None past `PAIRS` pairs.

    With a `pool`, ranges of entries are numbered in parallel, each in its own table, then the
    tables are merged in order (each range's pairs, in its first-occurrence order, numbered on
    into the first's) and the later ranges' codes renumbered: the same codes as one pass.

    >>> names, values = np.array([3, 3, 4, 3], np.uint32), np.array([1, 1, 1, 2], np.uint32)
    >>> codes, pair_names, pair_values = pair_codes(names, values)
    >>> [pair_names[codes].tolist(), pair_values[codes].tolist()]
    [[3, 3, 4, 3], [1, 1, 1, 2]]
    """
    names = np.ascontiguousarray(names, dtype=np.uint32)
    values = np.ascontiguousarray(values, dtype=np.uint32)
    if len(names) != len(values):
        raise ValueError(f"{len(names)} names but {len(values)} values")
    if _LIB is None:
        return _numpy_pair_codes(names, values)
    codes = np.empty(len(names), dtype=np.uint16)
    ranges = row_ranges(len(names)) if pool is not None else [(0, len(names))]
    tables = [_Table() for _ in ranges]
    fits = [False] * len(ranges)

    def job(k: int) -> Callable[[], None]:
        lo, hi = ranges[k]

        def run() -> None:
            fits[k] = tables[k].code(names[lo:hi], values[lo:hi], codes[lo:hi])

        return run

    run_all(pool, [job(k) for k in range(len(ranges))])
    if not all(fits):
        return None
    whole = tables[0]
    renumber = []
    for (lo, hi), table in zip(ranges[1:], tables[1:], strict=True):
        local_names, local_values = table.pairs()
        to_whole = np.empty(len(local_names), dtype=np.uint16)
        if not whole.code(local_names, local_values, to_whole):
            return None
        renumber.append((lo, hi, to_whole))

    def remap(lo: int, hi: int, to_whole: np.ndarray) -> Callable[[], None]:
        def run() -> None:
            for a in range(lo, hi, _SLICE):
                piece = codes[a : min(a + _SLICE, hi)]
                np.take(to_whole, piece, out=piece)  # buffered (mode "raise"): safe in place

        return run

    run_all(pool, [remap(*part) for part in renumber])
    pair_names, pair_values = whole.pairs()
    return codes, pair_names.copy(), pair_values.copy()


def _numpy_pair_codes(names: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    keys = (names.astype(np.uint64) << np.uint64(32)) | values
    distinct, inverse = np.unique(keys, return_inverse=True)
    if len(distinct) > PAIRS:
        return None
    pair_names = (distinct >> np.uint64(32)).astype(np.uint32)
    pair_values = (distinct & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return inverse.astype(np.uint16).reshape(-1), pair_names, pair_values
