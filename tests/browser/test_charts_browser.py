"""Charts and rich reprs in a real JupyterLab: drawn offline (no CDN), hostile strings shown as text."""

from __future__ import annotations

from chart_fixtures import HOSTILE, HOSTILE_KERNEL

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
