"""The side-view worker: views run in order off the main thread; background views wait for a still view.

A background view (the warm-up, the findings) must not start while the front end is
asking for blocks (a pan or zoom going on), and must still run once the view is still;
views the front end asked for go ahead of it. Outside a kernel everything runs inline.
"""

from __future__ import annotations

import threading
import time

from test_timeline import Recorder, blocks_message, profile  # noqa: F401 (the fixture)

from ipu_nb._widget.side_views import STILL_S, SideViews
from ipu_nb._widget.widget import ProfileWidget


def _worker(errors: list | None = None) -> SideViews:
    return SideViews(lambda error, address: (errors if errors is not None else []).append((error, address)), True)


def test_a_background_view_starts_only_once_the_view_has_been_still() -> None:
    side = _worker()
    ran: list[tuple[str, float]] = []
    side.moved()
    moved_at = time.monotonic()
    side.submit("warm-up", lambda: ran.append(("warm-up", time.monotonic())), background=True)
    side.submit("panel", lambda: ran.append(("panel", time.monotonic())))
    assert side.wait()
    assert [name for name, _ in ran] == ["panel", "warm-up"]  # what was asked for first
    assert ran[1][1] >= moved_at + STILL_S * 0.99  # not before the view was still
    side.close()


def test_moving_again_holds_a_background_view_back_again() -> None:
    side = _worker()
    ran: list[float] = []
    side.moved()
    side.submit("findings", lambda: ran.append(time.monotonic()), background=True)
    last = time.monotonic()
    for _ in range(4):  # the view keeps moving for longer than STILL_S
        time.sleep(STILL_S / 3)
        side.moved()
        last = time.monotonic()
    assert side.wait()
    assert len(ran) == 1 and ran[0] >= last + STILL_S * 0.99
    side.close()


def test_a_background_view_with_no_move_runs_at_once_and_errors_are_reported() -> None:
    errors: list = []
    side = _worker(errors)
    done = threading.Event()
    side.submit("findings", lambda: 1 / 0, background=True)
    side.submit("overview", done.set, background=True)
    assert side.wait(timeout=5) and done.is_set()
    assert [(type(e), a) for e, a in errors] == [(ZeroDivisionError, {"request": "findings"})]
    side.close()


def test_inline_outside_a_kernel_background_views_run_at_once() -> None:
    side = SideViews(lambda error, address: None, threaded=False)
    ran: list[str] = []
    side.moved()
    side.submit("warm-up", lambda: ran.append("warm-up"), background=True)
    assert ran == ["warm-up"]


def test_the_widgets_blocks_requests_hold_its_findings_back(profile) -> None:  # noqa: F811
    widget = ProfileWidget(profile)
    recorder = Recorder(widget)
    widget._side.threaded = True
    found: list[float] = []
    widget._send_findings = lambda: found.append(time.monotonic())  # type: ignore[method-assign]
    asked = time.monotonic()
    widget._on_message(widget, blocks_message(widget, 0, [0]), [])
    widget._on_message(widget, {"type": "hello"}, [])
    assert widget._side.wait()
    assert recorder.of("overview") and recorder.of("flame")  # asked for: not held back
    assert len(found) == 1 and found[0] >= asked + STILL_S * 0.99  # the blocks request was a move
    widget.close()
