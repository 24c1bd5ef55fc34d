"""Tasks for the fleet runner's tests, importable by the worker processes it spawns."""

from __future__ import annotations

import os


def size_or_die(path: str, victim: str) -> int:
    """The file's size; the worker process dies on the spot (no exception, no cleanup) for `victim`."""
    if path == victim:
        os._exit(3)
    return os.path.getsize(path)


def unpicklable(path: str) -> object:
    """A result that cannot travel back from a worker process."""
    return lambda: path


def polars_threads(path: str) -> int:
    """How many threads polars runs in this worker."""
    import polars as pl

    return pl.thread_pool_size()
