"""`charts.timeline(color_by="kernel")`: the widget's kernel classes and colours, area-conserving, vs plain loops."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles

import ipu_nb
from ipu_nb import charts
from ipu_nb._charts.timeline import BACKGROUND, timeline_cells
from ipu_nb._model.kernel_classes import kernel_colours
from ipu_nb._model.palette import KERNEL_PALETTE, NO_KERNEL_COLOUR
from ipu_nb._widget.lod import build_index

#: More kernels than classes, so some share "(other kernels)"; "" is the kernel-less samples.
KERNELS = ["", *(f"k{i:02d}" for i in range(34))]


@pytest.fixture(scope="module")
def profile() -> Any:
    """Three tiles, each kernel a different total (the ranking is unambiguous but for the ties the names break)."""
    tiles = []
    for t, phys in enumerate([0, 5, 9]):
        samples, cursor = [], 0
        for i, kernel in enumerate(KERNELS):
            length = 3 + (i * 7 + t * 5) % 23
            if (i + t) % 5 != 4:  # gaps: background
                samples.append(S(cursor, cursor + length, kind="compute", kernel=kernel, phase=i))
            cursor += length
        # A long last sample of a kernel ranked low over the window it sits in but not over the profile.
        samples.append(S(cursor, cursor + 40 + 10 * t, kind="exchange", kernel="k33"))
        tiles.append(T(phys, samples))
    return profile_from_tiles(tiles)


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def reference_colours(samples: pl.DataFrame) -> dict[str, tuple[int, int, int]]:
    """Each kernel's colour by a plain ranking: total cycles down, then name; 30 classes, the rest the 31st colour."""
    totals: dict[str, int] = {}
    for s in samples.iter_rows(named=True):
        totals[s["kernel"] or ""] = totals.get(s["kernel"] or "", 0) + s["duration"]
    ranked = sorted(totals, key=lambda k: (-totals[k], k))
    out = {}
    for i, kernel in enumerate(ranked):
        if i >= 30 and len(ranked) > 31:
            out[kernel] = rgb(KERNEL_PALETTE[30])  # "(other kernels)"
        elif kernel == "":
            out[kernel] = rgb(NO_KERNEL_COLOUR)
        else:
            out[kernel] = rgb(KERNEL_PALETTE[i])
    return out


def reference_cells(
    samples: pl.DataFrame,
    colours: dict[str, tuple[int, int, int]],
    tiles: list[int],
    window: tuple[int, int],
    bins: int,
    key: str = "kernel",
) -> dict[tuple[int, int], tuple[float, ...]]:
    """Per (row, bin), one tile a row: Σ cycles × colour plus the uncovered cycles × white, over the bin's cycles."""
    start, end = window
    edges = [start + k * (end - start) // bins for k in range(bins + 1)]
    sums: dict[tuple[int, int], list[float]] = {}
    for s in samples.iter_rows(named=True):
        if s["tile"] not in tiles:
            continue
        a, b = s["offset"], s["offset"] + s["duration"]
        for k in range(bins):
            cycles = min(b, edges[k + 1]) - max(a, edges[k])
            if cycles > 0:
                acc = sums.setdefault((tiles.index(s["tile"]), k), [0.0, 0.0, 0.0, 0.0])
                acc[0] += cycles
                for c in range(3):
                    acc[c + 1] += cycles * colours[s[key] or ""][c]
    out = {}
    for (r, k), (cycles, *sum_rgb) in sums.items():
        width = edges[k + 1] - edges[k]
        out[(r, k)] = tuple((sum_rgb[c] + (width - cycles) * BACKGROUND[c]) / width for c in range(3))
    return out


def test_kernel_colours_are_the_plain_ranking_s(profile: Any) -> None:
    want = reference_colours(profile.samples)
    got = {k: rgb(v) for k, v in kernel_colours(profile.samples).items()}
    assert got == want
    assert len(set(got.values())) == 31  # 30 classes of their own (one the no-kernel grey) + the shared one


def test_the_ranking_is_the_widget_s_legend_and_classes(profile: Any) -> None:
    legend = ipu_nb.ProfileWidget(profile).info["legend"]["kernel"]
    assert len(legend) == 31 and legend[-1] == "(other kernels)" and "(no kernel)" in legend
    colours = kernel_colours(profile.samples)
    # The widget's class of every sample (its index), as the front end colours it: legend entry i's
    # table colour, the kernel-less grey for "(no kernel)".
    index = build_index(profile.samples, profile.tiles)
    codes = profile.samples.get_column("kernel").to_physical().to_numpy()
    classes = index.kernel_lookup[codes]
    for kernel, cls in zip(profile.samples.get_column("kernel").cast(pl.String).to_list(), classes, strict=True):
        name = legend[int(cls) - 1]
        front_end = NO_KERNEL_COLOUR if name == "(no kernel)" else KERNEL_PALETTE[int(cls) - 1]
        assert colours[kernel or ""] == front_end, kernel
    assert np.unique(classes).tolist() == list(range(1, 32))


@pytest.mark.parametrize(("window", "bins"), [((0, 400), 9), ((300, 420), 12), ((5, 9), 4)])
def test_kernel_cells_are_the_cycle_weighted_mean_colour(profile: Any, window: tuple[int, int], bins: int) -> None:
    tiles = [9, 0, 5]
    colours = reference_colours(profile.samples)  # over the whole profile, not the window
    samples = profile.filter(window=window)
    cells = timeline_cells(
        samples, tiles, window, bins, len(tiles), key="kernel", colours=kernel_colours(profile.samples)
    )
    got = {(r["row"], r["bin"]): (r["r"], r["g"], r["b"]) for r in cells.iter_rows(named=True)}
    want = reference_cells(profile.samples, colours, tiles, window, bins)
    assert want and got.keys() == want.keys()
    for key, colour in want.items():
        assert got[key] == pytest.approx(colour)


@pytest.mark.parametrize("window", [(0, 500), (420, 520)])
def test_the_kernel_chart_draws_the_reference_cells(profile: Any, window: tuple[int, int]) -> None:
    width = 400  # 100 bins, a row a tile
    chart = charts.timeline(profile, window=window, color_by="kernel", width=width)
    want = reference_cells(profile.samples, reference_colours(profile.samples), [0, 5, 9], window, 100)
    start, end = window
    edges = [start + k * (end - start) // 100 for k in range(101)]
    drawn: dict[tuple[int, int], str] = {}
    for v in chart.data.values:
        for k in range(edges.index(v["x0"]), edges.index(v["x1"])):
            drawn[(["0", "5", "9"].index(v["tiles"]), k)] = v["color"]
    assert drawn.keys() == want.keys()
    for key, colour in want.items():
        assert drawn[key] == "#" + "".join(f"{round(c):02x}" for c in colour), key
    kinds = charts.timeline(profile, window=window, width=width)
    assert {v["color"] for v in kinds.data.values} != {v["color"] for v in chart.data.values}


def test_a_widget_s_own_mode_is_drawn_when_asked(profile: Any) -> None:
    widget = ipu_nb.ProfileWidget(profile)
    widget.color_by = "kernel"
    widget.view = [0, 500]
    ours = charts.timeline(widget, color_by=widget.color_by, width=400)
    plain = charts.timeline(profile, window=(0, 500), color_by="kernel", width=400)
    assert ours.data.values == plain.data.values
    assert charts.timeline(widget, width=400).data.values != ours.data.values  # the default stays "kind"


@pytest.mark.parametrize("bad", ["Activity", "Kernel", "", None, 3])
def test_a_bad_color_by_names_the_accepted_values(profile: Any, bad: Any) -> None:
    with pytest.raises(
        ValueError, match=r"^charts\.timeline: color_by must be one of 'kind', 'kernel', 'activity', got "
    ):
        charts.timeline(profile, color_by=bad)


#: One tile: a compute, an exchange whose 100-cycle window holds a send [0, 40), a receive [20, 60)
#: and a partner-busy wait [70, 80), then a sync. Its pieces, by the rules (docs/reference/head.md):
#: send alone, both, receive alone, idle, partner busy, idle; the other samples whole.
ACTIVITIES = [("send", 0, 40), ("receive", 20, 60), ("partnerBusy", 70, 80)]
PIECES = [
    (0, 100, "compute"),
    (100, 120, "send"),
    (120, 140, "sendReceive"),
    (140, 160, "receive"),
    (160, 170, "exchangeIdle"),
    (170, 180, "partnerBusy"),
    (180, 200, "exchangeIdle"),
    (200, 260, "synchronization"),
]


@pytest.mark.parametrize(("window", "width"), [((0, 260), 104 * 4), ((95, 185), 400), ((0, 260), 100)])
def test_the_activity_chart_draws_each_exchange_as_its_pieces(window: tuple[int, int], width: int) -> None:
    from ipu_nb._model.palette import WINDOW_PALETTE

    one = T(
        3,
        [
            S(0, 100, "compute", phase=0),
            S(100, 200, "exchange", phase=1, activities=ACTIVITIES, exchange_event_cycles=100),
            S(200, 260, "synchronization", phase=2),
        ],
    )
    profile = profile_from_tiles([one], schema_version=5)
    chart = charts.timeline(profile, window=window, color_by="activity", width=width)
    start, end = window
    bins = min(width // 4, end - start)
    pieces = pl.DataFrame([{"tile": 3, "offset": a, "duration": b - a, "activity": name} for a, b, name in PIECES])
    colours = {name: rgb(c) for name, c in {**ipu_nb.palette(), **WINDOW_PALETTE}.items()}
    want = reference_cells(pieces, colours, [3], window, bins, key="activity")
    edges = [start + k * (end - start) // bins for k in range(bins + 1)]
    drawn: dict[tuple[int, int], str] = {}
    for v in chart.data.values:
        for k in range(edges.index(v["x0"]), edges.index(v["x1"])):
            drawn[(0, k)] = v["color"]
    assert drawn.keys() == want.keys()
    for key, colour in want.items():
        assert drawn[key] == "#" + "".join(f"{round(c):02x}" for c in colour), key
    by_kind = charts.timeline(profile, window=window, width=width)
    assert {v["color"] for v in by_kind.data.values} != {v["color"] for v in chart.data.values}
