"""Sample columns filled by position, with metadata and exchange activities scattered in at the end.

The generator emits samples phase by phase while the file order is tile by tile; each piece
says where its samples go, and `metadata()` lays out the entries of every sample contiguously.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .vocab import Vocab

__all__ = ["Samples", "rank"]


class Samples:
    """Sample columns filled by position, plus metadata / activity pieces scattered at the end."""

    def __init__(self, n: int, vocab: Vocab) -> None:
        self.vocab = vocab
        self.kind = np.zeros(n, dtype=np.uint16)
        self.phase = np.zeros(n, dtype=np.uint32)
        self.start = np.zeros(n, dtype=np.uint32)
        self.end = np.zeros(n, dtype=np.uint32)
        self.operation = np.zeros(n, dtype=np.uint32)
        self.kernel = np.full(n, vocab.code(""), dtype=np.uint32)
        self.event_cycles = np.zeros(n, dtype=np.uint32)
        self.fixed = np.zeros(n, dtype=np.int64)  # fixed metadata entries per sample
        self._blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._extras: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._activities: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def meta(self, pos: np.ndarray, names: list[str], values: Sequence[np.ndarray | int]) -> None:
        """The same metadata names, in order, on every sample at `pos` (values: one code column, or code, per name)."""
        codes = self.vocab.codes(names)
        matrix = np.empty((len(pos), len(names)), dtype=np.uint32)
        for i, v in enumerate(values):
            matrix[:, i] = v
        self.fixed[pos] = len(names)
        self._blocks.append((pos, codes, matrix))

    def extra(self, pos: np.ndarray, names: np.ndarray, values: np.ndarray) -> None:
        """Entries appended after a sample's fixed metadata; rows for one sample are consecutive and in order."""
        self._extras.append((pos, names, values))

    def activities(self, pos: np.ndarray, kind: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        """Exchange activities; rows for one sample consecutive and in order."""
        self._activities.append((pos, kind, start, end))

    def metadata(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(self.kind)
        extra_pos = np.concatenate([e[0] for e in self._extras]) if self._extras else np.zeros(0, dtype=np.int64)
        counts = self.fixed + np.bincount(extra_pos, minlength=n)
        offsets = np.cumsum(counts) - counts
        total = int(counts.sum())
        names = np.empty(total, dtype=np.uint32)
        values = np.empty(total, dtype=np.uint32)
        for pos, codes, matrix in self._blocks:
            idx = offsets[pos][:, None] + np.arange(len(codes))
            names[idx] = codes
            values[idx] = matrix
        for pos, n_codes, v_codes in self._extras:
            idx = offsets[pos] + self.fixed[pos] + rank(pos)
            names[idx] = n_codes
            values[idx] = v_codes
        return counts, names, values

    def activity_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        n = len(self.kind)
        if not self._activities:
            z = np.zeros(0, dtype=np.uint32)
            return np.zeros(n, dtype=np.int64), z.astype(np.uint16), z, z
        pos = np.concatenate([a[0] for a in self._activities])
        order = np.argsort(pos, kind="stable")
        kind, start, end = (np.concatenate([a[i] for a in self._activities])[order] for i in (1, 2, 3))
        return np.bincount(pos, minlength=n).astype(np.int64), kind.astype(np.uint16), start, end


def rank(group: np.ndarray) -> np.ndarray:
    """0, 1, 2… within runs of equal consecutive values."""
    if not len(group):
        return np.zeros(0, dtype=np.int64)
    new = np.ones(len(group), dtype=bool)
    new[1:] = group[1:] != group[:-1]
    starts = np.flatnonzero(new)
    return np.arange(len(group)) - np.repeat(starts, np.diff(np.append(starts, len(group))))
