"""Colour mode "exchange activity" in a real JupyterLab + Chromium: the legend's swatches and area-conserving pictures.

Every tile of the profile (activity_profile.py) does the same, so the mean colour of a band of
rows over a stretch of pixels must be the cycle-weighted mean of the display pieces' colours
(kinds in `ipu_nb.palette()`, what an exchange window holds in `WINDOW_PALETTE`) over the cycles
those pixels cover, gaps as the plot's background. The pieces are Python's
(`ipu_nb._exchange.display.display_segments`, itself checked against the spec's reference).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from activity_profile import activity_profile
from lab import open_widget, settle
from test_colours_browser import GUTTER, PLOT_JS, REGION_JS, TOLERANCE, rgb

import ipu_nb
from ipu_nb._exchange.display import DISPLAY_CLASSES, display_segments
from ipu_nb._model.palette import ACTIVITY_LABELS, WINDOW_PALETTE

pytestmark = pytest.mark.browser

CELLS = [
    "import ipu_nb\nfrom activity_profile import activity_profile\nprofile = activity_profile()\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]


def colours() -> dict[str, list[float]]:
    return {
        name: [float(int(h[i : i + 2], 16)) for i in (1, 3, 5)]
        for name, h in {**ipu_nb.palette(), **WINDOW_PALETTE}.items()
    }


def pieces() -> list[tuple[int, int, str]]:
    """One tile's display pieces ``(start, end, class name)`` (every tile's are the same)."""
    profile = activity_profile()
    frame = display_segments(profile.samples, profile.exchange_activities)
    first = profile.samples.filter(profile.samples["tile"] == 0).get_column("sample")
    mine = frame.filter(frame["sample"].is_in(first.implode()))
    return [(o, o + d, DISPLAY_CLASSES[c - 1]) for o, d, c in mine.select("offset", "duration", "cls").iter_rows()]


def expected_mean(lo: float, hi: float, parts: list[tuple[int, int, str]], background: list[float]) -> list[float]:
    table = colours()
    a = np.array([p[0] for p in parts], dtype=float)
    b = np.array([p[1] for p in parts], dtype=float)
    c = np.array([table[p[2]] for p in parts])
    cover = np.clip(np.minimum(b, hi) - np.maximum(a, lo), 0, None)
    width = hi - lo
    return list((cover @ c) / width + (1 - cover.sum() / width) * np.array(background))


def region_misses(
    page: Any, view: tuple[float, ...], parts: list[tuple[int, int, str]], background: list[float]
) -> list[Any]:
    """The stretches of a band of rows whose mean colour is not the pieces' mean over their cycles."""
    probe = page.evaluate(REGION_JS, [0, 1, 0, 1])
    scale, css = probe["scale"], probe["css"]
    plot = css - GUTTER
    left, right = int(GUTTER * scale) + 2, int(css * scale) - 2
    band = (4, min(int(probe["height"]) - 4, 4 + int(120 * scale)))
    step = (right - left) // 6

    def cycle(x: float) -> float:
        return view[0] + (x / scale - GUTTER) / plot * (view[1] - view[0])

    misses = []
    for x0 in range(left, right - step + 1, step):
        x1 = x0 + step
        got = page.evaluate(REGION_JS, [x0, x1, *band])["mean"]
        want = expected_mean(cycle(x0), cycle(x1), parts, background)
        if max(abs(g - w) for g, w in zip(got, want, strict=True)) > TOLERANCE:
            misses.append((x0, x1, [round(v, 1) for v in got], [round(v, 1) for v in want]))
    return misses


def test_exchange_activity_mode_draws_the_window_split_and_its_legend(lab_page: Any) -> None:
    nb = open_widget(lab_page, CELLS)
    page = nb.page
    parts = pieces()
    assert {"send", "receive", "sendReceive", "partnerBusy", "exchangeIdle"} <= {k for _, _, k in parts}
    page.select_option("select.ipu-nb-select:has(option[value=activity])", "activity")
    page.wait_for_function("() => document.querySelector('.ipu-nb-widget').dataset.colorBy === 'activity'")
    settle(page)
    assert nb.kernel("widget.color_by") == "activity"
    # The legend: a swatch per class with data-kind, in its palette colour, named as the runtime names it.
    swatches = page.evaluate(
        "() => [...document.querySelectorAll('.ipu-nb-swatch[data-kind]')].map((s) => "
        "[s.dataset.kind, getComputedStyle(s).backgroundColor, s.nextElementSibling.textContent])"
    )
    assert [k for k, _, _ in swatches] == list(DISPLAY_CLASSES)
    table = colours()
    for kind, css, label in swatches:
        assert rgb(css) == table[kind], (kind, css)
        assert label == ACTIVITY_LABELS.get(kind, kind)
    option = page.evaluate("() => document.querySelector('option[value=activity]').textContent")
    assert option == "colour: exchange activity"
    span = max(b for _, b, _ in parts)
    background = rgb(page.evaluate(PLOT_JS))
    for zoom in (1, 4):
        centre, half = span / 2, span / 2 / zoom
        asked = (centre - half, centre + half) if zoom > 1 else (0.0, float(span))
        nb.kernel("0", f"widget.view = [{int(asked[0])}, {int(asked[1])}]")
        view = tuple(float(v) for v in nb.kernel("list(widget.view)"))
        settle(page)
        misses = region_misses(page, view, parts, background)
        assert not misses, f"view {view}: {misses}"
