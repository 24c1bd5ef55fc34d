"""The overview strip in a real JupyterLab + Chromium: an area-conserving picture of the whole profile.

The tiles of the profile (overview_profile.py) all differ, one has no samples. The mean colour
of any range of the strip's columns, over its whole height, must be the cycle-weighted mean of
the palette's kind colours over every tile for the cycles those columns cover, gaps as the
plot's background, in the light and the dark theme; computed here from the samples and
`ipu_nb.palette()`. Colouring by kernel redraws the strip with the kernel classes.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget
from overview_profile import TILES, tile_intervals
from test_colours_browser import PLOT_JS, kind_colours, rgb
from test_readability_browser import set_theme

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb\nfrom overview_profile import overview_profile\nprofile = overview_profile()\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]
GUTTER = 46
#: Units of 255 a range's mean may differ by: rounding of the pixels and of the f32 shares, and the
#: cycles of a bin cut by a range's edge taken as spread evenly over the bin.
TOLERANCE = 1.5
#: The mean RGB of the overview canvas over device-pixel columns [x0, x1), every row; its CSS width and scale.
STRIP_JS = """([x0, x1]) => {
    const c = document.querySelector('.ipu-nb-overview-canvas');
    const d = c.getContext('2d').getImageData(x0, 0, x1 - x0, c.height).data;
    const sum = [0, 0, 0];
    for (let i = 0; i < d.length; i += 4) for (let k = 0; k < 3; k++) sum[k] += d[i + k];
    return {mean: sum.map((s) => s / (d.length / 4)), css: c.clientWidth, scale: c.width / c.clientWidth};
}"""


def expected_mean(lo: float, hi: float, colours: dict[str, list[float]], background: list[float]) -> list[float]:
    """The cycle-weighted mean colour over every tile (the empty one too) of cycles [lo, hi), gaps as `background`."""
    mixed, covered = [0.0, 0.0, 0.0], 0.0
    for _, a, b, kind in tile_intervals():
        part = max(0.0, min(b, hi) - max(a, lo))
        if part:
            covered += part
            mixed = [m + part * c for m, c in zip(mixed, colours[kind], strict=True)]
    area = (hi - lo) * (TILES + 1)
    return [m / area + (1 - covered / area) * g for m, g in zip(mixed, background, strict=True)]


def wait_shares(page: Any, colour_by: str) -> None:
    """Until the strip shows shares coloured by `colour_by` (the push arrives after the timeline's window)."""
    page.wait_for_function(
        "(mode) => (document.querySelector('.ipu-nb-overview').dataset.shares || '').startsWith(mode + ':')",
        arg=colour_by,
        timeout=30_000,
    )


def strip_means(page: Any) -> list[tuple[int, int, list[float]]]:
    probe = page.evaluate(STRIP_JS, [0, 1])
    scale, css = probe["scale"], probe["css"]
    left, right = round(GUTTER * scale), round(css * scale)
    out = []
    # Five stretches, and two narrow ones whose cycles lie in few bins.
    step = (right - left) // 5
    ranges = [(x, x + step) for x in range(left, right - step + 1, step)]
    ranges += [(left + step // 2, left + step // 2 + 40), (right - 60, right)]
    for x0, x1 in ranges:
        out.append((x0, x1, page.evaluate(STRIP_JS, [x0, x1])["mean"]))
    return out


def test_the_overview_conserves_area_over_all_tiles_in_both_themes_and_follows_the_colouring(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    span = float(nb.kernel("widget.view[1]"))
    wait_shares(page, "kind")
    try:
        for theme, expect in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
            set_theme(page, theme, expect)
            colours = kind_colours(expect == "dark")
            background = rgb(page.evaluate(PLOT_JS))
            probe = page.evaluate(STRIP_JS, [0, 1])
            scale, plot = probe["scale"], probe["css"] - GUTTER
            misses = []
            for x0, x1, got in strip_means(page):
                lo, hi = ((x / scale - GUTTER) / plot * span for x in (x0, x1))
                want = expected_mean(lo, hi, colours, background)
                if max(abs(g - w) for g, w in zip(got, want, strict=True)) > TOLERANCE:
                    misses.append((x0, x1, [round(v, 1) for v in got], [round(v, 1) for v in want]))
            assert not misses, f"{expect}: {misses}"
        kind_picture = [m for _, _, m in strip_means(page)]
        nb.kernel("0", "widget.color_by = 'kernel'")
        wait_shares(page, "kernel")
        assert [m for _, _, m in strip_means(page)] != kind_picture  # one kernel class: one colour for every kind
    finally:
        set_theme(page, "JupyterLab Light", "light")  # the theme is a server-wide setting
