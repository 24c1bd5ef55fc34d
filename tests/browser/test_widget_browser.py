"""ProfileWidget in a real JupyterLab + Chromium: clicks, flame graph, Python-side filters, escaping."""

from __future__ import annotations

import re

import pytest
from browser_profile import HOSTILE
from lab import CANVAS_JS, OUTPUT, wait_window

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb\nfrom browser_profile import hostile_profile\nprofile = hostile_profile()\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]


def test_widget_round_trips_through_the_kernel(lab_page):
    nb = lab_page(CELLS)
    page = nb.page
    nb.run_all()
    page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=60_000)
    last = wait_window(page, 0)
    page.wait_for_selector(".ipu-nb-flame-node", timeout=30_000)
    rows = nb.kernel("widget.info['rows']")
    view = nb.kernel("widget.view")
    before = page.evaluate(CANVAS_JS)
    assert before["coloured"] > 1000, "timeline drew nothing"

    # Click the timeline: `at` and `selected` come back to Python; at_slice == profile.filter(at=...).
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    gutter = 46
    row = 10
    row_height = box["height"] / len(rows)
    fx = 0.37
    page.mouse.click(box["x"] + gutter + fx * (box["width"] - gutter), box["y"] + (row + 0.5) * row_height)
    nb.poll("widget.selected", lambda v: v is not None)
    state = nb.kernel(
        "{'at': widget.at, 'selected': widget.selected,"
        " 'equal': widget.at_slice.equals(profile.filter(at=widget.at)),"
        " 'n': widget.at_slice.height,"
        " 'sel': widget.selected_sample.select('tile', 'offset', 'duration').to_dicts()}"
    )
    expected_at = view[0] + fx * (view[1] - view[0])
    assert abs(state["at"] - expected_at) <= (view[1] - view[0]) / 500
    assert state["equal"] and state["n"] > 0
    assert state["selected"] is not None, state
    (sel,) = state["sel"]
    assert sel["tile"] == rows[row]
    assert sel["offset"] <= state["at"] < sel["offset"] + sel["duration"]
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.ipu-nb-at-head')].some(e => e.textContent.includes(n))",
        arg=f"{state['n']} matching samples",
        timeout=10_000,
    )

    # Filters and colours chosen in the controls reach the kernel before the window asked for
    # with them: the timeline's answer follows each change.
    def answered(key: str, value: str) -> None:
        page.wait_for_function(
            "([k, v]) => document.querySelector('.ipu-nb-widget').dataset[k] === v", arg=[key, value], timeout=10_000
        )

    kind_select, colour_select = page.locator(".ipu-nb-controls select:not(.ipu-nb-clock)").all()
    kind_select.select_option("compute")
    answered("filtered", "true")
    colour_select.select_option("kernel")
    answered("colorBy", "kernel")
    kind_select.select_option("")
    answered("filtered", "false")
    colour_select.select_option("kind")
    answered("colorBy", "kind")
    assert nb.poll("widget.color_by", lambda c: c == "kind") == "kind"
    last = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId"))

    # A metadata filter set from Python greys the timeline and shows as a chip.
    nb.kernel("widget.filters", code="widget.filters = {'metadata': ['layer=1']}")
    last = wait_window(page, last)
    page.wait_for_selector(".ipu-nb-chip:has-text('layer=1')", timeout=10_000)
    after = page.evaluate(CANVAS_JS)
    assert after["hash"] != before["hash"]
    assert after["coloured"] < before["coloured"]

    # Clicking a flame-graph node focuses it: its path lands in the filters trait.
    page.locator(".ipu-nb-flame-node[data-level='1']", has_text="compute").first.click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ipu-nb-crumb')].some(e => e.textContent === 'compute')",
        timeout=10_000,
    )
    filters = nb.poll("widget.filters", lambda f: f["kind"] is not None)
    assert filters["kind"] == "compute" and filters["metadata"] == [["layer", "1"]]
    page.locator(".ipu-nb-flame-node[data-level='2']").first.click()
    filters = nb.poll("widget.filters", lambda f: f["kernel"] is not None)
    assert filters["kernel"] is not None and filters["kind"] == "compute"
    page.locator(".ipu-nb-crumb", has_text="all").click()
    assert nb.poll("widget.filters['kind']", lambda k: k is None) is None

    # Keyboard zoom and reset change the view trait.
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": gutter + 200, "y": 5})
    page.keyboard.press("+")
    zoomed = nb.poll("widget.view", lambda v: v != view)
    assert zoomed[1] - zoomed[0] < (view[1] - view[0]) * 0.6
    page.keyboard.press("0")
    assert nb.poll("widget.view", lambda v: v == view) == view

    # Setting the view from Python redraws the timeline for that range.
    nb.kernel("widget.view", code="widget.view = [1000, 5000]")
    last = wait_window(page, last)
    page.wait_for_function(
        "() => document.querySelector('.ipu-nb-header').textContent.includes('1000 – 5000')", timeout=10_000
    )
    assert page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.mode") == "raw"
    page.keyboard.press("Escape")
    assert nb.poll("widget.view", lambda v: v == view) == view

    # Drag to zoom onto the dragged range, wheel to zoom further, right-click to undo.
    x0, x1 = box["x"] + gutter + 0.2 * (box["width"] - gutter), box["x"] + gutter + 0.6 * (box["width"] - gutter)
    y = box["y"] + 20
    page.mouse.move(x0, y)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, y, steps=3)
    page.mouse.move(x1, y, steps=3)
    page.mouse.up()
    dragged = nb.poll("widget.view", lambda v: v != view)
    span = view[1] - view[0]
    assert abs(dragged[0] - (view[0] + 0.2 * span)) < span / 100
    assert abs(dragged[1] - (view[0] + 0.6 * span)) < span / 100
    page.mouse.move((x0 + x1) / 2, y)
    page.mouse.wheel(0, -400)
    wheeled = nb.poll("widget.view", lambda v: v != dragged)
    assert wheeled[1] - wheeled[0] < dragged[1] - dragged[0]
    assert dragged[0] <= wheeled[0] and wheeled[1] <= dragged[1]
    page.mouse.click((x0 + x1) / 2, y, button="right")
    undone = nb.poll("widget.view", lambda v: v != wheeled)
    page.mouse.click((x0 + x1) / 2, y, button="right")
    assert undone == dragged
    assert nb.poll("widget.view", lambda v: v == view) == view
    assert page.locator(".lm-Menu").count() == 0  # JupyterLab's own context menu stays closed

    # Hostile profile strings are shown as text, never parsed as HTML.
    hostile = nb.kernel(
        "int(profile.samples.filter(pl.col('operation').cast(pl.String) == h).get_column('sample')[0])",
        code=f"import polars as pl\nh = {HOSTILE!r}",
    )
    nb.kernel("widget.selected", code=f"widget.selected = {hostile}")
    page.wait_for_function(
        "(h) => [...document.querySelectorAll('.ipu-nb-sample td')].some(e => e.textContent === h)",
        arg=HOSTILE,
        timeout=10_000,
    )
    assert page.locator(".ipu-nb-widget img").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert page.get_by_text(HOSTILE, exact=True).count() >= 3  # flame nodes, inspector fields and metadata

    # Colour by kernel from Python: the legend lists the kernels, hostile names as text.
    nb.kernel("widget.color_by", code="widget.color_by = 'kernel'")
    last = wait_window(page, last)
    page.wait_for_function(
        "(h) => [...document.querySelectorAll('.ipu-nb-legend-item')].some(e => e.textContent === h)",
        arg=HOSTILE,
        timeout=10_000,
    )
    assert page.locator(".ipu-nb-legend-item", has_text="gemm_f32_accumulate_large_rows").count() == 1
    assert page.locator("img[src='x']").count() == 0
    OUTPUT.mkdir(exist_ok=True)
    page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / "widget-kernel-colours.png"))
    nb.kernel("widget.color_by", code="widget.color_by = 'kind'")
    last = wait_window(page, last)

    OUTPUT.mkdir(exist_ok=True)
    nb.kernel("widget.at", code="widget.filters = {'kind': 'compute'}")
    wait_window(page, last)
    page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / "widget.png"))


def test_metadata_filters_from_clicks_are_name_value_pairs(lab_page):
    """A metadata name holding "=" round-trips from a click to `widget.filters` and `widget.filtered`."""
    nb = lab_page(CELLS)
    page = nb.page
    nb.run_all()
    page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=60_000)
    wait_window(page, 0)
    pair = "[('a=b', 'c')]"
    sid = nb.kernel(f"int(profile.filter(metadata={pair}).get_column('sample')[0])")
    assert nb.kernel(f"profile.filter(metadata={pair}).height > 0 and profile.filter(metadata='a=b=c').height > 0")

    def filtered_as(pairs: str) -> bool:
        return nb.kernel(f"widget.filtered.equals(profile.filter(metadata={pairs}))")

    # The selected sample's metadata table: click the entry named "a=b".
    nb.kernel("widget.selected", code=f"widget.selected = {sid}")
    entry = page.locator(".ipu-nb-sample tr[data-metadata-name='a=b'][data-metadata-value='c']")
    entry.click(timeout=10_000)
    assert nb.poll("widget.filters['metadata']", lambda m: m != []) == [["a=b", "c"]]
    assert filtered_as(pair)
    assert not nb.kernel("widget.filtered.equals(profile.filter(metadata='a=b=c'))")  # never re-split
    chip = page.locator(".ipu-nb-chip", has_text="a=b=c")
    assert chip.get_attribute("title") == "entry named a=b with value c"
    chip.locator(".ipu-nb-chip-x").click()
    assert nb.poll("widget.filters['metadata']", lambda m: m == []) == []

    # The cursor summary's metadata list: the entry named "a" with value "b=c".
    at = nb.kernel(
        "int(profile.filter(metadata=[('a', 'b=c')]).select(pl.col('offset') + 1).item(0, 0))",
        code="import polars as pl",
    )
    nb.kernel("widget.at", code=f"widget.at = {at}")
    page.locator(".ipu-nb-at .ipu-nb-list-row[data-metadata-name='a'][data-metadata-value='b=c']").click(timeout=10_000)
    assert nb.poll("widget.filters['metadata']", lambda m: m != []) == [["a", "b=c"]]
    assert filtered_as("[('a', 'b=c')]")

    # The flame graph's entries of a focused operation.
    nb.kernel("widget.filters", code="widget.filters = {'operation_contains': 'MLP layer'}")
    page.locator(".ipu-nb-meta-row[data-metadata-name='a=b'][data-metadata-value='c']").click(timeout=10_000)
    assert nb.poll("widget.filters['metadata']", lambda m: m != []) == [["a=b", "c"]]
    assert nb.kernel(f"widget.filtered.equals(profile.filter(operation_contains='MLP layer', metadata={pair}))")
    nb.kernel("widget.filters", code="widget.filters = {'metadata': [['a', 'b=c']]}")

    # Typed text splits at the first "=", as --metadata does.
    box = page.locator(".ipu-nb-controls input[placeholder^='metadata']")
    box.fill("layer=1")
    box.press("Enter")
    assert nb.poll("widget.filters['metadata']", lambda m: len(m) == 2) == [["a", "b=c"], ["layer", "1"]]

    # Grouping by a metadata key: chosen first, sent with its key; a group row filters by its pair.
    nb.kernel("widget.filters", code="widget.filters = {}")
    select = page.locator(".ipu-nb-groups-head select")
    select.select_option("metadata")
    page.wait_for_selector(".ipu-nb-hint:has-text('metadata key')", timeout=10_000)
    assert nb.kernel("widget.group_by") == "kernel"  # nothing sent without a key
    key = page.locator(".ipu-nb-groups-head input")
    key.fill("a=b")
    key.press("Enter")
    assert nb.poll("[widget.group_by, widget.metadata_key]", lambda g: g[0] == "metadata") == ["metadata", "a=b"]
    # The row named exactly "c": until the metadata groups arrive, the kernel groups' table is shown.
    value_row = page.locator(".ipu-nb-group-table tr.ipu-nb-clickable").filter(
        has=page.locator("td.ipu-nb-group-name", has_text=re.compile(r"^c$"))
    )
    value_row.first.click(timeout=10_000)
    assert nb.poll("widget.filters['metadata']", lambda m: m != []) == [["a=b", "c"]]
    assert filtered_as(pair)
    assert page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.error ?? ''") == ""  # the kernel refused nothing


def test_the_server_sends_kernel_messages_without_delay(lab):
    """The installed server extension loaded in the server the widget talks through (TCP_NODELAY on its websocket)."""
    log = (lab.root.parent / "server.log").read_text()
    assert "ipu_nb | extension was successfully loaded" in log
    assert "ipu-nb: kernel websockets send small messages at once" in log
