"""The timeline in a real JupyterLab + Chromium: cached redraws, rows, tile order, search, fit, ruler, help.

The profile is the generator's MLP on all 1,472 tiles (C600 layout: logical and physical
orders differ) cut to 30 phases (about 130,000 samples: the whole profile is summarised,
the deeper levels come raw), so every test opens in seconds.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from lab import CANVAS_JS, dataset, open_widget, settle, wait_window

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb, os, tempfile, time\n"
    "path = os.path.join(tempfile.mkdtemp(dir='.'), 'timeline.capnp')\n"
    "ipu_nb.generate_profile(path, 'mlp', 'phase', phases=30)\n"
    "profile = ipu_nb.open_profile(path, progress=False)\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46
FITTED = "from ipu_nb._widget.zoom import fitted"  # the view the kernel fits, as zoom_to would


def opened(lab_page: Any) -> tuple[Any, Any]:
    nb = open_widget(lab_page, CELLS)
    return nb, nb.page


def frames_after(page: Any, count: int) -> list[dict[str, Any]]:
    return page.eval_on_selector(".ipu-nb-widget", "(w, n) => w.ipuFrames.slice(n)", count)


def frame_count(page: Any) -> int:
    return page.eval_on_selector(".ipu-nb-widget", "w => w.ipuFrames.length")


def first_picture_after(page: Any, key: str) -> dict[str, Any]:
    """Press `key` and return the first picture drawn after it, checking no reply arrived in between.

    (So the picture came from what the page held, whatever the kernel was doing.)
    """
    seen = frame_count(page)
    pressed = page.evaluate("() => performance.now()")
    page.keyboard.press(key)
    page.wait_for_function("(n) => document.querySelector('.ipu-nb-widget').ipuFrames.length > n", arg=seen)
    first = frames_after(page, seen)[0]
    arrivals = page.eval_on_selector(
        ".ipu-nb-widget", "w => w.ipuTrips.map(t => t.arrivedEpochMs - performance.timeOrigin)"
    )
    assert not [a for a in arrivals if pressed <= a <= first["at"]], (key, pressed, first, arrivals)
    return first


def test_pan_and_zoom_draw_real_data_from_the_cache_while_a_cell_keeps_the_kernel_busy(lab_page):
    _, page = opened(lab_page)
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": GUTTER + 300, "y": 5})
    page.keyboard.press("+")  # zoomed in, so a pan has somewhere to go
    settle(page)
    before = page.evaluate(CANVAS_JS)
    # Keep the kernel busy: a cell sleeping, sent through the page's own kernel connection.
    # (Whether the kernel answers widget messages while a cell runs depends on the ipykernel
    # version (7.x does), so each picture is checked to come before any reply instead.)
    page.evaluate(
        """() => { const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
                   window._finished = false;
                   window._busy = k.requestExecute({code: 'import time; time.sleep(12)'}).done
                       .then(() => { window._finished = true; }); }"""
    )
    page.wait_for_timeout(500)
    # A pan inside the prefetched neighbours: the first frame drawn after the key is complete.
    first = first_picture_after(page, "ArrowRight")
    assert first["final"] is True and first["standIns"] == 0, first
    panned = page.evaluate(CANVAS_JS)
    assert panned["hash"] != before["hash"] and panned["coloured"] > 5000, (before, panned)
    # A zoom onto the finer level prefetched under the view: complete at once as well.
    assert first_picture_after(page, "+")["final"] is True
    zoomed = page.evaluate(CANVAS_JS)
    zoomed_frame = frames_after(page, frame_count(page) - 1)
    page.wait_for_timeout(150)  # the header (and its view attribute) follows within 60 ms
    zoomed_view = dataset(page)["view"]
    assert zoomed["hash"] != panned["hash"] and zoomed["coloured"] > 5000
    # Back to the whole profile, held since the first picture.
    assert first_picture_after(page, "0")["final"] is True
    assert page.evaluate(CANVAS_JS)["coloured"] > 5000
    assert page.evaluate("() => window._finished") is False  # the cell still runs
    page.evaluate("() => window._busy")
    # Once the kernel answers, the whole profile is refined; the cached pictures were the real ones.
    settle(page)
    # The same view again, set from Python: its picture is now the kernel's answer.
    page.evaluate(
        """(view) => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel
                   .requestExecute({code: `widget.view = [${view}]`}).done""",
        zoomed_view,
    )
    page.wait_for_function("(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=zoomed_view)
    settle(page)
    again = frames_after(page, frame_count(page) - 1)
    assert page.evaluate(CANVAS_JS)["hash"] == zoomed["hash"], (zoomed_frame, again)  # what each was drawn from


KERNEL_JS = "window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"


def test_keys_pressed_in_quick_succession_all_count_and_reach_the_kernel_never_flashing_it_busy(lab_page):
    nb, page = opened(lab_page)
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": GUTTER + 300, "y": 5})
    settle(page)
    span = nb.kernel("widget.info['span']")
    # The kernel's status as JupyterLab's indicators see it, from here on.
    page.evaluate(
        f"""() => {{ const k = {KERNEL_JS}; window._statuses = [];
                   k.statusChanged.connect((_, s) => window._statuses.push(s)); }}"""
    )
    # Back to back, within one save interval: the later ones wait for their save.
    for key in ["+", "ArrowRight", "+", "ArrowLeft", "+"]:
        page.keyboard.press(key)
    # An independent reference: halve about the middle, pan by a quarter of the width.
    start, end = 0.0, float(span)
    for zoom, pan in [(0.5, 0), (1, 0.25), (0.5, 0), (1, -0.25), (0.5, 0)]:
        mid, width = (start + end) / 2, (end - start) * zoom
        start, end = mid - width / 2 + pan * width, mid + width / 2 + pan * width
        start, end = round(start), round(end)
    settle(page)
    got = [int(v) for v in dataset(page)["view"].split(",")]
    assert got == pytest.approx([start, end], abs=1)
    # Saves and block requests were answered, and none of them showed the kernel busy; the
    # idle that closes each still reached the page (JupyterLab closes its record of each on it:
    # only the shown cell's own stays open).
    page.wait_for_function(
        f"() => ![...{KERNEL_JS}._futures.values()].some(f => f.msg.header.msg_type === 'comm_msg')", timeout=10_000
    )
    assert page.evaluate("() => window._statuses") == []
    assert nb.poll("widget.view", lambda v: v == got) == got
    assert "busy" in page.evaluate("() => window._statuses")  # a cell still does


def test_rows_never_thinner_than_a_pixel_vertical_zoom_order_pins_and_tile_filters(lab_page):
    nb, page = opened(lab_page)
    timeline = ".ipu-nb-timeline"
    rows = nb.kernel("widget.info['rows']")
    assert len(rows) == 1472
    d = dataset(page, timeline)
    # 1,472 tiles in 600 px: three a row, one device pixel each, and the bar says so.
    assert (d["perRow"], d["rowPx"]) == ("3", "1")
    assert "3 tiles per row" in page.locator(".ipu-nb-rows-note").inner_text()
    # Vertical zoom down to about 20 rows: one tile a row, tall enough to read.
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": GUTTER + 100, "y": 5})
    for _ in range(7):
        page.keyboard.press("]")
    d = dataset(page, timeline)
    assert d["perRow"] == "1" and int(d["rowPx"]) >= 25, d
    assert json.loads(d["tiles"])[:3] == rows[:3]
    height = page.locator(".ipu-nb-timeline-base").bounding_box()["height"]
    assert abs(height / int(d["rowPx"]) - len(json.loads(d["tiles"]))) <= 1
    # Orders: logical (tile entry order), and the C600 grid by column, then row.
    logical = nb.kernel("profile.tiles.sort('tile_index').get_column('tile').to_list()")
    grid = nb.kernel("[t for t in sorted(widget.info['rows'], key=lambda t: (t % 64, t // 64))]")
    order = page.locator(".ipu-nb-order")
    order.select_option("logical")
    shown = json.loads(dataset(page, timeline)["tiles"])
    assert len(shown) >= 12 and shown == logical[: len(shown)]
    order.select_option("grid")
    shown = json.loads(dataset(page, timeline)["tiles"])
    assert shown == grid[: len(shown)] and shown[:3] == [0, 64, 128]
    # Scroll down a page, pin a tile by clicking its label: it stays on top whatever the scroll.
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": GUTTER + 100, "y": 5})
    page.keyboard.press("PageDown")
    scrolled = json.loads(dataset(page, timeline)["tiles"])
    assert scrolled[0] != grid[0]
    row_css = int(dataset(page, timeline)["rowPx"])  # device pixel ratio 1
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": 10, "y": 3 * row_css + row_css / 2})
    pinned = scrolled[3]
    d = dataset(page, timeline)
    assert d["pinned"] == "1" and json.loads(d["tiles"])[0] == pinned
    page.keyboard.press("PageDown")
    assert json.loads(dataset(page, timeline)["tiles"])[0] == pinned
    assert page.locator(".ipu-nb-unpin").is_visible()
    page.locator(".ipu-nb-unpin").click()
    assert dataset(page, timeline)["pinned"] == "0"
    # Filtering tiles shows just those rows, full height.
    order.select_option("physical")
    nb.kernel("widget.filters", code="widget.filters = {'tiles': [1410, 5, 64]}")
    page.wait_for_function(
        "() => document.querySelector('.ipu-nb-timeline').dataset.tiles === '[5,64,1410]'", timeout=10_000
    )
    d = dataset(page, timeline)
    assert int(d["rowPx"]) >= 30 and d["perRow"] == "1"
    assert page.locator(".ipu-nb-rows-note").inner_text().startswith("3 tiles")


def test_search_steps_through_matches_and_zoom_to_fit_from_keys_and_python(lab_page):
    nb, page = opened(lab_page)
    text = "GEMM block (0, 1"
    insensitive = nb.kernel(f"widget.search({text.lower()!r}, case_sensitive=False).get_column('sample').to_list()")
    sensitive = nb.kernel(f"widget.search({text.lower()!r}).get_column('sample').to_list()")
    assert insensitive and not sensitive  # operations say "GEMM", the lower-case text only matches folded
    page.fill(".ipu-nb-find", text.lower())
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-searchbox').dataset.matches === String(n)", arg=len(insensitive)
    )
    page.locator(".ipu-nb-case").click()
    page.wait_for_function("() => document.querySelector('.ipu-nb-searchbox').dataset.matches === '0'")
    assert page.locator(".ipu-nb-find-count").inner_text() == "no match"
    page.locator(".ipu-nb-case").click()
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-searchbox').dataset.matches === String(n)", arg=len(insensitive)
    )
    # Enter: the first match by offset; n the next, shift+n back. Each is selected and in view.
    page.press(".ipu-nb-find", "Enter")
    by_offset = insensitive  # by offset, then tile
    assert nb.poll("widget.selected", lambda s: s == by_offset[0]) == by_offset[0]
    page.locator(".ipu-nb-header").click()  # the widget's focus, for its keys
    page.keyboard.press("n")
    assert nb.poll("widget.selected", lambda s: s == by_offset[1]) == by_offset[1]
    view = nb.kernel("widget.view")
    sample = nb.kernel(
        f"profile.samples.filter(pl.col('sample') == {by_offset[1]}).select('offset', 'duration').row(0, named=True)",
        "import polars as pl",
    )
    assert view[0] <= sample["offset"] and sample["offset"] + sample["duration"] <= view[1]
    page.keyboard.press("N")
    assert nb.poll("widget.selected", lambda s: s == by_offset[0]) == by_offset[0]
    assert page.locator(".ipu-nb-find-count").inner_text().startswith("1 / ")
    # f: zoom to fit the selected search hit, as widget.zoom_to(sample=...) would.
    expected = nb.kernel(f"fitted(widget._shown_now(), 'sample', {by_offset[0]})", FITTED)
    page.keyboard.press("f")
    assert nb.poll("widget.view", lambda v: v == expected) == expected
    # After a filter change f fits what the filters match; shift+f always does.
    last = int(dataset(page)["windowId"])
    nb.kernel("widget.filters", code="widget.filters = {'kernel': 'gemm_f32_init_large_rows'}")
    wait_window(page, last)
    matching = nb.kernel("fitted(widget._shown_now(), 'matching', None)", FITTED)
    page.keyboard.press("f")
    assert nb.poll("widget.view", lambda v: v == matching) == matching
    page.keyboard.press("0")
    # The view is `matching` already: wait for the reset to reach the kernel, or the fit below
    # could be seen before it, and the reset and the fit land after the zoom_to calls that follow.
    assert nb.poll("widget.view", lambda v: v != matching) != matching
    page.keyboard.press("F")
    assert nb.poll("widget.view", lambda v: v == matching) == matching
    # From Python: zoom_to a phase, a range, a sample; the timeline follows.
    for call in (
        "widget.zoom_to(phase=3)",
        "widget.zoom_to(range=(1000, 5000))",
        f"widget.zoom_to(sample={by_offset[-1]})",
    ):
        target = nb.kernel(call)
        page.wait_for_function(
            "(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=f"{target[0]},{target[1]}"
        )
        if "sample=" in call:  # its panel scrolls the sample's row into view: a new picture after it comes
            page.wait_for_function(
                "(s) => document.querySelector('.ipu-nb-sample td')?.textContent === s", arg=str(by_offset[-1])
            )
        settle(page)
        assert frames_after(page, frame_count(page) - 1)[-1]["final"] is True
    assert nb.kernel("widget.selected") == by_offset[-1]
    # Escape clears the search (its veil) before it would reset the view.
    page.locator(".ipu-nb-header").click()
    page.keyboard.press("Escape")
    assert page.input_value(".ipu-nb-find") == ""
    assert nb.kernel("widget.view") == target


def test_ruler_readout_ticks_help_tooltip_and_status(lab_page):
    nb, page = opened(lab_page)
    overlay = page.locator(".ipu-nb-timeline-overlay")
    box = overlay.bounding_box()
    view = nb.kernel("widget.view")
    plot = box["width"] - GUTTER
    clock = nb.kernel("profile.clock_hz")

    def cycle(px: float) -> float:
        return view[0] + (px / plot) * (view[1] - view[0])

    # Shift-drag: the ruler reads Δ cycles and Δ µs between the two points.
    x0, x1, y = box["x"] + GUTTER + 100, box["x"] + GUTTER + 400, box["y"] + 40
    page.keyboard.down("Shift")
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move(x1, y, steps=5)
    page.mouse.up()
    page.keyboard.up("Shift")
    delta = int(page.eval_on_selector(".ipu-nb-ruler", "e => e.dataset.delta"))
    expected = cycle(400) - cycle(100)
    assert abs(delta - expected) <= 2 * (view[1] - view[0]) / plot
    text = page.locator(".ipu-nb-ruler").inner_text()
    assert f"Δ {delta:,} cycles" in text and f"{delta * 1e6 / clock:,.3f} µs" in text
    assert nb.kernel("widget.view") == view  # measuring zooms nothing
    # The readout follows the mouse: the offset under it, and the tiles of the row (three a row here).
    rows = nb.kernel("widget.info['rows']")
    page.mouse.move(box["x"] + GUTTER + 250, box["y"] + 100.5)
    readout = page.locator(".ipu-nb-readout").inner_text()
    at = int(readout.split(" cycles")[0].replace(",", ""))
    assert abs(at - cycle(250)) <= 2 * (view[1] - view[0]) / plot, readout
    assert readout.endswith(f"tiles {rows[300]}…{rows[302]} (3)"), readout
    # A click clears the ruler.
    page.mouse.click(box["x"] + GUTTER + 250, box["y"] + 100.5)
    assert page.locator(".ipu-nb-ruler").inner_text() == ""
    # The tooltip follows a zoom: it describes the sample under the mouse in the new view, not the old one.
    page.mouse.move(box["x"] + GUTTER + 251, box["y"] + 100.5)
    page.wait_for_selector(".ipu-nb-tooltip:not(.ipu-nb-flame-tip):not([hidden])", timeout=10_000)
    shown = page.locator(".ipu-nb-tooltip:not(.ipu-nb-flame-tip)").inner_text()
    page.keyboard.press("+")  # around the middle: another sample comes under the mouse
    page.wait_for_function(
        "(t) => { const e = document.querySelector('.ipu-nb-tooltip:not(.ipu-nb-flame-tip)');"
        " return !e.hidden && e.textContent !== t; }",
        arg=shown,
        timeout=10_000,
    )
    assert f"tile {rows[301]}" in page.locator(".ipu-nb-tooltip:not(.ipu-nb-flame-tip)").inner_text()
    # Axis ticks never repeat, zoomed far in too, and carry the time alongside.
    for _ in range(12):
        page.keyboard.press("+")
    settle(page)
    ticks = json.loads(page.eval_on_selector(".ipu-nb-axis", "e => e.dataset.ticks"))
    assert len(ticks) >= 2
    assert len({c for c, _ in ticks}) == len(ticks) and len({t for _, t in ticks}) == len(ticks), ticks
    assert all(t.endswith(("s", "ms", "µs", "ns")) for _, t in ticks)
    # ? opens the help with every shortcut; Escape closes it (and does not reset the view).
    shown = [int(v) for v in dataset(page)["view"].split(",")]
    zoomed = nb.poll("widget.view", lambda v: v == shown)  # the trait reaches the kernel after the picture
    assert zoomed == shown
    page.keyboard.press("?")
    help_box = page.locator(".ipu-nb-help")
    assert help_box.is_visible()
    assert help_box.locator("tr").count() >= 28  # 19 keys and 9 mouse gestures
    for key in ("w + =", "s - _", "a ←", "d →", "f", "shift + f", "n", "shift + n", "/", "p", "shift + drag", "?"):
        assert help_box.get_by_text(key, exact=True).count() == 1, key
    page.keyboard.press("Escape")
    assert not help_box.is_visible() and nb.kernel("widget.view") == zoomed
    # The status line never reads as matching when nothing does.
    nb.kernel("widget.filters", code="widget.filters = {'kernel': 'no such kernel'}")
    page.wait_for_function("() => document.querySelector('.ipu-nb-status').textContent.includes('none match')")
    assert "in view" in page.locator(".ipu-nb-status").inner_text()


DARK_JS = """([from, to]) => {
    const c = document.querySelector('.ipu-nb-timeline-overlay');
    const r = devicePixelRatio, x = Math.round(from * r), w = Math.round((to < 0 ? c.width / r : to) * r) - x;
    const d = c.getContext('2d').getImageData(x, 0, w, c.height).data;
    let dark = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 100 && Math.max(d[i - 3], d[i - 2], d[i - 1]) < 80) dark++;
    return dark;
}"""
"""Opaque dark overlay pixels between two x (CSS pixels; to < 0: the right edge): the selection outline's."""


def test_the_selection_outline_stays_out_of_the_label_gutter(lab_page):
    nb, page = opened(lab_page)
    # The longest sample, selected, in a view starting halfway through it: its outline is cut at the plot's edge.
    sid, offset, duration = nb.kernel(
        "(lambda r: (r['sample'], r['offset'], r['duration']))(profile.samples.sort('duration').row(-1, named=True))"
    )
    page.mouse.move(0, 0)  # no hovered row: its label would be drawn in the gutter
    target = [offset + duration // 2, offset + duration * 3]
    nb.kernel("widget.view", code=f"widget.selected = {sid}; widget.view = {target}")
    page.wait_for_function(
        "(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=f"{target[0]},{target[1]}"
    )
    settle(page)
    page.wait_for_function("(a) => document.querySelectorAll('.ipu-nb-sample td').length > 0")
    assert page.evaluate(DARK_JS, [0, GUTTER - 2]) == 0
    assert page.evaluate(DARK_JS, [GUTTER, -1]) > 100  # the outline is drawn, inside the plot


def test_a_wheel_burst_draws_from_the_cache_and_ends_on_the_final_picture(lab_page):
    nb, page = opened(lab_page)
    seen = frame_count(page)
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    page.mouse.move(box["x"] + GUTTER + 0.35 * (box["width"] - GUTTER), box["y"] + 200)
    for _ in range(30):  # as a user's burst: a wheel event every 10 ms
        page.mouse.wheel(0, -60)
        page.wait_for_timeout(10)
    settle(page)
    frames = frames_after(page, seen)
    d = dataset(page)
    assert d["imagesWorker"] != "none" and int(d["imagesWorker"]) > 0, d  # block images made off the page
    # No frame waited for more than one block image made on the page: the rest came from the worker.
    assert len(frames) >= 3
    assert max(f["made"] for f in frames) <= 1, [f["made"] for f in frames]
    assert frames[-1]["final"] is True
    start, end = (int(v) for v in dataset(page)["view"].split(","))
    # Every notch counted (one notch of 60 zooms by exp(-60 * 0.0015)): none undone by the saves' echoes.
    assert end - start == pytest.approx(nb.kernel("widget.info['span']") * math.exp(-30 * 60 * 0.0015), rel=0.01)
    # The kernel hears the final view (the burst's saves are spaced out, the last always sent).
    assert nb.poll("widget.view", lambda v: v == [start, end]) == [start, end]
    # The header's words follow the picture.
    page.wait_for_function(
        "(w) => document.querySelector('.ipu-nb-header').textContent.includes(w)", arg=f"{round(end - start):,} cycles"
    )
    burst = page.evaluate(CANVAS_JS)
    assert burst["coloured"] > 5000
    # The same view reached another way (from the whole profile, set from Python) is the same picture.
    page.locator(".ipu-nb-header").click()  # the widget's focus, for its keys
    page.keyboard.press("0")
    page.wait_for_function("(v) => document.querySelector('.ipu-nb-widget').dataset.view !== v", arg=f"{start},{end}")
    settle(page)
    assert page.evaluate(CANVAS_JS)["hash"] != burst["hash"]
    nb.kernel("widget.view", code=f"widget.view = [{start!r}, {end!r}]")
    page.wait_for_function("(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=f"{start},{end}")
    settle(page)
    assert page.evaluate(CANVAS_JS)["hash"] == burst["hash"]
