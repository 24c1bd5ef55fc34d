"""What the widget shows agrees with Python after every flip and every zoom, in JupyterLab + Chromium.

The baseline is shorter than the profile (18 phases against 20), so a flip changes the
span, the header, the groups, the flame graph and the samples in view: after each of five
flips (key B) the screen is compared with ``widget.groups``, ``widget.view``, ``widget.showing``
and the shown profile's span (the whole view of each profile is its own span). The footer's
"N samples in view" is compared with Python's count after zooms whose pictures come from the
page's cache (no reply from the kernel before they are drawn).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from lab import open_widget, settle, wait_window
from test_timeline_browser import frame_count, frames_after

pytestmark = pytest.mark.browser

EXPECTED = '''
def expected(w):
    """What the screen should show of widget `w`, from Python (`screen` reads the page's)."""
    view = tuple(w.view)
    top = w.groups.head(12).select("name", "sample_count").rows()
    return {
        "showing": w.showing,
        "view": ",".join(map(str, view)),
        "samples": f"{w.profile.sample_count:,}",
        "span": f"{w.info['span']:,} cycles",
        "rows": [[name or "(empty)", count] for name, count in top],
        "flame": int(w.filtered.get_column("duration").sum()),
        "status": f"{w.profile.filter(window=view).height:,} samples in view",
    }
'''

CELLS = [
    "import ipu_nb, os, tempfile\n"
    "d = tempfile.mkdtemp(dir='.')\n"
    "ipu_nb.generate_profile(os.path.join(d, 'before.capnp'), 'mlp', 'phase', tiles=256, phases=18, seed=0)\n"
    "ipu_nb.generate_profile(os.path.join(d, 'after.capnp'), 'mlp', 'phase', tiles=256, phases=20, seed=1)\n"
    "before = ipu_nb.open_profile(os.path.join(d, 'before.capnp'), progress=False)\n"
    "after = ipu_nb.open_profile(os.path.join(d, 'after.capnp'), progress=False)\n" + EXPECTED,
    "widget = ipu_nb.ProfileWidget(after, baseline=before)\nwidget",
]

#: What the page shows, in `expected`'s terms; the flame graph's root total is read from its tooltip.
SCREEN_JS = """() => {
    const w = document.querySelector('.ipu-nb-widget');
    const fact = (label) => {
        for (const f of w.querySelectorAll('.ipu-nb-fact'))
            if (f.querySelector('.ipu-nb-fact-label').textContent === label)
                return f.querySelector('.ipu-nb-fact-value').textContent;
        return null;
    };
    const rows = [...w.querySelectorAll('.ipu-nb-group-table tr')].slice(1).map((tr) => {
        const td = tr.querySelectorAll('td');
        return [td[0].textContent, Number(td[4].textContent.replace(/,/g, ''))];
    });
    let flame = null;
    const root = w.querySelector(".ipu-nb-flame-node[data-level='0']");
    if (root) {
        const r = root.getBoundingClientRect();
        root.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: r.left + 3, clientY: r.top + 3}));
        const m = w.querySelector('.ipu-nb-flame-tip').textContent.match(/^[^\\d]*([\\d,]+) cycles/);
        flame = m ? Number(m[1].replace(/,/g, '')) : null;
    }
    const span = fact('span');
    const status = w.querySelector('.ipu-nb-status').textContent;
    return {
        showing: w.dataset.showing,
        view: w.dataset.view,
        samples: fact('samples'),
        span: span && span.split(' · ')[0],
        rows,
        flame,
        status: status.split(' · ')[0],
    };
}"""

AGREES_JS = f"""(want) => {{
    const got = ({SCREEN_JS})();
    return JSON.stringify(got) === JSON.stringify(want);
}}"""


def agrees(nb: Any, what: str) -> dict[str, Any]:
    """Wait until the page shows what Python says (then quiet, and still so); returns Python's values."""
    page = nb.page
    want = nb.kernel("expected(widget)")
    with contextlib.suppress(Exception):  # a timeout: the assertion below says what differs
        page.wait_for_function(AGREES_JS, arg=want, timeout=30_000, polling=200)
    settle(page)
    got = page.evaluate(SCREEN_JS)
    assert got == want, (what, {k: (got[k], want[k]) for k in want if got[k] != want[k]})
    return want


def test_five_flips_show_the_profile_python_shows_at_its_own_span(lab_page):
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    spans = nb.kernel("[ipu_nb.ProfileWidget(p).info['span'] for p in (after, before)]")
    assert spans[1] < spans[0] * 0.95  # the baseline is the shorter one: a flip changes the span
    first = agrees(nb, "opened")
    assert first["view"] == f"0,{spans[0]}"
    page.focus(".ipu-nb-widget")
    for flip in range(1, 6):
        showing = "baseline" if flip % 2 else "after"
        page.keyboard.press("B")
        page.wait_for_function(
            "(s) => document.querySelector('.ipu-nb-widget').dataset.showing === s", arg=showing, timeout=30_000
        )
        assert nb.poll("widget.showing", lambda v, s=showing: v == s) == showing
        shown = agrees(nb, f"flip {flip}")
        span = spans[1] if showing == "baseline" else spans[0]
        # At the whole view each profile is shown at its own span: nothing hidden, nothing beyond.
        assert nb.kernel("widget.view") == [0, span], flip
        assert shown["view"] == f"0,{span}"


def test_a_flip_from_python_inside_a_zoomed_view_keeps_the_view_and_agrees(lab_page):
    nb = open_widget(lab_page, CELLS)
    nb.kernel("0", "widget.view = [100_000, 400_000]")
    agrees(nb, "zoomed")
    for showing in ("baseline", "after", "baseline"):
        nb.kernel("0", f"widget.showing = {showing!r}")
        shown = agrees(nb, f"showing {showing} from Python")
        assert shown["view"] == "100000,400000"


def test_the_footer_counts_the_samples_in_view_after_zooms_drawn_from_the_cache(lab_page):
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    agrees(nb, "opened")
    page.focus(".ipu-nb-widget")
    page.keyboard.press("+")
    wait_window(page, int(page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId")) - 1)
    zoomed = agrees(nb, "zoomed in")
    # Back out to the whole view, and then to a view never shown whose blocks the page holds:
    # each picture is drawn before any reply from the kernel, and the footer follows it.
    for step, change in (("zoomed out", "-"), ("a view set from Python", "widget.view = [80_000, widget.view[1]]")):
        seen = frame_count(page)
        began = page.evaluate("() => performance.now()")
        if change == "-":
            page.keyboard.press("-")
        else:
            nb.kernel("0", change)
        page.wait_for_function(
            "(n) => document.querySelector('.ipu-nb-widget').ipuFrames.slice(n).some((f) => f.final)",
            arg=seen,
            timeout=30_000,
        )
        drawn = next(f for f in frames_after(page, seen) if f["final"])
        arrivals = page.eval_on_selector(
            ".ipu-nb-widget", "w => w.ipuTrips.map((t) => t.arrivedEpochMs - performance.timeOrigin)"
        )
        assert not [a for a in arrivals if began <= a <= drawn["at"]], (step, "drawn after a reply")
        now = agrees(nb, step)
        assert now["status"] != zoomed["status"], step
