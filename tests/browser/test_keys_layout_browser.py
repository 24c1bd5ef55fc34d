"""Keys shared with JupyterLab, the tiles filter's row count and the narrow layout, in a real JupyterLab.

The profile is the generator's MLP on all 1,472 tiles cut to 30 phases, opened in the second
cell of a two-cell notebook (so JupyterLab's own `k` has a cell above to move to).
"""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget, settle, wait_window

pytestmark = pytest.mark.browser

CELLS = [
    "1 + 1",
    "import ipu_nb, os, tempfile\n"
    "path = os.path.join(tempfile.mkdtemp(dir='.'), 'keys.capnp')\n"
    "ipu_nb.generate_profile(path, 'mlp', 'phase', phases=30)\n"
    "profile = ipu_nb.open_profile(path, progress=False)\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
NOTEBOOK_JS = "window.jupyterapp.shell.currentWidget.content"
CELL_COUNT_JS = f"() => {NOTEBOOK_JS}.widgets.length"
ACTIVE_JS = f"() => {NOTEBOOK_JS}.activeCellIndex"
#: The tile count Python says the widget shows: the distinct tiles of what the filters match.
SHOWN_TILES = "widget.filtered.get_column('tile').n_unique()"


def wait_cells(page: Any, count: int) -> int:
    """Wait until the notebook has `count` cells; returns how many it has."""
    page.wait_for_function(f"(n) => {NOTEBOOK_JS}.widgets.length === n", arg=count, timeout=10_000)
    return int(page.evaluate(CELL_COUNT_JS))


def rows_note_says(page: Any, tiles: int) -> str:
    """Wait until the rows note starts with "N tiles" (N grouped by thousands, as shown); returns its text."""
    text = f"{tiles:,} tile{'' if tiles == 1 else 's'}"
    page.wait_for_function(
        "(t) => { const n = document.querySelector('.ipu-nb-rows-note');"
        " return !!n && (n.textContent === t || n.textContent.startsWith(t + ' '));}",
        arg=text,
        timeout=10_000,
    )
    return str(page.locator(".ipu-nb-rows-note").inner_text())


def test_keys_go_to_jupyterlab_until_the_timeline_is_clicked_then_only_its_own_stay(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    start = nb.kernel("widget.view")
    span = start[1] - start[0]
    middle = [start[0] + round(0.4 * span), start[0] + round(0.6 * span)]  # room to pan left
    last = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId"))
    view = nb.kernel("widget.view", code=f"widget.view = [{middle[0]!r}, {middle[1]!r}]")
    wait_window(page, last)
    settle(page)
    cells = int(page.evaluate(CELL_COUNT_JS))
    assert cells == 2

    # A cell in command mode, the mouse over the timeline: a and d d are JupyterLab's.
    page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.querySelector('.jp-Notebook.jp-mod-commandMode') !== null")
    overlay = page.locator(".ipu-nb-timeline-overlay")
    box = overlay.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.press("a")
    assert wait_cells(page, cells + 1) == cells + 1
    page.keyboard.press("d")
    page.keyboard.press("d")
    assert wait_cells(page, cells) == cells
    assert nb.kernel("widget.view") == view

    # A click on the timeline focuses the view's root, with a visible ring.
    overlay.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    focus = page.evaluate(
        "() => { const r = document.querySelector('.ipu-nb-widget');"
        " return {focused: document.activeElement === r, outline: getComputedStyle(r).outlineStyle}; }"
    )
    assert focus["focused"], focus
    assert focus["outline"] != "none", focus

    # Now a is the widget's (pan left a quarter of the view) and the notebook keeps its cells.
    page.keyboard.press("a")
    panned = nb.poll("widget.view", lambda v: v != view)
    quarter = (view[1] - view[0]) / 4
    assert abs(panned[0] - (view[0] - quarter)) <= quarter / 100, (view, panned)
    assert abs(panned[1] - (view[1] - quarter)) <= quarter / 100, (view, panned)
    assert page.evaluate(CELL_COUNT_JS) == cells

    # k is not the widget's: it still moves JupyterLab's active cell up.
    active = int(page.evaluate(ACTIVE_JS))
    assert active == 1, "the click on the timeline should make its cell the active one"
    page.keyboard.press("k")
    page.wait_for_function(f"(i) => {NOTEBOOK_JS}.activeCellIndex !== i", arg=active, timeout=10_000)
    assert page.evaluate(ACTIVE_JS) == active - 1
    assert nb.kernel("widget.view") == panned


def test_a_tiles_filter_from_python_shows_its_tiles_and_clearing_it_shows_them_all(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    everything = nb.kernel(SHOWN_TILES)
    assert everything == 1472
    assert rows_note_says(page, everything).startswith("1,472 tiles")
    tiles = nb.kernel("sorted(widget.info['rows'])[::123][:12]")
    assert len(tiles) == 12
    shown = nb.kernel(SHOWN_TILES, code=f"widget.filters = {{'tiles': {tiles!r}}}")
    assert shown == 12
    assert rows_note_says(page, shown).startswith("12 tiles")
    cleared = nb.kernel(SHOWN_TILES, code="widget.filters = {}")
    assert cleared == everything
    assert rows_note_says(page, cleared).startswith("1,472 tiles")


def test_at_1000_px_with_the_file_browser_open_nothing_overlaps_and_the_side_panel_is_below(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    page.set_viewport_size({"width": 1000, "height": 1300})
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    page.wait_for_selector(".jp-FileBrowser", state="visible", timeout=10_000)
    settle(page)
    parts = {
        "search": ".ipu-nb-find",
        "ordering": ".ipu-nb-order",
        "overview": ".ipu-nb-overview",
        "timeline": ".ipu-nb-timeline-base",
        "side panel": ".ipu-nb-inspector",
    }
    boxes = {name: page.locator(selector).first.bounding_box() for name, selector in parts.items()}
    assert all(b is not None and b["width"] > 0 and b["height"] > 0 for b in boxes.values()), boxes
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p, q = boxes[a], boxes[b]
            apart = (
                p["x"] + p["width"] <= q["x"]
                or q["x"] + q["width"] <= p["x"]
                or p["y"] + p["height"] <= q["y"]
                or q["y"] + q["height"] <= p["y"]
            )
            assert apart, f"{a} {p} overlaps {b} {q}"
    timeline, side = boxes["timeline"], boxes["side panel"]
    assert side["y"] >= timeline["y"] + timeline["height"], (timeline, side)
