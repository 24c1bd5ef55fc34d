"""save_report: one self-contained offline HTML file; hostile strings stay data, never markup."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from chart_fixtures import (
    HOSTILE,
    HOSTILE_KERNEL,
    NASTY_CHARTS,
    NASTY_NAMES,
    NASTY_REPORT_TITLE,
    RAW_CHARACTERS,
    external_references,
    hostile_profile,
    save_nasty_report,
    without_vega_bundle,
)
from rendered import parse, vega_complaint

import ipu_nb
from ipu_nb import charts
from ipu_nb._markup.sanitize import html_text, label


@pytest.fixture(scope="module")
def hostile():
    return hostile_profile()


@pytest.fixture(scope="module")
def report(tmp_path_factory, hostile) -> Path:
    path = tmp_path_factory.mktemp("report") / "sub" / "report.html"
    items = (
        charts.gantt(hostile, color="kernel"),
        charts.gantt(hostile, color="operation"),
        charts.tile_heatmap(hostile),
        hostile,
        hostile.samples.head(3),
        f"note {HOSTILE}",
    )
    return ipu_nb.save_report(path, *items, title=f"title {HOSTILE}", description=HOSTILE_KERNEL)


def test_report_is_self_contained_and_offline(report):
    document = report.read_text(encoding="utf-8")
    assert document.startswith("<!DOCTYPE html>")
    assert external_references(document) == []
    tags = parse(document).tags
    assert not [t for t, a in tags if t in ("link", "iframe", "img", "object", "embed")]
    assert not [a for t, a in tags if t == "script" and "src" in a]
    assert len(document) > 500_000  # the Vega bundle is inline


def test_hostile_strings_stay_text_in_every_part_of_the_report(report):
    document = report.read_text(encoding="utf-8")
    ours = without_vega_bundle(document)
    assert len(ours) < len(document) - 500_000
    assert "<img" not in ours
    assert ours.count("alert(1)") == ours.count("onerror=alert(1)&gt;") + ours.count("onerror=alert(1)\\u003e")
    assert HOSTILE_KERNEL not in document
    page = parse(document)
    # exactly our scripts: the bundle, three specs and the embed call; nothing a string opened
    kinds = [a.get("type") for a, _ in page.scripts]
    assert kinds.count("application/json") == 3 and len(kinds) == 5
    assert document.count("<script") == document.count("</script>") == 5
    specs = [json.loads(text) for a, text in page.scripts if a.get("type") == "application/json"]
    # the strings survive as data: the kernel chart's dataset holds the hostile kernel verbatim
    kernels = {row.get("kernel") for spec in specs for rows in spec.get("datasets", {}).values() for row in rows}
    assert HOSTILE_KERNEL in kernels
    operations = {row.get("operation") for spec in specs for rows in spec.get("datasets", {}).values() for row in rows}
    assert HOSTILE in operations
    assert "&lt;img src=x onerror=alert(1)&gt;" in document  # title, paragraph and tables, escaped


def test_static_report_has_no_javascript_and_escaped_svg(tmp_path, hostile):
    path = ipu_nb.save_report(tmp_path / "s.html", charts.gantt(hostile, color="kernel"), title="static", static=True)
    document = path.read_text(encoding="utf-8")
    page = parse(document)
    assert page.scripts == []
    assert any(t == "svg" for t, _ in page.tags)
    assert "<img" not in document and HOSTILE_KERNEL not in document
    assert external_references(document) == []
    assert len(document) < 200_000


def test_report_rejects_unknown_items(tmp_path):
    with pytest.raises(TypeError, match="cannot put a dict in a report"):
        ipu_nb.save_report(tmp_path / "x.html", {"a": 1})
    assert not (tmp_path / "x.html").exists()


def test_dataframe_items_render_as_capped_tables(tmp_path):
    frame = pl.DataFrame({"n": list(range(120)), "s": [HOSTILE] * 120})
    document = ipu_nb.save_report(tmp_path / "t.html", frame).read_text(encoding="utf-8")
    assert "50 of 120 rows shown" in document
    assert "<img" not in document
    assert "<script" not in document  # no chart, no bundle


@contextlib.contextmanager
def offline_page(document: Path) -> Iterator[tuple[Any, list[str], list[str], list[str]]]:
    """A headless Chromium page on ``document`` that may load only file:// URLs:
    (page, foreign requests, dialogs, page errors)."""
    if not Path("/usr/bin/chromium").exists() or shutil.which("chromium") is None:
        pytest.skip("Debian chromium not installed")
    from playwright.sync_api import Dialog, sync_playwright

    requests: list[str] = []
    dialogs: list[str] = []
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_page()

            def guard(route: Any) -> None:
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:
                    requests.append(route.request.url)
                    route.abort()

            def dismiss(dialog: Dialog) -> None:
                dialogs.append(dialog.message)
                dialog.dismiss()

            page.route("**/*", guard)
            page.on("dialog", dismiss)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if vega_complaint(m.type, m.text) else None)
            page.goto(document.as_uri())
            yield page, requests, dialogs, errors
        finally:
            browser.close()


@pytest.mark.browser
def test_report_renders_offline_in_chromium(report):
    with offline_page(report) as (page, requests, dialogs, errors):
        page.wait_for_function("document.querySelectorAll('.ipu-nb-chart svg').length >= 3", timeout=20_000)
        texts = page.evaluate("Array.from(document.querySelectorAll('.ipu-nb-chart svg text')).map(t => t.textContent)")
        # hover the hostile sample's bar: vega-tooltip must show the strings as text
        bars = page.query_selector_all("#ipu-nb-chart-0 path[aria-roledescription='bar']")
        hostile_bar = next(b for b in bars if f"operation: {HOSTILE}" in (b.get_attribute("aria-label") or ""))
        hostile_bar.hover()
        page.wait_for_selector("#vg-tooltip-element.visible", timeout=5_000)
        tooltip_text = page.inner_text("#vg-tooltip-element")
        tooltip_html = page.inner_html("#vg-tooltip-element")
        images = page.evaluate("document.querySelectorAll('img, #vg-tooltip-element script').length")
    assert requests == [] and dialogs == [] and errors == [] and images == 0
    assert HOSTILE_KERNEL in texts  # drawn as a legend label, as text
    assert HOSTILE in tooltip_text and HOSTILE_KERNEL in tooltip_text
    assert "&lt;img src=x onerror" in tooltip_html


# ---------------------------------------------------------------- nasty profile strings


@pytest.fixture(scope="module")
def nasty_reports(tmp_path_factory) -> dict[bool, tuple[Path, subprocess.CompletedProcess[str]]]:
    """The nasty report, interactive and static, each written by a child process."""
    out = tmp_path_factory.mktemp("nasty-report")
    return {
        static: (out / f"{static}.html", save_nasty_report(out / f"{static}.html", static=static))
        for static in (False, True)
    }


def nasty_document(nasty_reports, static: bool) -> str:
    path, process = nasty_reports[static]
    assert process.returncode == 0, process.stderr[-3000:]
    assert "ERROR" not in process.stderr, process.stderr[-3000:]  # Vega errors vl-convert logged
    return path.read_text(encoding="utf-8")


def test_nasty_report_keeps_every_string_as_data(nasty_reports):
    document = nasty_document(nasty_reports, static=False)
    page = parse(document)
    charts_count = len(NASTY_CHARTS)
    assert [a.get("type") for a, _ in page.scripts] == [None, *["application/json"] * charts_count, None]
    assert document.lower().count("<script") == document.lower().count("</script") == charts_count + 2
    ours = without_vega_bundle(document)
    assert not (RAW_CHARACTERS - set("\t\n\r")) & set(ours)
    assert not {t for t, _ in page.tags} & {"img", "iframe", "object", "embed"}
    assert external_references(document) == []
    for _, text in page.scripts[1:-1]:
        spec = json.loads(text)
        assert not RAW_CHARACTERS & set(json.dumps(spec, ensure_ascii=False))
    for name in NASTY_NAMES:  # paragraphs, tables and reprs: the label, HTML-escaped
        assert html_text(name) in ours, name
    assert f"<title>{html_text(NASTY_REPORT_TITLE)}</title>" in document


def test_static_nasty_report_inlines_well_formed_svg_and_no_script(nasty_reports):
    document = nasty_document(nasty_reports, static=True)
    page = parse(document)
    assert page.scripts == [] and "<script" not in document.lower()
    svgs = re.findall(r"<svg\b.*?</svg>", document, flags=re.DOTALL)
    assert len(svgs) == len(NASTY_CHARTS)
    for svg in svgs:
        ET.fromstring(svg)  # each rendering is well-formed XML 1.0
    assert not (RAW_CHARACTERS - set("\t\n\r")) & set(document)
    texts = {node.text for svg in svgs for node in ET.fromstring(svg).iter() if node.text}
    assert label(NASTY_NAMES[0]) in texts and label("\\u{1}") in texts and label("\x01") in texts
    assert external_references(document) == []


@pytest.mark.browser
def test_nasty_report_draws_every_chart_in_chromium(nasty_reports):
    path, _ = nasty_reports[False]
    nasty_document(nasty_reports, static=False)
    count = len(NASTY_CHARTS)
    with offline_page(path) as (page, requests, dialogs, errors):
        page.wait_for_function(
            f"document.querySelectorAll('.ipu-nb-chart[data-ipu-nb-rendered]').length >= {count}", timeout=90_000
        )
        status = page.evaluate(
            "Array.from(document.querySelectorAll('.ipu-nb-chart')).map(c => c.getAttribute('data-ipu-nb-rendered'))"
        )
        drawn = page.evaluate(
            "Array.from(document.querySelectorAll('.ipu-nb-chart')).map(c => ({"
            " texts: Array.from(c.querySelectorAll('svg text')).map(t => t.textContent),"
            " marks: c.querySelectorAll('svg [aria-roledescription]').length }))"
        )
    assert requests == [] and dialogs == [] and errors == []
    assert status == ["ok"] * count
    charts = dict(zip(NASTY_CHARTS, drawn, strict=True))
    assert all(chart["marks"] > 0 for chart in charts.values())
    short = [n for n in NASTY_NAMES if len(label(n)) <= 30]
    for name in ("breakdown-kernel", "histogram-kernel"):  # axis labels; facet headers (one per kernel)
        assert [label(n) for n in short if label(n) not in charts[name]["texts"]] == [], name
    assert "(no kernel) (2)" in charts["histogram-kernel"]["texts"]


# ---------------------------------------------------------------- findings and comparisons


def test_findings_and_comparisons_are_escaped_report_sections(tmp_path, hostile):
    found = ipu_nb.findings(hostile, min_share=0)
    assert len(found) > 0
    other = hostile_profile()
    document = ipu_nb.save_report(
        tmp_path / "f.html", found, ipu_nb.compare(hostile, other, by="kernel"), title="findings"
    ).read_text(encoding="utf-8")
    page = parse(document)
    assert page.scripts == []  # tables only: no chart, no bundle
    assert HOSTILE not in document and HOSTILE_KERNEL not in document
    assert not {t for t, _ in page.tags} & {"img", "iframe", "object", "embed"}
    for rank, finding in enumerate(found, 1):  # every sentence, its cycles and its query flags, escaped
        assert html_text(finding.message) in document
        assert f"<td>{finding.cycles:,}</td>" in document
        assert f'<code class="ipu-nb-clip">{html_text(finding.flags)}</code>' in document
        assert f"<td>{rank:,}</td>" in document
    assert 'class="ipu-nb-repr ipu-nb-findings"' in document
    assert "attribution of the phase-cycle delta" in document  # the comparison's own repr
    assert html_text(HOSTILE_KERNEL) in document


def test_an_empty_findings_table_says_so(tmp_path):
    empty = ipu_nb.findings(hostile_profile(), min_share=1.0)
    assert len(empty) == 0
    document = ipu_nb.save_report(tmp_path / "e.html", empty).read_text(encoding="utf-8")
    assert "No findings above the thresholds." in document and "<b>findings</b>=0" in document
