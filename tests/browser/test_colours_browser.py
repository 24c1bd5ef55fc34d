"""The timeline's colours in a real JupyterLab + Chromium: pictures that conserve area, legend swatches = palette.

Every tile of the profile (colour_profile.py) does the same, so the mean colour of a band of
rows over a stretch of pixels must be the cycle-weighted mean of the palette's kind colours
over the cycles those pixels cover, gaps as the plot's background (mixed in sRGB, as the
widget does), at the whole view and zoomed 2× and 4×, in the light and the dark theme. The
expected colours are computed here from the samples and `ipu_nb.palette()`.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from colour_profile import tile_intervals
from lab import open_widget, settle
from test_readability_browser import set_theme

import ipu_nb

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb\nfrom colour_profile import colour_profile\nprofile = colour_profile()\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46
#: Units of 255 a region's mean may differ by: rounding of shares, of mixed colours and of pixel edges.
TOLERANCE = 4.0

#: The mean RGB of the timeline canvas over device pixels [x0, x1) × [y0, y1), its CSS width and scale.
REGION_JS = """([x0, x1, y0, y1]) => {
    const c = document.querySelector('.ipu-nb-timeline-base');
    const d = c.getContext('2d').getImageData(x0, y0, x1 - x0, y1 - y0).data;
    const sum = [0, 0, 0];
    for (let i = 0; i < d.length; i += 4) for (let k = 0; k < 3; k++) sum[k] += d[i + k];
    const n = d.length / 4;
    return {mean: sum.map((s) => s / n), css: c.clientWidth, scale: c.width / c.clientWidth, height: c.height};
}"""
#: The plot's background as the page resolves it (what the widget fills the plot with).
PLOT_JS = """() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--ipu-nb-canvas-plot)';
    document.querySelector('.ipu-nb-widget').append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
}"""


def rgb(css: str) -> list[float]:
    return [float(v) for v in re.findall(r"[\d.]+", css)[:3]]


def kind_colours(dark: bool) -> dict[str, list[float]]:
    """The palette, and in the dark theme each colour a quarter of the way to white (the widget's rule)."""
    out: dict[str, list[float]] = {}
    for kind, hex_colour in ipu_nb.palette().items():
        light = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
        out[kind] = [round(c + (255 - c) / 4) for c in light] if dark else [float(c) for c in light]
    return out


def expected_mean(lo: float, hi: float, colours: dict[str, list[float]], background: list[float]) -> list[float]:
    """The cycle-weighted mean colour of one tile over cycles [lo, hi), gaps as `background`."""
    mixed, covered = [0.0, 0.0, 0.0], 0.0
    for a, b, kind in tile_intervals():
        part = max(0.0, min(b, hi) - max(a, lo))
        if part:
            covered += part
            mixed = [m + part * c for m, c in zip(mixed, colours[kind], strict=True)]
    width = hi - lo
    return [m / width + (1 - covered / width) * g for m, g in zip(mixed, background, strict=True)]


def check_regions(page: Any, view: tuple[float, float], dark: bool) -> None:
    colours = kind_colours(dark)
    background = rgb(page.evaluate(PLOT_JS))
    probe = page.evaluate(REGION_JS, [0, 1, 0, 1])
    scale, css = probe["scale"], probe["css"]
    plot = css - GUTTER
    left = int(GUTTER * scale) + 2
    right = int(css * scale) - 2
    band = (4, min(int(probe["height"]) - 4, 4 + int(120 * scale)))
    step = (right - left) // 6
    misses = []
    for x0 in range(left, right - step + 1, step):
        x1 = x0 + step
        got = page.evaluate(REGION_JS, [x0, x1, *band])["mean"]
        cycle = lambda x: view[0] + (x / scale - GUTTER) / plot * (view[1] - view[0])  # noqa: E731
        want = expected_mean(cycle(x0), cycle(x1), colours, background)
        if max(abs(g - w) for g, w in zip(got, want, strict=True)) > TOLERANCE:
            misses.append((x0, x1, [round(v, 1) for v in got], [round(v, 1) for v in want]))
    assert not misses, f"view {view}, {'dark' if dark else 'light'}: {misses}"


def test_the_timeline_conserves_area_at_every_zoom_in_both_themes_and_the_legend_shows_the_palette(
    lab_page: Any,
) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    span = max(b for _, b, _ in tile_intervals())
    try:
        for theme, expect in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            set_theme(page, theme, expect)
            dark = expect == "dark"
            # The legend: one swatch per kind, in exactly the colour drawn for it in this theme.
            swatches = page.evaluate(
                "() => [...document.querySelectorAll('.ipu-nb-swatch[data-kind]')]"
                ".map((s) => [s.dataset.kind, getComputedStyle(s).backgroundColor])"
            )
            assert sorted(k for k, _ in swatches) == sorted(ipu_nb.palette())
            for kind, css in swatches:
                assert rgb(css) == kind_colours(dark)[kind], (theme, kind, css)
            for zoom in (1, 2, 4):
                centre, half = span / 2, span / 2 / zoom
                view = (centre - half, centre + half) if zoom > 1 else (0.0, float(span))
                nb.kernel("0", f"widget.view = [{int(view[0])}, {int(view[1])}]")
                start, end = (float(v) for v in nb.kernel("list(widget.view)"))
                view = (start, end)
                settle(page)
                check_regions(page, view, dark)
    finally:
        set_theme(page, "JupyterLab Light", "light")  # the theme is a server-wide setting
