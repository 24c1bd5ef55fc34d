"""Widget speed on the full-size demo profile (1,170,240 samples) against the issue's budgets.

Run: `.venv/bin/python benchmarks/bench_widget.py [--no-browser] [--repeat N]`.

Python side: widget construction, the level-of-detail answer for windows from the whole
profile down to 0.1 % of it (time and payload, against 100 ms and 2 MB), a filter change,
a click. Browser side (headless Chromium in JupyterLab, as the tests run it): time from
creating the widget to its first drawn timeline (budget 2 s), and the round trip of each
zoom/pan as the widget measures it (request sent → reply received), plus canvas draw time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

import ipu_nb  # noqa: E402
from ipu_nb._widget.widget import ProfileWidget  # noqa: E402

ROUND_TRIP_MS = 100.0
ANSWERED = (
    "() => { const w = document.querySelector('.ipu-nb-widget');"
    " return w.ipuTrips.some(t => t.id === Number(w.dataset.requestId)); }"
)
"""Whether the widget's latest window request has been answered and drawn."""
DRAW_S = 2.0
PAYLOAD_MB = 2.0
PIXELS = 1100


def timed(fn, repeat: int) -> tuple[float, object]:
    """Best of `repeat` runs in ms, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        began = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - began)
    return best * 1000, result


def python_side(profile: ipu_nb.Profile, repeat: int) -> None:
    began = time.perf_counter()
    widget = ProfileWidget(profile)
    print(f"widget construction (index + mask + info): {time.perf_counter() - began:.2f} s")
    widget.send = lambda content, buffers=None: None  # type: ignore[method-assign]
    span = widget.view[1]
    print(f"{'window':>22} {'mode':>5} {'samples':>10} {'answer ms':>10} {'payload MB':>11}  vs budget")
    for fraction in (1.0, 0.5, 0.25, 0.1, 0.03, 0.01, 0.001):
        start = int(span * (1 - fraction) / 2)
        end = start + max(int(span * fraction), 8)

        def answer(start: int = start, end: int = end) -> tuple:
            widget._cache.clear()
            return widget.window_answer(start, end, PIXELS)

        ms, (header, buffers) = timed(answer, repeat)
        mb = sum(len(b) for b in buffers) / 1e6
        print(
            f"{f'{fraction:.1%} of the span':>22} {header['mode']:>5} {header['count']:>10,} {ms:>10.1f} {mb:>11.2f}"
            f"  {ROUND_TRIP_MS / ms:.1f}x under {ROUND_TRIP_MS:.0f} ms,"
            f" {PAYLOAD_MB / mb:.0f}x under {PAYLOAD_MB:.0f} MB"
        )
    cached, _ = timed(lambda: widget.window_answer(0, span, PIXELS), repeat)
    print(f"{'home view, cached':>22} {cached:>27.2f}")
    for label, filters in (
        ("filter metadata layer=3", {"metadata": ["layer=3"]}),
        ("filter kind=compute", {"kind": "compute"}),
        ("focus an operation", {"kind": "compute", "operation_contains": "GEMM block (0, 5)"}),
    ):
        began = time.perf_counter()
        widget.filters = filters
        mask = time.perf_counter()
        widget._cache.clear()
        widget.window_answer(0, span, PIXELS)
        drawn = time.perf_counter()
        widget._send_stale()
        done = time.perf_counter()
        widget.filters = {}
        print(
            f"{label}: mask {(mask - began) * 1000:.0f} ms + home window {(drawn - mask) * 1000:.0f} ms,"
            f" then overview, panel and flame graph {(done - drawn) * 1000:.0f} ms"
        )
    clicks = iter(range(1, 1000))
    ms, _ = timed(
        lambda: widget._handle_custom_msg({"type": "pick", "row": 700, "x": span // 3 + next(clicks)}, []), repeat
    )
    print(f"click (pick: at, selected, at-cursor summary, sample detail): {ms:.0f} ms")


def browser_side(profile_path: Path) -> tuple[float, list[float]]:
    """One fresh JupyterLab + Chromium run: first-draw seconds and every pan/zoom round trip (ms)."""
    from lab import OUTPUT, Page, launch_chromium, running_lab, wait_window
    from playwright.sync_api import sync_playwright

    cells = [
        f"import time, ipu_nb\nprofile = ipu_nb.open_profile({str(profile_path)!r}, progress=False)",
        "_t0 = time.time()\nwidget = ipu_nb.ProfileWidget(profile)\nwidget",
    ]
    with tempfile.TemporaryDirectory() as tmp, running_lab(Path(tmp)) as lab, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1500, "height": 1400})
        name = lab.notebook(cells)
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
        nb = Page(page, lab, name)
        nb.wait_ready()
        nb.run_all()
        last = wait_window(page, 0, timeout=180)
        first_draw = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.firstDrawAt"))
        created = nb.kernel("_t0")
        draw_s = first_draw / 1000 - created
        print(
            f"browser: widget created → first timeline drawn: {draw_s:.2f} s "
            f"({DRAW_S / draw_s:.1f}x under the {DRAW_S:.0f} s budget)"
        )
        overlay = page.locator(".ipu-nb-timeline-overlay")
        overlay.click(position={"x": 300, "y": 5})  # a pick (cursor + inspector), then straight on
        trips, draws = [], []
        actions = ["+", "+", "ArrowRight", "ArrowRight", "+", "ArrowLeft", "-", "-", "-", "+", "ArrowRight", "0"]
        for key in actions:
            before = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.requestId"))
            page.keyboard.press(key)
            # Every window asked for after the key (its own request, and any trailing one for
            # the final view) until all are answered; each trip is request sent → reply decoded.
            page.wait_for_function(
                "(before) => { const w = document.querySelector('.ipu-nb-widget');"
                " const sent = Number(w.dataset.requestId); return sent > before"
                " && w.ipuTrips.some(t => t.id === sent); }",
                arg=before,
                timeout=30_000,
            )
            page.wait_for_timeout(150)  # a trailing request would be sent by now
            page.wait_for_function(ANSWERED, timeout=30_000)
            mine = page.eval_on_selector(".ipu-nb-widget", "(w, b) => w.ipuTrips.filter(t => t.id > b)", before)
            for t in mine:
                trips.append(t["roundTripMs"])
                draws.append(t["drawMs"])
                print(
                    f"  key {key!r:>12}: request {t['id']:>3} {t['mode']:>4} round trip {t['roundTripMs']:6.1f} ms"
                    f" (decode {t['decodeMs']:4.1f} ms; sent {t['waitMs']:4.1f} ms after the view changed),"
                    f" draw {t['drawMs']:5.1f} ms"
                )
        last = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId"))
        median = statistics.median(trips)
        over = [round(t) for t in trips if t > ROUND_TRIP_MS]
        print(
            f"browser pan/zoom round trips ({len(trips)}): median {median:.0f} ms, max {max(trips):.0f} ms,"
            f" {len(over)} over {ROUND_TRIP_MS:.0f} ms {over if over else ''}; draw median"
            f" {statistics.median(draws):.1f} ms; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        OUTPUT.mkdir(exist_ok=True)
        page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / "widget-full.png"))
        for key in ("+", "+", "+"):
            page.keyboard.press(key)
            last = wait_window(page, last, timeout=30)
        page.wait_for_timeout(300)
        page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / "widget-full-zoomed.png"))
        lab.shutdown_sessions(name)
        browser.close()
    return draw_s, trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-browser", action="store_true", help="skip the JupyterLab + Chromium part")
    parser.add_argument("--repeat", type=int, default=3, help="runs per Python-side measurement (best is kept)")
    parser.add_argument("--browser-runs", type=int, default=1, help="fresh JupyterLab + Chromium runs (all reported)")
    args = parser.parse_args()
    path = ipu_nb.demo_profile_path("full")
    began = time.perf_counter()
    profile = ipu_nb.open_profile(path, progress=False)
    print(f"{profile} (opened in {time.perf_counter() - began:.1f} s)")
    python_side(profile, args.repeat)
    if not args.no_browser:
        draws, trips = [], []
        for run in range(args.browser_runs):
            if args.browser_runs > 1:
                print(f"-- browser run {run + 1} of {args.browser_runs}")
            draw_s, run_trips = browser_side(path)
            draws.append(draw_s)
            trips += run_trips
        if args.browser_runs > 1:
            over = [round(t) for t in trips if t > ROUND_TRIP_MS]
            print(
                f"all {args.browser_runs} runs: first draw {min(draws):.2f}-{max(draws):.2f} s;"
                f" {len(trips)} round trips, median {statistics.median(trips):.0f} ms, max {max(trips):.0f} ms,"
                f" {len(over)} over {ROUND_TRIP_MS:.0f} ms {over if over else ''}"
            )


if __name__ == "__main__":
    main()
