"""The worker that computes and sends the widget's side views off the kernel's main thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from polars.exceptions import PanicException

from .protocol import ReplyAddress

__all__ = ["RECOVERABLE", "SideViews", "in_kernel", "on_main_thread"]

#: What a request's failure may raise and still be answered: every `Exception`, and polars'
#: `PanicException` (a `BaseException`); `KeyboardInterrupt`, `SystemExit` and `GeneratorExit` propagate.
RECOVERABLE: tuple[type[BaseException], ...] = (Exception, PanicException)


def in_kernel() -> bool:
    """Whether an IPython kernel runs this process (its IOPub socket takes sends from any thread)."""
    try:
        from ipykernel.kernelbase import Kernel
    except ImportError:  # pragma: no cover - anywidget hosts without ipykernel
        return False
    return Kernel.initialized()


def on_main_thread(job: Callable[[], None]) -> None:
    """Run `job` on the kernel's main thread, between its message handlers (at once outside a kernel).

    For a worker setting a trait: traitlets and ipywidgets' state sync are not thread-safe,
    and a trait set while the main thread applies an update from the front end can lose
    either change.
    """
    if threading.current_thread() is threading.main_thread() or not in_kernel():
        job()
        return
    from ipykernel.kernelbase import Kernel

    loop = getattr(Kernel.instance(), "io_loop", None)
    if loop is None:  # pragma: no cover - a kernel not started the usual way
        job()
    else:
        loop.add_callback(job)


class SideViews:
    """Computes and sends the side views (overview, flame graph, panel, groups) off the kernel's main thread.

    The kernel handles the front end's messages one at a time, so a window request (a
    pan or zoom) would otherwise wait behind every side view queued before it: the
    flame graph and overview after creation or a filter change, the inspector panel
    after a click, the group table. Here they run in order on one worker thread (polars
    and numpy release the GIL while they compute) and the main thread answers windows
    at once. A view asked for again before its turn runs once, on the state it finds.

    Outside a kernel (tests, scripts) or with ``threaded=False`` they run inline.
    """

    THREAD_NAME = "ipu-nb widget side views"

    def __init__(self, on_error: Callable[[BaseException, ReplyAddress], None], threaded: bool) -> None:
        self.threaded = threaded
        self._on_error = on_error
        self._pending: dict[str, Callable[[], Any]] = {}
        self._busy = False
        self._waiting = 0  # jobs whose `after` has not returned yet
        self._closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, name: str, job: Callable[[], Any], after: Callable[[], object] | None = None) -> None:
        """Queue `job` under `name` (in the place of a queued one of that name).

        `after`: a blocking call the job needs to have returned (the timeline index's build, say),
        waited for on a thread of its own, so that the views queued behind it do not wait with it;
        whatever it raises is the job's to meet again. Run inline (``threaded=False``), the job runs
        at once and `after` is not called (the index is built in the constructor there).
        """
        if after is not None and self.threaded:
            threading.Thread(
                target=self._after, args=(name, job, after), name=f"{self.THREAD_NAME}, waiting", daemon=True
            ).start()
            return
        if not self.threaded:
            self._run(name, job)
            return
        with self._cond:
            if self._closed:
                return
            self._pending[name] = job  # replaces a queued one of the same name in its place
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self.THREAD_NAME, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _after(self, name: str, job: Callable[[], Any], after: Callable[[], object]) -> None:
        with self._cond:
            self._waiting += 1
        try:
            with contextlib.suppress(*RECOVERABLE):
                after()
            self.submit(name, job)
        finally:
            with self._cond:
                self._waiting -= 1
                self._cond.notify_all()

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until every submitted view has been sent (for tests and benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._busy and not self._waiting, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._pending.clear()
            self._cond.notify_all()

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
                self._run(name, job)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _run(self, name: str, job: Callable[[], Any]) -> None:
        """Run one view; whatever it raises becomes an error reply (the worker and the kernel outlive it)."""
        try:
            job()
        except RECOVERABLE as error:  # a view's failure is reported, never raised
            self._on_error(error, {"request": name})
