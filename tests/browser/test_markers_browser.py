"""Markers and findings in JupyterLab + Chromium, compared with Python: key ``M`` adds a marker
``widget.markers`` holds, a marker added in Python is listed and drawn, and a finding naming a
tile (shown from Python or clicked) has that tile's row on screen, highlighted."""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget, settle

pytestmark = pytest.mark.browser

HOSTILE = "<img src=x onerror=alert(1)>"

CELLS = [
    "import ipu_nb\nprofile = ipu_nb.open_profile(ipu_nb.demo_profile_path('small'), progress=False)",
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]

LISTED_JS = """() => [...document.querySelectorAll('.ipu-nb-marker')].map((li) => [
    Number(li.dataset.start), Number(li.dataset.end), li.querySelector('.ipu-nb-marker-label').value])"""


def _listed(nb: Any, want: list[list[Any]]) -> list[list[Any]]:
    nb.page.wait_for_function(
        f"(want) => JSON.stringify(({LISTED_JS})()) === JSON.stringify(want)", arg=want, timeout=30_000
    )
    return nb.page.evaluate(LISTED_JS)


def test_key_m_adds_a_marker_python_holds_and_python_markers_are_listed_and_drawn(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    nb.kernel("0", "widget.at = 2_000_000")
    page.focus(".ipu-nb-widget")
    page.keyboard.press("M")
    rows = nb.poll("widget.markers.rows()", lambda v: len(v) == 1, timeout=30)
    assert rows == [[2_000_000, 2_000_000, ""]]
    page.keyboard.type(HOSTILE)  # the new marker's label field has the focus
    page.keyboard.press("Enter")
    rows = nb.poll("widget.markers.rows()", lambda v: v[0][2] != "", timeout=30)
    assert rows == [[2_000_000, 2_000_000, HOSTILE]]
    nb.kernel("0", "widget.add_marker(5_000_000, 6_000_000, label='from Python')")
    want = nb.kernel("[list(r) for r in widget.markers.rows()]")
    assert _listed(nb, want) == want
    assert page.locator(".ipu-nb-markers img").count() == 0  # the label is text, not markup
    drawn = page.eval_on_selector(".ipu-nb-timeline-markers", "c => c.dataset.drawn")
    assert drawn == "2"  # both inside the whole view


def test_a_finding_naming_a_tile_shows_its_row_highlighted(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    nb.poll("len(widget.finding_rows)", lambda v: v > 0, timeout=60)
    rank, tile = nb.kernel("next((r['rank'], r['tile']) for r in widget.finding_rows if r['tile'] is not None)")
    nb.kernel("0", "widget.tracks = {**widget.tracks, 'rows': 15, 'scroll': 0}")
    page.eval_on_selector(".ipu-nb-findings", "d => { d.open = true; }")
    page.click(f".ipu-nb-finding[data-rank='{rank}']")
    nb.poll("widget.tracks['pinned'][:1]", lambda v: v == [tile], timeout=30)
    view = nb.kernel("widget.view")
    page.wait_for_function(
        "(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=",".join(map(str, view))
    )
    # The marks are the finding's samples on that tile only: drawn means its row is on screen.
    marks = nb.kernel("len(widget._marks.positions)")
    page.wait_for_function(
        "(n) => { const c = document.querySelector('.ipu-nb-timeline-highlight');"
        " return c.dataset.count === String(n) && Number(c.dataset.drawn) > 0; }",
        arg=marks,
        timeout=30_000,
    )
    settle(page)
    assert nb.kernel("widget.tracks['pinned'][0]") == tile  # the page kept the row layout Python set
    assert nb.kernel("widget.timeline_tiles[0]") == tile
