"""The side-view worker's gated jobs: one waiting for what it needs (the timeline index) holds up no other."""

from __future__ import annotations

import threading

from ipu_nb._widget.side_views import SideViews


def _worker(errors: list[tuple[BaseException, object]]) -> SideViews:
    return SideViews(lambda error, address: errors.append((error, address)), True)


def test_a_job_waiting_for_what_it_needs_lets_the_others_run_first() -> None:
    errors: list[tuple[BaseException, object]] = []
    worker = _worker(errors)
    ran: list[str] = []
    index_built = threading.Event()
    worker.submit("overview", lambda: ran.append("overview"), after=index_built.wait)
    worker.submit("flame", lambda: ran.append("flame"))
    worker.submit("groups", lambda: ran.append("groups"))
    assert not worker.wait(timeout=0.5)  # the overview is still waiting for the index
    assert ran == ["flame", "groups"]
    index_built.set()
    assert worker.wait(timeout=10)
    assert ran == ["flame", "groups", "overview"] and not errors
    worker.close()


def test_a_failed_wait_still_runs_the_job_which_reports_its_own_error() -> None:
    errors: list[tuple[BaseException, object]] = []
    worker = _worker(errors)

    def index() -> None:
        raise RuntimeError("building the timeline index failed")

    def overview() -> None:
        index()  # the job asks for the index again and meets the failure

    worker.submit("overview", overview, after=index)
    assert worker.wait(timeout=10)
    assert [(str(e), a) for e, a in errors] == [("building the timeline index failed", {"request": "overview"})]
    worker.close()


def test_inline_the_job_runs_at_once() -> None:
    errors: list[tuple[BaseException, object]] = []
    worker = SideViews(lambda error, address: errors.append((error, address)), False)
    ran: list[str] = []
    worker.submit("overview", lambda: ran.append("overview"), after=lambda: ran.append("index"))
    assert ran == ["overview"] and not errors
