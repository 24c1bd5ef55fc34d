"""Metadata entries numbered by their (name, value) pair, for `ipu_nb._model.metadata.CompactMetadata`.

A profile's entries repeat a few pairs millions of times, so each entry is stored as a
u16 code into a table of its distinct pairs. The C library numbers them in one pass
(first-occurrence order, a table of at most `PAIRS` pairs); without it numpy sorts them.
Past `PAIRS` distinct pairs the caller keeps each entry's own name and value codes.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ._intern import _LIB

__all__ = ["PAIRS", "pair_codes"]

#: Most distinct pairs a u16 code numbers (must equal PAIRS in _intern.c).
PAIRS = 1 << 16
_SLICE = 1 << 22  # entries per C call (the GIL is released during each)


def pair_codes(names: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each entry's pair code (u16) and each pair's name and value codes (u32); None past `PAIRS` pairs.

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
    keys = np.zeros(2 * PAIRS, dtype=np.uint64)
    slot_codes = np.zeros(2 * PAIRS, dtype=np.uint16)
    pair_names = np.empty(PAIRS, dtype=np.uint32)
    pair_values = np.empty(PAIRS, dtype=np.uint32)
    count = ctypes.c_int64(0)
    for lo in range(0, len(names), _SLICE):
        n = min(_SLICE, len(names) - lo)
        done = _LIB.ipu_pair_codes(
            names[lo:].ctypes.data,
            values[lo:].ctypes.data,
            n,
            codes[lo:].ctypes.data,
            keys.ctypes.data,
            slot_codes.ctypes.data,
            pair_names.ctypes.data,
            pair_values.ctypes.data,
            ctypes.byref(count),
        )
        if done != n:
            return None
    return codes, pair_names[: count.value].copy(), pair_values[: count.value].copy()


def _numpy_pair_codes(names: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    keys = (names.astype(np.uint64) << np.uint64(32)) | values
    distinct, inverse = np.unique(keys, return_inverse=True)
    if len(distinct) > PAIRS:
        return None
    pair_names = (distinct >> np.uint64(32)).astype(np.uint32)
    pair_values = (distinct & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return inverse.astype(np.uint16).reshape(-1), pair_names, pair_values
