"""``charts.timeline``: area-conserving cells against a plain loop over samples, bounded data, widget views."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from builders import S, T, profile_from_tiles

import ipu_nb
from ipu_nb import charts
from ipu_nb._charts.timeline import BACKGROUND, MAX_CELLS, timeline_cells


@pytest.fixture(scope="module")
def profile() -> Any:
    kinds = ["compute", "exchange", "synchronization", "idle"]
    tiles = []
    for t, phys in enumerate([0, 2, 64, 66, 130]):
        samples, cursor = [], 0
        for i in range(12):
            length = 37 + 13 * ((i * 7 + t * 3) % 5)
            if (i + t) % 4 != 3:  # gaps: background
                samples.append(S(cursor, cursor + length, kind=kinds[(i + t) % 4], operation="op", kernel="k", phase=i))
            cursor += length
        tiles.append(T(phys, samples))
    return profile_from_tiles(tiles)


def reference(samples: pl.DataFrame, tiles: list[int], window: tuple[int, int], bins: int, rows: int) -> dict:
    """Per (row, bin): Σ cycles × colour plus the uncovered cycles × white, over the cell's cycles (a plain loop)."""
    start, end = window
    edges = [start + k * (end - start) // bins for k in range(bins + 1)]
    row_of = {t: i * rows // len(tiles) for i, t in enumerate(tiles)}
    members = {r: sum(1 for t in tiles if row_of[t] == r) for r in range(rows)}
    colours = {k: tuple(int(v[i : i + 2], 16) for i in (1, 3, 5)) for k, v in ipu_nb.palette().items()}
    sums: dict[tuple[int, int], list[float]] = {}
    for s in samples.iter_rows(named=True):
        if s["tile"] not in row_of:
            continue
        a, b = s["offset"], s["offset"] + s["duration"]
        for k in range(bins):
            cycles = min(b, edges[k + 1]) - max(a, edges[k])
            if cycles > 0:
                acc = sums.setdefault((row_of[s["tile"]], k), [0.0, 0.0, 0.0, 0.0])
                acc[0] += cycles
                for c in range(3):
                    acc[c + 1] += cycles * colours[str(s["kind"])][c]
    out = {}
    for (r, k), (cycles, *rgb) in sums.items():
        capacity = max(members[r] * (edges[k + 1] - edges[k]), cycles)
        out[(r, k)] = tuple((rgb[c] + (capacity - cycles) * BACKGROUND[c]) / capacity for c in range(3))
    return out


@pytest.mark.parametrize(("window", "bins", "rows"), [((0, 700), 7, 5), ((13, 611), 9, 2), ((100, 105), 5, 1)])
def test_cells_are_the_cycle_weighted_mean_colour(profile: Any, window: tuple[int, int], bins: int, rows: int) -> None:
    tiles = [66, 0, 2, 130, 64]
    cells = timeline_cells(profile.samples, tiles, window, bins, rows)
    got = {(r["row"], r["bin"]): (r["r"], r["g"], r["b"]) for r in cells.iter_rows(named=True)}
    want = reference(profile.samples, tiles, window, bins, rows)
    assert got.keys() == want.keys()
    for key, colour in want.items():
        assert got[key] == pytest.approx(colour)


def test_chart_data_is_bounded_and_coloured_from_the_palette(profile: Any) -> None:
    chart = charts.timeline(profile, width=400)
    values = chart.data.values
    assert 0 < len(values) <= MAX_CELLS
    spec = charts.to_spec(chart)
    assert spec["encoding"]["color"] == {"field": "color", "type": "nominal", "scale": None}
    big = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"), progress=False)
    wide = charts.timeline(big, width=4000)
    assert len(wide.data.values) <= MAX_CELLS < big.sample_count


def test_a_widget_source_draws_its_view_filters_and_row_order(profile: Any) -> None:
    widget = ipu_nb.ProfileWidget(profile)
    widget.filters = {"kind": "compute"}
    widget.view = [50, 450]
    widget.tracks = {"order": "physical", "pinned": [130], "rows": 0, "scroll": 0}
    assert widget.timeline_tiles == [130, 0, 2, 64, 66]
    chart = charts.timeline(widget, width=200)
    spec, values = charts.to_spec(chart), chart.data.values
    assert spec["encoding"]["y"]["sort"] == ["130", "0", "2", "64", "66"]
    assert spec["encoding"]["x"]["scale"]["domain"] == [50, 450]
    compute = ipu_nb.palette()["compute"]
    full = [v for v in values if v["color"] == compute]
    assert full and all(v["x0"] >= 50 and v["x1"] <= 450 for v in values)
    exchange = ipu_nb.palette()["exchange"]
    assert all(v["color"] != exchange for v in values)  # filtered out: background


def test_bad_arguments_are_named(profile: Any) -> None:
    with pytest.raises(ValueError, match="window"):
        charts.timeline(profile, window=(10, 5))
    with pytest.raises(ValueError, match="tile ids"):
        charts.timeline(profile, tiles=[999])
    with pytest.raises(ValueError, match="color_by"):
        charts.timeline(profile, color_by="bogus")
    with pytest.raises(ValueError, match="width"):
        charts.timeline(profile, width=True)
    with pytest.raises(TypeError, match="Profile or ProfileWidget"):
        charts.timeline("profile.capnp")
