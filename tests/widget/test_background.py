"""The background thread: each step of a job waits for a still view; the findings go there, in steps.

A step must not start while the front end asks for windows or blocks (a pan or zoom going
on) and must still run once the view is still; the side views asked for meanwhile are
answered on their own worker, never behind a step. Outside a kernel a job runs inline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Generator
from typing import Any

import pytest
from test_timeline import Recorder, blocks_message, profile  # noqa: F401 (the fixture)

import ipu_nb
from ipu_nb._supersteps.detectors import Findings
from ipu_nb._widget import background as module
from ipu_nb._widget.background import Background
from ipu_nb._widget.widget import ProfileWidget

STILL = 0.2


@pytest.fixture(autouse=True)
def short_stillness(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "STILL_S", STILL)


def _worker(errors: list | None = None) -> Background:
    return Background(lambda error, address: (errors if errors is not None else []).append((error, address)), True)


def _steps(
    times: list[float], count: int, first_done: threading.Event, go: threading.Event
) -> Generator[None, None, None]:
    """`count` steps, each noting when it started; the first one lasts until `go` is set."""
    for step in range(count):
        times.append(time.monotonic())
        if step == 0:
            first_done.set()
            go.wait(5)
        yield


def test_each_step_starts_only_once_the_view_has_been_still() -> None:
    worker = _worker()
    times: list[float] = []
    first, go = threading.Event(), threading.Event()
    worker.moved()
    moved_at = time.monotonic()
    worker.submit("findings", lambda: _steps(times, 3, first, go))
    assert first.wait(5)
    worker.moved()  # while the first step runs: the second waits
    moved_again = time.monotonic()
    go.set()
    assert worker.wait()
    assert len(times) == 3
    assert moved_at + STILL * 0.99 <= times[0] < moved_again
    assert times[1] >= moved_again + STILL * 0.99
    worker.close()


def test_jobs_run_in_order_a_resubmitted_one_takes_its_place_and_errors_are_reported() -> None:
    errors: list = []
    worker = _worker(errors)
    ran: list[str] = []
    started, hold = threading.Event(), threading.Event()

    def job(name: str) -> Generator[None, None, None]:
        if name == "first":
            started.set()
            hold.wait(5)
        ran.append(name)
        if name == "bad":
            raise ZeroDivisionError("no")
        yield

    worker.submit("first", lambda: job("first"))
    assert started.wait(5)  # "first" runs, held
    worker.submit("bad", lambda: job("bad"))
    worker.submit("x", lambda: job("x old"))
    worker.submit("x", lambda: job("x"))
    hold.set()
    assert worker.wait(timeout=5)
    assert ran == ["first", "bad", "x"]
    assert [(type(e), a) for e, a in errors] == [(ZeroDivisionError, {"request": "bad"})]
    worker.close()


def test_closing_stops_a_job_before_its_next_step() -> None:
    worker = _worker()
    times: list[float] = []
    first, go, closed = threading.Event(), threading.Event(), threading.Event()

    def job() -> Generator[None, None, None]:
        try:
            yield from _steps(times, 5, first, go)
        finally:
            closed.set()

    worker.submit("findings", job)
    assert first.wait(5)
    worker.moved()  # the second step would wait; the worker closes meanwhile
    worker.close()
    go.set()
    assert closed.wait(5) and len(times) == 1


def test_inline_outside_a_kernel_a_job_runs_at_once() -> None:
    worker = Background(lambda error, address: None, threaded=False)
    times: list[float] = []
    go = threading.Event()
    go.set()
    worker.moved()
    worker.submit("findings", lambda: _steps(times, 4, threading.Event(), go))
    assert len(times) == 4


def _threaded_widget(profile) -> tuple[ProfileWidget, Recorder]:  # noqa: F811
    widget = ProfileWidget(profile)
    recorder = Recorder(widget)
    widget._side.threaded = widget._background.threaded = True
    return widget, recorder


def test_the_widgets_blocks_requests_hold_its_findings_back_not_its_views(profile) -> None:  # noqa: F811
    widget, recorder = _threaded_widget(profile)
    sent: list[float] = []
    widget.observe(lambda change: sent.append(time.monotonic()), "finding_rows")
    asked = time.monotonic()
    widget._on_message(widget, blocks_message(widget, 0, [0]), [])
    widget._on_message(widget, {"type": "hello"}, [])
    assert widget._side.wait() and widget._background.wait()
    assert recorder.of("overview") and recorder.of("flame")
    assert len(sent) == 1 and sent[0] >= asked + STILL * 0.99  # the blocks request was a move
    expected = ipu_nb.findings(profile)
    assert [r["message"] for r in widget.finding_rows] == [f.message for f in expected] != []
    widget.close()


def test_findings_from_python_finish_the_steps_the_background_began(profile, monkeypatch) -> None:  # noqa: F811
    from ipu_nb._supersteps import detectors

    widget, _ = _threaded_widget(profile)
    expected = ipu_nb.findings(profile)
    made: list[int] = []
    original = detectors.finding_steps

    def counted(*args: Any) -> Generator[None, None, Findings]:
        made.append(1)
        return original(*args)

    monkeypatch.setattr(detectors, "finding_steps", counted)
    assert widget._findings.step(("after", widget.clock)) is None  # one step done, the rest to come
    found = widget.findings  # the steps under way, finished on this thread
    assert made == [1] and found.frame.equals(expected.frame)
    assert widget.findings is found
    widget.close()


def test_a_failed_findings_step_is_started_afresh_next_time(profile, monkeypatch) -> None:  # noqa: F811
    from ipu_nb._supersteps import detectors

    widget, _ = _threaded_widget(profile)
    original = detectors.finding_steps

    def failing(p: object) -> Generator[None, None, None]:
        yield
        raise RuntimeError("disk gone")

    monkeypatch.setattr(detectors, "finding_steps", failing)
    with pytest.raises(RuntimeError, match="disk gone"):
        widget.findings  # noqa: B018 (the property computes)
    monkeypatch.setattr(detectors, "finding_steps", original)
    assert widget.findings.frame.equals(ipu_nb.findings(profile).frame)
    widget.close()


def test_a_trait_from_a_worker_is_set_on_the_kernels_main_thread(monkeypatch) -> None:
    from ipykernel.kernelbase import Kernel

    from ipu_nb._widget import side_views

    queued: list = []

    class Loop:
        def add_callback(self, job) -> None:
            queued.append(job)

    class FakeKernel:
        io_loop = Loop()

    monkeypatch.setattr(side_views, "in_kernel", lambda: True)
    monkeypatch.setattr(Kernel, "instance", classmethod(lambda cls: FakeKernel()))
    ran: list[str] = []
    side_views.on_main_thread(lambda: ran.append("main"))  # on the main thread: at once
    worker = threading.Thread(target=lambda: side_views.on_main_thread(lambda: ran.append("worker")))
    worker.start()
    worker.join()
    assert ran == ["main"] and len(queued) == 1  # from the worker: queued for the main thread's loop
    queued[0]()
    assert ran == ["main", "worker"]
