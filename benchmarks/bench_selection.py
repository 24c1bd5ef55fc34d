"""Area selection speed on the full-size demo profile (1,170,240 samples) against the issue's budgets.

Run: `.venv/bin/python benchmarks/bench_selection.py [--no-browser | --no-python] [--repeat N] [--areas N]
[--baseline DIR [--rounds N]]`.

Python side: `widget.selection_samples` for areas of about 10k, 100k and 300k samples (budget
100 ms at 100k), beside the clipped `ipu_nb.query` the same area's groups cost and an
unwindowed query, and the kernel's whole panel update for an area (the `area`, `flame` and
`groups` pushes, caches cleared). Browser side (headless Chromium in JupyterLab, as the tests
run it): Alt+drag areas of about 100k samples at different places of the timeline and time,
as the widget measures it, from the drag's release (the `selection` trait set) to the frame
after its panel, group table and flame graph are all shown (budget 150 ms), with each trip's
stages: when the kernel got the update, began and sent each part, and when each part's
message was heard and shown in the page.

With `--baseline DIR` (another checkout, e.g. of main, with its bundle and C interner built)
the same measurements run for that code beside this one in the same run: the kernel's parts
in fresh interpreters taking turns, and the browser's trips in one JupyterLab, one notebook
per code (each kernel imports ipu_nb, and so the bundle, from its checkout), `--rounds` times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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
    widget._answers.areas.forget()
    widget._answers.flames.forget()
    widget._answers.groups.forget()


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

        frames, _ = best(samples, repeat)
        q = make_query(widget.query, window=(selection["start"], selection["end"]), clip=True)
        clipped, _ = best(lambda q=q: query(profile, q), repeat)
        whole, _ = best(lambda: panel(widget), repeat)
        print(
            f"{f'~{target:,}':>10} {samples():>9,} {frames * 1000:>15.1f} ms {SAMPLES_MS / (frames * 1000):>8.1f}x"
            f" {clipped * 1000:>11.1f} ms {whole * 1000:>12.1f} ms {PANEL_MS / (whole * 1000):>8.1f}x"
        )
    widget.close()


def panel(widget: ProfileWidget) -> None:
    """The kernel's whole work for a new area: its three pushes, nothing cached."""
    fresh(widget)
    widget._views.send("area", "flame", "groups")


def panel_parts(profile: ipu_nb.Profile, repeat: int) -> dict[str, float]:
    """Best wall and CPU ms of each part of the kernel's work for an area of ~100k samples.

    `selection_samples` with nothing cached; each push from the area's samples as cached
    (as the kernel sends them, after the first has gathered them); the whole panel fresh.
    """
    widget = ProfileWidget(profile)
    widget.send = lambda content, buffers=None: None  # type: ignore[method-assign]
    widget.selection = area_of(widget, 100_000, 0.37)

    def cached(send: Any) -> Any:
        def run() -> None:
            widget._answers.flames.forget()
            widget._answers.groups.forget()
            send()

        return run

    parts = {
        "selection_samples": lambda: (fresh(widget), widget.selection_samples),
        "area push": cached(lambda: widget._views.send("area")),
        "flame push": cached(lambda: widget._views.send("flame")),
        "groups push": cached(lambda: widget._views.send("groups")),
        "panel": lambda: panel(widget),
    }
    out = {}
    for name, run in parts.items():
        wall, cpu = best(run, repeat)
        out[name], out[f"{name} cpu"] = round(wall * 1000, 2), round(cpu * 1000, 2)
    widget.close()
    return out


def parts_side_by_side(roots: list[Path], repeat: int, rounds: int) -> None:
    """`panel_parts` of each code root in fresh interpreters taking turns; best of the rounds."""
    runs: dict[Path, dict[str, float]] = {}
    for _ in range(rounds):
        for root in roots:
            env = {**os.environ, "PYTHONPATH": str(root)}
            out = subprocess.run(
                [sys.executable, __file__, "--parts-json", "--repeat", str(repeat)],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            got = json.loads(out.stdout.strip().splitlines()[-1])
            if got.pop("code") != str(root):
                raise RuntimeError(f"the run for {root} imported ipu_nb from elsewhere")
            runs[root] = {k: min(v, runs.get(root, {}).get(k, v)) for k, v in got.items()}
    base, this = runs[roots[0]], runs[roots[-1]]
    print(f"kernel work for an area of ~100k samples, ms (best of {rounds} x {repeat}; load average {load()}):")
    print(f"  {'part':<18} {'baseline':>9} {'this':>9} {'this/base':>10}   {'cpu base':>9} {'cpu this':>9}")
    for name in (k for k in this if not k.endswith(" cpu")):
        print(
            f"  {name:<18} {base[name]:>9.1f} {this[name]:>9.1f} {this[name] / base[name]:>10.2f}"
            f"   {base[name + ' cpu']:>9.1f} {this[name + ' cpu']:>9.1f}"
        )


BROWSER_CELLS = [
    "import sys\nsys.path.insert(0, {root!r})\nimport ipu_nb\nprofile = ipu_nb.open_profile({path!r}, progress=False)",
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
# The kernel's side of each trip, on the wall clock: when the trait update arrived, and when
# each view's job began and its push was sent.
KERNEL_CLOCK = """
import time
_marks = []
def _timed(name, fn):
    def run(*args, **kwargs):
        _marks.append((name + ' begun', time.time()))
        out = fn(*args, **kwargs)
        _marks.append((name, time.time()))
        return out
    return run
_set_state = widget.set_state
def _arrived(state):
    if 'selection' in state:
        _marks.append(('update', time.time()))
    return _set_state(state)
widget.set_state = _arrived
for _name in ('area', 'groups', 'flame'):
    setattr(widget, f'_send_{_name}', _timed(_name, getattr(widget, f'_send_{_name}')))
"""
PARTS = ("area", "groups", "flame")


def breakdown(trip: dict[str, Any], marks: list[tuple[str, float]]) -> dict[str, float]:
    """One trip's stages in ms from the release (the `selection` trait set in the browser).

    ``kernel``: the update arrived in the kernel; per part ``<part> begun`` and ``<part> sent``
    (the kernel's job), ``<part> heard`` (its message reached the widget; absent from bundles
    older than the field) and ``<part> shown``; ``total``: the frame after the last was shown.
    """
    at = trip["setAt"] / 1000 if "setAt" in trip else None
    out: dict[str, float] = {}
    if at is not None:
        for name, t in marks:
            key = "kernel" if name == "update" else (name if name.endswith("begun") else f"{name} sent")
            out.setdefault(key, round((t - at) * 1000, 1))
    for part in PARTS:
        if part in trip.get("heard", {}):
            out[f"{part} heard"] = round(trip["heard"][part], 1)
        out[f"{part} shown"] = round(trip[part], 1)
    out["total"] = round(trip["total"], 1)
    return out


def browser_side(path: Path, areas: int, roots: list[Path]) -> dict[Path, list[dict[str, float]]]:
    """Each area's `breakdown`, per code root (the kernel imports ipu_nb, and so its bundle, from it).

    The roots take turns in one JupyterLab and Chromium, one notebook each, over the same areas.
    """
    from lab import Page, launch_chromium, running_lab
    from playwright.sync_api import sync_playwright

    out: dict[Path, list[dict[str, float]]] = {r: [] for r in roots}
    with tempfile.TemporaryDirectory() as tmp, running_lab(Path(tmp)) as lab, sync_playwright() as p:
        browser = launch_chromium(p)
        for k, root in enumerate(roots):
            page = browser.new_page(viewport={"width": 1500, "height": 1400})
            name = lab.notebook([c.format(path=str(path), root=str(root)) for c in BROWSER_CELLS])
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
            shown = nb.kernel("ipu_nb.__file__")
            print(f"  code {k + 1} of {len(roots)}: {shown} (load average {load()})")
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
                # Polled on a timer, not every frame: a poll in each frame would run beside the work it times.
                page.wait_for_function(
                    "(n) => document.querySelector('.ipu-nb-widget').ipuAreaTrips.length > n", arg=i, polling=50
                )
                trip = page.eval_on_selector(".ipu-nb-widget", "w => w.ipuAreaTrips[w.ipuAreaTrips.length - 1]")
                count = nb.kernel("widget.selection_samples.height")
                marks = nb.kernel("_marks", "")
                nb.kernel("0", "_marks.clear()")
                stages = breakdown(trip, marks)
                out[root].append(stages)
                print(f"    area at {at:.0%} of the span, {count:,} samples: " + stage_line(stages))
                page.wait_for_timeout(500)
            lab.shutdown_sessions(name)
            page.close()
        browser.close()
    return out


def stage_line(stages: dict[str, float]) -> str:
    """The stages of a trip in the order they happened."""
    return ", ".join(f"{k} {v:.0f}" for k, v in sorted(stages.items(), key=lambda kv: kv[1]))


def load() -> str:
    """The 1-minute load average (the machine is shared: read the figures beside it)."""
    return f"{os.getloadavg()[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-browser", action="store_true", help="skip the JupyterLab + Chromium part")
    parser.add_argument("--no-python", action="store_true", help="skip the Python-side measurements")
    parser.add_argument("--repeat", type=int, default=5, help="runs per Python-side measurement (best is kept)")
    parser.add_argument("--areas", type=int, default=8, help="areas selected in the browser, per code and round")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of other code (e.g. main, its bundle and C interner built) to time beside this one",
    )
    parser.add_argument("--rounds", type=int, default=1, help="with --baseline: turns each code takes")
    parser.add_argument("--parts-json", action="store_true", help=argparse.SUPPRESS)  # one run of panel_parts
    args = parser.parse_args()
    path = ipu_nb.demo_profile_path("full")
    profile = ipu_nb.open_profile(path, progress=False)
    if args.parts_json:
        print(json.dumps({"code": str(Path(ipu_nb.__file__).parent.parent), **panel_parts(profile, args.repeat)}))
        return
    print(f"profile: {profile.sample_count:,} samples on {profile.tile_count:,} tiles (load average {load()})")
    if not args.no_python:
        python_side(profile, args.repeat)
        if args.baseline is not None:
            parts_side_by_side([args.baseline.resolve(), ROOT], args.repeat, max(args.rounds, 2))
    if args.no_browser:
        return
    print("browser: Alt+drag an area of ~100k samples over every tile, release → panel, groups and flame graph shown")
    print("  (ms from the release: the kernel got the update, each part's job begun and sent, heard and shown here)")
    roots = [ROOT] if args.baseline is None else [args.baseline.resolve(), ROOT]
    runs: dict[Path, list[dict[str, float]]] = {r: [] for r in roots}
    for _ in range(args.rounds if args.baseline else 1):
        for root, trips in browser_side(path, args.areas, roots).items():
            runs[root].extend(trips)
    medians = {}
    for root, trips in runs.items():
        times = [t["total"] for t in trips]
        medians[root] = statistics.median(times)
        stages = {k: statistics.median(t[k] for t in trips if k in t) for k in trips[0]}
        print(
            f"  {root}: median {medians[root]:.1f} ms, max {max(times):.1f} ms over {len(times)} areas"
            f" ({PANEL_MS / medians[root]:.1f}x under the {PANEL_MS:.0f} ms budget at the median)"
        )
        print(f"    median stages: {stage_line(stages)}")
    if args.baseline:
        print(f"  this code / baseline at the median: {medians[ROOT] / medians[roots[0]]:.2f} (load average {load()})")


if __name__ == "__main__":
    main()
