"""Every notebook in notebooks/ runs top to bottom on a small generated profile and exports valid files."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest
from chart_fixtures import external_references
from nbclient import NotebookClient
from rendered import parse, png_size

import ipu_nb

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def small_profile(tmp_path_factory) -> Path:
    return ipu_nb.demo_profile_path("small", directory=tmp_path_factory.mktemp("data"), progress=False)


def test_there_is_a_quickstart_and_a_comparison_notebook():
    assert {"quickstart.ipynb", "compare.ipynb"} <= {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def check_export(path: Path) -> str:
    """Validate one exported file by its type; returns the kind checked."""
    if path.suffix == ".html":
        document = path.read_text(encoding="utf-8")
        assert external_references(document) == [], path
        page = parse(document)
        assert any(a.get("type") == "application/json" for a, _ in page.scripts), "no chart in the report"
        assert not {t for t, _ in page.tags} & {"img", "iframe", "link"}
        return "html"
    if path.suffix == ".png":
        width, height = png_size(path.read_bytes())
        assert width > 100 and height > 100
        return "png"
    if path.suffix == ".svg":
        assert ET.fromstring(path.read_text(encoding="utf-8")).tag.endswith("svg")
        return "svg"
    if path.suffix == ".pdf":
        assert path.read_bytes().startswith(b"%PDF-")
        return "pdf"
    raise AssertionError(f"unexpected export {path.name}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_its_exports_are_valid(path, small_profile, tmp_path, monkeypatch):
    output = tmp_path / "out"
    monkeypatch.setenv("IPU_NB_PROFILE", str(small_profile))
    monkeypatch.setenv("IPU_NB_OUTPUT", str(output))
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the kernel's scratch files go with the test's folder
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    errors = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    text = "".join(
        o.get("text", "")
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream"
    )
    assert str(small_profile) in text  # the notebook used $IPU_NB_PROFILE, not the full-size default
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("%ipu_query"):
            # shown once, as the cell's rich value (summary and groups table)
            assert [o.output_type for o in cell.outputs] == ["execute_result"]
            assert "<b>groupBy</b>=" in cell.outputs[0]["data"]["text/html"]
    exports = sorted(output.iterdir())
    assert exports, "the notebook exported nothing"
    kinds = {check_export(p) for p in exports}
    if path.stem in ("quickstart", "compare"):
        assert {"html", "png", "svg"} <= kinds
    if path.stem == "compare":
        report = (output / "compare-report.html").read_text(encoding="utf-8")
        assert 'class="ipu-nb-repr ipu-nb-findings"' in report  # the findings table
        assert "attribution of the phase-cycle delta" in report  # the comparison
        assert report.count('class="ipu-nb-spec"') == 6  # waterfall, heat-map, distribution, 3 superstep charts
        outputs = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs)
        assert "--scale-kernel=gelu_c16_to_a8=1.8" in outputs  # the pair came from the command line knob
    if path.stem == "exchange":
        assert {p.name for p in exports} == {"exchange-anatomy.svg", "exchange-anatomy.png"}
        assert "estimatedExchangeIdleWorkCycles=" in text  # profile-inspect --semantics head, run for real
        assert 'name="compute"' in text  # the newest runtime's text beside the default's table
    assert not (tmp_path / "ipu-nb-output").exists()  # nothing written to the default folder
