"""The clock control in a real JupyterLab + Chromium: the select sets ``widget.clock``, the axis and the
inspector name the clock, and a click's ``widget.at`` is an offset on it, checked from the kernel.

The profile is the generator's MLP, whose tiles start at different cycles, so the per-tile,
the cropped and the shared clocks all differ. What the page shows is compared with the
kernel's own computation on the newest runtime's clock (`head_clock`), never with itself.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget, settle, wait_window

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb, os, tempfile\n"
    "from ipu_nb._query.head.clock import head_clock\n"
    "path = os.path.join(tempfile.mkdtemp(dir='.'), 'clock.capnp')\n"
    "ipu_nb.generate_profile(path, 'mlp', 'phase', tiles=32, phases=4, seed=3)\n"
    "profile = ipu_nb.open_profile(path, progress=False)\n"
    "def on(shared):\n"
    "    return ipu_nb.Profile.of(head_clock(profile, shared_clock=shared).profile)\n"
    "crop = head_clock(profile).crop\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46

#: The axis' clock, the select's value and the inspector's cursor line and sample offset row.
SCREEN_JS = """() => {
    const w = document.querySelector('.ipu-nb-widget');
    const axis = w.querySelector('.ipu-nb-axis');
    const head = w.querySelector('.ipu-nb-at-head');
    let offset = null;
    for (const tr of w.querySelectorAll('.ipu-nb-fields tr'))
        if (tr.querySelector('th').textContent === 'offset') offset = tr.querySelector('td').textContent;
    return {
        axis: axis.dataset.clock, title: axis.title, select: w.querySelector('.ipu-nb-clock').value,
        root: w.dataset.clock, head: head ? head.textContent : null, offset,
    };
}"""


def screen(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(SCREEN_JS)
    return result


def test_the_clock_select_sets_the_trait_and_a_click_reads_offsets_on_it(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    crop = nb.kernel("crop")
    assert crop > 0, "the profile's tiles start at different cycles"
    shown = screen(page)
    assert (shown["axis"], shown["select"], shown["title"]) == (
        "tile",
        "tile",
        "offsets in cycles on the per-tile clock",
    )
    last = int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId"))

    page.select_option(".ipu-nb-clock", "shared")
    assert nb.poll("widget.clock", lambda v: v == "shared") == "shared"
    shared_span = nb.kernel("int((on(True).samples['offset'] + on(True).samples['duration']).max())")
    assert nb.poll("widget.view", lambda v: v == [0, shared_span]) == [0, shared_span]  # the whole, on the new clock
    last = wait_window(page, last)
    settle(page)
    page.wait_for_function("() => document.querySelector('.ipu-nb-axis').dataset.clock === 'shared'", timeout=10_000)
    assert screen(page)["title"] == "offsets in cycles on the shared clock"

    rows = nb.kernel("widget.info['rows']")
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    row, fx = 5, 0.41
    page.mouse.click(
        box["x"] + GUTTER + fx * (box["width"] - GUTTER), box["y"] + (row + 0.5) * box["height"] / len(rows)
    )
    nb.poll("widget.selected", lambda v: v is not None)
    state = nb.kernel(
        "{'at': widget.at, 'selected': widget.selected,"
        " 'equal': widget.at_slice.select('sample', 'offset').equals("
        "on(True).filter(at=widget.at).select('sample', 'offset')),"
        " 'sel': on(True).filter(at=widget.at, tiles=[widget.info['rows'][5]])"
        ".select('sample', 'offset').to_dicts()}"
    )
    assert abs(state["at"] - fx * shared_span) <= shared_span / 400
    assert state["equal"], "widget.at_slice is the shared clock's samples at widget.at"
    assert [s["sample"] for s in state["sel"]] == [state["selected"]]
    offset = state["sel"][0]["offset"]
    page.wait_for_function(
        "(text) => { const h = document.querySelector('.ipu-nb-at-head'); return h && h.textContent.includes(text); }",
        arg=f"offset {state['at']:,} (shared clock)",
        timeout=10_000,
    )
    page.wait_for_function(
        "(text) => [...document.querySelectorAll('.ipu-nb-fields td')].some((td) => td.textContent.startsWith(text))",
        arg=f"{offset:,} (shared clock)",
        timeout=10_000,
    )

    page.select_option(".ipu-nb-clock", "cropped")
    assert nb.poll("widget.clock", lambda v: v == "cropped") == "cropped"
    assert nb.poll("widget.at", lambda v: v == state["at"] - crop) == state["at"] - crop  # the same cycle
    page.wait_for_function(
        "(text) => { const h = document.querySelector('.ipu-nb-at-head'); return h && h.textContent.includes(text); }",
        arg=f"offset {state['at'] - crop:,} (crop initial sync)",
        timeout=10_000,
    )
    cropped = nb.kernel("on(False).filter(at=widget.at).select('sample').to_series().to_list()")
    assert sorted(cropped) == sorted(nb.kernel("widget.at_slice['sample'].to_list()"))
    shown = screen(page)
    assert (shown["select"], shown["root"]) == ("cropped", "cropped")
