"""Running one task per profile: in this process, on local worker processes, or on a Dask cluster.

The engines are the standard ones (`concurrent.futures.ProcessPoolExecutor` with spawned
processes, `dask.distributed.Client`); this module only hands them the tasks, shows a
progress bar as results come in, and returns the results in the fleet's order. A task
never raises (`tasks.guarded`); a worker that dies (killed, out of memory, a crash) costs
only the profile it held: the profiles its pool had not finished are run again one at a
time in a fresh process, so the one that kills its worker is named.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .._progress import progress_bar
from .errors import Failure, FleetError, failure_of
from .tasks import guarded

__all__ = ["Job", "LocalPool", "available_cpus", "run_jobs", "worker_count"]


@dataclass(frozen=True)
class Job:
    """One profile's task: the path as the fleet shows it, the absolute path workers open, the arguments."""

    shown: str
    path: str
    args: tuple[Any, ...]


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def worker_count(workers: Any, jobs: int) -> int:
    """Processes to use: `workers` (None: one per CPU), never more than there are jobs."""
    if workers is None:
        workers = available_cpus()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise FleetError(f"workers must be a positive integer or None, got {workers!r}")
    return max(1, min(workers, jobs))


_DIED = (
    "the worker process died while loading or querying it (killed, out of memory, or a crash); "
    "a script that runs a fleet must do so under `if __name__ == '__main__':`"
)
#: After this many fresh processes died in a row, the rest are not tried one by one: the cause is not one file.
_DEATHS_IN_A_ROW = 3

_environment_lock = threading.Lock()


@contextmanager
def _worker_threads(threads: int) -> Iterator[None]:
    """Start worker processes with polars limited to `threads` threads, unless the user set POLARS_MAX_THREADS.

    polars reads the variable once, at import, so it must be in the environment that
    spawned processes inherit when they start; it is removed again once they have.
    """
    with _environment_lock:
        if "POLARS_MAX_THREADS" in os.environ:
            yield
            return
        os.environ["POLARS_MAX_THREADS"] = str(threads)
        try:
            yield
        finally:
            os.environ.pop("POLARS_MAX_THREADS", None)


def _spawned(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


class LocalPool:
    """Spawned worker processes kept between runs (a `Fleet` owns one), so a second query starts at once.

    Started on first use; replaced when the worker count changes or a worker dies;
    `close` stops the processes.
    """

    def __init__(self) -> None:
        self._executor: ProcessPoolExecutor | None = None
        self._workers = 0
        self._lock = threading.Lock()

    def executor(self, workers: int) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None or self._workers != workers:
                self._stop(wait=True)
                self._executor, self._workers = _spawned(workers), workers
            return self._executor

    def discard(self) -> None:
        """Drop a broken pool (its processes are gone or going) without waiting for it."""
        with self._lock:
            self._stop(wait=False)

    def close(self) -> None:
        """Stop the worker processes (a later run starts new ones)."""
        with self._lock:
            self._stop(wait=True)

    def _stop(self, *, wait: bool) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)
            self._executor = None


def _collect(
    futures: dict[Future[Any], int], jobs: Sequence[Job], results: list[Any], tick: Callable[[], None]
) -> list[int]:
    """Fill `results` as futures finish; the indices whose worker died (their pool broke)."""
    broken = []
    for future in as_completed(futures):
        index = futures[future]
        try:
            results[index] = future.result()
        except BrokenProcessPool:
            broken.append(index)
            continue
        except Exception as exc:  # e.g. a result that cannot be pickled
            results[index] = failure_of(jobs[index].shown, exc)
        tick()
    return sorted(broken)


def _local(
    task: Callable[..., Any],
    jobs: Sequence[Job],
    workers: int,
    pool: LocalPool,
    results: list[Any],
    tick: Callable[[], None],
) -> None:
    threads = max(1, available_cpus() // workers)
    executor = pool.executor(workers)
    try:
        with _worker_threads(threads):
            futures = {executor.submit(guarded, task, job.path, *job.args): i for i, job in enumerate(jobs)}
        broken = _collect(futures, jobs, results, tick)
    except BaseException:
        pool.discard()  # interrupted: cancel what has not started
        raise
    if broken:
        pool.discard()
    deaths = 0
    single: ProcessPoolExecutor | None = None
    try:
        for index in broken:  # one at a time, so a profile that kills its worker is the only one lost
            if deaths >= _DEATHS_IN_A_ROW:
                results[index] = Failure(jobs[index].shown, "BrokenProcessPool", _DIED)
                tick()
                continue
            if single is None:
                single = _spawned(1)
            with _worker_threads(available_cpus()):
                future = single.submit(guarded, task, jobs[index].path, *jobs[index].args)
            if _collect({future: index}, jobs, results, lambda: None):
                results[index] = Failure(jobs[index].shown, "BrokenProcessPool", _DIED)
                single.shutdown(wait=False, cancel_futures=True)
                single, deaths = None, deaths + 1
            else:
                deaths = 0
            tick()
    finally:
        if single is not None:
            single.shutdown(wait=True, cancel_futures=True)


def _dask(
    task: Callable[..., Any], jobs: Sequence[Job], client: Any, results: list[Any], tick: Callable[[], None]
) -> None:
    if not callable(getattr(client, "submit", None)):
        raise FleetError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
    try:
        from distributed import as_completed as dask_completed
    except ImportError:  # pragma: no cover - a Client exists, so distributed is installed
        raise FleetError('client= needs dask.distributed: pip install "ipu-nb[dask]"') from None
    run = os.urandom(6).hex()
    futures = {
        client.submit(guarded, task, job.path, *job.args, pure=False, key=f"ipu-nb-{task.__name__}-{run}-{i}"): i
        for i, job in enumerate(jobs)
    }
    try:
        for future in dask_completed(list(futures)):
            index = futures[future]
            try:
                results[index] = future.result()
            except Exception as exc:  # the worker died (KilledWorker), the task was cancelled, ...
                results[index] = failure_of(jobs[index].shown, exc)
            tick()
    finally:
        client.cancel(list(futures))


def _can_spawn() -> bool:
    """Whether spawned workers can start: they re-run the main script, which must be a file (not ``python -``)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    by_name = getattr(getattr(main, "__spec__", None), "name", None) is not None  # python -m: imported by name
    return path is None or by_name or os.path.isfile(path)


def run_jobs(
    task: Callable[..., Any],
    jobs: Sequence[Job],
    *,
    workers: Any = None,
    client: Any = None,
    progress: bool | None = None,
    description: str = "profiles",
    pool: LocalPool | None = None,
) -> list[Any]:
    """``task(job.path, *job.args)`` for every job: results (or `Failure`) in the jobs' order.

    With `client` (a ``dask.distributed.Client``) each job is one Dask task; else with
    one worker (``workers=1``, or a single job) they run here, one after another, as they
    do when the main script is no file that workers could start from (``python -``); else
    on that many spawned processes: `pool`'s, kept for the next run, or a pool of this run's
    own. `progress` as in `ipu_nb.open_profile` (None: a bar when someone watches and there
    is more than one profile).
    """
    results: list[Any] = [None] * len(jobs)
    if not jobs:
        return results
    count = worker_count(workers, len(jobs))
    with progress_bar(progress, description, large=len(jobs) > 1, unit=" profiles", unit_scale=False) as report:
        done = 0

        def tick() -> None:
            nonlocal done
            done += 1
            if report is not None:
                report(done, len(jobs))

        if client is not None:
            _dask(task, jobs, client, results, tick)
        elif count == 1 or not _can_spawn():
            for i, job in enumerate(jobs):
                results[i] = guarded(task, job.path, *job.args)
                tick()
        elif pool is not None:
            _local(task, jobs, count, pool, results, tick)
        else:
            own = LocalPool()
            try:
                _local(task, jobs, count, own, results, tick)
            finally:
                own.close()
    return results
