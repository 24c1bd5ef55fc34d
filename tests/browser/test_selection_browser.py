"""The area selection in a real JupyterLab + Chromium, checked from the kernel.

Alt+drag over the timeline selects an area that Python reads (`widget.selection`,
`widget.selection_samples`); an edge drag resizes it and Escape clears it; setting it from
Python draws it; `highlight(frame)` marks samples; "copy as code" gives code that, run in the
kernel, rebuilds the widget's frames; and the view (`widget.state`) survives a reload of the
saved notebook. The profile is the generator's MLP on 1,472 tiles cut to 12 phases.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lab import dataset, open_widget, settle

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb, os, tempfile, json\n"
    "import polars as pl\n"
    "from polars.testing import assert_frame_equal\n"
    "path = os.path.join(tempfile.mkdtemp(dir='.'), 'selection.capnp')\n"
    "ipu_nb.generate_profile(path, 'mlp', 'phase', phases=12)\n"
    "profile = ipu_nb.open_profile(path, progress=False)\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46

#: Pixels of the area layer that are drawn (alpha > 0), and their bounding box, in device pixels.
LAYER_JS = """(name) => {
    const c = document.querySelector('.' + name);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0, x0 = c.width, x1 = -1, y0 = c.height, y1 = -1;
    for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3] === 0) continue;
        const p = i / 4, x = p % c.width, y = Math.floor(p / c.width);
        n++; x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    return {n, x0, x1, y0, y1, width: c.width, dpr: window.devicePixelRatio};
}"""


def opened(lab_page: Any) -> tuple[Any, Any, dict[str, Any]]:
    nb = open_widget(lab_page, CELLS)
    box = nb.page.locator(".ipu-nb-timeline-overlay").bounding_box()
    return nb, nb.page, box


def cycle_x(nb: Any, box: dict[str, Any], cycle: float) -> float:
    """The page x of `cycle` in the widget's current view."""
    start, end = nb.kernel("widget.view")
    return box["x"] + GUTTER + (cycle - start) / (end - start) * (box["width"] - GUTTER)


def alt_drag(page: Any, x0: float, y0: float, x1: float, y1: float) -> None:
    page.keyboard.down("Alt")
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=6)
    page.mouse.up()
    page.keyboard.up("Alt")


def area_panel(page: Any) -> dict[str, str]:
    return page.eval_on_selector(".ipu-nb-area-summary", "e => ({...e.dataset, text: e.textContent})")


def test_alt_drag_selects_an_area_python_reads_and_escape_clears(lab_page):
    nb, page, box = opened(lab_page)
    span = nb.kernel("widget.view[1]")
    row_css = int(dataset(page, ".ipu-nb-timeline")["rowPx"]) / page.evaluate("devicePixelRatio")
    per_row = int(dataset(page, ".ipu-nb-timeline")["perRow"])
    x0, x1 = cycle_x(nb, box, span * 0.30), cycle_x(nb, box, span * 0.55)
    y0, y1 = box["y"] + 2.5 * row_css, box["y"] + 40.5 * row_css
    alt_drag(page, x0, y0, x1, y1)
    selection = nb.poll("widget.selection", lambda s: s is not None)
    assert selection is not None, "the drag set no selection"
    # The range is what was dragged (to a pixel's worth of cycles), the rows those dragged over.
    per_px = span / (box["width"] - GUTTER)
    assert abs(selection["start"] - span * 0.30) <= 2 * per_px and abs(selection["end"] - span * 0.55) <= 2 * per_px
    rows = nb.kernel("widget.info['rows']")
    assert selection["tiles"] == rows[2 * per_row : 41 * per_row]
    assert nb.kernel("widget.view") == [0, span]  # not a zoom
    # Python reads the area's samples: the overlapping ones on those tiles, clipped to the window.
    check = nb.kernel(
        "[frame.height, bool(frame['sample'].to_list() == reference['sample'].to_list()),"
        " int(frame['clipped_cycles'].sum())]",
        "frame = widget.selection_samples\n"
        "reference = profile.filter(window=(widget.selection['start'], widget.selection['end']),"
        " tiles=widget.selection['tiles'], clip=True)",
    )
    count, same, cycles = check
    assert count > 100 and same
    # The panel says the same, and the group table and flame graph show the area.
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-area-summary')?.dataset.count === String(n)", arg=count
    )
    assert area_panel(page)["cycles"] == str(cycles)
    page.wait_for_function("() => !document.querySelector('.ipu-nb-area-note').hidden")
    page.wait_for_function("() => document.querySelector('.ipu-nb-flame').dataset.area === 'true'")
    title = page.eval_on_selector(".ipu-nb-flame .ipu-nb-section-title", "t => t.textContent")
    assert "selected area" in title
    names = page.eval_on_selector_all(".ipu-nb-groups .ipu-nb-group-name", "ns => ns.map(n => n.textContent)")
    assert names == nb.kernel("widget.selection_groups['name'].head(12).to_list()")
    # The area is drawn over the dragged rows and range.
    layer = page.evaluate(LAYER_JS, "ipu-nb-timeline-area")
    dpr = layer["dpr"]
    assert layer["n"] > 1000
    assert abs(layer["x0"] / dpr - (x0 - box["x"])) <= 3 and abs(layer["x1"] / dpr - (x1 - box["x"])) <= 3
    assert abs(layer["y0"] / dpr - 2 * row_css) <= 2 and abs(layer["y1"] / dpr - 41 * row_css) <= 2
    # The right edge, dragged without a modifier, moves the end.
    page.mouse.move(x1 - 1, (y0 + y1) / 2)
    assert page.eval_on_selector(".ipu-nb-timeline-overlay", "c => c.dataset.areaEdge") == "right"
    page.mouse.down()
    page.mouse.move(cycle_x(nb, box, span * 0.8), (y0 + y1) / 2, steps=5)
    page.mouse.up()
    moved = nb.poll("widget.selection", lambda s: s["end"] > span * 0.7)
    assert abs(moved["end"] - span * 0.8) <= 2 * per_px and moved["start"] == selection["start"]
    assert moved["tiles"] == selection["tiles"]
    # Escape clears it: Python sees None, the layer is empty, the panel and the whole groups come back.
    page.keyboard.press("Escape")
    assert nb.poll("widget.selection", lambda s: s is None) is None
    page.wait_for_function("() => document.querySelector('.ipu-nb-area').dataset.active === 'false'")
    assert page.evaluate(LAYER_JS, "ipu-nb-timeline-area")["n"] == 0
    page.wait_for_function("() => document.querySelector('.ipu-nb-area-note').hidden")
    page.wait_for_function("() => document.querySelector('.ipu-nb-flame').dataset.area === 'false'")
    assert nb.kernel("widget.view") == [0, span]  # Escape cleared the area, not the view


def test_an_area_set_from_python_is_drawn_and_the_area_tool_selects_with_a_plain_drag(lab_page):
    nb, page, box = opened(lab_page)
    span = nb.kernel("widget.view[1]")
    rows = nb.kernel("widget.info['rows']")
    nb.kernel("0", f"widget.selection = {{'start': {span // 2}, 'end': {span * 3 // 4}, 'tiles': {rows[:64]}}}")
    page.wait_for_function(
        "(a) => document.querySelector('.ipu-nb-timeline-area').dataset.area === a",
        arg=f"{span // 2},{span * 3 // 4},64",
    )
    layer = page.evaluate(LAYER_JS, "ipu-nb-timeline-area")
    dpr = layer["dpr"]
    assert layer["n"] > 500
    assert abs(layer["x0"] / dpr - (cycle_x(nb, box, span / 2) - box["x"])) <= 3
    row_css = int(dataset(page, ".ipu-nb-timeline")["rowPx"]) / dpr
    per_row = int(dataset(page, ".ipu-nb-timeline")["perRow"])
    assert abs(layer["y1"] / dpr - (64 / per_row) * row_css) <= 2 * row_css + 1
    expected = nb.kernel("widget.selection_samples.height")
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-area-summary')?.dataset.count === String(n)", arg=expected
    )
    # The area tool: a plain drag selects (and does not zoom).
    page.locator(".ipu-nb-area-tool").click()
    page.mouse.move(cycle_x(nb, box, span * 0.1), box["y"] + 3)
    page.mouse.down()
    page.mouse.move(cycle_x(nb, box, span * 0.2), box["y"] + 3 + row_css, steps=4)
    page.mouse.up()
    tool = nb.poll("widget.selection", lambda s: s["start"] < span * 0.15)
    assert tool["end"] < span * 0.25 and nb.kernel("widget.view") == [0, span]
    # Cleared from Python: nothing drawn.
    nb.kernel("0", "widget.selection = None")
    page.wait_for_function("() => document.querySelector('.ipu-nb-timeline-area').dataset.area === ''")


def test_highlight_marks_a_frames_samples(lab_page):
    nb, page, _ = opened(lab_page)
    count, height = nb.kernel(
        "[widget.highlight(chosen), chosen.height]",
        "chosen = profile.samples.filter(pl.col('kind') == 'exchange').filter(pl.col('tile') < 200)",
    )
    assert count == height > 1000
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-timeline-highlight').dataset.count === String(n)", arg=count
    )
    marks = page.evaluate(LAYER_JS, "ipu-nb-timeline-highlight")
    assert marks["n"] > 500
    assert int(page.eval_on_selector(".ipu-nb-timeline-highlight", "c => c.dataset.drawn")) > 10
    assert nb.kernel("widget.highlight(None)") == 0
    page.wait_for_function("() => document.querySelector('.ipu-nb-timeline-highlight').dataset.count === '0'")
    assert page.evaluate(LAYER_JS, "ipu-nb-timeline-highlight")["n"] == 0


def test_copy_as_code_gives_code_that_rebuilds_the_widgets_frames(lab_page):
    nb, page, _ = opened(lab_page)
    span = nb.kernel("widget.view[1]")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    nb.kernel(
        "0",
        "widget.filters = {'kind': 'compute'}\n"
        "widget.group_by = 'operation'\n"
        f"widget.selection = {{'start': {span // 5}, 'end': {span // 2}, 'tiles': widget.info['rows'][:300]}}",
    )
    page.wait_for_function("() => document.querySelector('.ipu-nb-area').dataset.active === 'true'")
    page.locator(".ipu-nb-copy-code").click()
    page.wait_for_function(
        "() => ['true', 'false'].includes(document.querySelector('.ipu-nb-code-panel').dataset.copied)"
    )
    shown = page.eval_on_selector(".ipu-nb-code-text", "t => t.value")
    copied = page.eval_on_selector(".ipu-nb-code-panel", "p => p.dataset.copied")
    if copied == "true":
        assert page.evaluate("() => navigator.clipboard.readText()") == shown
    assert shown == nb.kernel("widget.to_code()")
    # Run in the kernel, the code rebuilds what the widget shows.
    same = nb.kernel(
        "ok",
        "made = {}\n"
        f"exec({shown!r}, made)\n"
        "assert_frame_equal(made['groups'], widget.groups)\n"
        "assert_frame_equal(made['samples'], widget.filtered)\n"
        "assert_frame_equal(made['selection_groups'], widget.selection_groups)\n"
        "assert_frame_equal(made['selection_samples'], widget.selection_samples)\n"
        "ok = made['widget'].state == widget.state and widget.selection_samples.height > 0",
    )
    assert same is True


def test_the_view_survives_a_reload_of_the_saved_notebook(lab_page):
    nb, page, _ = opened(lab_page)
    span = nb.kernel("widget.view[1]")
    rows = nb.kernel("widget.info['rows']")
    state = {
        "view": [span // 4, span // 2],
        "tracks": {"order": "grid", "pinned": [rows[100]], "rows": 200, "scroll": 30},
        "filters": {"kind": "exchange"},
        "selection": {"start": span // 3, "end": span * 2 // 5, "tiles": rows[:20]},
        "color_by": "kernel",
        "group_by": "tile",
    }
    nb.kernel("0", f"widget.state = {state!r}")
    page.wait_for_function("() => document.querySelector('.ipu-nb-timeline').dataset.order === 'grid'")
    settle(page)
    before = nb.kernel("widget.state")
    shown = {
        "view": dataset(page)["view"],
        "timeline": {k: dataset(page, ".ipu-nb-timeline")[k] for k in ("order", "pinned", "tiles")},
        "area": page.eval_on_selector(".ipu-nb-timeline-area", "c => c.dataset.area"),
    }
    assert shown["view"] == f"{span // 4},{span // 2}" and shown["area"] == f"{span // 3},{span * 2 // 5},20"
    assert json.loads(shown["timeline"]["tiles"])[0] == rows[100]  # pinned first
    # Save, reload: the notebook's output reopens on the live widget with the same view.
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty")
    page.reload()
    nb.wait_ready()
    page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=180_000)  # the machine may be busy
    settle(page)
    assert dataset(page)["view"] == shown["view"]
    assert {k: dataset(page, ".ipu-nb-timeline")[k] for k in ("order", "pinned", "tiles")} == shown["timeline"]
    page.wait_for_function(
        "(a) => document.querySelector('.ipu-nb-timeline-area').dataset.area === a", arg=shown["area"]
    )
    page.wait_for_function("() => document.querySelector('.ipu-nb-area').dataset.active === 'true'")
    assert dataset(page)["colorBy"] == "kernel"
    assert nb.kernel("widget.state") == before
    # A new widget from that state shows the same view.
    nb.kernel("0", "copy = ipu_nb.ProfileWidget(profile, state=widget.state)\nassert copy.state == widget.state")
