"""Altair charts of a profile, aggregated in polars first.

Every builder reduces the samples to a frame sized by groups, tiles or bins
(see `ipu_nb._charts_data`) before Altair sees it, so a million-sample profile
never meets Altair's row limit and no chart embeds raw samples (the Gantt
chart, which draws samples, refuses large selections instead).

Sources: a `Profile` (with optional query flags such as ``kind="compute"`` or
``phases=(3,)``), a `QueryResult`, or a polars DataFrame — the samples of a
selection (``profile.filter(...)``, ``widget.filtered``) or a groups table.

Importing this module switches Altair's CDN-loading ``default`` renderer to the
offline Jupyter renderer (Vega bundled by vl-convert); `save` and
`ipu_nb.save_report` never reference a URL either.

Examples
--------
>>> from ipu_nb import charts  # doctest: +SKIP
>>> charts.breakdown(profile, by="kernel")  # doctest: +SKIP
>>> charts.tile_heatmap(profile, kind="compute")  # doctest: +SKIP
>>> charts.save(charts.active_tiles(profile), "active.png")  # doctest: +SKIP
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import altair as alt
import polars as pl

from ._charts_data import (
    ACTIVE_KINDS,
    GRID_COLUMNS,
    active_tiles_frame,
    distribution_frame,
    gantt_frame,
    tile_grid_frame,
)

if TYPE_CHECKING:
    from ._profile import Profile
    from ._query import QueryResult

__all__ = [
    "KIND_COLORS",
    "SelectionTooLargeError",
    "active_tiles",
    "breakdown",
    "duration_distribution",
    "enable_offline",
    "gantt",
    "phase_waterfall",
    "save",
    "tile_heatmap",
    "to_spec",
]

Chart = alt.TopLevelMixin

#: One colour per sample kind, shared by every chart (and close to the widget's palette).
KIND_COLORS: dict[str, str] = {
    "compute": "#4c78a8",
    "exchange": "#f58518",
    "synchronization": "#e45756",
    "idle": "#bab0ac",
}

_MEASURES = {"phaseCycles": "phaseCycles", "workCycles": "workCycles"}
_MEASURE_ALIASES = {
    "phase-cycles": "phaseCycles",
    "phase_cycles": "phaseCycles",
    "work-cycles": "workCycles",
    "work_cycles": "workCycles",
}
_SAVE_FORMATS = (".png", ".svg", ".pdf", ".html", ".json")
_HEATMAP_VALUES = ("busy_share", "share", "cycles", "busy_cycles", "samples")


class SelectionTooLargeError(ValueError):
    """A chart that draws individual samples was given more than it can show legibly."""


def enable_offline() -> None:
    """Render charts in notebooks without a CDN: Altair's Jupyter widget with vl-convert's bundled Vega."""
    alt.renderers.enable("jupyter", offline=True)


if alt.renderers.active == "default":
    enable_offline()


def _kind_scale(kinds: tuple[str, ...] = tuple(KIND_COLORS)) -> alt.Scale:
    return alt.Scale(domain=list(kinds), range=[KIND_COLORS[k] for k in kinds])


# ---------------------------------------------------------------- sources


def _is_profile(source: object) -> bool:
    from ._profile import Profile

    return isinstance(source, Profile)


def _is_query_result(source: object) -> bool:
    return type(source).__name__ == "QueryResult" and hasattr(source, "groups")


def _samples_of(source: Any, flags: dict[str, Any]) -> tuple[pl.DataFrame, pl.Series | None, int]:
    """(selected samples, all tiles to draw or None, clock Hz or 0) of a chart source."""
    if _is_profile(source):
        samples = source.filter(**flags) if flags else source.samples
        return samples, source.tiles.get_column("tile"), source.clock_hz
    if flags:
        raise TypeError(f"query flags ({', '.join(flags)}) apply to a Profile source; filter the DataFrame instead")
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        missing = [c for c in ("tile", "offset", "duration", "kind") if c not in source.columns]
        if missing:
            raise ValueError(f"samples DataFrame lacks column(s) {', '.join(missing)}: pass profile.filter(...) output")
        return source, None, 0
    if _is_query_result(source):
        raise TypeError("this chart draws samples: pass the Profile (with the same flags) instead of a QueryResult")
    raise TypeError(f"expected a Profile or a samples DataFrame, got {type(source).__name__}")


#: QueryResult.groups columns (snake_case) to the SPEC §4 JSON field names charts show.
_SPEC_NAMES = {
    "sample_count": "sampleCount",
    "tile_count": "tileCount",
    "phase_count": "phaseCount",
    "phase_cycles": "phaseCycles",
    "phase_ms": "phaseMs",
    "work_cycles": "workCycles",
    "average_active_tiles": "averageActiveTiles",
    "mean_cycles": "meanCycles",
    "p50_cycles": "p50Cycles",
    "p95_cycles": "p95Cycles",
    "maximum_cycles": "maximumCycles",
    "first_offset": "firstOffset",
    "last_offset": "lastOffset",
}


def _spec_names(groups: pl.DataFrame) -> pl.DataFrame:
    """Groups with SPEC §4 field names (``phaseCycles``…), whichever spelling they came in."""
    return groups.rename({k: v for k, v in _SPEC_NAMES.items() if k in groups.columns and v not in groups.columns})


def _groups_of(source: Any, query_flags: dict[str, Any]) -> tuple[pl.DataFrame, str, Any]:
    """(groups table, group-by label, the Query or None) of a groups-chart source."""
    if _is_query_result(source):
        if query_flags:
            raise TypeError("query flags apply to a Profile source; this QueryResult is already computed")
        q = getattr(source, "query", None)
        return _spec_names(source.groups), str(getattr(q, "group_by", "group")), q
    if _is_profile(source):
        from ._query import query

        result = query(source, **query_flags)
        return _spec_names(result.groups), result.query.group_by, result.query
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        if query_flags:
            raise TypeError("query flags apply to a Profile source, not a DataFrame")
        if "name" not in source.columns:
            raise ValueError("groups DataFrame needs a 'name' column (QueryResult.groups layout)")
        return _spec_names(source), "group", None
    raise TypeError(f"expected a Profile, QueryResult or groups DataFrame, got {type(source).__name__}")


def _plain(frame: pl.DataFrame) -> pl.DataFrame:
    """Strings for Categorical/Enum columns and no nested ones, so Altair serialises plain JSON."""
    keep = [c for c, t in frame.schema.items() if not isinstance(t, (pl.Struct, pl.List, pl.Array, pl.Object))]
    return frame.select(
        [
            pl.col(c).cast(pl.String) if isinstance(frame.schema[c], (pl.Categorical, pl.Enum)) else pl.col(c)
            for c in keep
        ]
    )


# ---------------------------------------------------------------- builders


def breakdown(
    source: Profile | QueryResult | pl.DataFrame,
    by: str = "kernel",
    measure: str = "phaseCycles",
    *,
    top: int = 20,
    metadata_key: str | None = None,
    **flags: Any,
) -> alt.LayerChart:
    """Bars of phaseCycles or workCycles per group, coloured and labelled by averageActiveTiles.

    Parameters
    ----------
    source : Profile, QueryResult or DataFrame
        A Profile is queried with ``group_by=by`` and ``flags`` (any `Query` field);
        a QueryResult or groups DataFrame is drawn as is.
    by : {"kernel", "operation", "kind", "phase", "tile", "metadata"}
        Grouping, for a Profile source (``"metadata"`` needs ``metadata_key``).
    measure : {"phaseCycles", "workCycles"}
        The bar length; groups are ordered by it.
    top : int
        At most this many bars (the largest).
    """
    measure = _MEASURE_ALIASES.get(measure, measure)
    if measure not in _MEASURES:
        raise ValueError(f"measure must be phaseCycles or workCycles, got {measure!r}")
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    if _is_profile(source):
        sort_by = "phase-cycles" if measure == "phaseCycles" else "work-cycles"
        flags = {"group_by": by, "sort_by": sort_by, "limit": top, "metadata_key": metadata_key, **flags}
    groups, label, _ = _groups_of(source, flags)
    total = groups.height
    data = _plain(groups).sort([measure, "name"], descending=[True, False]).head(top)
    data = data.with_columns(
        pl.when(pl.col("name") == "").then(pl.lit("(empty)")).otherwise(pl.col("name")).alias("label")
    )
    order = data.get_column("label").to_list()
    shown = f"top {len(order)} of {total}" if total > len(order) else f"{len(order)}"
    tooltip = [
        alt.Tooltip(c, title=c)
        for c in (
            "name",
            "phaseCycles",
            "phaseMs",
            "workCycles",
            "averageActiveTiles",
            "sampleCount",
            "tileCount",
            "phaseCount",
        )
        if c in data.columns
    ]
    base = alt.Chart(data).encode(
        y=alt.Y("label:N", sort=order, title=label, axis=alt.Axis(labelLimit=320)),
        x=alt.X(f"{measure}:Q", title=measure),
        tooltip=tooltip,
    )
    color = (
        alt.Color("averageActiveTiles:Q", title="avg active tiles", scale=alt.Scale(scheme="viridis"))
        if "averageActiveTiles" in data.columns
        else alt.value(KIND_COLORS["compute"])
    )
    bars = base.mark_bar().encode(color=color)
    layers: list[alt.Chart] = [bars]
    if "averageActiveTiles" in data.columns:
        layers.append(
            base.mark_text(align="left", dx=3, fontSize=10).encode(text=alt.Text("averageActiveTiles:Q", format=".1f"))
        )
    return alt.layer(*layers).properties(
        title=f"{measure} by {label} ({shown} groups; label = average active tiles)",
        width=520,
        height=alt.Step(18),
    )


def tile_heatmap(
    source: Profile | pl.DataFrame,
    value: Literal["busy_share", "share", "cycles", "busy_cycles", "samples"] = "busy_share",
    *,
    cell: int = 11,
    **flags: Any,
) -> alt.Chart:
    """The selection per tile, laid out as the physical tile grid (row = id div 64, column = id mod 64).

    ``busy_share`` is the share of the selection's time window a tile spends
    working (compute not flagged ``active=false``, and exchange; synchronization
    and idle are waiting); ``share`` counts every selected sample, so
    ``kind="synchronization"`` shows where tiles wait; ``cycles`` sums the
    selected durations. With a Profile source every profiled tile is drawn
    (zero when unselected).
    """
    if value not in _HEATMAP_VALUES:
        raise ValueError(f"value must be one of {', '.join(_HEATMAP_VALUES)}, got {value!r}")
    samples, tiles, _ = _samples_of(source, flags)
    grid = tile_grid_frame(samples, tiles)
    rows = max(23, int(grid.get_column("row").max() or 0) + 1) if grid.height else 23
    share = value in ("busy_share", "share")
    title = value.replace("_", " ")
    return (
        alt.Chart(grid)
        .mark_rect(stroke="white", strokeWidth=0.5)
        .encode(
            x=alt.X(
                "column:O",
                title="column",
                scale=alt.Scale(domain=list(range(GRID_COLUMNS))),
                axis=alt.Axis(values=list(range(0, GRID_COLUMNS, 8)), labelAngle=0),
            ),
            y=alt.Y(
                "row:O",
                title="row",
                scale=alt.Scale(domain=list(range(rows))),
                axis=alt.Axis(values=list(range(0, rows, 2))),
            ),
            color=alt.Color(
                f"{value}:Q",
                title=title,
                scale=alt.Scale(scheme="viridis", domain=[0, 1]) if share else alt.Scale(scheme="viridis"),
                legend=alt.Legend(format=".0%" if share else "~s"),
            ),
            tooltip=[
                alt.Tooltip("tile:Q", title="physical tile"),
                alt.Tooltip("row:O"),
                alt.Tooltip("column:O"),
                alt.Tooltip("samples:Q", format=","),
                alt.Tooltip("cycles:Q", format=","),
                alt.Tooltip("busy_cycles:Q", format=","),
                alt.Tooltip("busy_share:Q", format=".1%"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        .properties(
            title=f"{title} per tile (physical grid, {grid.height} tiles)",
            width=GRID_COLUMNS * cell,
            height=rows * cell,
        )
    )


def duration_distribution(
    source: Profile | pl.DataFrame,
    group_by: str = "kernel",
    *,
    style: Literal["histogram", "ecdf"] = "histogram",
    top: int = 8,
    bins: int = 40,
    log: bool | None = None,
    **flags: Any,
) -> alt.FacetChart | alt.LayerChart:
    """Duration distribution per group (the ``top`` by work cycles), with p50 and p95 marked.

    ``style="histogram"`` draws one row of bins per group with p50/p95 rules;
    ``"ecdf"`` overlays the groups' cumulative distributions with the two
    percentiles as points. Percentiles use SPEC §3's indices, so they match
    ``profile-query``'s p50Cycles/p95Cycles. ``log`` None picks a symlog axis
    when durations span more than two decades.
    """
    if style not in ("histogram", "ecdf"):
        raise ValueError(f"style must be histogram or ecdf, got {style!r}")
    samples, _, _ = _samples_of(source, flags)
    dist = distribution_frame(samples, group_by, top=top, bins=bins, log=log)
    order = dist.markers.unique("group", maintain_order=True).get_column("group").to_list()
    shown = f"top {len(order)} of {dist.group_count}" if dist.group_count > len(order) else f"{len(order)}"
    group_color = alt.Color(
        "group:N", sort=order, title=group_by, scale=_kind_scale() if group_by == "kind" else alt.Undefined
    )
    x_scale = alt.Scale(type="symlog") if dist.log else alt.Scale(zero=False)
    stat_color = alt.Color(
        "stat:N", title="percentile", scale=alt.Scale(domain=["p50", "p95"], range=["#222222", "#e45756"])
    )
    title = f"duration distribution by {group_by} ({shown} groups)"
    if style == "ecdf":
        curve = (
            alt.Chart(dist.ecdf)
            .mark_line(interpolate="step-after")
            .encode(
                x=alt.X("duration:Q", title="duration (cycles)", scale=x_scale),
                y=alt.Y("fraction:Q", title="fraction of samples ≤ duration", scale=alt.Scale(domain=[0, 1])),
                color=group_color,
                tooltip=["group:N", alt.Tooltip("duration:Q", format=","), alt.Tooltip("fraction:Q", format=".1%")],
            )
        )
        marks = dist.markers.with_columns(pl.when(pl.col("stat") == "p50").then(0.5).otherwise(0.95).alias("fraction"))
        points = (
            alt.Chart(marks)
            .mark_point(filled=True, size=60)
            .encode(
                x="cycles:Q",
                y="fraction:Q",
                color=group_color,
                shape=alt.Shape("stat:N", title="percentile"),
                tooltip=["group:N", "stat:N", alt.Tooltip("cycles:Q", format=","), "samples:Q"],
            )
        )
        return alt.layer(curve, points).properties(title=title, width=560, height=320)
    combined = pl.concat(
        [
            dist.histogram.with_columns(pl.lit("bin").alias("layer")),
            dist.markers.with_columns(pl.lit("marker").alias("layer")),
        ],
        how="diagonal",
    )
    bars = (
        alt.Chart()
        .mark_bar(color=KIND_COLORS["compute"])
        .encode(
            x=alt.X("start:Q", bin="binned", title="duration (cycles)", scale=x_scale),
            x2="end:Q",
            y=alt.Y("count:Q", title="samples"),
            tooltip=[
                alt.Tooltip("start:Q", format=",.0f", title="from"),
                alt.Tooltip("end:Q", format=",.0f", title="to (excl.)"),
                alt.Tooltip("count:Q", format=","),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        .transform_filter(alt.datum.layer == "bin")
    )
    rules = (
        alt.Chart()
        .mark_rule(strokeWidth=2)
        .encode(
            x="cycles:Q",
            color=stat_color,
            tooltip=["stat:N", alt.Tooltip("cycles:Q", format=","), alt.Tooltip("samples:Q", format=",")],
        )
        .transform_filter(alt.datum.layer == "marker")
    )
    return (
        alt.layer(bars, rules, data=combined)
        .properties(width=560, height=70)
        .facet(
            row=alt.Row("group:N", sort=order, title=group_by, header=alt.Header(labelAngle=0, labelAlign="left")),
        )
        .resolve_scale(y="independent")
        .properties(title=title)
    )


def active_tiles(source: Profile | pl.DataFrame, *, bins: int = 400, **flags: Any) -> alt.Chart:
    """Average number of tiles in compute, exchange and synchronization over time (stacked).

    Exact per-bin means (see `ipu_nb._charts_data.active_tiles_frame`); idle
    samples and ``active=false`` compute do not count. The x axis is in
    milliseconds when the source is a Profile with a clock, else in cycles.
    """
    samples, _, clock_hz = _samples_of(source, flags)
    frame = active_tiles_frame(samples, bins=bins)
    if clock_hz:
        frame = frame.with_columns((pl.col("start") * 1000.0 / clock_hz).alias("time"))
        x_title = "time (ms)"
    else:
        frame = frame.with_columns(pl.col("start").cast(pl.Float64).alias("time"))
        x_title = "offset (cycles)"
    return (
        alt.Chart(frame)
        .mark_area(interpolate="step-after")
        .encode(
            x=alt.X("time:Q", title=x_title),
            y=alt.Y("active_tiles:Q", title="active tiles (mean per bin)", stack="zero"),
            color=alt.Color("kind:N", title="kind", scale=_kind_scale(ACTIVE_KINDS)),
            order=alt.Order("kind:N"),
            tooltip=[
                "kind:N",
                alt.Tooltip("start:Q", format=",", title="from cycle"),
                alt.Tooltip("end:Q", format=",", title="to cycle"),
                alt.Tooltip("active_tiles:Q", format=".1f"),
            ],
        )
        .properties(title="active tiles over time", width=640, height=220)
    )


_PHASE_NAME = re.compile(r"^phase (\d+)/(\d+)$")


def _phase_table(source: Any, flags: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame | None, int]:
    """Per-phase groups (phase, epoch, phaseCycles, firstOffset…), the samples used and the clock."""
    if _is_profile(source):
        from ._query import query

        result = query(source, **{**flags, "group_by": "phase", "limit": 0, "samples": 0})
        filters = {k: v for k, v in flags.items() if k not in ("sort_by", "samples", "limit", "metadata_key")}
        samples = source.filter(**filters) if filters else source.samples
        groups, clock_hz = _spec_names(result.groups), source.clock_hz
    else:
        groups, label, _ = _groups_of(source, flags)
        if label not in ("phase", "group"):
            raise ValueError(f"a phase waterfall needs groups by phase, got groups by {label}")
        samples, clock_hz = None, int(getattr(source, "clock_hz", 0) or 0)
    parsed = groups.get_column("name").str.extract_groups(_PHASE_NAME.pattern)
    if parsed.struct.field("1").null_count():
        raise ValueError("a phase waterfall needs groups named 'phase P/E' (query with group_by='phase')")
    table = _plain(groups).with_columns(
        parsed.struct.field("1").cast(pl.Int64).alias("phase"),
        parsed.struct.field("2").cast(pl.Int64).alias("epoch"),
    )
    return table, samples, clock_hz


def phase_waterfall(
    source: Profile | QueryResult | pl.DataFrame, *, max_bars: int = 400, **flags: Any
) -> alt.LayerChart | alt.Chart:
    """Each phase's phaseCycles stacked in execution order: where the serialized graph time goes.

    Bars rise from the cumulative phaseCycles of the earlier phases (ordered by
    first offset); coloured by the kind of the phase's longest sample when the
    source is a Profile. More than ``max_bars`` phases are merged into runs of
    consecutive phases so the chart stays readable and its data bounded.
    """
    if max_bars < 1:
        raise ValueError(f"max_bars must be at least 1, got {max_bars}")
    table, samples, clock_hz = _phase_table(source, flags)
    table = table.sort(["firstOffset", "phase", "epoch"])
    if samples is not None and samples.height:
        dominant = samples.group_by(["phase", "epoch"]).agg(
            pl.col("kind").cast(pl.String).sort_by("duration").last().alias("kind"),
            pl.col("operation").cast(pl.String).sort_by("duration").last().alias("operation"),
        )
        table = table.join(
            dominant.with_columns(pl.col("phase", "epoch").cast(pl.Int64)), on=["phase", "epoch"], how="left"
        )
    else:
        table = table.with_columns(
            pl.lit(None, dtype=pl.String).alias("kind"), pl.lit(None, pl.String).alias("operation")
        )
    n = table.height
    run = max(1, -(-n // max_bars))
    table = table.with_row_index("order").with_columns((pl.col("order") // run).alias("bar"))
    bars = (
        table.group_by("bar", maintain_order=True)
        .agg(
            pl.col("name").first().alias("first"),
            pl.col("name").last().alias("last"),
            pl.len().alias("phases"),
            pl.col("phaseCycles").sum(),
            pl.col("kind").sort_by("phaseCycles").last(),
            pl.col("operation").sort_by("phaseCycles").last(),
        )
        .with_columns(
            pl.when(pl.col("phases") == 1)
            .then(pl.col("first"))
            .otherwise(pl.format("{} … {}", pl.col("first"), pl.col("last")))
            .alias("label"),
            (pl.col("phaseCycles").cum_sum() - pl.col("phaseCycles")).alias("from"),
            pl.col("phaseCycles").cum_sum().alias("to"),
            pl.col("kind").fill_null("compute"),
        )
        .drop("first", "last")
    )
    if clock_hz:
        bars = bars.with_columns((pl.col("phaseCycles") * 1000.0 / clock_hz).alias("phaseMs"))
    tooltip = [
        alt.Tooltip("label:N", title="phase"),
        alt.Tooltip("phases:Q"),
        alt.Tooltip("operation:N", title="longest sample's operation"),
        alt.Tooltip("kind:N"),
        alt.Tooltip("phaseCycles:Q", format=","),
        alt.Tooltip("to:Q", format=",", title="cumulative cycles"),
    ] + ([alt.Tooltip("phaseMs:Q", format=".4f")] if clock_hz else [])
    merged = f", runs of {run} phases" if run > 1 else ""
    return (
        alt.Chart(bars)
        .mark_bar()
        .encode(
            x=alt.X("bar:Q", title="phase, in execution order", axis=alt.Axis(labels=False, ticks=False)),
            x2=alt.X2("bar_end:Q"),
            y=alt.Y("from:Q", title="cumulative phaseCycles"),
            y2="to:Q",
            color=alt.Color("kind:N", title="longest sample", scale=_kind_scale()),
            tooltip=tooltip,
        )
        .transform_calculate(bar_end="datum.bar + 0.9")
        .properties(
            title=f"phase waterfall ({n} phases{merged})", width=min(1200, max(480, 3 * bars.height)), height=300
        )
    )


def gantt(
    source: Profile | pl.DataFrame,
    *,
    color: Literal["kind", "kernel", "operation"] = "kind",
    max_samples: int = 2000,
    **flags: Any,
) -> alt.Chart:
    """Each selected sample as a bar on its tile's row: for small selections (a phase, a few tiles).

    Raises
    ------
    SelectionTooLargeError
        The selection has more than ``max_samples`` samples; narrow it with
        ``tiles=``, ``phases=``, ``at=`` or pass a larger ``max_samples`` (≤ 5000).
    """
    if color not in ("kind", "kernel", "operation"):
        raise ValueError(f"color must be kind, kernel or operation, got {color!r}")
    if not 1 <= max_samples <= 5000:
        raise ValueError(f"max_samples must be between 1 and 5000 (Altair's row limit), got {max_samples}")
    samples, _, _ = _samples_of(source, flags)
    if samples.height > max_samples:
        raise SelectionTooLargeError(
            f"a Gantt chart of {samples.height:,} samples would be unreadable: it draws at most {max_samples:,}; "
            "narrow the selection (tiles=, phases=, at=, kind=) or raise max_samples"
        )
    data = gantt_frame(samples)
    tiles = data.get_column("tile").unique().sort().to_list()
    encoding = (
        alt.Color("drawn_as:N", scale=_kind_scale(), title="kind (as drawn)")
        if color == "kind"
        else alt.Color(f"{color}:N", title=color, legend=alt.Legend(labelLimit=240))
    )
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("start:Q", title="offset (cycles)", scale=alt.Scale(zero=False)),
            x2="end:Q",
            y=alt.Y("tile:O", title="physical tile", sort=tiles),
            color=encoding,
            tooltip=[
                alt.Tooltip("tile:Q"),
                alt.Tooltip("phase:Q"),
                alt.Tooltip("epoch:Q"),
                alt.Tooltip("kind:N"),
                alt.Tooltip("operation:N"),
                alt.Tooltip("kernel:N"),
                alt.Tooltip("start:Q", format=",", title="offset"),
                alt.Tooltip("duration:Q", format=","),
            ],
        )
        .properties(
            title=f"{data.height} samples on {len(tiles)} tiles",
            width=640,
            height=alt.Step(max(6, 16 - len(tiles) // 20)),
        )
    )


# ---------------------------------------------------------------- export


def to_spec(chart: Chart) -> dict[str, Any]:
    """The chart's Vega-Lite spec as a dict, without the ``$schema`` URL (nothing to fetch)."""
    spec = chart.to_dict()
    spec.pop("$schema", None)
    return spec


def vegalite_version() -> str | None:
    """The Vega-Lite version Altair writes, as vl-convert spells it (``"v6.4"``), if vl-convert has it."""
    import vl_convert as vlc

    major_minor = "v" + ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known = {f"v{v}" for v in vlc.get_vegalite_versions()}
    return major_minor if major_minor in known else None


def save(chart: Chart, path: str | Path, *, scale: float = 2.0, title: str | None = None) -> Path:
    """Write one chart to PNG, SVG or PDF (rendered offline by vl-convert), HTML or JSON.

    ``.html`` is a self-contained `ipu_nb.save_report` with this one chart;
    ``.json`` is the Vega-Lite spec. ``scale`` multiplies PNG pixel size.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _SAVE_FORMATS:
        raise ValueError(
            f"cannot save a chart as {suffix or 'a file without extension'}: use {', '.join(_SAVE_FORMATS)}"
        )
    if suffix == ".html":
        from ._report import save_report

        return save_report(path, chart, title=title or "ipu-nb chart")
    spec = to_spec(chart)
    if suffix == ".json":
        import json

        path.write_text(json.dumps(spec, indent=2), encoding="utf-8")
        return path
    import vl_convert as vlc

    version = vegalite_version()
    if suffix == ".png":
        path.write_bytes(vlc.vegalite_to_png(spec, vl_version=version, scale=scale))
    elif suffix == ".svg":
        path.write_text(vlc.vegalite_to_svg(spec, vl_version=version), encoding="utf-8")
    else:
        path.write_bytes(vlc.vegalite_to_pdf(spec, vl_version=version))
    return path
