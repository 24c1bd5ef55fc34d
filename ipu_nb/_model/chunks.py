"""Columns of a polars frame as numpy arrays, chunk by chunk: how the timeline reads a profile without copying it."""

from __future__ import annotations

import numpy as np
import polars as pl

__all__ = ["column_chunks"]


def column_chunks(samples: pl.DataFrame, names: tuple[str, ...]) -> list[tuple[np.ndarray, ...]]:
    """The columns `names` of `samples` (``kind``, ``kernel``: physical codes) as numpy arrays, chunk by chunk.

    Each loaded chunk as it is (no copy), when the columns are chunked alike; else each column in one piece.

    >>> [len(a) for a, in column_chunks(pl.DataFrame({"offset": [1, 2, 3]}), ("offset",))]
    [3]
    """
    columns = [samples.get_column(n).to_physical() if n in ("kind", "kernel") else samples.get_column(n) for n in names]
    chunks = [c.get_chunks() for c in columns]
    if any([len(c) for c in chunks[0]] != [len(c) for c in other] for other in chunks[1:]):
        chunks = [[c.rechunk()] for c in columns]
    return [tuple(c.to_numpy() for c in parts) for parts in zip(*chunks, strict=True)]
