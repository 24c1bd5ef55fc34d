"""Area selection speed on the full-size demo profile (1,170,240 samples) against the issue's budgets.

Run: `.venv/bin/python benchmarks/bench_selection.py [--no-browser | --no-python] [--repeat N] [--areas N]`.

Python side: `widget.selection_samples` for areas of about 10k, 100k and 300k samples (budget
100 ms at 100k), beside the clipped `ipu_nb.query` the same area's groups cost and an
unwindowed query, and the kernel's whole panel update for an area (the `area`, `groups` and
`flame` pushes, caches cleared). Browser side (headless Chromium in JupyterLab, as the tests
run it): Alt+drag areas of about 100k samples at different places of the timeline and time,
as the widget measures it, from the drag's release (the `selection` trait set) to the frame
after its panel, group table and flame graph are all shown (budget 150 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

from timing import best  # noqa: E402

import ipu_nb  # noqa: E402
from ipu_nb._query import make_query, query  # noqa: E402
from ipu_nb._widget.widget import ProfileWidget  # noqa: E402

SAMPLES_MS = 100.0
PANEL_MS = 150.0
GUTTER = 46


def area_of(widget: ProfileWidget, samples: int, at: float) -> dict[str, Any]:
    """An area over every tile starting at fraction `at` of the span, wide enough for about `samples` samples."""
    span = widget.view[1]
    per_cycle = widget.profile.sample_count / span
    width = max(8, int(samples / per_cycle))
    start = int(span * at)
    return {"start": start, "end": min(span, start + width), "tiles": None}


def fresh(widget: ProfileWidget) -> None:
    widget._areas.clear()
    widget._flames.clear()
    widget._group_rows.clear()


def python_side(profile: ipu_nb.Profile, repeat: int) -> None:
    widget = ProfileWidget(profile)
    widget.send = lambda content, buffers=None: None  # type: ignore[method-assign]
    unwindowed, _ = best(lambda: query(profile), repeat)
    print(f"an unwindowed ipu_nb.query(profile): {unwindowed * 1000:.1f} ms (for scale)")
    print(
        f"{'area':>10} {'samples':>9} {'selection_samples':>18} {'vs 100 ms':>10}"
        f" {'clipped query':>14} {'panel (kernel)':>15} {'vs 150 ms':>10}"
    )
    for target in (10_000, 100_000, 300_000):
        selection = area_of(widget, target, 0.37)
        widget.selection = selection

        def samples() -> int:
            fresh(widget)
            return widget.selection_samples.height

        def panel() -> None:
            fresh(widget)
            widget._send_area()
            widget._send_groups()
            widget._send_flame()

        frames, _ = best(samples, repeat)
        q = make_query(widget.query, window=(selection["start"], selection["end"]), clip=True)
        clipped, _ = best(lambda q=q: query(profile, q), repeat)
        whole, _ = best(panel, repeat)
        print(
            f"{f'~{target:,}':>10} {samples():>9,} {frames * 1000:>15.1f} ms {SAMPLES_MS / (frames * 1000):>8.1f}x"
            f" {clipped * 1000:>11.1f} ms {whole * 1000:>12.1f} ms {PANEL_MS / (whole * 1000):>8.1f}x"
        )
    widget.close()


BROWSER_CELLS = [
    "import ipu_nb\nprofile = ipu_nb.open_profile({path!r}, progress=False)",
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
# The kernel's side of each trip: when the trait update arrived, and when each view was sent.
KERNEL_CLOCK = """
import time
_marks = []
def _timed(name, fn):
    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        _marks.append((name, time.perf_counter()))
        return out
    return run
_set_state = widget.set_state
def _arrived(state):
    if 'selection' in state:
        _marks.append(('update', time.perf_counter()))
    return _set_state(state)
widget.set_state = _arrived
for _name in ('area', 'groups', 'flame'):
    setattr(widget, f'_send_{_name}', _timed(_name, getattr(widget, f'_send_{_name}')))
"""
KERNEL_TRIP = (
    "(lambda t0: {name: round((t - t0) * 1000, 1) for name, t in _marks[_marks.index(next(m for m in _marks"
    " if m[0] == 'update')):]})(next(t for n, t in _marks if n == 'update'))"
)


def browser_side(path: Path, areas: int) -> list[dict[str, Any]]:
    from lab import Page, launch_chromium, running_lab
    from playwright.sync_api import sync_playwright

    out = []
    with tempfile.TemporaryDirectory() as tmp, running_lab(Path(tmp)) as lab, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1500, "height": 1400})
        name = lab.notebook([c.format(path=str(path)) for c in BROWSER_CELLS])
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
        nb = Page(page, lab, name)
        nb.wait_ready()
        nb.run_all()
        page.wait_for_function(
            "() => { const w = document.querySelector('.ipu-nb-widget'); return w && w.dataset.final === 'true'"
            " && w.dataset.inFlight === 'false'; }",
            timeout=1_200_000,
        )
        page.wait_for_timeout(3000)  # the side views of the first picture
        nb.kernel("0", KERNEL_CLOCK)
        box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
        span = nb.kernel("widget.view[1]")
        per_cycle = nb.kernel("profile.sample_count") / span
        plot = box["width"] - GUTTER
        height = page.eval_on_selector(".ipu-nb-timeline-overlay", "c => c.clientHeight")
        for i in range(areas):
            width = 100_000 / per_cycle
            at = 0.05 + (0.85 * i) / max(1, areas - 1)
            x0 = box["x"] + GUTTER + at * plot
            x1 = x0 + width / span * plot
            page.keyboard.down("Alt")
            page.mouse.move(x0, box["y"] + 2)
            page.mouse.down()
            page.mouse.move(x1, box["y"] + height - 2, steps=4)
            page.mouse.up()
            page.keyboard.up("Alt")
            page.wait_for_function("(n) => document.querySelector('.ipu-nb-widget').ipuAreaTrips.length > n", arg=i)
            trip = page.eval_on_selector(".ipu-nb-widget", "w => w.ipuAreaTrips[w.ipuAreaTrips.length - 1]")
            count = nb.kernel("widget.selection_samples.height")
            kernel = nb.kernel(KERNEL_TRIP, "")
            nb.kernel("0", "_marks.clear()")
            out.append({"at": at, "samples": count, **trip, "kernel": kernel})
            parts = f"panel {trip['area']:.0f} ms, groups {trip['groups']:.0f}, flame graph {trip['flame']:.0f}"
            sent = ", ".join(f"{k} {v:.0f}" for k, v in kernel.items() if k != "update")
            parts += f"; the kernel sent them {sent} ms after the update arrived"
            print(
                f"  area at {at:.0%} of the span: {count:>8,} samples, all shown {trip['total']:7.1f} ms after the"
                f" release ({parts})"
            )
            page.wait_for_timeout(500)
        lab.shutdown_sessions(name)
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-browser", action="store_true", help="skip the JupyterLab + Chromium part")
    parser.add_argument("--no-python", action="store_true", help="skip the Python-side measurements")
    parser.add_argument("--repeat", type=int, default=5, help="runs per Python-side measurement (best is kept)")
    parser.add_argument("--areas", type=int, default=8, help="areas selected in the browser")
    args = parser.parse_args()
    path = ipu_nb.demo_profile_path("full")
    profile = ipu_nb.open_profile(path, progress=False)
    print(f"profile: {profile.sample_count:,} samples on {profile.tile_count:,} tiles")
    if not args.no_python:
        python_side(profile, args.repeat)
    if args.no_browser:
        return
    print("browser: Alt+drag an area of ~100k samples over every tile, release → panel, groups and flame graph shown")
    trips = browser_side(path, args.areas)
    times = [t["total"] for t in trips]
    median = statistics.median(times)
    print(
        f"  median {median:.1f} ms, max {max(times):.1f} ms over {len(times)} areas:"
        f" {PANEL_MS / median:.1f}x under the {PANEL_MS:.0f} ms budget at the median"
    )


if __name__ == "__main__":
    main()
