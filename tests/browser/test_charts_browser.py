"""Charts and rich reprs in a real JupyterLab: drawn offline (no CDN), hostile strings shown as text."""

from __future__ import annotations

from chart_fixtures import HOSTILE, HOSTILE_KERNEL, NASTY_NAMES
from rendered import vega_complaint

from ipu_nb._markup.sanitize import label

CELLS = [
    "import ipu_nb\nfrom ipu_nb import charts\nfrom chart_fixtures import hostile_profile\np = hostile_profile()",
    "%load_ext ipu_nb",
    'charts.gantt(p, color="kernel")',
    "p",
    "%ipu_query p --samples 2",
]


def test_charts_and_reprs_render_offline_and_escaped(lab_page):
    page = lab_page(CELLS)
    page.run_all()
    browser = page.page
    browser.wait_for_function("document.querySelectorAll('.vega-embed svg').length >= 1", timeout=90_000)
    browser.wait_for_function("document.querySelectorAll('.ipu-nb-repr').length >= 2", timeout=60_000)
    texts = browser.evaluate("Array.from(document.querySelectorAll('.vega-embed svg text')).map(t => t.textContent)")
    assert HOSTILE_KERNEL in texts  # the legend label, drawn as SVG text
    reprs = browser.evaluate("Array.from(document.querySelectorAll('.ipu-nb-repr')).map(r => r.textContent)")
    assert any(HOSTILE_KERNEL in text for text in reprs)  # profile summary: top kernels
    assert any(HOSTILE in text for text in reprs)  # query result: longest samples
    injected = browser.evaluate(
        "document.querySelectorAll('.jp-OutputArea img[src=x], .ipu-nb-repr script, .ipu-nb-repr img').length"
    )
    assert injected == 0
    # the kernel agrees the magic returned the query result
    assert page.kernel("type(_).__name__") == "QueryResult"


NASTY_CELLS = [
    "from ipu_nb import charts\nfrom chart_fixtures import nasty_profile\np = nasty_profile()",
    "%load_ext ipu_nb",
    'charts.breakdown(p, by="kernel", top=100)',
    'charts.duration_distribution(p, "kernel", top=100)',
    'charts.duration_distribution(p, "operation", style="ecdf", top=100)',
    'charts.gantt(p, color="kernel")',
    "charts.phase_waterfall(p)",
    "p",
    "%ipu_query p --group-by operation --samples 50 --limit 0",
]
NASTY_CHART_CELLS = 5


def test_charts_of_nasty_names_draw_in_jupyterlab_without_a_javascript_error(lab_page):
    """Control characters, U+2028/9, noncharacters, bidi overrides, "constructor", "__proto__": every chart
    draws all of its groups."""
    page = lab_page(NASTY_CELLS)
    browser = page.page
    errors: list[str] = []
    browser.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    browser.on("console", lambda m: errors.append(m.text) if vega_complaint(m.type, m.text) else None)
    page.run_all()
    browser.wait_for_function(
        f"document.querySelectorAll('.vega-embed svg.marks').length >= {NASTY_CHART_CELLS}"
        " || document.body.textContent.includes('JavaScript Error')",
        timeout=120_000,
    )
    browser.wait_for_function("document.querySelectorAll('.ipu-nb-repr').length >= 2", timeout=60_000)
    outputs = browser.evaluate("Array.from(document.querySelectorAll('.jp-OutputArea-output')).map(o => o.textContent)")
    assert not [o for o in outputs if "JavaScript Error" in o or "Traceback" in o]
    drawn = browser.evaluate(
        "Array.from(document.querySelectorAll('.vega-embed')).map(c => ({"
        " texts: Array.from(c.querySelectorAll('svg.marks text')).map(t => t.textContent),"
        " marks: c.querySelectorAll('svg.marks [aria-roledescription]').length }))"
    )
    assert len(drawn) == NASTY_CHART_CELLS and all(chart["marks"] > 0 for chart in drawn)
    breakdown, histogram, ecdf, gantt, _ = (chart["texts"] for chart in drawn)
    short = [n for n in NASTY_NAMES if len(label(n)) <= 30]
    assert [label(n) for n in short if label(n) not in breakdown] == []  # axis labels
    assert [label(n) for n in short if label(n) not in histogram] == []  # one facet per kernel
    assert "(no kernel) (2)" in histogram  # the empty kernel, distinct from the kernel named "(no kernel)"
    for name in ("nul\x00byte", "line\u2028separator", "constructor", "\\u{1}", "\x01"):  # legends
        assert label(name) in ecdf and label(name) in gantt, name
    reprs = browser.evaluate("Array.from(document.querySelectorAll('.ipu-nb-repr')).map(r => r.textContent)")
    assert any(label("line\u2028separator") in text for text in reprs)
    assert errors == []
