"""ipu_nb.charts: the aggregated data, the specs built from it, bounded embedding, and real exports."""

from __future__ import annotations

import itertools
import json
import xml.etree.ElementTree as ET

import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from chart_fixtures import (
    EXPORT_FORMATS,
    HOSTILE,
    NASTY_CHARTS,
    NASTY_KEY,
    NASTY_KEY_2,
    NASTY_NAMES,
    ORDINARY_NAMES,
    RAW_CHARACTERS,
    export_nasty_charts,
    hostile_profile,
    nasty_profile,
    sized_profile,
    spec_rows,
    without_vega_bundle,
)
from rendered import parse, png_size
from untyped import untyped

from ipu_nb import charts
from ipu_nb._charts.data import active_tiles_frame, distribution_frame, tile_grid_frame
from ipu_nb._markup.sanitize import label


@pytest.fixture(scope="module")
def hostile():
    return hostile_profile()


# ---------------------------------------------------------------- tile grid


def test_tile_grid_sums_cycles_per_physical_tile_and_places_it_on_the_grid(hostile):
    grid = tile_grid_frame(hostile.samples, hostile.tiles.get_column("tile"))
    rows = {r["tile"]: r for r in grid.to_dicts()}
    assert sorted(rows) == [0, 2, 64, 1471]
    assert rows[0]["cycles"] == 600 + 400 + 3000
    assert rows[0]["busy_cycles"] == 400 + 3000  # compute and exchange work; the sync is waiting
    # the active=false compute sample on tile 64 is not busy, but it is selected
    assert rows[64]["cycles"] == 1500 + 400 + 50
    assert rows[64]["busy_cycles"] == 400
    assert (rows[64]["row"], rows[64]["column"]) == (1, 0)
    assert (rows[1471]["row"], rows[1471]["column"], rows[1471]["samples"]) == (22, 63, 0)
    # window = longest per-tile extent (tile 0: offsets 0..4000)
    assert rows[0]["share"] == pytest.approx(1.0)
    assert rows[0]["busy_share"] == pytest.approx(3400 / 4000)
    assert rows[2]["share"] == pytest.approx(2050 / 4000)
    assert rows[2]["busy_share"] == pytest.approx(1400 / 4000)
    assert rows[1471]["share"] == 0.0


def test_tile_heatmap_spec_encodes_grid_fields(hostile):
    spec = charts.to_spec(charts.tile_heatmap(hostile, "cycles"))
    assert spec["mark"]["type"] == "rect"
    enc = spec["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"], enc["color"]["field"]) == ("column", "row", "cycles")
    assert enc["x"]["scale"]["domain"] == list(range(64))
    assert len(enc["y"]["scale"]["domain"]) == 23
    assert spec_rows(spec) == hostile.tile_count
    assert "$schema" not in spec


def test_tile_heatmap_of_a_dataframe_selection_draws_only_its_tiles(hostile):
    selection = hostile.samples.filter(pl.col("tile") == 2)
    spec = charts.to_spec(charts.tile_heatmap(selection))
    rows = next(iter(spec["datasets"].values()))
    assert [r["tile"] for r in rows] == [2]
    assert rows[0]["share"] == pytest.approx(1.0)
    assert rows[0]["busy_share"] == pytest.approx(1400 / 2050)


# ---------------------------------------------------------------- active tiles


def brute_active(samples: pl.DataFrame, edges: np.ndarray, kind: str) -> np.ndarray:
    rows = samples.filter((pl.col("kind").cast(pl.String) == kind) & ~pl.col("inactive")).to_dicts()
    out = []
    for lo, hi in itertools.pairwise(edges):
        overlap = sum(max(0, min(hi, r["offset"] + r["duration"]) - max(lo, r["offset"])) for r in rows)
        out.append(overlap / (hi - lo))
    return np.array(out)


def test_active_tiles_is_the_exact_mean_busy_count_per_bin():
    profile = sized_profile(per_tile=9, tiles=12, seed=3)
    frame = active_tiles_frame(profile.samples, bins=37)
    for kind in ("compute", "exchange", "synchronization"):
        part = frame.filter(pl.col("kind") == kind).sort("start")
        edges = np.append(part.get_column("start").to_numpy(), part.get_column("end").to_numpy()[-1])
        np.testing.assert_allclose(
            part.get_column("active_tiles").to_numpy(), brute_active(profile.samples, edges, kind)
        )


def test_active_tiles_skips_idle_and_inactive_compute(hostile):
    frame = active_tiles_frame(hostile.samples, bins=10)
    compute = frame.filter(pl.col("kind") == "compute")
    # tile 0 (3000 cycles) and tile 2 (1000 cycles) compute; tile 64's active=false sample does not count
    total = (compute.get_column("active_tiles") * (compute.get_column("end") - compute.get_column("start"))).sum()
    assert total == pytest.approx(4000)
    assert set(frame.get_column("kind")) == {"compute", "exchange", "synchronization"}


def test_active_tiles_chart_uses_ms_with_a_profile_clock(hostile):
    spec = charts.to_spec(charts.active_tiles(hostile, bins=20))
    assert spec["encoding"]["x"]["title"] == "time (ms)"
    assert spec["encoding"]["y"]["field"] == "active_tiles"
    assert spec["encoding"]["color"]["scale"]["domain"] == ["compute", "exchange", "synchronization"]
    assert spec_rows(spec) <= 20 * 3


# ---------------------------------------------------------------- distributions


def test_distribution_markers_use_spec_percentile_indices():
    durations = [5, 1, 9, 3, 7, 2, 8, 4, 6, 100]
    tile = T(0, [S(0, 0, kernel="k")])
    tile.samples = []
    start = 0
    for d in durations:
        tile.samples.append(S(start, start + d, kernel="k"))
        start += d
    dist = distribution_frame(profile_from_tiles([tile]).samples, "kernel", bins=5)
    ordered = sorted(durations)
    markers = {r["stat"]: r["cycles"] for r in dist.markers.to_dicts()}
    assert markers == {"p50": ordered[(10 - 1) * 50 // 100], "p95": ordered[(10 - 1) * 95 // 100]}
    assert dist.histogram.get_column("count").sum() == 10
    assert dist.ecdf.get_column("fraction").max() == 1.0
    assert dist.ecdf.get_column("duration").max() == 100


def test_distribution_keeps_top_groups_by_work(hostile):
    dist = distribution_frame(hostile.samples, "kernel", top=2)
    assert dist.group_count == 3
    assert set(dist.markers.get_column("group")) == {"(no kernel)", HOSTILE_KERNEL_NAME}


HOSTILE_KERNEL_NAME = "</script><script>alert(2)</script>"


@pytest.mark.parametrize("style", ["histogram", "ecdf"])
def test_duration_distribution_specs(hostile, style):
    spec = charts.to_spec(charts.duration_distribution(hostile, "kind", style=style))
    text = json.dumps(spec)
    assert '"p50"' in text and '"p95"' in text
    if style == "histogram":
        # one row per group, keyed by rank then label (drawing order; never a name Vega's facet cannot hold)
        assert spec["facet"]["row"]["field"] == "facet"
        keys = sorted({r["facet"] for r in next(iter(spec["datasets"].values()))})
        assert [k.split(" ", 1)[1] for k in keys] == sorted({r["group"] for r in next(iter(spec["datasets"].values()))})
        assert spec["facet"]["row"]["header"]["labelExpr"] == "slice(datum.value, 2)"
        layers = spec["spec"]["layer"]
        assert [layer["mark"]["type"] for layer in layers] == ["bar", "rule"]
    else:
        assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "point"]


def test_bad_arguments_raise_clear_errors(hostile):
    with pytest.raises(ValueError, match="style"):
        untyped(charts.duration_distribution)(hostile, style="violin")
    with pytest.raises(ValueError, match="cannot group samples by"):
        charts.duration_distribution(hostile, "colour")
    with pytest.raises(ValueError, match="value must be"):
        untyped(charts.tile_heatmap)(hostile, "heat")
    with pytest.raises(TypeError, match="apply to a Profile"):
        charts.tile_heatmap(hostile.samples, kind="compute")
    with pytest.raises(TypeError, match="expected a Profile"):
        untyped(charts.active_tiles)([1, 2, 3])
    with pytest.raises(ValueError, match="lacks column"):
        charts.gantt(pl.DataFrame({"tile": [1]}))


# ---------------------------------------------------------------- bounded embedding


def test_chart_data_is_bounded_independent_of_sample_count():
    small, large = sized_profile(per_tile=12, seed=1), sized_profile(per_tile=150, seed=2)
    assert large.sample_count > 10 * small.sample_count > 100_000
    builders = {
        "heatmap": lambda p: charts.tile_heatmap(p),
        "active": lambda p: charts.active_tiles(p, bins=300),
        "histogram": lambda p: charts.duration_distribution(p, "kind", bins=30),
        "ecdf": lambda p: charts.duration_distribution(p, "kernel", style="ecdf"),
    }
    for name, build in builders.items():
        rows_small, rows_large = (spec_rows(charts.to_spec(build(p))) for p in (small, large))
        assert rows_large <= 1500, name  # never the 220,800 samples, nor Altair's 5,000-row limit
        assert rows_large <= rows_small + 10 * 3, name  # same tiles, bins and groups: same size


# ---------------------------------------------------------------- gantt


def test_gantt_draws_small_selections_and_refuses_large_ones(hostile):
    spec = charts.to_spec(charts.gantt(hostile))
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == hostile.sample_count
    assert spec["encoding"]["x2"]["field"] == "end"
    inactive = next(r for r in rows if r["operation"] == "idle during gemm")
    assert (inactive["kind"], inactive["drawn_as"]) == ("compute", "idle")
    big = sized_profile(per_tile=3, tiles=1000)
    with pytest.raises(charts.SelectionTooLargeError, match="3,000 samples"):
        charts.gantt(big)
    with pytest.raises(ValueError, match="5000"):
        charts.gantt(hostile, max_samples=10_000)
    assert spec_rows(charts.to_spec(charts.gantt(big.samples.filter(pl.col("tile") < 5)))) == 15


# ---------------------------------------------------------------- export


def test_save_png_svg_pdf_json(tmp_path, hostile):
    chart = charts.gantt(hostile, color="kernel")
    png = charts.save(chart, tmp_path / "g.png", scale=1.0)
    width, height = png_size(png.read_bytes())
    assert width > 300 and height > 50
    wide, _ = png_size(charts.save(chart, tmp_path / "g2.png", scale=2.0).read_bytes())
    assert wide == pytest.approx(2 * width, abs=2)

    svg = charts.save(chart, tmp_path / "g.svg").read_text(encoding="utf-8")
    root = ET.fromstring(svg)  # well-formed XML: the hostile kernel is escaped, not markup
    assert root.tag.endswith("svg")
    assert "<img" not in svg and "<script" not in svg
    assert any(HOSTILE_KERNEL_NAME in (node.text or "") for node in root.iter())

    pdf = charts.save(chart, tmp_path / "g.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-1024:]

    spec = json.loads(charts.save(chart, tmp_path / "g.json").read_text(encoding="utf-8"))
    assert spec["mark"]["type"] == "bar"

    document = charts.save(chart, tmp_path / "g.html", title="one chart").read_text(encoding="utf-8")
    assert "<title>one chart</title>" in document and "vegaEmbed(" in document

    with pytest.raises(ValueError, match=r"cannot save a chart as \.gif"):
        charts.save(chart, tmp_path / "g.gif")


def test_importing_charts_never_leaves_the_cdn_renderer_active():
    import altair as alt

    assert alt.renderers.active != "default"
    charts.enable_offline()
    assert alt.renderers.active == "jupyter"
    assert alt.renderers.options.get("offline") is True
    assert HOSTILE  # the fixture string is what the hostile tests use


# ---------------------------------------------------------------- groups charts (query core)


def test_breakdown_of_a_profile_matches_the_query_core(hostile):
    from ipu_nb import query

    chart = charts.breakdown(hostile, by="kernel", measure="work-cycles", top=2)
    spec = charts.to_spec(chart)
    rows = next(iter(spec["datasets"].values()))
    expected = query(hostile, group_by="kernel", sort_by="work-cycles", limit=2).groups
    assert [r["name"] for r in rows] == expected.get_column("name").to_list()
    assert [r["workCycles"] for r in rows] == expected.get_column("work_cycles").to_list()
    assert [r["averageActiveTiles"] for r in rows] == expected.get_column("average_active_tiles").to_list()
    bars, labels = spec["layer"]
    assert bars["mark"]["type"] == "bar" and labels["mark"]["type"] == "text"
    assert bars["encoding"]["x"]["field"] == "workCycles"
    # ordered by a rank column (data), not a sort list (which Vega-Lite compiles into an expression)
    assert bars["encoding"]["y"]["sort"] == {"field": "rank", "op": "min"}
    assert [r["rank"] for r in rows] == list(range(len(rows)))
    assert bars["encoding"]["color"]["field"] == labels["encoding"]["text"]["field"] == "averageActiveTiles"
    assert "dimensions" not in rows[0]  # nested columns are not embedded


def test_breakdown_of_a_query_result_and_by_metadata_value(hostile):
    from ipu_nb import query

    result = query(hostile, group_by="metadata", metadata_key="layer", limit=0)
    spec = charts.to_spec(charts.breakdown(result, top=2))
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) == 2 and spec["title"].startswith("phaseCycles by metadata layer (top 2 of 3 groups")
    assert spec["layer"][0]["encoding"]["y"]["title"] == "metadata"  # encoding titles are constants
    again = charts.to_spec(charts.breakdown(hostile, by="metadata", metadata_key="layer"))
    names = {r["name"] for r in next(iter(again["datasets"].values()))}
    assert names == {"0", "1", "(missing)"}
    with pytest.raises(ValueError, match="measure"):
        charts.breakdown(hostile, measure="meanCycles")
    with pytest.raises(TypeError, match="already computed"):
        charts.breakdown(result, kind="compute")


def test_phase_waterfall_accumulates_phase_cycles_in_execution_order(hostile):
    from ipu_nb import query

    spec = charts.to_spec(charts.phase_waterfall(hostile))
    rows = next(iter(spec["datasets"].values()))
    groups = query(hostile, group_by="phase", limit=0).groups.sort("first_offset")
    cycles = groups.get_column("phase_cycles").to_list()
    assert [r["phaseCycles"] for r in rows] == cycles
    assert [r["to"] for r in rows] == list(np.cumsum(cycles))
    assert [r["from"] for r in rows] == [0, *np.cumsum(cycles)[:-1]]
    assert [r["kind"] for r in rows] == ["synchronization", "compute"]  # each phase's longest sample
    same = charts.to_spec(charts.phase_waterfall(query(hostile, group_by="phase", limit=0)))
    assert [r["to"] for r in next(iter(same["datasets"].values()))] == [r["to"] for r in rows]
    with pytest.raises(ValueError, match="groups by phase"):
        charts.phase_waterfall(query(hostile, group_by="kind"))


def test_phase_waterfall_merges_runs_beyond_max_bars():
    profile = sized_profile(per_tile=60, tiles=8)
    spec = charts.to_spec(charts.phase_waterfall(profile, max_bars=7))
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) <= 7 and sum(r["phases"] for r in rows) == 30
    assert "runs of 5 phases" in spec["title"]


@pytest.mark.parametrize(
    "name", ["breakdown", "tile_heatmap", "duration_distribution", "active_tiles", "phase_waterfall", "gantt"]
)
def test_every_chart_handles_empty_profiles_and_empty_selections(name, tmp_path):
    empty = profile_from_tiles([T(0, []), T(2, [])])
    one = profile_from_tiles([T(0, [S(0, 10)])])
    for profile, flags in ((empty, {}), (one, {"kind": "idle"})):
        chart = getattr(charts, name)(profile, **flags)
        assert spec_rows(charts.to_spec(chart)) <= 2  # at most the two empty tiles of the heat-map
    svg = charts.save(chart, tmp_path / f"{name}.svg").read_text(encoding="utf-8")  # Vega renders it
    assert ET.fromstring(svg).tag.endswith("svg")


def test_a_widget_is_a_source_under_its_current_filters(hostile):
    from ipu_nb import ProfileWidget, query

    widget = ProfileWidget(hostile)
    widget.filters = {"kind": "compute"}
    heat = charts.to_spec(charts.tile_heatmap(widget, "cycles"))
    direct = charts.to_spec(charts.tile_heatmap(hostile, "cycles", kind="compute"))
    assert heat["datasets"] == direct["datasets"]
    bars = charts.to_spec(charts.breakdown(widget, by="kernel"))
    names = [r["name"] for r in next(iter(bars["datasets"].values()))]
    assert names == query(hostile, kind="compute", group_by="kernel").groups.get_column("name").to_list()
    steps = charts.to_spec(charts.phase_waterfall(widget))
    assert [r["label"] for r in next(iter(steps["datasets"].values()))] == ["phase 1/0"]


# ---------------------------------------------------------------- nasty profile strings, every chart × every format

DRAWN_RAW = RAW_CHARACTERS - set("\t\n\r")  # documents hold newlines of their own


@pytest.fixture(scope="module")
def nasty():
    return nasty_profile()


@pytest.fixture(scope="module")
def nasty_exports(tmp_path_factory):
    """Every chart of the nasty profile exported in every format, by a child process."""
    out = tmp_path_factory.mktemp("nasty-exports")
    return out, export_nasty_charts(out)


def strings_of(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in (k, *strings_of(v))]
    if isinstance(node, list):
        return [s for v in node for s in strings_of(v)]
    return []


def test_nasty_exports_finish_without_renderer_errors(nasty_exports):
    _, process = nasty_exports
    assert process.returncode == 0, process.stderr[-3000:]
    # vl-convert logs Vega's runtime errors (e.g. a group named "constructor" breaking a transform) and
    # then draws an empty chart: any such line is a failure.
    assert "ERROR" not in process.stderr, process.stderr[-3000:]
    assert len(process.stdout.splitlines()) == len(NASTY_CHARTS) * len(EXPORT_FORMATS)


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
@pytest.mark.parametrize("name", list(NASTY_CHARTS))
def test_every_chart_exports_nasty_names_in_every_format(nasty_exports, name, fmt):
    out, process = nasty_exports
    path = out / f"{name}.{fmt}"
    failed = [line for line in process.stderr.splitlines() if line.startswith(f"FAILED {name} {fmt}:")]
    assert failed == []
    assert path.exists(), f"the exporting process died before {path.name} (exit {process.returncode})"
    if fmt == "png":
        width, height = png_size(path.read_bytes())
        assert width > 100 and height > 50
    elif fmt == "pdf":
        pdf = path.read_bytes()
        assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-1024:]
    elif fmt == "svg":
        svg = path.read_text(encoding="utf-8")
        root = ET.fromstring(svg)  # well-formed XML 1.0: nothing XML cannot hold
        assert root.tag.endswith("svg")
        assert not DRAWN_RAW & set(svg)
        assert "<script" not in svg and "<img" not in svg
    elif fmt == "json":
        spec = json.loads(path.read_text(encoding="utf-8"))
        assert not RAW_CHARACTERS & set("".join(strings_of(spec)))
    else:
        document = path.read_text(encoding="utf-8")
        page = parse(document)
        # the bundle, this chart's spec and the embed call: no script opened or closed by a string
        assert [a.get("type") for a, _ in page.scripts] == [None, "application/json", None]
        assert document.lower().count("<script") == document.lower().count("</script") == 3
        ours = without_vega_bundle(document)
        assert not DRAWN_RAW & set(ours)
        spec = json.loads(page.scripts[1][1])
        assert not RAW_CHARACTERS & set("".join(strings_of(spec)))


def svg_of(out, name: str) -> tuple[list[str], list[str]]:
    """(text nodes, aria-labels) of an exported SVG."""
    root = ET.fromstring((out / f"{name}.svg").read_text(encoding="utf-8"))
    texts = [node.text for node in root.iter() if node.tag.endswith("text") and node.text]
    return texts, [aria for node in root.iter() if (aria := node.get("aria-label"))]


SHORT = [n for n in (*NASTY_NAMES, *ORDINARY_NAMES) if len(label(n)) <= 30]


def test_nasty_names_are_drawn_as_their_labels_and_stay_distinct(nasty_exports):
    out, _ = nasty_exports
    for chart in ("breakdown-kernel", "histogram-kernel", "delta_waterfall-kernel"):  # axis labels, facet headers
        texts, _ = svg_of(out, chart)
        missing = [label(n) for n in SHORT if label(n) not in texts]
        assert missing == [], chart
        assert len({label(n) for n in SHORT}) == len(set(SHORT))
    texts, _ = svg_of(out, "histogram-kernel")
    assert "(no kernel) (2)" in texts  # the empty kernel, beside a kernel really named "(no kernel)"
    for name in ORDINARY_NAMES:
        assert name in svg_of(out, "breakdown-kernel")[0]  # unchanged


def test_gantt_tooltips_carry_every_name_and_the_metadata_named_by_profile_strings(nasty_exports):
    out, _ = nasty_exports
    _, arias = svg_of(out, "gantt-kernel")
    bars = [a for a in arias if a.startswith("offset (cycles)")]
    assert len(bars) == len(NASTY_NAMES) + len(ORDINARY_NAMES) + 2
    for name in (*NASTY_NAMES, *ORDINARY_NAMES):
        shown = label(name)
        bar = next((a for a in bars if f"; kernel: {shown}; " in a), None)
        assert bar is not None, shown
        # a metadata name with dots, brackets, quotes and backslashes is a tooltip title, shown as its label
        assert f"; {label(NASTY_KEY)}: {shown}; " in bar
        assert f"; {label(NASTY_KEY_2)}: {shown}; " in bar


EXPRESSION_KEYS = {"expr", "signal", "update", "test", "calculate", "filter", "labelExpr"}


def expressions(node: object, path: str = "") -> list[tuple[str, str]]:
    """(path, code) of every expression string in a Vega spec."""
    if isinstance(node, dict):
        found = []
        for key, value in node.items():
            if key in EXPRESSION_KEYS and isinstance(value, str):
                found.append((f"{path}/{key}", value))
            else:
                found += expressions(value, f"{path}/{key}")
        return found
    if isinstance(node, list):
        return [e for i, v in enumerate(node) for e in expressions(v, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize("name", list(NASTY_CHARTS))
def test_profile_strings_never_reach_vega_expressions(nasty, name):
    """Data, not code: no group name in sort lists, filters or calculate strings of the compiled Vega."""
    import vl_convert as vlc

    vega = vlc.vegalite_to_vega(charts.to_spec(NASTY_CHARTS[name](nasty)), vl_version=charts.vegalite_version())
    names = [label(n) for n in (*NASTY_NAMES, *ORDINARY_NAMES) if len(n) > 6]
    for where, code in expressions(vega):
        if name.startswith("gantt") and where.endswith(("/tooltip/signal", "/description/signal")):
            continue  # metadata names as tooltip titles: checked as rendered, above
        leaked = [n for n in names if n in code]
        assert leaked == [], (where, code[:300])


def test_charts_embed_labels_not_raw_strings(nasty):
    spec = charts.to_spec(charts.gantt(nasty, color="operation"))
    rows = next(iter(spec["datasets"].values()))
    operations = {r["operation"] for r in rows}
    assert {label(n) for n in NASTY_NAMES} <= operations
    assert set(ORDINARY_NAMES) <= operations
    assert not RAW_CHARACTERS & set("".join(strings_of(spec)))
