"""The widget's background work: jobs nothing waits for, run in steps on their own thread while the view is still."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator

from .protocol import ReplyAddress
from .side_views import RECOVERABLE

__all__ = ["STILL_S", "Background", "Job"]

#: A generator function: its steps are the code between its ``yield``s.
Job = Callable[[], Generator[object, None, None]]

#: A step of background work starts only once the view has been still this long (the user reads, not moves).
STILL_S = 1.0


class Background:
    """Runs the jobs no view waits for (the findings: seconds of both cores at 10M samples) on a thread of their own.

    A job is a generator function. Each of its steps (its code up to the next ``yield``)
    starts only once the view has been still for `STILL_S` (`moved` says it moved), so a
    pan or zoom shares the CPUs with at most the one step already running. The side views
    asked for never wait behind it: they run on `SideViews`. Jobs run one at a time, in
    the order submitted; one submitted under the name of a queued job takes its place.
    Outside a kernel (tests, scripts) or with ``threaded=False`` a job runs inline, at once.
    """

    def __init__(self, on_error: Callable[[BaseException, ReplyAddress], None], threaded: bool) -> None:
        self.threaded = threaded
        self._on_error = on_error
        self._moved_at = -float("inf")
        self._pending: dict[str, Job] = {}
        self._busy = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, name: str, job: Job) -> None:
        if not self.threaded:
            self._run(name, job, lambda: True)
            return
        with self._cond:
            if self._closed:
                return
            self._pending[name] = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="ipu-nb widget background", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def moved(self) -> None:
        """The view moved (the front end asked for a window, blocks or a sample): the next step waits."""
        with self._cond:
            self._moved_at = time.monotonic()

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until every submitted job has finished (for tests and benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)

    def close(self) -> None:
        """Drop the queued jobs and stop the running one before its next step."""
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify_all()

    def _still(self) -> bool:
        """Wait until the view has been still for `STILL_S`; False once closed."""
        with self._cond:
            while not self._closed:
                left = self._moved_at + STILL_S - time.monotonic()
                if left <= 0:
                    return True
                self._cond.wait(left)
            return False

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending or self._closed)
                if self._closed:
                    return
                name = next(iter(self._pending))
                job = self._pending.pop(name)
                self._busy = True
            try:
                self._run(name, job, self._still)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _run(self, name: str, job: Job, ready: Callable[[], bool]) -> None:
        """Run `job`'s steps, each once `ready()`; whatever it raises becomes an error reply."""
        steps = job()
        try:
            while ready():
                next(steps)
        except StopIteration:
            pass
        except RECOVERABLE as error:  # reported, never raised: the thread and the kernel outlive it
            self._on_error(error, {"request": name})
        finally:
            steps.close()
