"""save_report: one self-contained offline HTML file; hostile strings stay data, never markup."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from chart_fixtures import HOSTILE, HOSTILE_KERNEL, external_references, hostile_profile, without_vega_bundle

import ipu_nb
from ipu_nb import charts
from ipu_nb._report import script_safe_json


class Elements(HTMLParser):
    """Collects start tags (with attributes) and the text of every <script> as the browser would split it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def parse(document: str) -> Elements:
    parser = Elements()
    parser.feed(document)
    parser.close()
    return parser


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


def test_script_safe_json_cannot_close_a_script():
    text = script_safe_json({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


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


@pytest.mark.browser
def test_report_renders_offline_in_chromium(report):
    if not Path("/usr/bin/chromium").exists() or shutil.which("chromium") is None:
        pytest.skip("Debian chromium not installed")
    from playwright.sync_api import sync_playwright

    requests, dialogs, errors = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_page()

            def guard(route):
                if route.request.url.startswith("file://"):
                    route.continue_()
                else:
                    requests.append(route.request.url)
                    route.abort()

            page.route("**/*", guard)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri())
            page.wait_for_function("document.querySelectorAll('.ipu-nb-chart svg').length >= 3", timeout=20_000)
            texts = page.evaluate(
                "Array.from(document.querySelectorAll('.ipu-nb-chart svg text')).map(t => t.textContent)"
            )
            # hover the hostile sample's bar: vega-tooltip must show the strings as text
            bars = page.query_selector_all("#ipu-nb-chart-0 path[aria-roledescription='bar']")
            hostile_bar = next(b for b in bars if f"operation: {HOSTILE}" in (b.get_attribute("aria-label") or ""))
            hostile_bar.hover()
            page.wait_for_selector("#vg-tooltip-element.visible", timeout=5_000)
            tooltip_text = page.inner_text("#vg-tooltip-element")
            tooltip_html = page.inner_html("#vg-tooltip-element")
            images = page.evaluate("document.querySelectorAll('img, #vg-tooltip-element script').length")
        finally:
            browser.close()
    assert requests == [] and dialogs == [] and errors == [] and images == 0
    assert HOSTILE_KERNEL in texts  # drawn as a legend label, as text
    assert HOSTILE in tooltip_text and HOSTILE_KERNEL in tooltip_text
    assert "&lt;img src=x onerror" in tooltip_html
