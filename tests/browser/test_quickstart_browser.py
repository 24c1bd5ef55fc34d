"""The quickstart notebook, run in a real JupyterLab: widget and charts drawn offline, exports written."""

from __future__ import annotations

from pathlib import Path

import nbformat

import ipu_nb

QUICKSTART = Path(__file__).parents[2] / "notebooks" / "quickstart.ipynb"


def test_quickstart_runs_in_jupyterlab(lab_page, tmp_path):
    profile = ipu_nb.demo_profile_path("small", directory=tmp_path / "data", progress=False)
    output = tmp_path / "out"
    setup = f"import os\nos.environ['IPU_NB_PROFILE'] = {str(profile)!r}\nos.environ['IPU_NB_OUTPUT'] = {str(output)!r}"
    notebook = nbformat.read(QUICKSTART, as_version=4)
    cells = [setup] + [c.source for c in notebook.cells if c.cell_type == "code"]
    page = lab_page(cells)
    page.run_all()
    browser = page.page
    charts = sum("charts." in c and "charts.save" not in c for c in cells)
    browser.wait_for_function(
        f"document.querySelectorAll('.vega-embed svg').length >= {charts}"
        " && document.querySelector('.ipu-nb-widget canvas') !== null",
        timeout=150_000,
    )
    assert page.kernel("report.name") == "report.html"  # the last cell ran
    assert page.kernel("widget.filtered.height > 0 and widget.query.kind == 'compute'")
    # The widget opened on its phase: the filtered samples fill most of the view, not one pixel of it.
    fill = page.kernel(
        "(lambda f, v: (f['offset'].min(), (f['offset'] + f['duration']).max(), v[0], v[1]))"
        "(widget.filtered, widget.view)"
    )
    first, last, start, end = fill
    assert start <= first and last <= end and (last - first) > 0.5 * (end - start), fill
    errors = browser.evaluate("document.querySelectorAll('.jp-OutputArea-output[data-mime-type*=\"error\"]').length")
    assert errors == 0
    assert {p.name for p in output.iterdir()} == {"report.html", "tile-heatmap.png", "breakdown.svg"}
