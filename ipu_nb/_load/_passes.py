"""Whole-column passes of the frame builder, split over the cores.

Three passes touch every metadata entry once more after decoding: moving dictionary codes to
polars' category numbering (`remap_codes`), writing each entry's owner sample and
position (`owner_positions`), and flagging the samples holding some pair (`flag_owners`). They
run in the C library on ranges of rows, one range per thread (ctypes releases the GIL), or in
numpy, a slice at a time, without it.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from concurrent.futures import Executor

import numpy as np

from ._intern import _LIB
from ._text import CodeBuffer

__all__ = ["PARALLEL_ROWS", "THREADS", "EntryIds", "flag_owners", "owner_positions", "remap_codes", "row_ranges"]

#: Threads a pass is split over.
THREADS = min(2, os.cpu_count() or 1)
#: Below this many rows a pass runs in one piece (tests lower it to exercise the split).
PARALLEL_ROWS = 1 << 20
_SLICE = 1 << 20  # rows per numpy slice: bounded temporaries


def row_ranges(total: int, parts: int = 0) -> list[tuple[int, int]]:
    """[0, total) in `parts` (default `THREADS`) near-equal ranges; one when `total` is under `PARALLEL_ROWS`.

    >>> row_ranges(10, 3) if PARALLEL_ROWS > 10 else None
    [(0, 10)]
    """
    parts = parts or THREADS
    if total < PARALLEL_ROWS or parts <= 1:
        return [(0, total)]
    bounds = [total * k // parts for k in range(parts + 1)]
    return [(lo, hi) for lo, hi in itertools.pairwise(bounds) if hi > lo]


def run_all(pool: Executor | None, jobs: list[Callable[[], None]]) -> None:
    """Run `jobs` on `pool` (in this thread when there is none or only one), re-raising the first failure."""
    if pool is None or len(jobs) == 1:
        for job in jobs:
            job()
        return
    for future in [pool.submit(job) for job in jobs]:
        future.result()


def remap_codes(codes: np.ndarray, table: np.ndarray, pool: Executor | None = None) -> None:
    """``codes[i] = table[codes[i]]`` in place; ValueError if a code is not below ``len(table)``.

    >>> codes = np.array([1, 0, 1], dtype=np.uint32)
    >>> remap_codes(codes, np.array([7, 9], dtype=np.uint32)); codes.tolist()
    [9, 7, 9]
    """
    table = np.ascontiguousarray(table, dtype=np.uint32)
    bad: list[int] = []

    def job(lo: int, hi: int) -> Callable[[], None]:
        def run() -> None:
            if _LIB is not None:
                at = _LIB.ipu_remap_codes(codes[lo:].ctypes.data, hi - lo, table.ctypes.data, len(table))
                if at >= 0:
                    bad.append(lo + at)
                return
            for a in range(lo, hi, _SLICE):
                piece = codes[a : min(a + _SLICE, hi)]
                if len(piece) and int(piece.max()) >= len(table):
                    bad.append(a + int(np.flatnonzero(piece >= len(table))[0]))
                    return
                np.take(table, piece, out=piece)  # buffered (mode "raise"): safe in place

        return run

    if not codes.flags.writeable or not codes.flags.c_contiguous or codes.dtype != np.uint32:
        raise ValueError("remap_codes needs a writable, contiguous uint32 array")
    run_all(pool, [job(lo, hi) for lo, hi in row_ranges(len(codes))])
    if bad:
        row = min(bad)
        raise ValueError(f"code {int(codes[row])} at row {row} is out of range (only {len(table)} values)")


def owner_positions(counts: np.ndarray, pool: Executor | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(owner row, position in its group) of every child row, for children grouped by owner `counts`.

    >>> [a.tolist() for a in owner_positions(np.array([2, 0, 1]))]
    [[0, 0, 2], [0, 1, 0]]
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    if total >= 2**32 or len(counts) >= 2**32:
        raise ValueError(f"{total:,} rows: more than uint32 row ids can number")
    owner = np.empty(total, dtype=np.uint32)
    position = np.empty(total, dtype=np.uint32)
    if total == 0:
        return owner, position
    # Split by owner groups holding about equal numbers of rows.
    cuts = [0, *(int(np.searchsorted(ends, hi, side="left")) + 1 for _, hi in row_ranges(total)[:-1]), len(counts)]

    def job(g0: int, g1: int) -> Callable[[], None]:
        first = int(ends[g0 - 1]) if g0 else 0
        last = int(ends[g1 - 1]) if g1 else 0

        def run() -> None:
            if _LIB is not None:
                _LIB.ipu_owner_positions(
                    counts[g0:].ctypes.data, g1 - g0, g0, owner[first:].ctypes.data, position[first:].ctypes.data
                )
                return
            part = counts[g0:g1]
            owner[first:last] = np.repeat(np.arange(g0, g1, dtype=np.uint32), part)
            starts = np.repeat(np.cumsum(part) - part, part)
            position[first:last] = np.arange(last - first, dtype=np.int64) - starts

        return run

    run_all(pool, [job(g0, g1) for g0, g1 in itertools.pairwise(cuts) if g1 > g0])
    return owner, position


def flag_owners(
    codes: np.ndarray, starts: np.ndarray, wanted: np.ndarray, flags: np.ndarray, pool: Executor | None = None
) -> None:
    """Set ``flags[s]`` for each owner `s` one of whose rows (``starts[s]`` to ``starts[s + 1]``) has a `wanted` code.

    `codes` are u16 (pair codes), `flags` one bool per owner; ranges of owners run in parallel.

    >>> flags = np.zeros(3, dtype=bool)
    >>> codes, starts = np.array([4, 1, 1, 4], np.uint16), np.array([0, 2, 2, 4], np.uint32)
    >>> flag_owners(codes, starts, np.array([1]), flags); flags.tolist()
    [True, False, True]
    """
    owners = len(starts) - 1
    if codes.dtype != np.uint16 or not flags.flags.c_contiguous or flags.dtype != np.bool_ or len(flags) != owners:
        raise ValueError("flag_owners needs u16 codes and one writable bool flag per owner")
    hit = np.zeros(1 << 16, dtype=np.uint8)
    hit[np.asarray(wanted, dtype=np.int64)] = 1
    native = _LIB is not None and starts.dtype == np.uint32 and codes.flags.c_contiguous and starts.flags.c_contiguous

    def job(lo: int, hi: int) -> Callable[[], None]:
        def run() -> None:
            if native and _LIB is not None:
                _LIB.ipu_flag_owners(
                    codes.ctypes.data, starts[lo:].ctypes.data, hi - lo, hit.ctypes.data, flags[lo:].ctypes.data
                )
                return
            first, last = int(starts[lo]), int(starts[hi])
            for a in range(first, last, _SLICE):
                rows = np.flatnonzero(hit[codes[a : min(a + _SLICE, last)]]) + a
                flags[np.searchsorted(starts, rows, side="right") - 1] = True

        return run

    run_all(pool, [job(lo, hi) for lo, hi in row_ranges(owners)])


class EntryIds:
    """Owner sample and position of each metadata entry, appended chunk by chunk as the decoder's chunks finish.

    The decoder's main thread only waits for its workers; filling these there (in C, without
    the GIL) takes the frame builder's largest pass, and the fresh memory it touches, off the
    critical path. `take` is None if they could not be kept (no C library, too many rows):
    the builder then computes them itself.

    >>> ids = EntryIds(); ids.extend(np.array([2, 0, 1]), 5); ids.extend(np.array([1]), 8)
    >>> [a.tolist() for a in ids.take()] if ids.native else [[5, 5, 7, 8], [0, 1, 0, 0]]
    [[5, 5, 7, 8], [0, 1, 0, 0]]
    """

    def __init__(self) -> None:
        self.native = _LIB is not None
        self._owner = CodeBuffer()
        self._position = CodeBuffer()

    def extend(self, counts: np.ndarray, first_owner: int) -> None:
        """Append the entries of samples ``first_owner, first_owner + 1, ...`` holding `counts` entries each."""
        if not self.native or _LIB is None:
            return
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        total = int(counts.sum())
        if self._owner.size + total >= 2**32 or first_owner + len(counts) > 2**32:
            self.native = False
            return
        owner = self._owner.reserve(total)
        position = self._position.reserve(total)
        if total:
            _LIB.ipu_owner_positions(
                counts.ctypes.data, len(counts), first_owner, owner.ctypes.data, position.ctypes.data
            )
        del owner, position  # no view may outlive a reserve: the buffers grow in place

    def take(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The owners and positions so far (handed over), or None if they were not kept."""
        if not self.native:
            return None
        return self._owner.take(), self._position.take()
