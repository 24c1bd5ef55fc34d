"""Compare mode in a real JupyterLab + Chromium: after any number of flips (key B) every part of the
widget shows the profile the toggle names, each at its own span, as Python computes it."""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget, settle

pytestmark = pytest.mark.browser

# Two profiles of different spans and sizes, so a part left showing the other is told apart.
CELLS = [
    "import ipu_nb, os, tempfile\n"
    "d = tempfile.mkdtemp(dir='.')\n"
    "ipu_nb.generate_profile(os.path.join(d, 'before.capnp'), 'mlp', 'phase', tiles=256, phases=20, seed=0)\n"
    "ipu_nb.generate_profile(os.path.join(d, 'after.capnp'), 'mlp', 'phase', tiles=256, phases=27, seed=1)\n"
    "before = ipu_nb.open_profile(os.path.join(d, 'before.capnp'), progress=False)\n"
    "after = ipu_nb.open_profile(os.path.join(d, 'after.capnp'), progress=False)\n"
    "widget = ipu_nb.ProfileWidget(after, baseline=before)\nwidget",
]

# What Python says the shown profile is: plain sums over its samples, not the widget's own answers.
EXPECTED = (
    "(lambda p: {'samples': p.sample_count,"
    " 'span': int((p.samples['offset'].cast(int) + p.samples['duration'].cast(int)).max()),"
    " 'total': int(p.samples['duration'].cast(int).sum()), 'tiles': p.tile_count})"
    "(before if widget.showing == 'baseline' else after)"
)
TABLE_JS = """() => [...document.querySelectorAll('.ipu-nb-group-table tr')].slice(1).map((r) =>
  [r.querySelector('.ipu-nb-group-name').title, r.children[4].textContent])"""
HEADER_JS = """() => Object.fromEntries([...document.querySelectorAll('.ipu-nb-fact')].map((f) =>
  [f.querySelector('.ipu-nb-fact-label').textContent, f.querySelector('.ipu-nb-fact-value').textContent]))"""


def grouped(n: int) -> str:
    """A count as the front end writes it (js/common/format.ts grouped): 1,234,567."""
    return f"{n:,}"


def check_shows(nb: Any, page: Any, which: str) -> None:
    """Every part of the widget shows profile `which`, at the whole view, as Python computes it."""
    page.wait_for_function(
        "(w) => document.querySelector('.ipu-nb-widget').dataset.showing === w", arg=which, timeout=30_000
    )
    assert nb.poll("widget.showing", lambda v: v == which) == which
    assert page.locator(".ipu-nb-baseline-toggle").get_attribute("data-showing") == which
    expected = nb.kernel(EXPECTED)
    span = expected["span"]
    # The view: the whole of this profile's own span, in Python and on screen.
    assert nb.poll("widget.view", lambda v: v == [0, span]) == [0, span], which
    page.wait_for_function(
        "(v) => document.querySelector('.ipu-nb-widget').dataset.view === v", arg=f"0,{span}", timeout=30_000
    )
    settle(page)
    # The header: this profile's samples, tiles and span.
    header = page.evaluate(HEADER_JS)
    assert header["samples"] == grouped(expected["samples"]), (which, header)
    assert header["tiles"] == grouped(expected["tiles"]), (which, header)
    assert header["span"].startswith(f"{grouped(span)} cycles"), (which, header)
    # The status line: every sample of this profile is in the whole view.
    in_view = nb.kernel("widget.profile.filter(window=(0, widget.view[1])).height")
    page.wait_for_function(
        "(n) => document.querySelector('.ipu-nb-status').dataset.count === String(n)", arg=in_view, timeout=30_000
    )
    assert in_view == expected["samples"]
    # The flame graph: its root sums this profile's cycles.
    page.wait_for_function(
        "(t) => { const r = document.querySelector('.ipu-nb-flame-node[data-level=\"0\"]');"
        " return r && r.dataset.value === String(t); }",
        arg=expected["total"],
        timeout=30_000,
    )
    # The groups table: `widget.groups`' top rows, names and sample counts.
    rows = nb.kernel("[[r['name'], r['sample_count']] for r in widget.groups.head(12).iter_rows(named=True)]")
    want = [[name or "(empty)", grouped(count)] for name, count in rows]
    try:
        page.wait_for_function(
            f"(want) => JSON.stringify(({TABLE_JS})()) === JSON.stringify(want)", arg=want, timeout=60_000
        )
    except Exception as error:  # say what the table shows instead (a stale profile's rows, or none)
        shown = page.evaluate(TABLE_JS)
        raise AssertionError(f"{which}: the table shows {shown[:4]}, widget.groups has {want[:4]}") from error
    assert page.evaluate(TABLE_JS) == want


def test_every_part_shows_the_profile_the_toggle_names_after_each_flip(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    spans = nb.kernel("[p.samples['offset'].max() for p in (before, after)]")
    assert spans[0] != spans[1]  # the test tells the two apart
    check_shows(nb, page, "after")
    page.locator(".ipu-nb-header").click()  # the keys go to the widget
    for flips in range(1, 6):
        page.keyboard.press("B")
        check_shows(nb, page, "baseline" if flips % 2 else "after")


def test_the_delta_table_cuts_no_number_and_names_carry_their_whole_text(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    page.wait_for_selector(".ipu-nb-group-table tr[data-delta]", timeout=60_000)
    cells = page.eval_on_selector_all(
        ".ipu-nb-group-table td:not(.ipu-nb-group-name)",
        "cells => cells.map(c => [c.textContent, c.scrollWidth <= c.clientWidth + 1])",
    )
    assert cells and all(whole for _, whole in cells), [text for text, whole in cells if not whole]
    assert not any(text.endswith("…") for text, _ in cells)
    titles = page.eval_on_selector_all(".ipu-nb-group-table .ipu-nb-group-name", "cells => cells.map(c => c.title)")
    names = nb.kernel("[r or '(empty)' for r in widget.groups.head(12)['name'].to_list()]")
    assert titles == names
