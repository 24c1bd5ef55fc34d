"""What one worker does for one profile: load it (through the frame cache) and answer with something small.

These are plain top-level functions, so a spawned process or a Dask worker imports them by
name. `guarded` wraps each: whatever goes wrong with that profile comes back as a
`Failure` (a value, never an exception crossing the process boundary), so one bad file
never costs the batch. Only query groups, comparison tables and row counts travel back,
never a profile's frames.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .errors import Failure, failure_of

__all__ = ["compare_one", "guarded", "parquet_one", "query_one"]

T = TypeVar("T")


def guarded(task: Callable[..., T], path: str, *args: Any) -> T | Failure:
    """``task(path, *args)``, or the `Failure` of `path` if it raises (interrupts still interrupt)."""
    try:
        return task(path, *args)
    except Exception as exc:
        return failure_of(path, exc)
    except BaseException as exc:  # polars' PanicException is a BaseException; interrupts are not ours to keep
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
            raise
        return failure_of(path, exc)


def _open(path: str) -> Any:
    """The profile at `path`; a FIFO or device is refused unopened (here too: a Dask worker sees its own files)."""
    from .._profile import open_profile
    from .files import check_regular

    check_regular(path)
    return open_profile(path, progress=False)


def query_one(path: str, query: Any) -> Any:
    """`ipu_nb.query` of one profile: its `QueryResult` (groups, longest samples, report scalars)."""
    from .._query import query as run_query

    return run_query(_open(path), query)


# One baseline per process, reused by every comparison this worker runs (keyed by the file's identity)
# and dropped once no comparison has used it for a while: a kept worker does not hold it when idle.
_BASELINE_IDLE_SECONDS = 30.0
_baseline_lock = threading.Lock()
_baseline: dict[tuple[str, int, int, int], Any] = {}
_baseline_timer: threading.Timer | None = None


def _forget_baseline() -> None:
    with _baseline_lock:
        _baseline.clear()


def _baseline_profile(path: str) -> Any:
    """The baseline at `path`, opened once per process; its idle timer stopped while a comparison uses it."""
    stat = os.stat(path)
    key = (path, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _baseline_lock:
        if _baseline_timer is not None:
            _baseline_timer.cancel()
        if key not in _baseline:
            _baseline.clear()
            _baseline[key] = _open(path)
        return _baseline[key]


def _idle_from_now() -> None:
    """Drop the baseline `_BASELINE_IDLE_SECONDS` after this comparison ends, unless another uses it first."""
    global _baseline_timer
    with _baseline_lock:
        if _baseline_timer is not None:
            _baseline_timer.cancel()
        _baseline_timer = threading.Timer(_BASELINE_IDLE_SECONDS, _forget_baseline)
        _baseline_timer.daemon = True
        _baseline_timer.start()


def compare_one(path: str, baseline: str, options: Mapping[str, Any]) -> tuple[Any, Any]:
    """`ipu_nb.compare(baseline, path, **options)`: its groups and summary (not the two profiles it holds)."""
    from .._compare import compare

    try:
        comparison = compare(_baseline_profile(baseline), _open(path), **options)
    finally:
        _idle_from_now()  # the idle time counts from the end: a long comparison never loses its baseline
    return comparison.groups, comparison.summary


def parquet_one(path: str, folder: str, label: str, labels: Mapping[str, Any]) -> dict[str, int]:
    """Write one profile into the Parquet dataset at `folder`; the rows written per table."""
    from .._io.parquet import write_profile

    return write_profile(_open(path), Path(folder), label, labels)
