"""The widget in JupyterLab's light and dark themes, with long and bidi names, its flame graph, %ipu_open
binding and a kernel restart: real JupyterLab, real Chromium, colours read from computed styles and pixels."""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

import pytest
from lab import OUTPUT, wait_window
from readable_profile import BIDI_KERNEL, BIDI_OP, LONG_KERNEL, LONG_OP, TINY_OPS

from ipu_nb._markup.sanitize import label

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb\nfrom readable_profile import readable_profile\nprofile = readable_profile()\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46
#: Every character that reorders or hides text: never in what the widget shows.
INVISIBLE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\x00-\x1f\x7f-\x9f]")

# Contrast of every visible text against what is really behind it (backgrounds composited
# from the page down), for WCAG's ratio. Elements drawn at reduced opacity are left out.
CONTRAST_JS = """(root) => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]*)\\)/.exec(c || '');
    if (!m) return null;
    const v = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3]));
  const background = (el) => {
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.push(e);
    let bg = [255, 255, 255];
    for (const e of chain.reverse()) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) bg = over(c, bg);
    }
    return bg;
  };
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const faded = (el) => {
    for (let e = el; e && e !== root.parentElement; e = e.parentElement) {
      if (Number(getComputedStyle(e).opacity) < 1) return true;
    }
    return false;
  };
  const out = [];
  for (const el of root.querySelectorAll('*')) {
    if (!el.getClientRects().length || faded(el)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const control = ['INPUT', 'SELECT', 'BUTTON'].includes(el.tagName);
    if (!own && !control) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    out.push({ tag: el.tagName, cls: el.className, text: (el.value || el.textContent || '').slice(0, 30),
               ratio: ratio(fg, bg), bg, control });
  }
  return { items: out, rootBg: background(root) };
}"""

PIXEL_JS = """([selector, x, y]) => {
  const c = document.querySelector(selector);
  const d = window.devicePixelRatio || 1;
  const px = x < 0 ? c.width + Math.round(x * d) : Math.round(x * d);  // negative: from the right edge
  return [...c.getContext('2d').getImageData(px, Math.round(y * d), 1, 1).data];
}"""


def luminance(rgb: list[float]) -> float:
    def f(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2])


def delta_e(a: list[float], b: list[float]) -> float:
    """CIE76 ΔE*ab of two sRGB colours."""

    def lab(c: list[float]) -> tuple[float, float, float]:
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in (x / 255 for x in c)]
        x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
        y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
        z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

        def f(t: float) -> float:
            return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

        return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))

    return math.dist(lab(a), lab(b))


def rgb(css: str) -> list[float]:
    return [float(v) for v in re.findall(r"[\d.]+", css)[:3]]


def open_widget(lab_page: Any) -> tuple[Any, Any]:
    nb = lab_page(CELLS)
    nb.run_all()
    nb.page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=60_000)
    wait_window(nb.page, 0)
    nb.page.wait_for_selector(".ipu-nb-flame-node", timeout=30_000)
    return nb, nb.page


def set_theme(page: Any, name: str, expect: str) -> None:
    page.evaluate("(t) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: t})", name)
    page.wait_for_function(
        "(e) => document.querySelector('.ipu-nb-widget').dataset.theme === e", arg=expect, timeout=30_000
    )


def swatch(page: Any, name: str) -> list[float]:
    css = page.evaluate(
        "(n) => { const item = [...document.querySelectorAll('.ipu-nb-legend-item')].find((i) => i.textContent === n);"
        " return getComputedStyle(item.querySelector('.ipu-nb-swatch')).backgroundColor; }",
        name,
    )
    return rgb(css)


def test_dark_and_light_themes_keep_everything_readable(lab_page):
    nb, page = open_widget(lab_page)
    try:
        for theme, expect in (("JupyterLab Dark", "dark"), ("JupyterLab Light", "light")):
            set_theme(page, theme, expect)
            found = page.evaluate(CONTRAST_JS, page.query_selector(".ipu-nb-widget"))
            items = found["items"]
            controls = [i for i in items if i["control"]]
            assert len(controls) >= 10 and len(items) >= 40, (len(controls), len(items))
            poor = [i for i in items if i["ratio"] < 4.5]
            assert not poor, f"{theme}: text below 4.5:1 contrast: {poor[:5]}"
            dark = expect == "dark"
            assert (luminance(found["rootBg"]) < 0.05) if dark else (luminance(found["rootBg"]) > 0.9)
            # The canvases redrew in the theme's colours: the timeline's label gutter and the overview.
            gutter = page.evaluate(PIXEL_JS, [".ipu-nb-timeline-base", 2, 2])
            # The strip's top right: above the stacked shares, where the last tiles have ended, its background.
            strip = page.evaluate(PIXEL_JS, [".ipu-nb-overview canvas", -2, 1])
            for what, pixel in (("timeline gutter", gutter), ("overview", strip)):
                lit = luminance(pixel[:3])
                assert (lit < 0.15) if dark else (lit > 0.6), f"{theme}: {what} pixel {pixel}"
            OUTPUT.mkdir(exist_ok=True)
            page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / f"widget-{expect}.png"))
            # "(no kernel)" is its own grey, far from the "not matching" one, in this theme too.
            nb.kernel("widget.color_by", code="widget.color_by = 'kernel'")
            page.wait_for_function("() => document.querySelector('.ipu-nb-widget').dataset.colorBy === 'kernel'")
            page.wait_for_selector(".ipu-nb-legend-item:has-text('(no kernel)')")
            no_kernel, not_matching = swatch(page, "(no kernel)"), swatch(page, "not matching filters")
            assert delta_e(no_kernel, not_matching) >= 25, (theme, no_kernel, not_matching)
            nb.kernel("widget.color_by", code="widget.color_by = 'kind'")
            page.wait_for_function("() => document.querySelector('.ipu-nb-widget').dataset.colorBy === 'kind'")
    finally:
        set_theme(page, "JupyterLab Light", "light")  # the theme is a server-wide setting


def shown_text(page: Any) -> str:
    """Everything the widget shows as text, titles included."""
    return page.evaluate(
        "() => { const r = document.querySelector('.ipu-nb-widget');"
        " return r.textContent + [...r.querySelectorAll('[title]')].map((e) => e.title).join(''); }"
    )


def sample_of(nb: Any, operation: str) -> dict[str, Any]:
    return nb.kernel(
        "profile.samples.filter(pl.col('operation').cast(pl.String) == name)"
        ".select('sample', 'tile', 'offset', 'duration').row(0, named=True)",
        code=f"import polars as pl\nname = {operation!r}",
    )


def test_long_names_end_in_an_ellipsis_and_bidi_is_neutralised(lab_page):
    nb, page = open_widget(lab_page)
    nb.kernel("widget.color_by", code="widget.color_by = 'kernel'")
    page.wait_for_selector(".ipu-nb-legend-item:has-text('tiny_kernel')", timeout=10_000)
    legend = page.eval_on_selector_all(
        ".ipu-nb-legend-name",
        "els => els.map((e) => ({text: e.textContent, title: e.title, width: e.getBoundingClientRect().width}))",
    )
    long = next((e for e in legend if e["text"].startswith("gemm_f32_accum")), legend)
    assert long["text"].endswith("…") and LONG_KERNEL.startswith(long["text"][:-1]), long
    assert 120 < long["width"] <= 221
    assert long["title"] == LONG_KERNEL  # the whole name, on hover
    bidi = next(e for e in legend if "exe.lenrek_mmeg" in e["text"])
    assert bidi["text"] == label(BIDI_KERNEL) == "\\u{202e}exe.lenrek_mmeg"

    # The tooltip of a sample with a long operation name: cut to its width, whole in the inspector.
    rows = nb.kernel("widget.info['rows']")
    view = nb.kernel("widget.view")
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    for name, kernel in ((LONG_OP, BIDI_KERNEL), (BIDI_OP, "copy_u64")):
        s = sample_of(nb, name)
        fx = (s["offset"] + s["duration"] / 2 - view[0]) / (view[1] - view[0])
        x = box["x"] + GUTTER + fx * (box["width"] - GUTTER)
        y = box["y"] + (rows.index(s["tile"]) + 0.5) * box["height"] / len(rows)
        page.mouse.move(x, y)
        page.mouse.move(x + 1, y)
        tip = page.locator(".ipu-nb-tooltip:not(.ipu-nb-flame-tip)")
        tip.wait_for(state="visible", timeout=10_000)
        title = tip.locator(".ipu-nb-tooltip-title")
        page.wait_for_function(
            "(n) => document.querySelector('.ipu-nb-tooltip:not(.ipu-nb-flame-tip) .ipu-nb-tooltip-title')"
            ".textContent.startsWith(n)",
            arg=label(name)[:8],
            timeout=10_000,
        )
        text = title.text_content()
        if name == LONG_OP:
            assert text.endswith("…") and LONG_OP.startswith(text[:-1]) and len(text) < 120
            assert tip.evaluate("e => e.getBoundingClientRect().width") <= 460
        else:
            assert text == label(name)
        assert label(kernel) in tip.text_content()
        nb.kernel("widget.selected", code=f"widget.selected = {s['sample']}")
        page.wait_for_function(
            "(n) => [...document.querySelectorAll('.ipu-nb-sample td')].some((e) => e.textContent === n)",
            arg=label(name),
            timeout=10_000,
        )  # the inspector shows the whole name, neutralised exactly as sanitize.label shows it in charts
        assert page.locator(".ipu-nb-sample td", has_text=label(kernel)).count() >= 1
    assert page.locator(".ipu-nb-flame-node", has_text="\\u{202e}exe.lenrek_mmeg").count() >= 1
    page.locator(".ipu-nb-widget").screenshot(path=str(OUTPUT / "widget-long-names.png"))
    assert not INVISIBLE.findall(shown_text(page))


def flame_boxes(page: Any) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        ".ipu-nb-flame-node",
        "els => els.map((e) => { const r = e.getBoundingClientRect(); return {level: +e.dataset.level,"
        " left: r.left, right: r.right, width: r.width, name: e.dataset.name, merged: e.dataset.merged ?? null,"
        " bg: getComputedStyle(e).backgroundColor}; })",
    )


def test_flame_graph_merges_slivers_zooms_and_focuses_exactly(lab_page):
    nb, page = open_widget(lab_page)
    nb.kernel("widget.group_by", code="widget.group_by = 'operation'")
    boxes = flame_boxes(page)
    icicle = page.locator(".ipu-nb-icicle").bounding_box()
    # No slivers and no overlaps: every box at least a pixel, boxes of a level side by side.
    for level in {b["level"] for b in boxes}:
        row = sorted((b for b in boxes if b["level"] == level), key=lambda b: b["left"])
        assert all(b["width"] >= 0.99 for b in row), level
        assert all(a["right"] <= b["left"] + 0.01 for a, b in itertools.pairwise(row)), level
    merged = [b for b in boxes if b["merged"]]
    # The tiny operations (and any other operation under the 3 px the front end can point at) make one box.
    counts = [int(b["merged"]) for b in merged if b["level"] == 4]
    assert len(counts) == 1 and counts[0] >= TINY_OPS, counts
    assert all(b["width"] >= 2.99 for b in boxes if not b["merged"])
    assert len(boxes) < 120, len(boxes)  # 384 nodes
    tiny = page.locator(f".ipu-nb-flame-node[data-level='4'][data-merged='{counts[0]}']")
    tiny.hover()
    tip = page.locator(".ipu-nb-flame-tip")
    tip.wait_for(state="visible", timeout=5_000)
    assert tip.text_content().startswith(f"{counts[0]} operations")

    # Colour by kernel: a kernel's flame nodes take its legend colour.
    nb.kernel("widget.color_by", code="widget.color_by = 'kernel'")
    page.wait_for_function("() => document.querySelector('.ipu-nb-widget').dataset.colorBy === 'kernel'")
    page.wait_for_selector(".ipu-nb-legend-item:has-text('copy_u64')")
    copy = next(b for b in flame_boxes(page) if b["level"] == 2 and b["name"] == "copy_u64")
    assert rgb(copy["bg"]) == swatch(page, "copy_u64")
    nb.kernel("widget.color_by", code="widget.color_by = 'kind'")
    page.wait_for_function("() => document.querySelector('.ipu-nb-widget').dataset.colorBy === 'kind'")
    compute = next(b for b in flame_boxes(page) if b["level"] == 1 and b["name"] == "compute")
    assert rgb(compute["bg"]) == swatch(page, "compute")

    # A click zooms into the "gemm" operation at once (it fills the width) and focuses exactly it.
    widths = page.evaluate(
        '() => { document.querySelector(\'.ipu-nb-flame-node[data-level="4"][data-name="gemm"]\').click();'
        " return [...document.querySelectorAll('.ipu-nb-flame-node[data-level=\"4\"]')]"
        ".map((e) => e.getBoundingClientRect().width); }"
    )
    assert len(widths) == 1 and abs(widths[0] - icicle["width"]) < 2, widths
    filters = nb.poll("widget.filters", lambda f: f["operation"] != [])
    assert filters["operation"] == ["gemm"] and filters["operation_contains"] is None
    assert (filters["kind"], filters["kernel"], len(filters["phases"])) == ("compute", LONG_KERNEL, 1)
    same = nb.kernel(
        "widget.groups.equals(ipu_nb.query(profile, kind='compute', kernel=k, phases=ph, operation='gemm',"
        " group_by='operation').groups)",
        code=f"k = {LONG_KERNEL!r}\nph = {filters['phases']!r}",
    )
    assert same
    assert nb.kernel("widget.groups.get_column('name').to_list()") == ["gemm"]  # not "gemm block"
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ipu-nb-group-table td.ipu-nb-group-name')]"
        ".map((e) => e.textContent).join('|') === 'gemm'",
        timeout=10_000,
    )
    # The kernel's graph for the focus: the operation fills the width, its chain above it.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.ipu-nb-flame-node')].every((e) => e.dataset.level === '0'"
        " || e.getBoundingClientRect().width > 0.98 * document.querySelector('.ipu-nb-icicle').clientWidth)",
        timeout=10_000,
    )
    crumbs = page.eval_on_selector_all(".ipu-nb-crumb", "els => els.map((e) => e.textContent)")
    assert crumbs[0] == "all" and crumbs[1] == "compute" and crumbs[-1] == "gemm" and len(crumbs) == 5
    assert crumbs[2].endswith("…") and LONG_KERNEL.startswith(crumbs[2][:-1]) and len(crumbs[2]) > 20

    # The breadcrumb goes back: to the kernel (phase and operation cleared), then to everything.
    page.locator(".ipu-nb-crumb").nth(2).click()
    filters = nb.poll("widget.filters", lambda f: f["operation"] == [])
    assert (filters["kind"], filters["kernel"], filters["phases"]) == ("compute", LONG_KERNEL, [])
    # Clicking the full-width "compute" bar above zooms out to it.
    page.wait_for_function("() => document.querySelectorAll('.ipu-nb-crumb').length === 3", timeout=10_000)
    page.locator(".ipu-nb-flame-node[data-level='1']").first.click()
    filters = nb.poll("widget.filters", lambda f: f["kernel"] is None)
    assert (filters["kind"], filters["kernel"]) == ("compute", None)
    page.locator(".ipu-nb-crumb", has_text="all").click()
    assert nb.poll("widget.filters['kind']", lambda k: k is None) is None
    assert page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.error ?? ''") == ""


def test_ipu_open_binds_the_widget_it_shows(lab_page, lab):
    from readable_profile import write_readable

    path = write_readable(lab.root / "readable.capnp")
    nb = lab_page(["%load_ext ipu_nb", f"%ipu_open {path} -w picked"])
    page = nb.page
    nb.run_all()
    page.wait_for_selector(".ipu-nb-timeline-overlay", timeout=60_000)
    wait_window(page, 0)
    page.wait_for_selector(".jp-OutputArea-output:has-text('widget in `picked`')", timeout=10_000)
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    page.mouse.click(box["x"] + GUTTER + 0.3 * (box["width"] - GUTTER), box["y"] + 5)
    assert nb.poll("picked.selected", lambda v: v is not None) is not None
    assert nb.kernel("picked.selected_sample.height") == 1
    assert nb.kernel("picked.profile is profile")


def test_after_a_kernel_restart_the_view_says_it_is_disconnected(lab_page):
    nb, page = open_widget(lab_page)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "ipu-nb" in m.text else None)
    windows = page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId")
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()")
    banner = page.locator(".ipu-nb-banner")
    banner.wait_for(state="visible", timeout=30_000)
    assert banner.text_content().startswith("Disconnected")
    assert "Run the cell again" in banner.text_content()
    assert "restarted" in page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.disconnected")
    disabled = page.eval_on_selector_all(
        ".ipu-nb-widget input, .ipu-nb-widget select, .ipu-nb-widget button", "els => els.map((e) => e.disabled)"
    )
    assert disabled and all(disabled)
    nb.wait_ready()
    # Nothing the user does now throws or asks the (new) kernel for anything.
    box = page.locator(".ipu-nb-timeline-overlay").bounding_box()
    page.mouse.move(box["x"] + GUTTER + 100, box["y"] + 10)
    page.mouse.down()
    page.mouse.up()
    page.mouse.wheel(0, -300)
    page.locator(".ipu-nb-widget").focus()
    page.keyboard.press("+")
    page.keyboard.press("d")
    page.wait_for_timeout(500)
    assert page.eval_on_selector(".ipu-nb-widget", "w => w.dataset.windowId") == windows
    assert errors == []
    assert nb.kernel("'widget' in globals()") is False  # the kernel really restarted
