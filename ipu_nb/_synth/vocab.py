"""String vocabularies for the synthetic generator: intern distinct strings once, emit uint32 codes.

Real profiles repeat a few thousand distinct strings over millions of samples, so the
generator formats each distinct value once and builds every string column as codes.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from .._model.columns import Strings

__all__ = ["Vocab"]


class Vocab:
    """An append-only dictionary of distinct strings, each with a stable uint32 code."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}  # insertion order is code order
        self._arrow: pa.Array | None = None

    def __len__(self) -> int:
        return len(self._index)

    def code(self, text: str) -> int:
        """The code of `text`, interning it on first sight."""
        index = self._index
        return index.setdefault(text, len(index))

    def codes(self, texts: Iterable[str]) -> np.ndarray:
        """Codes of several strings, in order."""
        index = self._index
        return np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.uint32)

    def ints(self, values: np.ndarray | int, fmt: str = "{}", n: int | None = None) -> np.ndarray:
        """Codes of integers written with `fmt` (decimal by default; `"0x{:x}"` for addresses).

        A scalar is broadcast to `n` rows. Each distinct value is formatted once.
        """
        if np.ndim(values) == 0:
            return np.full(n if n is not None else 1, self.code(fmt.format(int(values))), dtype=np.uint32)
        values = np.asarray(values)
        if len(values) == 0:
            return np.zeros(0, dtype=np.uint32)
        unique, inverse = np.unique(values, return_inverse=True)
        table = self.codes(fmt.format(u) for u in unique.tolist())
        return table[inverse.reshape(-1)]

    def rows(self, fmt: str, *columns: np.ndarray | int) -> np.ndarray:
        """Codes of `fmt.format(*row)` for the rows of integer columns (scalars broadcast)."""
        length = max((len(c) for c in columns if not isinstance(c, int) and np.ndim(c) > 0), default=1)
        arrays = [np.broadcast_to(np.asarray(c, dtype=np.int64), (length,)) for c in columns]
        if length == 0:
            return np.zeros(0, dtype=np.uint32)
        order = np.lexsort(arrays[::-1])
        stacked = np.stack([a[order] for a in arrays], axis=1)
        new = np.ones(length, dtype=bool)
        new[1:] = np.any(stacked[1:] != stacked[:-1], axis=1)
        group = np.cumsum(new) - 1
        table = self.codes(fmt.format(*row) for row in stacked[new].tolist())
        out = np.empty(length, dtype=np.uint32)
        out[order] = table[group]
        return out

    def arrow(self) -> pa.Array:
        """The distinct strings as a pyarrow string array, in code order (cached until the next new string)."""
        if self._arrow is None or len(self._arrow) != len(self._index):
            self._arrow = pa.array(list(self._index), type=pa.string())
        return self._arrow

    def strings(self, codes: np.ndarray) -> Strings:
        """A `Strings` column over this vocabulary."""
        return Strings(np.ascontiguousarray(codes, dtype=np.uint32), self.arrow())
