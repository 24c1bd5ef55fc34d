"""charts.recoverable_cycles / critical_tiles / what_if: the analytics' numbers, bounded runs, errors, exports."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from builders import S, T, profile_from_tiles, profile_of
from chart_fixtures import spec_rows
from rendered import png_size
from untyped import untyped

import ipu_nb
from ipu_nb import charts
from ipu_nb._charts.spec import Chart
from ipu_nb._charts.steps import TOP_KERNELS, recoverable_frame, what_if_frame


@pytest.fixture(scope="module")
def profile() -> ipu_nb.Profile:
    """128 tiles, one MLP layer: 2 waves, a straggler, tails in the GELU and copy phases."""
    return profile_of(ipu_nb.generate_columns("mlp", tiles=128, layers=1, seed=3))


def dataset(chart: Any) -> list[dict[str, Any]]:
    spec = charts.to_spec(chart)
    return max(spec["datasets"].values(), key=len)


def test_recoverable_bars_are_the_supersteps_recoverable_cycles(profile: ipu_nb.Profile) -> None:
    steps = ipu_nb.supersteps(profile, kind="compute")
    rows = dataset(charts.recoverable_cycles(profile))
    assert [r["recoverable_cycles"] for r in rows] == steps.get_column("recoverable_cycles").to_list()
    assert [r["critical_tile"] for r in rows] == steps.get_column("critical_tile").to_list()
    assert [r["start"] for r in rows] == steps.get_column("start").to_list()
    assert rows[0]["time"] == pytest.approx(steps.row(0, named=True)["start"] * 1000 / profile.clock_hz)
    assert [r["base"] for r in rows] == [0.0] * len(rows)  # bars rise from zero
    everything = dataset(charts.recoverable_cycles(profile, kind=None))
    assert len(everything) == ipu_nb.supersteps(profile).height


def test_runs_sum_their_supersteps_and_keep_the_worst_ones_tile() -> None:
    steps = pl.DataFrame(
        {
            "phase": [1, 3, 5, 7, 9],
            "epoch": [0] * 5,
            "start": [0, 10, 20, 30, 40],
            "end": [10, 20, 30, 40, 50],
            "recoverable_cycles": [1.0, 5.0, 2.0, 0.5, 4.0],
            "critical_tile": [7, 8, 9, 10, 11],
            "dominant_kernel": ["a", "b", "", "a", "c"],
        }
    )
    runs, run = recoverable_frame(steps, max_bars=2)
    assert run == 3
    assert runs.get_column("recoverable_cycles").to_list() == [8.0, 4.5]
    assert runs.get_column("label").to_list() == ["phase 1/0 … phase 5/0", "phase 7/0 … phase 9/0"]
    assert runs.get_column("critical_tile").to_list() == [8, 11]
    assert runs.get_column("kernel").to_list() == ["b", "c"]
    assert (runs.get_column("start").to_list(), runs.get_column("end").to_list()) == ([0, 30], [30, 50])
    with pytest.raises(ValueError, match="max_bars must be at least 1"):
        recoverable_frame(steps, 0)
    spec = charts.to_spec(charts.recoverable_cycles(steps, max_bars=2))
    assert spec_rows(spec) == 2 and "runs of 3 supersteps" in spec["title"]


def test_kernels_beyond_the_top_share_one_colour() -> None:
    n = TOP_KERNELS + 3
    steps = pl.DataFrame(
        {
            "phase": list(range(n)),
            "epoch": [0] * n,
            "start": [10 * i for i in range(n)],
            "end": [10 * i + 10 for i in range(n)],
            "recoverable_cycles": [float(100 - i) for i in range(n)],
            "critical_tile": [0] * n,
            "dominant_kernel": [f"k{i}" for i in range(n - 1)] + [""],
        }
    )
    rows = dataset(charts.recoverable_cycles(steps))
    kernels = [r["kernel"] for r in rows]
    assert kernels[:TOP_KERNELS] == [f"k{i}" for i in range(TOP_KERNELS)]
    assert set(kernels[TOP_KERNELS:]) == {"(other kernels)"}
    spec = charts.to_spec(charts.recoverable_cycles(steps))
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"][-1] == "(other kernels)"


def test_critical_tiles_are_the_tile_balance_on_the_grid(profile: ipu_nb.Profile) -> None:
    balance = ipu_nb.tile_balance(profile, kind="compute")
    rows = {r["tile"]: r for r in dataset(charts.critical_tiles(profile))}
    assert len(rows) == profile.tile_count  # every profiled tile, zero where never critical
    for b in balance.iter_rows(named=True):
        assert rows[b["tile"]]["critical_count"] == b["critical_count"]
        assert rows[b["tile"]]["row"] == b["tile"] // 64 and rows[b["tile"]]["column"] == b["tile"] % 64
    never = set(rows) - set(balance.filter(pl.col("critical_count") > 0).get_column("tile").to_list())
    assert never and all(rows[t]["critical_count"] == 0 for t in never)
    straggler = balance.row(0, named=True)
    assert straggler["critical_share"] > 0.3  # the generator's straggler holds many phases back
    from_frame = {r["tile"]: r["critical_count"] for r in dataset(charts.critical_tiles(balance))}
    assert from_frame == {b["tile"]: b["critical_count"] for b in balance.iter_rows(named=True)}


def test_what_if_points_end_at_the_totals(profile: ipu_nb.Profile) -> None:
    result = ipu_nb.what_if(profile, {"gelu_c16_to_a8": 0.5})
    points, run = what_if_frame(result)
    assert run == 1 and points.height == result.supersteps.height
    last = points.row(-1, named=True)
    assert (last["measured"], last["estimated"]) == (result.measured_cycles, result.estimated_cycles)
    assert last["saved"] == result.saved_cycles > 0
    each, _ = what_if_frame(result, cumulative=False)
    assert each.get_column("saved").to_list() == result.supersteps.get_column("saved_cycles").to_list()
    merged, run = what_if_frame(result, cumulative=False, max_points=10)
    assert merged.height <= 10 and merged.get_column("measured").sum() == result.measured_cycles
    assert merged.get_column("superstep").to_list()[-1] == result.supersteps.height
    spec = charts.to_spec(charts.what_if(result))
    top, bottom = spec["vconcat"]
    assert top["mark"]["type"] == "line" and bottom["mark"]["type"] == "area"
    assert top["encoding"]["color"]["scale"]["domain"] == ["measured", "estimated"]
    assert "what if gelu_c16_to_a8 ×0.5" in spec["title"]


def test_sources_and_arguments_are_checked(profile: ipu_nb.Profile) -> None:
    steps = ipu_nb.supersteps(profile, kind="compute")
    with pytest.raises(TypeError, match=r"filters \(kernel\) apply to a Profile source"):
        charts.recoverable_cycles(steps, kernel="x")
    with pytest.raises(ValueError, match=r"lacks column\(s\) critical_tile"):
        charts.recoverable_cycles(steps.drop("critical_tile"))
    with pytest.raises(TypeError, match="expected a Profile, ProfileWidget or tile balance DataFrame"):
        charts.critical_tiles([1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a WhatIf"):
        charts.what_if(steps)  # type: ignore[arg-type]
    with pytest.raises(ipu_nb.QueryError, match=r"unknown filter 'phase' \(did you mean 'phases'\?\)"):
        untyped(charts.critical_tiles)(profile, phase=3)
    with pytest.raises(ValueError, match="max_points must be at least 1"):
        charts.what_if(ipu_nb.what_if(profile, {}), max_points=0)


def test_a_widget_is_a_source_under_its_filters(profile: ipu_nb.Profile) -> None:
    widget = ipu_nb.ProfileWidget(profile)
    widget.filters = {"kind": "compute", "kernel": "gelu_c16_to_a8"}
    rows = dataset(charts.recoverable_cycles(widget))
    expected = ipu_nb.supersteps(profile, kind="compute", kernel="gelu_c16_to_a8")
    assert [r["recoverable_cycles"] for r in rows] == expected.get_column("recoverable_cycles").to_list()


def test_empty_profiles_draw_empty_charts(tmp_path: Path) -> None:
    empty = profile_from_tiles([T(0, []), T(2, [])])
    one = profile_from_tiles([T(0, [S(0, 10, kind="idle")])])
    for chart in (
        charts.recoverable_cycles(empty),
        charts.recoverable_cycles(one),
        charts.critical_tiles(empty),
        charts.what_if(ipu_nb.what_if(one, {})),
    ):
        svg = charts.save(chart, tmp_path / "empty.svg").read_text(encoding="utf-8")
        assert ET.fromstring(svg).tag.endswith("svg")


@pytest.mark.parametrize("name", ["recoverable", "critical", "what_if", "what_if_each"])
def test_exports_to_png_svg_and_html(profile: ipu_nb.Profile, tmp_path: Path, name: str) -> None:
    makers: dict[str, Callable[[], Chart]] = {
        "recoverable": lambda: charts.recoverable_cycles(profile),
        "critical": lambda: charts.critical_tiles(profile),
        "what_if": lambda: charts.what_if(ipu_nb.what_if(profile, {"gemm_f32_accumulate_large_rows": 0.9})),
        "what_if_each": lambda: charts.what_if(ipu_nb.what_if(profile, {"copy_u64": 2.0}), cumulative=False),
    }
    chart = makers[name]()
    width, height = png_size(charts.save(chart, tmp_path / "c.png", scale=1.0).read_bytes())
    assert width > 300 and height > 150
    svg = ET.fromstring(charts.save(chart, tmp_path / "c.svg").read_text(encoding="utf-8"))
    assert svg.tag.endswith("svg")
    document = charts.save(chart, tmp_path / "c.html").read_text(encoding="utf-8")
    assert "vegaEmbed(" in document and 'class="ipu-nb-spec"' in document
