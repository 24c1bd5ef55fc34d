"""charts.delta_waterfall / delta_heatmap / delta_distribution: numbers worked out by hand, errors, real exports.

The pair (clock 1000 Hz), all compute samples, offsets per tile:

  before  tile 0: A [0,100) p1 · B [100,150) p1    tile 2: A [0,80) p1    tile 64: C [0,30) p3
  after   tile 0: A [0,130) p1 · B [130,160) p1    tile 2: A [0,60) p1    tile 64: D [0,50) p3
  tile 1471 has no samples on either side.

By kernel: A 100 → 130 (+30), B 50 → 30 (−20), C 30 → removed (−30), D added (+50); totals
180 → 210 (+30), no overlap on either side. Order by |Δ| then name: D, A, C, B; running
totals 50, 80, 50, 30, overlap +0 → 30. By tile: tile 0 150 → 160 (+10), tile 2 80 → 60
(−20), tile 64 30 → 50 (+20).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from chart_fixtures import HOSTILE, spec_rows
from rendered import parse, png_size
from untyped import untyped

import ipu_nb
from ipu_nb import charts
from ipu_nb._charts.deltas import waterfall_frame
from ipu_nb._charts.spec import Chart
from ipu_nb._markup.sanitize import label

BEFORE = [
    T(0, [S(0, 100, kernel="A", phase=1), S(100, 150, kernel="B", phase=1)]),
    T(2, [S(0, 80, kernel="A", phase=1)]),
    T(64, [S(0, 30, kernel="C", phase=3)]),
    T(1471, []),
]
AFTER = [
    T(0, [S(0, 130, kernel="A", phase=1), S(130, 160, kernel="B", phase=1)]),
    T(2, [S(0, 60, kernel="A", phase=1)]),
    T(64, [S(0, 50, kernel="D", phase=3)]),
    T(1471, []),
]


@pytest.fixture(scope="module")
def pair() -> tuple[Any, Any]:
    return profile_from_tiles(BEFORE, 1000), profile_from_tiles(AFTER, 1000)


def rows_of(chart: Any) -> list[dict[str, Any]]:
    spec = charts.to_spec(chart)
    (rows,) = spec["datasets"].values() if len(spec["datasets"]) == 1 else [max(spec["datasets"].values(), key=len)]
    return rows


# ---------------------------------------------------------------- waterfall


def test_waterfall_bars_are_the_attribution_then_the_total(pair: tuple[Any, Any]) -> None:
    frame = waterfall_frame(ipu_nb.compare(*pair))
    assert frame.get_column("label").to_list() == ["D", "A", "C", "B", "(overlap)", "total"]
    assert frame.get_column("cycles").to_list() == [50, 30, -30, -20, 0, 30]
    assert frame.get_column("start").to_list() == [0, 50, 80, 50, 30, 0]
    assert frame.get_column("end").to_list() == [50, 80, 50, 30, 30, 30]
    assert frame.get_column("effect").to_list() == ["slower", "slower", "faster", "faster", "overlap", "total"]
    assert frame.get_column("delta").to_list() == ["+50", "+30", "-30", "-20", "+0", "+30"]
    assert frame.get_column("rank").to_list() == list(range(6))


def test_waterfall_folds_groups_beyond_the_limit_and_still_sums_to_the_total(pair: tuple[Any, Any]) -> None:
    frame = waterfall_frame(ipu_nb.compare(*pair), limit=2)
    assert frame.get_column("label").to_list() == ["D", "A", "(2 other groups)", "(overlap)", "total"]
    assert frame.get_column("cycles").to_list() == [50, 30, -50, 0, 30]
    terms = frame.filter(pl.col("term") != "total").get_column("cycles").sum()
    assert terms == frame.filter(pl.col("term") == "total").get_column("end").item() == 30


def test_waterfall_spec_draws_bars_labels_and_a_zero_rule(pair: tuple[Any, Any]) -> None:
    spec = charts.to_spec(charts.delta_waterfall(ipu_nb.compare(*pair)))
    bars, text, zero = spec["layer"]
    assert bars["mark"]["type"] == "bar" and text["mark"]["type"] == "text" and zero["mark"]["type"] == "rule"
    assert (bars["encoding"]["x"]["field"], bars["encoding"]["x2"]["field"]) == ("start", "end")
    assert bars["encoding"]["y"]["sort"] == {"field": "rank", "op": "min"}  # data order, never a sort list
    assert bars["encoding"]["color"]["scale"]["domain"] == list(charts.DELTA_COLORS)
    assert "180 → 210 cycles (+30; groups +30, overlap +0)" in spec["title"]


def test_synthetic_rows_keep_their_names_beside_groups_named_like_them() -> None:
    before = profile_from_tiles([T(0, [S(0, 10, kernel="total", phase=1), S(10, 30, kernel="(overlap)", phase=1)])])
    after = profile_from_tiles([T(0, [S(0, 20, kernel="total", phase=1), S(20, 30, kernel="(overlap)", phase=1)])])
    frame = waterfall_frame(ipu_nb.compare(before, after))
    by_term = dict(zip(frame.get_column("term").to_list(), frame.get_column("label").to_list(), strict=False))
    assert (by_term["overlap"], by_term["total"]) == ("(overlap)", "total")
    groups = frame.filter(pl.col("term") == "group").get_column("label").to_list()
    assert sorted(groups) == ["(overlap) (2)", "total (2)"]


def test_waterfall_of_something_else_is_a_type_error(pair: tuple[Any, Any]) -> None:
    with pytest.raises(TypeError, match=r"expected a Comparison \(ipu_nb.compare"):
        charts.delta_waterfall(pair[0])


# ---------------------------------------------------------------- heat-map


def test_heatmap_places_each_tiles_delta_on_the_grid(pair: tuple[Any, Any]) -> None:
    chart = charts.delta_heatmap(ipu_nb.compare(*pair, by="tile"))
    rows = {r["tile"]: r for r in rows_of(chart)}
    assert sorted(rows) == [0, 2, 64, 1471]
    assert [rows[t]["delta"] for t in (0, 2, 64, 1471)] == [10, -20, 20, 0]
    assert (rows[64]["row"], rows[64]["column"], rows[1471]["row"], rows[1471]["column"]) == (1, 0, 22, 63)
    assert (rows[1471]["status"], rows[0]["status"]) == ("no samples", "changed")
    assert (rows[0]["before"], rows[0]["after"]) == (150, 160)
    spec = charts.to_spec(chart)
    scale = spec["encoding"]["color"]["scale"]
    assert scale == {"scheme": "redblue", "reverse": True, "domain": [-20, 20], "domainMid": 0}
    assert spec["encoding"]["x"]["scale"]["domain"] == list(range(64))


def test_heatmap_of_work_cycles(pair: tuple[Any, Any]) -> None:
    rows = {r["tile"]: r for r in rows_of(charts.delta_heatmap(ipu_nb.compare(*pair, by="tile"), "work_cycles_delta"))}
    assert [rows[t]["delta"] for t in (0, 2, 64)] == [10, -20, 20]


def test_heatmap_needs_a_comparison_by_tile(pair: tuple[Any, Any]) -> None:
    with pytest.raises(ValueError, match=r"compare\(before, after, by='tile'\); this one is by 'kernel'"):
        charts.delta_heatmap(ipu_nb.compare(*pair))
    with pytest.raises(ValueError, match="value must be one of phase_cycles_delta, work_cycles_delta"):
        charts.delta_heatmap(ipu_nb.compare(*pair, by="tile"), "ratio")  # type: ignore[arg-type]


# ---------------------------------------------------------------- distributions


def test_distribution_overlays_both_sides_with_their_query_percentiles(pair: tuple[Any, Any]) -> None:
    spec = charts.to_spec(charts.delta_distribution(*pair, kernel="A", bins=4))
    bars, rules = spec["layer"]
    histogram = [r for r in spec["datasets"][bars["data"]["name"]]]
    for side in ("before", "after"):
        shares = [r["share"] for r in histogram if r["group"] == side]
        assert sum(shares) == pytest.approx(1.0)
    markers = spec["datasets"][rules["data"]["name"]]
    for side, profile in zip(("before", "after"), pair, strict=True):
        groups = ipu_nb.query(profile, kernel="A", group_by="kernel").groups.row(0, named=True)
        got = {r["stat"]: r["cycles"] for r in markers if r["group"] == side}
        assert got == {"p50": groups["p50_cycles"], "p95": groups["p95_cycles"]}
    assert spec["title"].startswith("duration distribution before (2 samples) and after (2): kernel='A'")
    assert bars["encoding"]["color"]["scale"]["domain"] == ["before", "after"]


def test_distribution_ecdf_and_errors(pair: tuple[Any, Any]) -> None:
    spec = charts.to_spec(charts.delta_distribution(*pair, style="ecdf", kind="compute"))
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "point"]
    with pytest.raises(ValueError, match="style must be histogram or ecdf"):
        charts.delta_distribution(*pair, style="violin")  # type: ignore[arg-type]
    with pytest.raises(ipu_nb.QueryError, match=r"unknown filter 'kernal' \(did you mean 'kernel'\?\)"):
        untyped(charts.delta_distribution)(*pair, kernal="A")
    empty = charts.to_spec(charts.delta_distribution(*pair, kernel="missing"))
    assert spec_rows(empty) == 0


def test_hostile_names_are_labels_in_titles_and_data() -> None:
    weird = HOSTILE + "\x01"
    before = profile_from_tiles([T(0, [S(0, 10, kernel=weird, phase=1)])])
    after = profile_from_tiles([T(0, [S(0, 25, kernel=weird, phase=1)])])
    spec = charts.to_spec(charts.delta_distribution(before, after, kernel=weird))
    assert "\x01" not in json.dumps(spec, ensure_ascii=False) and label(repr(weird)) in spec["title"]
    names = [r["label"] for r in rows_of(charts.delta_waterfall(ipu_nb.compare(before, after)))]
    assert label(weird) in names


# ---------------------------------------------------------------- real exports


@pytest.mark.parametrize("name", ["waterfall", "heatmap", "distribution"])
def test_exports_to_png_svg_and_html(pair: tuple[Any, Any], tmp_path: Path, name: str) -> None:
    makers: dict[str, Callable[[], Chart]] = {
        "waterfall": lambda: charts.delta_waterfall(ipu_nb.compare(*pair)),
        "heatmap": lambda: charts.delta_heatmap(ipu_nb.compare(*pair, by="tile")),
        "distribution": lambda: charts.delta_distribution(*pair, kind="compute"),
    }
    chart = makers[name]()
    width, height = png_size(charts.save(chart, tmp_path / "c.png", scale=1.0).read_bytes())
    assert width > 300 and height > 100
    svg = ET.fromstring(charts.save(chart, tmp_path / "c.svg").read_text(encoding="utf-8"))
    texts = [node.text for node in svg.iter() if node.tag.endswith("text") and node.text]
    assert any(t.startswith(("phase-cycle delta", "Δ phaseCycles", "duration distribution")) for t in texts)
    page = parse(charts.save(chart, tmp_path / "c.html").read_text(encoding="utf-8"))
    assert [a.get("type") for a, _ in page.scripts] == [None, "application/json", None]
