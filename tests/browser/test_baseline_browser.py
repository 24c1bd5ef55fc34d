"""The widget with a baseline in a real JupyterLab + Chromium: the before/after flip at the same view,
the group table's Δ columns against `compare()`, and the findings panel's jump (filters + zoom)."""

from __future__ import annotations

from typing import Any

import pytest
from lab import CANVAS_JS, dataset, open_widget, settle
from test_timeline_browser import GUTTER

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb, os, tempfile\n"
    "d = tempfile.mkdtemp(dir='.')\n"
    "ipu_nb.generate_profile(os.path.join(d, 'before.capnp'), 'mlp', 'phase', tiles=256, phases=20, seed=0)\n"
    "ipu_nb.generate_profile(os.path.join(d, 'after.capnp'), 'mlp', 'phase', tiles=256, phases=20, seed=1)\n"
    "before = ipu_nb.open_profile(os.path.join(d, 'before.capnp'), progress=False)\n"
    "after = ipu_nb.open_profile(os.path.join(d, 'after.capnp'), progress=False)\n"
    "widget = ipu_nb.ProfileWidget(after, baseline=before)\nwidget",
]


def opened(lab_page: Any) -> tuple[Any, Any]:
    nb = open_widget(lab_page, CELLS)
    return nb, nb.page


def shown(page: Any, which: str) -> None:
    page.wait_for_function(
        "(w) => document.querySelector('.ipu-nb-widget').dataset.showing === w", arg=which, timeout=30_000
    )
    settle(page)


def test_the_toggle_flips_the_picture_at_the_same_view_and_the_kernel_agrees(lab_page):
    nb, page = opened(lab_page)
    toggle = page.locator(".ipu-nb-baseline-toggle")
    assert toggle.is_visible() and toggle.get_attribute("data-showing") == "after"
    page.locator(".ipu-nb-timeline-overlay").click(position={"x": GUTTER + 200, "y": 5})
    page.keyboard.press("+")
    page.keyboard.press("ArrowRight")
    settle(page)
    view = dataset(page)["view"]
    after_picture = page.evaluate(CANVAS_JS)
    page.keyboard.press("B")
    shown(page, "baseline")
    assert nb.poll("widget.showing", lambda v: v == "baseline") == "baseline"
    assert dataset(page)["view"] == view
    assert nb.kernel("widget.view") == [int(x) for x in view.split(",")]
    assert nb.kernel("widget.profile is before")
    baseline_picture = page.evaluate(CANVAS_JS)
    assert baseline_picture["hash"] != after_picture["hash"] and baseline_picture["coloured"] > 1000
    # The button flips back (the after picture again, from the cache), and so does Python.
    toggle.click()
    shown(page, "after")
    assert nb.poll("widget.showing", lambda v: v == "after") == "after"
    assert dataset(page)["view"] == view and page.evaluate(CANVAS_JS)["hash"] == after_picture["hash"]
    nb.kernel("0", "widget.showing = 'baseline'")
    shown(page, "baseline")
    assert toggle.get_attribute("data-showing") == "baseline"
    assert page.evaluate(CANVAS_JS)["hash"] == baseline_picture["hash"]


def test_delta_columns_match_compare(lab_page):
    nb, page = opened(lab_page)
    page.wait_for_selector(".ipu-nb-group-table tr[data-delta]", timeout=60_000)
    heads = page.locator(".ipu-nb-group-table th").all_inner_texts()
    assert heads[-4:] == ["before", "after", "Δ", "ratio"]
    shown_rows = page.eval_on_selector_all(
        ".ipu-nb-group-table tr[data-delta]",
        "rows => rows.map(r => [r.querySelector('.ipu-nb-group-name').textContent, Number(r.dataset.delta)])",
    )
    expected = nb.kernel(
        "{r['name']: r['phase_cycles_delta'] for r in"
        " ipu_nb.compare(before, after, by='kernel').groups.iter_rows(named=True)}"
    )
    assert shown_rows and all(expected[name] == delta for name, delta in shown_rows), (shown_rows, expected)
    assert any(delta != 0 for _, delta in shown_rows)
    # Filters apply to both sides, as compare's.
    nb.kernel("0", "widget.filters = {'kind': 'compute'}")
    expected = nb.kernel(
        "{r['name']: r['phase_cycles_delta'] for r in"
        " ipu_nb.compare(before, after, by='kernel', kind='compute').groups.iter_rows(named=True)}"
    )
    page.wait_for_function(
        "(e) => { const rows = [...document.querySelectorAll('.ipu-nb-group-table tr[data-delta]')];"
        " return rows.length > 0 && rows.every(r => e[r.querySelector('.ipu-nb-group-name').textContent]"
        " === Number(r.dataset.delta)); }",
        arg=expected,
        timeout=30_000,
    )


def test_a_finding_click_applies_its_filters_and_zooms(lab_page):
    nb, page = opened(lab_page)
    page.locator(".ipu-nb-findings > summary").click()
    page.wait_for_selector(".ipu-nb-finding", timeout=60_000)
    rows = nb.kernel("widget.finding_rows")
    expected = nb.kernel("[f.message for f in ipu_nb.findings(after)]")
    assert [r["message"] for r in rows] == expected and rows
    texts = page.locator(".ipu-nb-finding-text").all_inner_texts()
    assert texts == expected
    # A finding with filters (the narrowest view among those), so the click changes both.
    pick = max(rows, key=lambda r: (r["filters"] != nb.kernel("widget.filters"), -(r["view"][1] - r["view"][0])))
    page.locator(f".ipu-nb-finding[data-rank='{pick['rank']}']").click()
    assert nb.poll("widget.filters", lambda f: f == pick["filters"]) == pick["filters"]
    assert nb.poll("widget.view", lambda v: v == pick["view"]) == pick["view"]
    settle(page)
    assert dataset(page)["view"] == ",".join(map(str, pick["view"]))


def test_the_flame_graph_colours_by_delta_with_a_legend(lab_page):
    nb, page = opened(lab_page)
    page.wait_for_selector(".ipu-nb-flame-node[data-delta]", timeout=60_000)
    switch = page.locator(".ipu-nb-flame-delta input")
    assert switch.is_visible() and page.locator(".ipu-nb-delta-legend").is_hidden()
    colours_before = page.eval_on_selector_all(".ipu-nb-flame-node", "bars => bars.map(b => b.style.background)")
    switch.check()
    page.wait_for_function("() => document.querySelector('.ipu-nb-icicle').dataset.colour === 'delta'")
    legend = page.locator(".ipu-nb-delta-legend")
    assert legend.is_visible() and "faster" in legend.inner_text() and "slower" in legend.inner_text()
    bars = page.eval_on_selector_all(
        ".ipu-nb-flame-node[data-delta]",
        "bars => bars.map(b => [b.dataset.level, b.dataset.name, Number(b.dataset.delta),"
        " getComputedStyle(b).backgroundColor.match(/\\d+/g).map(Number)])",
    )
    assert (
        page.eval_on_selector_all(".ipu-nb-flame-node", "bars => bars.map(b => b.style.background)") != colours_before
    )
    # Diverging: more cycles after is red, fewer blue. A change far below the largest one rounds to
    # (nearly) the background, so only changes of at least 1% of the largest must show their hue.
    reach = max(abs(d) for *_, d, _c in bars)
    for _, name, delta, (r, _g, b) in bars:
        visible = abs(delta) >= reach / 100
        if delta > 0:
            assert r > b if visible else r >= b, (name, delta, r, b)
        elif delta < 0:
            assert b > r if visible else b >= r, (name, delta, r, b)
    assert any(d != 0 for *_, d, _c in bars)
    # The kinds' deltas are compare()'s work-cycle deltas by kind.
    expected = nb.kernel(
        "{r['name']: r['work_cycles_delta'] for r in"
        " ipu_nb.compare(before, after, by='kind').groups.iter_rows(named=True)}"
    )
    kinds = {name: delta for level, name, delta, _ in bars if level == "1"}
    assert kinds and all(expected[k] == d for k, d in kinds.items()), (kinds, expected)
    switch.uncheck()
    page.wait_for_function("() => document.querySelector('.ipu-nb-icicle').dataset.colour !== 'delta'")
    assert legend.is_hidden()
