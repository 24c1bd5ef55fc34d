"""`CompactMetadata`: a profile's metadata entries as dictionary codes, and the long frame built from them on demand.

A profile holds about ten entries per sample drawn from a few hundred distinct (name, value)
pairs, so the long ``metadata`` frame (owner, position, name, value: 16 bytes an entry) is
most of a profile's memory. Here each sample owns a range of entries (one offset per
sample) and each entry is a u16 code into a small table of pairs: 2 bytes an entry. The
query core filters and groups on the codes (`ipu_nb._model.index`); the long frame is built
from them the first time someone asks for ``profile.metadata``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = ["CompactMetadata", "owner_ids", "positions"]


def owner_ids(counts: np.ndarray) -> np.ndarray:
    """Row id of the owner of each child row, for children grouped by owner.

    >>> owner_ids(np.array([2, 0, 1])).tolist()
    [0, 0, 2]
    """
    return np.repeat(np.arange(len(counts), dtype=np.uint32), counts)


def positions(counts: np.ndarray) -> np.ndarray:
    """Index of each child row inside its owner's group.

    A running sum of ones that drops back to 0 at each group's first row, in place: no
    `np.repeat` temporary as large as the output (fresh pages are costly at 13M rows).

    >>> positions(np.array([2, 0, 3])).tolist()
    [0, 1, 0, 1, 2]
    """
    total = int(counts.sum())
    if total >= 2**32:
        starts = np.cumsum(counts) - counts
        return (np.arange(total, dtype=np.int64) - np.repeat(starts, counts)).astype(np.uint32)
    out = np.ones(total, dtype=np.uint32)
    sizes = counts[counts > 0]
    if len(sizes):
        firsts = np.cumsum(sizes[:-1])
        out[0] = 0
        # 1 - (previous group's size), modulo 2**32: the running sum wraps back to 0.
        out[firsts] = (1 - sizes[:-1]).astype(np.int64).astype(np.uint32)
        np.cumsum(out, dtype=np.uint32, out=out)
    return out


@dataclass(frozen=True, eq=False)
class CompactMetadata:
    """Metadata entries grouped by owner: sample id ``s`` owns entries ``starts[s]:starts[s + 1]``, in position order.

    Entry ``e`` is row ``codes[e]`` of `pairs` (``name``, ``value``, the long frame's dtypes);
    with ``codes`` None (too many distinct pairs for u16 codes) it is row ``e`` itself.

    >>> pairs = pl.DataFrame({"name": ["layer", "layer"], "value": ["0", "1"]})
    >>> meta = CompactMetadata(np.array([0, 2, 2, 3], np.uint32), np.array([0, 1, 1], np.uint16), pairs)
    >>> meta.frame().rows()
    [(0, 0, 'layer', '0'), (0, 1, 'layer', '1'), (2, 0, 'layer', '1')]
    """

    starts: np.ndarray
    codes: np.ndarray | None
    pairs: pl.DataFrame
    #: ``sample`` and ``position`` as a frame cache entry holds them (mapped): used by `frame` when they agree.
    stored: pl.DataFrame | None = None

    @property
    def entry_count(self) -> int:
        """All entries."""
        return int(self.starts[-1]) if len(self.starts) else 0

    @property
    def nbytes(self) -> int:
        """Bytes held (the pairs' text dictionaries aside)."""
        codes = 0 if self.codes is None else self.codes.nbytes
        return self.starts.nbytes + codes + int(self.pairs.estimated_size())

    def owners(self, entries: np.ndarray) -> np.ndarray:
        """The owner sample id of each of the given entries (int64)."""
        return np.searchsorted(self.starts, entries, side="right").astype(np.int64) - 1

    def any_per_owner(self, hit: np.ndarray) -> np.ndarray:
        """Per sample id: whether any of its entries is set in `hit` (bool per entry), one pass over it.

        >>> meta = CompactMetadata(np.array([0, 2, 2, 3], np.uint32), None, pl.DataFrame({"name": [], "value": []}))
        >>> meta.any_per_owner(np.array([False, True, False])).tolist()
        [True, False, False]
        """
        out = np.zeros(len(self.starts) - 1, dtype=bool)
        lo, hi = self.starts[:-1], self.starts[1:]
        owning = hi > lo
        if len(hit) and owning.any():
            # Empty groups skipped, each segment between two starts is exactly one owner's entries.
            out[owning] = np.logical_or.reduceat(hit, lo[owning].astype(np.int64))
        return out

    def pair_rows(self, entries: np.ndarray | None = None) -> np.ndarray | None:
        """The `pairs` row of each of the given entries (of all when None; None when every entry is its own row)."""
        if self.codes is None:
            return None if entries is None else np.asarray(entries)
        return self.codes if entries is None else self.codes[entries]

    def names_values(self, entries: np.ndarray | None = None) -> pl.DataFrame:
        """``name`` and ``value`` of the given entries (every entry when None), in that order."""
        rows = self.pair_rows(entries)
        return self.pairs if rows is None else self.pairs[pl.Series(rows)]

    def frame(self) -> pl.DataFrame:
        """The long frame: one row per entry, ``sample``, ``position``, ``name``, ``value``, by owner then position."""
        counts = np.diff(self.starts.astype(np.int64))
        sample, position = pl.Series("sample", owner_ids(counts)), pl.Series("position", positions(counts))
        if self.stored is not None and self.stored.height == len(sample):
            kept = self.stored.get_column("sample"), self.stored.get_column("position")
            if kept[0].equals(sample) and kept[1].equals(position):
                sample, position = kept  # the mapped pages, not a second copy in memory
        entries = self.names_values()
        return pl.DataFrame([sample, position, entries.get_column("name"), entries.get_column("value")])
