"""Timeline speed against the issue's budgets, from the browser: input event to canvas.

Run: `.venv/bin/python benchmarks/bench_widget.py [--profiles full,10m] [--modes quiet,loaded]`.

Python side (full-size profile): widget construction, and the kernel's answer for the cache
blocks of views from the whole profile down to 0.1 % of it, the C summary and numpy's side
by side. Per profile, the kernel's part of the first draw: the sorted index built in line and
the first blocks from it, beside the widget's way (the index sorted on a thread, the first
blocks from the file-order samples meanwhile), the same bytes checked (`--first-draw`: only that).

Browser side (headless Chromium in JupyterLab, as the tests run it), per profile and mode:
a page script dispatches each input event (keys and wheel events, as a user's) and reads
the timeline's canvas at every animation frame after it until the widget has the final
picture, so every figure is input event → pixels on the canvas:

- first new picture: the first frame whose canvas differs (budget: median ≤ 16 ms, p95 ≤ 33 ms),
  read in a timer after the frame; also printed as read inside the frame's own callbacks, right
  after the widget's draw (the difference is the page's work queued behind the frame, such as
  decoding the prefetch replies: the picture itself was already there);
- refined picture: the first frame showing the final canvas (budget: median ≤ 100 ms quiet,
  ≤ 150 ms with the CPUs loaded), and whether a pan's first new frame already was the final one;
- a burst of 30 wheel events, one every 10 ms: the longest frame from the first event until
  the picture settles (budget: none over 50 ms), a frame being the time from one animation
  frame's start to the next's (the time stamps the browser gives the frames). Also printed:
  the longest interval between the page script's canvas reads, each in a timer after its
  frame, which adds the page's tasks queued behind a frame (decoding a reply, say) though the
  frame itself was on screen already;
- first draw: widget created in the kernel → first complete picture (budget ≤ 1.5 s);
- the kernel's (Python-side) cost of each refinement, from the replies closing each request;
- a comm echo (page → kernel → page, 10 bytes and 100 KB): the Jupyter server's own latency,
  with and without ipu-nb's server extension (TCP_NODELAY on the kernel websocket) when
  `--server-extension both` runs the two side by side.

"loaded" runs one busy-looping process per CPU alongside. `--bundle NAME=PATH` (repeatable)
runs the same in a fresh JupyterLab for each front-end bundle given (e.g. main's build beside
this checkout's), one after the other in the same run, so their figures compare side by side;
`--parts` runs only some of the actions (the navigation, the cold drag-zooms, the burst).
The 10M profile is the generator's MLP cut to 2,300 phases (10,156,800 samples, 6.2 GB):
generated once (`--large PATH`, default below) and reused.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "browser")]

import numpy as np  # noqa: E402

import ipu_nb  # noqa: E402
from ipu_nb._widget.lod import native  # noqa: E402
from ipu_nb._widget.widget import ProfileWidget  # noqa: E402

LARGE = Path(os.environ.get("IPU_NB_BENCH_LARGE", "/tmp/ipu-nb-bench/mlp-10m.capnp"))
LARGE_PHASES = 2300
BUDGET = {"first_median": 16.0, "first_p95": 33.0, "refined_quiet": 100.0, "refined_loaded": 150.0}
BURST_FRAME_MS = 50.0
FIRST_DRAW_S = 1.5
BINS = 512

# ---- the page script: input event → canvas ---------------------------------------------------

MEASURE_JS = """
async ([kind, arg, timeoutMs]) => {
  const w = document.querySelector('.ipu-nb-widget');
  const base = document.querySelector('.ipu-nb-timeline-base');
  const overlay = document.querySelector('.ipu-nb-timeline-overlay');
  // 24 full-width pixel rows spread over the canvas: any pan, zoom or refinement changes some
  // of them, and reading them costs well under a millisecond (the whole canvas would take
  // several, delaying the very frames measured).
  const hash = () => {
    const ctx = base.getContext('2d');
    let h = 2166136261;
    for (let k = 0; k < 24; k++) {
      const y = Math.floor(((k + 0.5) * base.height) / 24);
      const d = ctx.getImageData(0, y, base.width, 1).data;
      for (let i = 0; i < d.length; i += 4) h = Math.imul(h ^ (d[i] | d[i + 1] << 8 | d[i + 2] << 16), 16777619) >>> 0;
    }
    return h + ':' + base.width + 'x' + base.height;
  };
  const rect = overlay.getBoundingClientRect();
  const at = (f) => ({clientX: rect.left + 46 + f * (rect.width - 46), clientY: rect.top + 200, button: 0,
    bubbles: true, cancelable: true});
  const fire = (step) => {
    if (step.key) w.dispatchEvent(new KeyboardEvent('keydown', {key: step.key, bubbles: true, cancelable: true}));
    else if (step.drag) {
      overlay.dispatchEvent(new MouseEvent('mousedown', at(step.drag[0])));
      overlay.dispatchEvent(new MouseEvent('mousemove', at((step.drag[0] + step.drag[1]) / 2)));
      overlay.dispatchEvent(new MouseEvent('mousemove', at(step.drag[1])));
      window.dispatchEvent(new MouseEvent('mouseup', at(step.drag[1])));
    }
    else overlay.dispatchEvent(new WheelEvent('wheel', {deltaY: step.wheel, deltaX: step.dx || 0,
      clientX: rect.left + 46 + step.at * (rect.width - 46), clientY: rect.top + 200,
      bubbles: true, cancelable: true}));
  };
  const before = hash();
  const framesBefore = w.ipuFrames.length;
  const tasks = [];
  const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
  observer.observe({type: 'longtask', buffered: false});
  // What made a frame long (Chromium's long animation frames): the scripts that ran in it, by
  // who called them, and the time spent rendering; a diagnosis printed beside the figures.
  const frames = [];
  const loaf = new PerformanceObserver((list) => frames.push(...list.getEntries().map((e) => ({
    at: e.startTime - t0, ms: e.duration,
    renderMs: e.duration - (e.renderStart ? e.renderStart - e.startTime : e.duration),
    scripts: e.scripts.map((x) => [x.invoker || x.invokerType, Math.round(x.duration), x.sourceFunctionName || '']),
  }))));
  if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
    loaf.observe({type: 'long-animation-frame', buffered: false});
  }
  const seen = [];  // [frame start (ms), canvas hash]
  const inFrame = [];  // [ms, canvas hash] read inside each frame's callbacks, after the widget's draw
  const frameStarts = [];  // each animation frame's own time stamp (when the frame began)
  const steps = kind === 'burst' ? arg : [arg];
  const t0 = performance.now();
  let fired = 0;
  fire(steps[fired++]);
  const spacing = kind === 'burst' ? 10 : 0;
  const more = spacing ? setInterval(() => { if (fired < steps.length) fire(steps[fired++]); }, spacing) : null;
  let quietSince = null;
  await new Promise((resolve) => {
    // Read after the frame's callbacks (the widget draws in one): the time the canvas showed it by.
    const tick = (frameAt) => { frameStarts.push(frameAt); inFrame.push([performance.now(), hash()]); setTimeout(() => {
      const ts = performance.now();
      const h = hash();
      if (!seen.length || seen[seen.length - 1][1] !== h) quietSince = null;
      seen.push([ts, h]);
      const settled = fired === steps.length && w.dataset.final === 'true' && w.dataset.inFlight === 'false';
      if (settled) quietSince = quietSince ?? ts; else quietSince = null;
      if ((quietSince !== null && ts - quietSince > 250) || performance.now() - t0 > timeoutMs) resolve();
      else requestAnimationFrame(tick);
    }, 0); };
    requestAnimationFrame(tick);
  });
  if (more) clearInterval(more);
  observer.disconnect();
  loaf.disconnect();
  const final = seen[seen.length - 1][1];
  const first = seen.find(([, h]) => h !== before);
  const firstInFrame = inFrame.find(([, h]) => h !== before);
  const refined = seen.find(([, h]) => h === final);
  let longest = 0;
  for (let i = 1; i < seen.length; i++) longest = Math.max(longest, seen[i][0] - seen[i - 1][0]);
  const gaps = [];  // [when a frame began (ms after the first event), how long until the next began]
  for (let i = 1; i < frameStarts.length; i++) {
    gaps.push([frameStarts[i - 1] - t0, frameStarts[i] - frameStarts[i - 1]]);
  }
  gaps.sort((a, b) => b[1] - a[1]);
  const widgetFrames = w.ipuFrames.slice(framesBefore);
  return {
    firstMs: first ? first[0] - t0 : null,
    firstInFrameMs: firstInFrame ? firstInFrame[0] - t0 : null,
    refinedMs: refined && final !== before ? refined[0] - t0 : null,
    firstIsFinal: first ? first[1] === final : null,
    changed: final !== before,
    longestFrameMs: gaps.length ? gaps[0][1] : 0,
    longestReadMs: longest,
    longestGaps: gaps.slice(0, 3),
    startEpochMs: Date.now() - (performance.now() - t0),
    settled: quietSince !== null,
    widgetFirstFinal: widgetFrames.length ? widgetFrames[0].final : null,
    widgetDrawMs: widgetFrames.map((f) => f.drawMs),
    // Each picture the widget drew meanwhile: when (from the first event), its draw, what it drew from.
    widgetFrames: widgetFrames.map((f) => ({at: f.at - t0, drawMs: f.drawMs, made: f.made, blocks: f.blocks,
      exact: f.exact, standIns: f.standIns, final: f.final, level: f.level})),
    longTasksMs: tasks,
    longFrames: frames.filter((f) => f.at >= 0),
    // The first frames as the page script saw them: read in the frame's callbacks, then in a timer after it.
    ticks: inFrame.slice(0, 6).map(([t, h], i) => [t - t0, seen[i] ? seen[i][0] - t0 : null, h !== before]),
    level: Number(w.dataset.level),
  };
}
"""

# A comm echo through the page's own kernel connection: what the Jupyter stack adds to any reply.
ECHO_KERNEL = """
def _echo_target(comm, open_msg):
    comm.on_msg(lambda msg: comm.send({}, buffers=[bytes(msg["content"]["data"]["size"])]))
get_ipython().kernel.comm_manager.register_target("ipu-nb-bench-echo", _echo_target)
"""
ECHO_JS = """async ([size, n]) => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const comm = kernel.createComm('ipu-nb-bench-echo');
  await comm.open({}).done;
  const out = [];
  for (let i = 0; i < n; i++) {
    const got = new Promise((resolve) => { comm.onMsg = resolve; });
    const t0 = performance.now();
    comm.send({size});
    await got;
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 30));
  }
  comm.close();
  return out;
}"""

# A navigation as a user would: zoom in with the wheel and keys, pan, zoom out, home.
ACTIONS: list[tuple[str, dict[str, Any]]] = [
    ("wheel in", {"wheel": -120, "at": 0.4}),
    ("wheel in", {"wheel": -120, "at": 0.4}),
    ("wheel in", {"wheel": -120, "at": 0.4}),
    ("key +", {"key": "+"}),
    ("pan d", {"key": "d"}),
    ("pan d", {"key": "d"}),
    ("pan a", {"key": "a"}),
    ("key +", {"key": "+"}),
    ("pan d", {"key": "d"}),
    ("pan ArrowRight", {"key": "ArrowRight"}),
    ("pan a", {"key": "a"}),
    ("wheel in", {"wheel": -120, "at": 0.7}),
    ("key +", {"key": "+"}),
    ("pan d", {"key": "d"}),
    ("pan ArrowLeft", {"key": "ArrowLeft"}),
    ("wheel out", {"wheel": 120, "at": 0.5}),
    ("key -", {"key": "-"}),
    ("key -", {"key": "-"}),
    ("pan a", {"key": "a"}),
    ("key 0", {"key": "0"}),
]
BURST = [{"wheel": -60, "at": 0.35} for _ in range(30)]
# Jumps the prefetch cannot foresee: from the whole profile, drag-zoom onto 3 % of it at random
# places, so the kernel has to answer (the first frame shows coarser blocks meanwhile).
_places = np.random.default_rng(17).uniform(0.02, 0.95, 6)
COLD: list[tuple[str, dict[str, Any]]] = [
    step for f in _places for step in (("key 0", {"key": "0"}), ("drag 3 %", {"drag": [float(f), float(f) + 0.03]}))
]


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def most(values: list[float]) -> float:
    return max(values) if values else float("nan")


# ---- Python side -----------------------------------------------------------------------------


def home_blocks(span: int, pixels: int = 1300) -> tuple[int, list[int]]:
    """The level and blocks the front end asks for first (js/timeline/levels.ts levelFor, blocksIn): the whole span."""
    per_pixel = max(span, 8) / pixels
    level = 0 if per_pixel <= 1 else int(np.ceil(np.log2(per_pixel) - 1e-9))
    return level, list(range((max(span, 8) - 1) // (BINS << level) + 1))


@contextlib.contextmanager
def threaded_side_views() -> Iterator[None]:
    """Widgets made inside run their side views on the worker thread, as in a kernel, and skip the
    warm-up (after the first picture; left running it would load the measurements that follow)."""
    from ipu_nb._widget import widget as module

    original, warm_up = module.in_kernel, module.ProfileWidget._warm_up
    module.in_kernel = lambda: True
    module.ProfileWidget._warm_up = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        module.in_kernel, module.ProfileWidget._warm_up = original, warm_up  # type: ignore[method-assign]


def first_draw_breakdown(profile: ipu_nb.Profile) -> None:
    """The kernel's part of the first draw, in line and as the widget does it, side by side.

    In line: the sorted index first (`lod.build_index`, as the constructor did before the index
    moved to a thread), then the first blocks from it. The widget: the constructor starts the
    build on a thread; the first blocks come from the file-order samples (`lod.FileRuns` read in
    place, or `lod.UnsortedSamples`) while the index is not sorted. Both answers are compared byte for byte.
    """
    from ipu_nb._widget import lod

    level, wanted = home_blocks(lod.timeline_facts(profile.samples, profile.tiles).span)

    def answer(widget: ProfileWidget) -> list[tuple[dict, list[bytes]]]:
        return [(header, buffers) for _, header, buffers, _ in widget.block_answers(level, BINS, wanted)]

    began = time.perf_counter()
    old_index = lod.build_index(profile.samples, profile.tiles)
    old_built = time.perf_counter() - began
    began = time.perf_counter()
    old = list(lod.blocks(old_index, level, BINS, wanted, None, "kind"))
    old_encoded = [lod.encode_window(b.answer) for b in old]
    old_first = time.perf_counter() - began
    del old_index, old
    began = time.perf_counter()
    with threaded_side_views():
        widget = ProfileWidget(profile)
    constructed = time.perf_counter() - began
    early = widget._shown_now().side.build.early()
    early_at = time.perf_counter() - began
    new = answer(widget)
    answered_at = time.perf_counter() - began
    early_kind = "the index" if early is None else type(early).__name__
    widget._shown_now().side.build.index()
    indexed_at = time.perf_counter() - began
    same = new == old_encoded
    print(
        f"first draw, kernel side ({profile.sample_count:,} samples, level {level} blocks {wanted}; load"
        f" {os.getloadavg()[0]:.1f}):\n"
        f"   in line: sorted index {old_built * 1000:.0f} ms, then the first blocks {old_first * 1000:.0f} ms:"
        f" {(old_built + old_first) * 1000:.0f} ms before the reply\n"
        f"   widget: constructor {constructed * 1000:.0f} ms, file-order samples ready at {early_at * 1000:.0f} ms,"
        f" first blocks answered at {answered_at * 1000:.0f} ms (from {early_kind}), index sorted at"
        f" {indexed_at * 1000:.0f} ms; the same bytes: {same}"
    )
    widget.close()


def open_latencies(profile: ipu_nb.Profile) -> dict[str, float]:
    """The kernel's part of opening a widget, as in a kernel (side views and findings on their threads):
    seconds from construction to the first picture's closing reply and to each side panel's first message.

    The front end's opening is played as the kernel gets it: the first picture's blocks, the hello, the
    group table's request; a user reading (no move) after that.
    """
    from ipu_nb._widget import widget as module
    from ipu_nb._widget.handlers import handle

    arrived: dict[str, float] = {}
    began = time.perf_counter()

    class Recorder(ProfileWidget):
        def _push(self, message: Any, buffers: list[bytes] | None = None) -> None:
            arrived.setdefault(str(message.get("type")), time.perf_counter() - began)

    original = module.in_kernel
    module.in_kernel = lambda: True
    try:
        widget = Recorder(profile)
    finally:
        module.in_kernel = original
    widget.observe(lambda _: arrived.setdefault("findings", time.perf_counter() - began), "finding_rows")
    span = widget._shown_now().side.facts.span
    level, wanted = home_blocks(span)
    blocks = {"type": "blocks", "view": "bench", "id": 1, "level": level, "bins": BINS, "blocks": wanted}
    blocks |= {"labels": False, "filters": widget.filters, "color_by": "kind", "start": 0, "end": span}
    handle(widget, blocks)  # the page sends it first: the kernel answers it before the hello
    handle(widget, {"type": "hello"})
    handle(widget, {"type": "groups", "id": 2})
    deadline = time.perf_counter() + 600
    while not {"flame", "groups", "findings"} <= arrived.keys() and time.perf_counter() < deadline:
        time.sleep(0.05)
    widget.close()
    return {"first picture": arrived.get("blocks", float("nan"))} | {
        name: arrived.get(name, float("nan")) for name in ("overview", "flame", "groups", "panel", "findings")
    }


def print_open_latencies(profile: ipu_nb.Profile) -> None:
    """`open_latencies`, one line."""
    times = open_latencies(profile)
    print(
        f"opening, kernel side ({profile.sample_count:,} samples; seconds from the constructor, load"
        f" {os.getloadavg()[0]:.1f}): " + ", ".join(f"{name} {s:.2f}" for name, s in times.items())
    )


def python_side(profile: ipu_nb.Profile, repeat: int) -> None:
    from ipu_nb._widget import lod

    began = time.perf_counter()
    widget = ProfileWidget(profile)
    built = time.perf_counter() - began
    widget._answers.flames.forget()
    widget._answers.groups.forget()
    began = time.perf_counter()
    widget._warm_up()  # outside a kernel it ran inline; in one, on the side-view worker after construction
    warm = time.perf_counter() - began
    print(f"widget construction {built - warm:.2f} s (index, mask, row facts), then side views warming up {warm:.2f} s")
    idx = widget._shown_now().side.index
    span = idx.span
    print(f"{'view':>18} {'level':>5} {'blocks':>6} {'samples':>10} {'C ms':>8} {'numpy ms':>9} {'ratio':>6}")
    for fraction in (1.0, 0.25, 0.05, 0.01, 0.001):
        width = max(int(span * fraction), 8)
        start = (span - width) // 2
        per_pixel = width / 1300  # a 1,300 device-pixel plot
        level = 0 if per_pixel <= 1 else int(np.ceil(np.log2(per_pixel)))
        first, last = start // (BINS << level), (start + width - 1) // (BINS << level)
        wanted = list(range(first, last + 1))
        samples = lod.count_in(idx, start, start + width)[0]
        times = {}
        for path in (True, False):
            native.NATIVE = path and native._LIB is not None
            best = float("inf")
            for _ in range(repeat):
                widget._answers.encoded.forget()
                t = time.perf_counter()
                list(widget.block_answers(level, BINS, wanted))  # a generator: consumed to compute
                best = min(best, time.perf_counter() - t)
            times[path] = best * 1000
        native.NATIVE = native._LIB is not None
        print(
            f"{f'{fraction:.1%} of the span':>18} {level:>5} {len(wanted):>6} {samples:>10,}"
            f" {times[True]:>8.1f} {times[False]:>9.1f} {times[False] / times[True]:>5.1f}x"
        )
    widget.close()


# ---- browser side ----------------------------------------------------------------------------


@contextlib.contextmanager
def cpu_burners(count: int) -> Iterator[None]:
    """`count` processes spinning on a CPU each, stopped (by their pids) on exit."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for p in burners:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGTERM)
            p.wait(timeout=10)


def cpu_by_process(since: dict[str, float] | None = None) -> dict[str, float]:
    """CPU seconds used so far by every process on the machine, summed by kind (from /proc): minus `since`'s."""
    tick = os.sysconf("SC_CLK_TCK")
    used: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            line = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        fields = text[text.rindex(")") + 2 :].split()
        kind = process_kind(text[text.index("(") + 1 : text.rindex(")")], line)
        used[kind] = used.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    if since is not None:
        used = {k: v - since.get(k, 0.0) for k, v in used.items()}
    return used


def process_kind(name: str, line: str) -> str:
    """A readable kind for process `name` run as `line`: kernel, Jupyter server, Chromium by type, or its name."""
    if "ipykernel" in line:
        return "kernel"
    if "jupyter" in line or "jupyterlab" in line:
        return "jupyter server"
    if "chrom" in name or "chrom" in line:
        # By words, not by the NUL-separated arguments: Chromium rewrites its children's as one string.
        kind = next((a.split("=", 1)[1] for a in line.split() if a.startswith("--type=")), "browser")
        return f"chromium {kind}"
    return name.split("/")[0]  # kworker/0:1-events: kworker


def settle(page: Any, timeout: float) -> None:
    page.wait_for_function(
        """() => { const w = document.querySelector('.ipu-nb-widget');
                   return w && w.dataset.final === 'true' && w.dataset.inFlight === 'false'; }""",
        timeout=timeout * 1000,
        polling=50,
    )


PARTS = ("actions", "cold", "burst")
"""What a browser run measures after the first draw and the side panels' arrival (``--parts open``: nothing more)."""

# The first draw, step by step: the kernel notes when it handled each message from the front end
# (and the index build's steps), the page when it heard each kernel message (its kernel-side send
# time is in the header) and when the widget's element appeared; `first_draw_marks` lines them up.
KERNEL_MARKS = """
_marks = {"messages": [], "cell_done": []}
get_ipython().events.register("post_run_cell", lambda result: _marks["cell_done"].append(time.time()))
class Widget(Widget):
    def _on_message(self, widget, content, buffers):
        began = time.time()
        try:
            super()._on_message(widget, content, buffers)
        finally:
            kind = content.get("type") if isinstance(content, dict) else None
            _marks["messages"].append([kind, began, time.time()])
"""
PAGE_MARKS = """() => {
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const heard = window.ipuHeard = [];
  kernel.anyMessage.connect((_, {msg, direction}) => {
    const data = (msg.content && msg.content.data) || {};
    const type = msg.header.msg_type;
    heard.push({at: Date.now(), direction, type, sent: msg.header.date,
      what: (data.content && data.content.type)
        || (data.method === 'update' && data.state ? `update ${Object.keys(data.state).join(',')}` : data.method) || '',
      bytes: type === 'comm_open' ? JSON.stringify(msg.content).length : 0});
  });
  const seen = new MutationObserver(() => {
    if (document.querySelector('.ipu-nb-widget')) { window.ipuWidgetAt = Date.now(); seen.disconnect(); }
  });
  seen.observe(document.body, {childList: true, subtree: true});
}"""


def first_draw_marks(page: Any, nb: Any, created: float, drawn: float) -> list[tuple[float, str]]:
    """What happened between the widget's creation and its first picture: (seconds after creation, what)."""
    from datetime import datetime

    kernel = nb.kernel("_marks", "_marks['build'] = getattr(widget._shown_now().side.build, 'marks', {})")
    heard = page.evaluate("() => window.ipuHeard")
    trips = page.eval_on_selector(".ipu-nb-widget", "w => w.ipuTrips")
    marks: list[tuple[float, str]] = [(t - created, "kernel: cell done") for t in kernel["cell_done"][:1]]
    marks += [(t - created, f"kernel: index build, {step}") for step, t in kernel["build"].items()]
    for kind, began, ended in kernel["messages"]:
        if began > drawn:
            break
        marks.append((began - created, f"kernel: handling {kind}"))
        marks.append((ended - created, f"kernel: handled {kind} ({(ended - began) * 1000:.0f} ms)"))
    first = {}
    for h in heard:
        key = (h["direction"], h["type"], h["what"])
        if h["at"] / 1000 > drawn or key in first or h["type"] not in ("comm_open", "comm_msg", "display_data"):
            continue
        first[key] = h
        sent = datetime.fromisoformat(h["sent"].replace("Z", "+00:00")).timestamp() if h["sent"] else None
        who = "page" if h["direction"] == "send" else "kernel"
        size = f", {h['bytes'] / 1e6:.2f} MB" if h["bytes"] else ""
        if sent is not None and who == "kernel":
            marks.append((sent - created, f"kernel: sent {h['type']} {h['what']}{size}"))
        verb = "sent" if who == "page" else "heard"
        marks.append((h["at"] / 1000 - created, f"page: {verb} {h['type']} {h['what']}{size}"))
    widget_at = page.evaluate("() => window.ipuWidgetAt")
    if widget_at:
        marks.append((widget_at / 1000 - created, "page: widget element in the document"))
    trip = next((t for t in trips if not t["stale"]), None)
    if trip is not None:
        marks.append((trip["sentEpochMs"] / 1000 - created, "page: first blocks request sent"))
        marks.append((trip["arrivedEpochMs"] / 1000 - created, "page: its closing reply handled"))
    marks.append((drawn - created, "page: first complete picture"))
    return sorted(marks)


#: The side panels' first messages as the page hears them: (what the page records, the panel's name).
SIDE_PANELS = (("flame", "flame graph"), ("groups", "groups table"), ("finding_rows", "findings"))


def side_panel_arrivals(page: Any, created: float, timeout_s: float = 120) -> dict[str, float | None]:
    """Seconds from the widget's cell run to the page hearing each side panel's first message (None: not in time)."""
    wanted = [what for what, _ in SIDE_PANELS]
    with contextlib.suppress(Exception):  # reported as missing below
        page.wait_for_function(
            "(wanted) => wanted.every((w) => window.ipuHeard.some((h) => h.direction === 'recv'"
            " && (h.what === w || h.what.startsWith('update ') && h.what.split(/[ ,]/).includes(w))))",
            arg=wanted,
            timeout=timeout_s * 1000,
        )
    heard = page.evaluate("() => window.ipuHeard")
    out: dict[str, float | None] = {}
    for what, panel in SIDE_PANELS:
        times = [
            h["at"] / 1000 - created
            for h in heard
            if h["direction"] == "recv"
            and (h["what"] == what or (h["what"].startswith("update ") and what in h["what"][7:].split(",")))
        ]
        out[panel] = min(times) if times else None
    return out


def main_thread_waits(trace: Path) -> dict[str, float]:
    """From a Chrome trace: the page's main thread's tasks over 33 ms, their wall time and the CPU they got.

    A task's wall time far above its CPU time is time the thread waited to be scheduled (the CPUs
    busy elsewhere), not work of the page.
    """
    import json

    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"
    }
    tasks: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in events:
        key = (e.get("pid"), e.get("tid"))
        if (
            e.get("ph") == "X"
            and e.get("name") == "ThreadControllerImpl::RunTask"
            and names.get(key) == "CrRendererMain"
        ):
            tasks.setdefault(key, []).append(e)
    if not tasks:
        return {"tasks": 0, "wall_ms": 0.0, "cpu_ms": 0.0}
    main = max(tasks.values(), key=len)  # the page's renderer (others: JupyterLab's blank helpers)
    main.sort(key=lambda e: e["ts"])
    outer, end = [], -1.0
    for e in main:  # nested run loops log a task inside a task: the outermost only
        if e["ts"] >= end:
            outer.append(e)
            end = e["ts"] + e["dur"]
    long = [e for e in outer if e["dur"] > BUDGET["first_p95"] * 1000]
    return {
        "tasks": len(long),
        "wall_ms": sum(e["dur"] for e in long) / 1000,
        "cpu_ms": sum(e.get("tdur", 0) for e in long) / 1000,
    }


def browser_side(
    path: Path,
    loaded: bool,
    settle_s: float,
    bundle: Path | None = None,
    parts: tuple[str, ...] = PARTS,
    code: Path | None = None,
    trace: Path | None = None,
    server_extension: bool = True,
) -> dict[str, Any]:
    """One fresh JupyterLab + Chromium: first draw, every action's latencies, the burst, kernel costs.

    `bundle`: the front end to load instead of the installed one (the widget's class with that `_esm`,
    and the `_css` beside it). `code`: a directory whose ``ipu_nb`` the kernel imports instead.
    `server_extension`: whether ipu-nb's Jupyter server extension loads.
    `trace`: a Chrome trace of the actions is written there, and its main thread's long tasks
    summarised (`main_thread_waits`).
    """
    from lab import Page, launch_chromium, running_lab
    from playwright.sync_api import sync_playwright

    widget_class = "ipu_nb.ProfileWidget"
    if bundle is not None:
        # The bundle's own style sheet (esbuild writes widget.css beside widget.js) when it has one.
        css = bundle.with_suffix(".css")
        parts_ = [f"'_esm': __import__('pathlib').Path({str(bundle)!r})"]
        if css.is_file():
            parts_.append(f"'_css': __import__('pathlib').Path({str(css)!r})")
        widget_class = f"type('ProfileWidget', (ipu_nb.ProfileWidget,), {{{', '.join(parts_)}}})"
    cells = [
        f"import time, ipu_nb\nprofile = ipu_nb.open_profile({str(path)!r}, progress=False)\n"
        f"Widget = {widget_class}\n{KERNEL_MARKS}\n{ECHO_KERNEL}",
        "_t0 = time.time()\nwidget = Widget(profile)\n_t1 = time.time()\nwidget",
    ]
    out: dict[str, Any] = {}
    extra = [] if code is None else [code]
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_lab(Path(tmp), extra, server_extension) as lab,
        sync_playwright() as p,
    ):
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1500, "height": 1400})
        name = lab.notebook(cells)
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
        nb = Page(page, lab, name)
        nb.wait_ready()
        page.evaluate(PAGE_MARKS)
        nb.run_all()
        page.wait_for_function(
            "() => { const w = document.querySelector('.ipu-nb-widget'); return w && w.dataset.firstDrawAt; }",
            timeout=1_200_000,
        )
        created, constructed = nb.kernel("[_t0, _t1]")
        first_draw = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.firstDrawAt")) / 1000
        out["first_draw_s"] = first_draw - created
        out["construction_s"] = constructed - created
        out["shown_to_first_draw_s"] = first_draw - constructed
        out["marks"] = first_draw_marks(page, nb, created, first_draw)
        out["panels"] = side_panel_arrivals(page, created)
        if parts == ("open",):
            out.update(actions=[], load=os.getloadavg()[0], load_after=os.getloadavg()[0])
            out["trips"] = page.eval_on_selector(".ipu-nb-widget", "w => w.ipuTrips")
            lab.shutdown_sessions(name)
            browser.close()
            return out
        settle(page, settle_s)
        page.locator(".ipu-nb-header").click()
        context = cpu_burners(os.cpu_count() or 2) if loaded else contextlib.nullcontext()
        if trace is not None:
            browser.start_tracing(page=page, path=str(trace), categories=["toplevel", "devtools.timeline"])
        with context:
            out["load"] = os.getloadavg()[0]
            results = []
            steps = (ACTIONS if "actions" in parts else []) + (COLD if "cold" in parts else [])
            for label, step in steps:
                page.wait_for_timeout(400)  # a user's pause: prefetching goes on meanwhile
                with contextlib.suppress(Exception):
                    settle(page, settle_s)
                r = page.evaluate(MEASURE_JS, ["one", step, settle_s * 1000])
                r["action"] = label
                results.append(r)
            if "burst" in parts:
                page.wait_for_timeout(400)
                with contextlib.suppress(Exception):
                    settle(page, settle_s)
                before = cpu_by_process()
                out["burst"] = page.evaluate(MEASURE_JS, ["burst", BURST, settle_s * 1000])
                out["burst_cpu"] = cpu_by_process(since=before)
            out["load_after"] = os.getloadavg()[0]
        out["actions"] = results
        out["echo"] = {size: page.evaluate(ECHO_JS, [size, 20]) for size in (10, 100_000)}
        if trace is not None:
            browser.stop_tracing()
            out["waits"] = main_thread_waits(trace)
        out["trips"] = page.eval_on_selector(".ipu-nb-widget", "w => w.ipuTrips")
        lab.shutdown_sessions(name)
        browser.close()
    return out


def widget_frames_text(r: dict[str, Any], until: float = float("inf")) -> str:
    """The widget's pictures of one measurement (up to `until` ms after the first event): when, how long, from what."""
    frames = [f for f in r.get("widgetFrames", []) if f["at"] <= until + 1]
    return (
        "; ".join(
            f"at {f['at']:.0f} draw {f['drawMs']:.1f} ms L{f['level']} {f['exact']}/{f['blocks']} exact"
            f" {f['standIns']} stand-ins made {f['made']}{' final' if f['final'] else ''}"
            for f in frames
        )
        or "no picture drawn by then"
    )


def long_frame_text(f: dict[str, Any]) -> str:
    """One long animation frame: when, how long, rendering, the scripts that ran in it (longest first)."""
    scripts = "; ".join(
        f"{who}{f' ({fn})' if fn else ''} {ms} ms" for who, ms, fn in sorted(f["scripts"], key=lambda x: -x[1])[:4]
    )
    return f"at {f['at']:.0f} ms: {f['ms']:.0f} ms, rendering {f['renderMs']:.0f} ms; scripts: {scripts or 'none'}"


def report(label: str, run: dict[str, Any], loaded: bool) -> dict[str, Any]:
    actions = run["actions"]
    print(f"-- {label} (load average {run['load']:.1f} during the actions, {run['load_after']:.1f} after)")
    first = next((t for t in run["trips"] if not t["stale"]), None)  # the first picture's request
    print(
        f"   first draw: widget created → first complete picture {run['first_draw_s']:.2f} s"
        f" (construction {run['construction_s']:.2f} s, then {run['shown_to_first_draw_s']:.2f} s to the picture"
        + (
            ""
            if first is None
            else f"; its request: kernel {sum(first['kernelMs']):.0f} ms, round trip {first['roundTripMs']:.0f} ms,"
            f" decode {first['decodeMs']:.0f} ms"
        )
        + ")"
    )
    for at, what in run.get("marks", []):
        print(f"     {at * 1000:7.0f} ms  {what}")
    print(
        f"   side panels at open (s from the cell's run): first picture {run['first_draw_s']:.2f}, "
        + ", ".join(f"{panel} {'—' if s is None else f'{s:.2f}'}" for panel, s in run["panels"].items())
    )
    if not actions:
        return {"first_draw": run["first_draw_s"], "panels": run["panels"]}
    print(f"   {'action':>15} {'first new':>10} {'refined':>9} {'first=final':>11} {'level':>5}")
    for r in actions:
        fmt = lambda v: "—" if v is None else f"{v:.1f}"  # noqa: E731
        print(
            f"   {r['action']:>15} {fmt(r['firstMs']):>10} {fmt(r['refinedMs']):>9}"
            f" {r['firstIsFinal']!s:>11} {r['level']:>5}{'' if r['settled'] else '  (did not settle)'}"
        )
    firsts = [r["firstMs"] for r in actions if r["firstMs"] is not None]
    in_frame = [r["firstInFrameMs"] for r in actions if r["firstInFrameMs"] is not None]
    refined = [r["refinedMs"] for r in actions if r["refinedMs"] is not None and not r["action"].startswith("drag")]
    pans = [r for r in actions if r["action"].startswith("pan")]
    cold = [r["refinedMs"] for r in actions if r["action"].startswith("drag") and r["refinedMs"] is not None]
    cold_first = [r["firstMs"] for r in actions if r["action"].startswith("drag") and r["firstMs"] is not None]
    pans_final = sum(1 for r in pans if r["firstIsFinal"])
    no_burst: dict[str, Any] = {"longestFrameMs": float("nan"), "refinedMs": None}
    no_burst.update(widgetDrawMs=[], longTasksMs=[])
    burst = run.get("burst") or no_burst
    costs = [sum(t["kernelMs"]) for t in run["trips"] if not t["stale"] and t["kernelMs"]]
    visible = [sum(t["kernelMs"]) for t in run["trips"] if not t["stale"] and t["kernelMs"] and not t["prefetch"]]
    budget = BUDGET["refined_loaded" if loaded else "refined_quiet"]
    summary = {
        "first_median": median(firsts),
        "first_p95": percentile(firsts, 95),
        "refined_median": median(refined),
        "cold_median": median(cold),
        "pans_final": f"{pans_final}/{len(pans)}",
        "burst_longest": burst["longestFrameMs"],
        "burst_read": burst.get("longestReadMs", float("nan")),
        "load": run["load"],
        "first_draw": run["first_draw_s"],
        "panels": run["panels"],
        "echo": {size: median(times) for size, times in run.get("echo", {}).items()},
    }
    print(
        f"   first new picture: median {summary['first_median']:.1f} ms (≤ 16),"
        f" p95 {summary['first_p95']:.1f} ms (≤ 33); read inside the frame that drew it (before the page's"
        f" next tasks): median {median(in_frame):.1f} ms, p95 {percentile(in_frame, 95):.1f} ms"
    )
    print(
        f"   refined picture (the navigation): median {summary['refined_median']:.1f} ms (≤ {budget:.0f}),"
        f" max {most(refined):.1f} ms"
    )
    print(
        f"   when the kernel had to answer (drag-zoom to 3 % at random places, {len(cold)}): first new picture"
        f" median {median(cold_first):.1f} ms, refined median {median(cold):.1f} ms,"
        f" max {most(cold):.1f} ms"
    )
    print(f"   pans whose first new frame was the final picture: {pans_final} of {len(pans)}")
    if echo := summary["echo"]:
        print(
            "   a comm echo through the Jupyter server (page → kernel → page), median: "
            + ", ".join(f"{size:,} B {ms:.1f} ms" for size, ms in echo.items())
        )
    print(
        f"   burst of 30 wheel events: longest frame {burst['longestFrameMs']:.1f} ms (≤ {BURST_FRAME_MS:.0f};"
        f" between the reads after the frames {burst.get('longestReadMs', float('nan')):.1f} ms),"
        f" refined {burst['refinedMs'] or float('nan'):.0f} ms after the first event; the widget's draws"
        f" {len(burst['widgetDrawMs'])}, longest {max(burst['widgetDrawMs'], default=0):.1f} ms; long tasks"
        f" (> 50 ms, any script) {[round(t) for t in burst['longTasksMs']]}"
    )
    if cpu := run.get("burst_cpu"):
        top = sorted(cpu.items(), key=lambda kv: -kv[1])[:7]
        used = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in top if v > 0)
        print(f"   CPU used during the burst, by process: {used}")
    if gaps := burst.get("longestGaps"):
        print("   its longest frames began at " + ", ".join(f"{at:.0f} ms ({ms:.1f} ms)" for at, ms in gaps))
    if "startEpochMs" in burst:
        asks = [t for t in run["trips"] if t["sentEpochMs"] >= burst["startEpochMs"]]
        print(
            "   the kernel's answers meanwhile (sent → closing reply, ms after the first event): "
            + ", ".join(
                f"{t['sentEpochMs'] - burst['startEpochMs']:.0f}→{t['arrivedEpochMs'] - burst['startEpochMs']:.0f}"
                f"{' p' if t['prefetch'] else ''}"
                for t in asks
            )
        )
    for f in sorted(burst.get("longFrames", []), key=lambda f: -f["ms"])[:3]:
        print(f"     a long frame of the burst {long_frame_text(f)}")
    slow = [r for r in actions if r["firstMs"] is not None and r["firstMs"] > BUDGET["first_p95"]]
    print(f"   actions whose first new picture took over {BUDGET['first_p95']:.0f} ms: {len(slow)} of {len(actions)}")
    for r in slow:
        print(f"     {r['action']} {r['firstMs']:.1f} ms (in its frame {r['firstInFrameMs'] or float('nan'):.1f} ms):")
        print(f"       {widget_frames_text(r, until=r['firstMs'])}")
        ticks = ", ".join(f"{a:.0f}→{b:.0f}{'*' if new else ''}" for a, b, new in r.get("ticks", []) if b is not None)
        print(f"       the page script's frames (in the frame → in a timer after it; * new picture): {ticks}")
        for f in sorted(r.get("longFrames", []), key=lambda f: f["at"])[:3]:
            print(f"       {long_frame_text(f)}")
    burst_frames = [f for f in burst.get("widgetFrames", []) if f["drawMs"] > 16 or f["made"]]
    if burst_frames:
        print(f"   the burst's slow or image-making draws: {widget_frames_text({'widgetFrames': burst_frames})}")
    if "waits" in run:
        w = run["waits"]
        print(
            f"   the page's main thread (Chrome trace): {w['tasks']} tasks over {BUDGET['first_p95']:.0f} ms,"
            f" {w['wall_ms']:.0f} ms long in all, of which {w['cpu_ms']:.0f} ms on a CPU (the rest waiting for one)"
        )
    tasks = [t for r in actions for t in r["longTasksMs"]]
    draws = [d for r in actions for d in r["widgetDrawMs"]]
    print(
        f"   the widget's draws over all actions: {len(draws)}, median {median(draws):.1f} ms,"
        f" max {most(draws):.1f} ms; long tasks {[round(t) for t in tasks]}"
    )
    print(
        f"   kernel (Python-side) cost per refinement: {len(costs)} requests, median {median(costs):.1f} ms,"
        f" p95 {percentile(costs, 95):.1f} ms, max {most(costs):.1f} ms; for what the view lacked"
        f" ({len(visible)}): median {median(visible):.1f} ms"
    )
    print(
        "   each request: "
        + ", ".join(
            f"{'p' if t['prefetch'] else 'v'}{t['level']}×{t['blocks']} {sum(t['kernelMs']):.0f}/{t['roundTripMs']:.0f}"
            f"/{t['decodeMs']:.0f}"
            for t in run["trips"]
            if not t["stale"]
        )
        + "  (p prefetch / v view, level×blocks, kernel ms / round trip ms / decode and image ms)"
    )
    return summary


def large_profile(path: Path) -> Path:
    """The ≥ 10 million sample profile, generated once."""
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"generating {path} (mlp, {LARGE_PHASES} phases: ~10.2M samples, ~6.2 GB; a few minutes, once)")
    command = [str(Path(sys.executable).with_name("ipu-nb")), "generate", "-o", str(path)]
    subprocess.run([*command, "--phases", str(LARGE_PHASES), "-q"], check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="full,10m", help="comma-separated: full (1.17M samples), 10m")
    parser.add_argument("--modes", default="quiet,loaded", help="comma-separated: quiet, loaded (CPU burners)")
    parser.add_argument("--no-browser", action="store_true", help="the Python side only")
    parser.add_argument("--no-python", action="store_true", help="the browser side only")
    parser.add_argument(
        "--first-draw", action="store_true", help="only the kernel's part of the first draw, per profile (quick)"
    )
    parser.add_argument(
        "--open", action="store_true", help="only the kernel's part of opening: first picture and side panels (quick)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per Python-side measurement (best is kept)")
    parser.add_argument("--large", type=Path, default=LARGE, help="where the 10M-sample profile is (made if missing)")
    parser.add_argument(
        "--bundle",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a front-end bundle (widget.js) to measure instead of the installed one; repeat to compare side by side",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with several variants (--bundle, --code, --server-extension both): runs of each, taking turns",
    )
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)}")
    parser.add_argument(
        "--server-extension",
        choices=("on", "off", "both"),
        default="on",
        help="whether ipu-nb's Jupyter server extension loads (TCP_NODELAY on the kernel websocket); both: each",
    )
    parser.add_argument(
        "--code",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a directory holding another ipu_nb (e.g. an older commit's, built) for the kernel to import;"
        " repeat to compare side by side (with --rounds, taking turns)",
    )
    parser.add_argument(
        "--trace",
        type=Path,
        metavar="DIR",
        help="write a Chrome trace of each run's actions into DIR and print how much of the page's long tasks"
        " was CPU time (the rest: waiting for a CPU)",
    )
    args = parser.parse_args()
    parts = tuple(args.parts.split(","))
    if unknown := set(parts) - {*PARTS, "open"}:
        parser.error(f"unknown --parts {', '.join(sorted(unknown))} (known: {', '.join(PARTS)})")
    bundles: list[tuple[str, Path | None]] = []
    for item in args.bundle:
        name, _, where = item.partition("=")
        if not where or not Path(where).is_file():
            parser.error(f"--bundle {item!r}: expected NAME=PATH of an existing widget.js")
        bundles.append((name, Path(where).resolve()))
    bundles = bundles or [("installed", None)]
    codes: list[tuple[str, Path | None]] = []
    for item in args.code:
        name, _, where = item.partition("=")
        if not where or not (Path(where) / "ipu_nb" / "__init__.py").is_file():
            parser.error(f"--code {item!r}: expected NAME=DIR of a directory holding ipu_nb/")
        codes.append((name, Path(where).resolve()))
    codes = codes or [("this", None)]
    profiles = {"full": ipu_nb.demo_profile_path("full")}
    wanted = args.profiles.split(",")
    if "10m" in wanted:
        profiles["10m"] = large_profile(args.large)
    print(f"C summary {'loaded' if native.NATIVE else 'NOT built (numpy path)'}; {os.cpu_count()} CPUs")
    if args.first_draw:
        for path in profiles.values():
            first_draw_breakdown(ipu_nb.open_profile(path, progress=False))
        return
    if args.open:
        for path in profiles.values():
            print_open_latencies(ipu_nb.open_profile(path, progress=False))
        return
    if not args.no_python:
        began = time.perf_counter()
        full = ipu_nb.open_profile(profiles["full"], progress=False)
        print(f"{full} (opened in {time.perf_counter() - began:.1f} s)")
        first_draw_breakdown(full)
        python_side(full, args.repeat)
        del full
    if "10m" in wanted and not args.no_python:
        large = ipu_nb.open_profile(profiles["10m"], progress=False)
        first_draw_breakdown(large)
        del large
    if args.no_browser:
        return
    servers = {"on": [True], "off": [False], "both": [True, False]}[args.server_extension]
    variants = [(b, c, x) for b in bundles for c in codes for x in servers]
    summaries = {}
    for name in wanted:
        for mode in args.modes.split(","):
            for round_ in range(args.rounds if len(variants) > 1 else 1):
                for (bundle_label, bundle), (code_label, code), extension in variants:
                    settle_s = 120 if name == "10m" else 30
                    label = " ".join(
                        part
                        for part in (
                            bundle_label if bundle else "",
                            code_label if code else "",
                            ("extension" if extension else "no extension") if len(servers) > 1 else "",
                        )
                        if part
                    )
                    trace = None
                    if args.trace is not None:
                        args.trace.mkdir(parents=True, exist_ok=True)
                        trace = args.trace / f"{name}-{mode}-{label.replace(' ', '-') or 'this'}-{round_ + 1}.json"
                    run = browser_side(
                        profiles[name], mode == "loaded", settle_s, bundle, parts, code, trace, extension
                    )
                    what = f"{name} profile, {mode}" + (f", {label}" if label else "")
                    what += f", round {round_ + 1}" if args.rounds > 1 else ""
                    summaries[(name, mode, label, round_)] = report(what, run, mode == "loaded")
    print("== budgets: first new median ≤ 16 ms, p95 ≤ 33 ms; refined median ≤ 100 ms quiet / 150 loaded;")
    print("   pans final in their first frame; burst: no frame over 50 ms; first draw ≤ 1.5 s")
    if parts != PARTS:
        print(f"   (only {', '.join(parts)}: the first new picture is over those actions)")
    for (name, mode, label, round_), s in summaries.items():
        which = (f" {label:>10}" if len(variants) > 1 else "") + (f" #{round_ + 1}" if args.rounds > 1 else "")
        panels = ", ".join(f"{panel} {'—' if t is None else f'{t:.2f}'}" for panel, t in s["panels"].items())
        print(f"   {name:>4} {mode:>6}{which}: at open, first picture {s['first_draw']:.2f} s, {panels} s")
        if "first_median" not in s:  # --parts open
            continue
        echo = " / ".join(f"{ms:.1f}" for ms in s["echo"].values())
        print(
            f"   {name:>4} {mode:>6}{which}:"
            f" first new {s['first_median']:.1f} / p95 {s['first_p95']:.1f} ms,"
            f" refined {s['refined_median']:.1f} ms (kernel asked: {s['cold_median']:.1f} ms),"
            f" pans final {s['pans_final']},"
            f" burst longest frame {s['burst_longest']:.1f} ms (read {s['burst_read']:.1f}),"
            f" first draw {s['first_draw']:.2f} s, comm echo 10 B / 100 KB {echo} ms"
            f" (load average {s['load']:.1f})"
        )


if __name__ == "__main__":
    main()
