"""The widget's background work: jobs nothing waits for, run in steps on their own thread while the view is still."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from .protocol import ReplyAddress
from .side_views import SideViews

__all__ = ["STILL_S", "Background"]

#: A step of background work starts only once the view has been still this long (the user reads, not moves).
STILL_S = 0.4
_DONE = object()  # what `next` gives for a job with no steps left


class Background(SideViews):
    """Runs the jobs no view waits for (the findings: seconds of both cores at 10M samples) on a thread of their own.

    A job is a generator function. Each of its steps (its code up to the next ``yield``)
    starts only once the view has been still for `STILL_S` (`moved` says it moved), so a
    pan or zoom shares the CPUs with at most the one step already running. The side views
    asked for never wait behind it: they run on the widget's `SideViews`. Jobs run one at
    a time, as `SideViews` runs views; `close` stops the running one before its next step.
    Outside a kernel (tests, scripts) or with ``threaded=False`` a job runs inline, at once.
    """

    THREAD_NAME = "ipu-nb widget background"

    def __init__(self, on_error: Callable[[BaseException, ReplyAddress], None], threaded: bool) -> None:
        super().__init__(on_error, threaded)
        self._moved_at = -float("inf")

    def moved(self) -> None:
        """The view moved (the front end asked for a window, blocks or a sample): the next step waits."""
        with self._cond:
            self._moved_at = time.monotonic()

    def _still(self) -> bool:
        """Wait until the view has been still for `STILL_S` (at once when inline); False once closed."""
        with self._cond:
            while self.threaded and not self._closed:
                left = self._moved_at + STILL_S - time.monotonic()
                if left <= 0:
                    return True
                self._cond.wait(left)
            return not self._closed

    def _run(self, name: str, job: Callable[[], Any]) -> None:
        """Run `job`'s steps, each once the view is still; a failure is reported as `SideViews` reports a view's."""

        def steps() -> None:
            with contextlib.closing(job()) as generator:
                while self._still() and next(generator, _DONE) is not _DONE:
                    pass

        super()._run(name, steps)
