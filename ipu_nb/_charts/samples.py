"""Charts of samples: the physical tile heat-map, duration distributions, active tiles over time, Gantt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import altair as alt
import polars as pl

from .._markup.sanitize import distinct_names, label, tooltip_title
from .._query.keywords import Filters
from .._query.signature import keyword_signature
from .common import KIND_COLORS, SelectionTooLargeError, as_profile, chart_data, kind_scale, samples_of
from .data import (
    ACTIVE_KINDS,
    SAMPLE_GROUPS,
    Distribution,
    active_tiles_frame,
    distribution_frame,
    gantt_frame,
    metadata_columns,
    metadata_entries,
    tile_grid_frame,
)
from .grid import grid_chart

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile

__all__ = ["active_tiles", "duration_distribution", "ecdf_chart", "gantt", "tile_heatmap"]

_HEATMAP_VALUES = ("busy_share", "share", "cycles", "busy_cycles", "samples")


@keyword_signature(Filters)
def tile_heatmap(
    source: Profile | pl.DataFrame,
    value: Literal["busy_share", "share", "cycles", "busy_cycles", "samples"] = "busy_share",
    *,
    cell: int = 11,
    **filters: Unpack[Filters],
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
    samples, tiles, _ = samples_of(source, filters)
    grid = tile_grid_frame(samples, tiles)
    share = value in ("busy_share", "share")
    title = value.replace("_", " ")
    color = alt.Color(
        f"{value}:Q",
        title=title,
        scale=alt.Scale(scheme="viridis", domain=[0, 1]) if share else alt.Scale(scheme="viridis"),
        legend=alt.Legend(format=".0%" if share else "~s"),
    )
    tooltip = [
        alt.Tooltip("tile:Q", title="physical tile"),
        alt.Tooltip("row:O"),
        alt.Tooltip("column:O"),
        alt.Tooltip("samples:Q", format=","),
        alt.Tooltip("cycles:Q", format=","),
        alt.Tooltip("busy_cycles:Q", format=","),
        alt.Tooltip("busy_share:Q", format=".1%"),
        alt.Tooltip("share:Q", format=".1%"),
    ]
    return grid_chart(grid, color, tooltip, f"{title} per tile (physical grid, {grid.height} tiles)", cell=cell)


@keyword_signature(Filters)
def duration_distribution(
    source: Profile | pl.DataFrame,
    group_by: str = "kernel",
    *,
    style: Literal["histogram", "ecdf"] = "histogram",
    top: int = 8,
    bins: int = 40,
    log: bool | None = None,
    **filters: Unpack[Filters],
) -> alt.FacetChart | alt.LayerChart:
    """Duration distribution per group (the ``top`` by work cycles), with p50 and p95 marked.

    ``style="histogram"`` draws one row of bins per group with p50/p95 rules;
    ``"ecdf"`` overlays the groups' cumulative distributions with the two
    percentiles as points. Percentiles use the query core's indices (docs/reference/query.md#percentiles), so they match
    ``profile-query``'s p50Cycles/p95Cycles. ``log`` None picks a symlog axis
    when durations span more than two decades.
    """
    if style not in ("histogram", "ecdf"):
        raise ValueError(f"style must be histogram or ecdf, got {style!r}")
    samples, _, _ = samples_of(source, filters)
    dist = distribution_frame(samples, group_by, top=top, bins=bins, log=log)
    order = [label(g) for g in dist.order]
    shown = f"top {len(order)} of {dist.group_count}" if dist.group_count > len(order) else f"{len(order)}"
    # Encoding titles are copied into expressions (see ipu_nb._markup.sanitize): only known names go there.
    by = group_by if group_by in SAMPLE_GROUPS else "group"
    # Groups are ordered by a scale domain or by rank-prefixed facet keys, never a sort list (Vega-Lite
    # compiles those to code).
    group_color = alt.Color("group:N", title=by, scale=kind_scale() if group_by == "kind" else alt.Scale(domain=order))
    x_scale = alt.Scale(type="symlog") if dist.log else alt.Scale(zero=False)
    stat_color = alt.Color(
        "stat:N", title="percentile", scale=alt.Scale(domain=["p50", "p95"], range=["#222222", "#e45756"])
    )
    title = f"duration distribution by {label(group_by)} ({shown} groups)"
    if style == "ecdf":
        return ecdf_chart(dist, group_color, x_scale, "group").properties(title=title)
    combined = pl.concat(
        [
            dist.histogram.with_columns(pl.lit("bin").alias("layer")),
            dist.markers.with_columns(pl.lit("marker").alias("layer")),
        ],
        how="diagonal",
    )
    # Facet keys start with the zero-padded rank: they sort in drawing order, and none is "__proto__",
    # which Vega 6.1's facet operator cannot hold (it keys subflows by a plain object).
    digits = len(str(max(len(order) - 1, 0)))
    keys = {group: f"{i:0{digits}d} {group}" for i, group in enumerate(order)}
    combined = chart_data(combined).with_columns(pl.col("group").replace_strict(keys).alias("facet"))
    bars = (
        alt.Chart()
        .mark_bar(color=KIND_COLORS["compute"])
        .encode(
            x=alt.X("start:Q", bin="binned", title="duration (cycles)", scale=x_scale),
            x2="end:Q",
            y=alt.Y("count:Q", title="samples", stack=None),  # see breakdown: no stack transform
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
            row=alt.Row(
                "facet:N",
                title=label(group_by),  # a facet title is drawn as text only
                header=alt.Header(labelAngle=0, labelAlign="left", labelExpr=f"slice(datum.value, {digits + 1})"),
            ),
        )
        .resolve_scale(y="independent")
        .properties(title=title)
    )


def ecdf_chart(dist: Distribution, color: alt.Color, x_scale: alt.Scale, group_title: str) -> alt.LayerChart:
    """The groups' cumulative duration distributions, with p50 and p95 as points (``group_title`` names a group)."""
    group = alt.Tooltip("group:N", title=group_title)
    curve = (
        alt.Chart(chart_data(dist.ecdf))
        .mark_line(interpolate="step-after")
        .encode(
            x=alt.X("duration:Q", title="duration (cycles)", scale=x_scale),
            y=alt.Y("fraction:Q", title="fraction of samples ≤ duration", scale=alt.Scale(domain=[0, 1])),
            color=color,
            tooltip=[group, alt.Tooltip("duration:Q", format=","), alt.Tooltip("fraction:Q", format=".1%")],
        )
    )
    marks = dist.markers.with_columns(pl.when(pl.col("stat") == "p50").then(0.5).otherwise(0.95).alias("fraction"))
    points = (
        alt.Chart(chart_data(marks))
        .mark_point(filled=True, size=60)
        .encode(
            x="cycles:Q",
            y="fraction:Q",
            color=color,
            shape=alt.Shape("stat:N", title="percentile"),
            tooltip=[
                group,
                alt.Tooltip("stat:N", title="percentile"),
                alt.Tooltip("cycles:Q", format=","),
                alt.Tooltip("samples:Q", format=","),
            ],
        )
    )
    return alt.layer(curve, points).properties(width=560, height=320)


@keyword_signature(Filters)
def active_tiles(source: Profile | pl.DataFrame, *, bins: int = 400, **filters: Unpack[Filters]) -> alt.Chart:
    """Average number of tiles in compute, exchange and synchronization over time (stacked).

    Exact per-bin means (see `ipu_nb._charts.data.active_tiles_frame`); idle
    samples and ``active=false`` compute do not count. The x axis is in
    milliseconds when the source is a Profile with a clock, else in cycles.
    """
    samples, _, clock_hz = samples_of(source, filters)
    frame = active_tiles_frame(samples, bins=bins)
    if clock_hz:
        frame = frame.with_columns((pl.col("start") * 1000.0 / clock_hz).alias("time"))
        x_title = "time (ms)"
    else:
        frame = frame.with_columns(pl.col("start").cast(pl.Float64).alias("time"))
        x_title = "offset (cycles)"
    return (
        alt.Chart(chart_data(frame))
        .mark_area(interpolate="step-after")
        .encode(
            x=alt.X("time:Q", title=x_title),
            y=alt.Y("active_tiles:Q", title="active tiles (mean per bin)", stack="zero"),
            color=alt.Color("kind:N", title="kind", scale=kind_scale(ACTIVE_KINDS)),
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


#: The Gantt tooltip's fixed rows: (field, type, title, format).
_GANTT_TOOLTIP: tuple[tuple[str, Literal["quantitative", "nominal"], str, str | None], ...] = (
    ("sample", "quantitative", "sample", None),
    ("tile", "quantitative", "tile", None),
    ("phase", "quantitative", "phase", None),
    ("epoch", "quantitative", "epoch", None),
    ("kind", "nominal", "kind", None),
    ("operation", "nominal", "operation", None),
    ("kernel", "nominal", "kernel", None),
    ("start", "quantitative", "offset", ","),
    ("duration", "quantitative", "duration", ","),
)


@keyword_signature(Filters)
def gantt(
    source: Profile | pl.DataFrame,
    *,
    color: Literal["kind", "kernel", "operation"] = "kind",
    max_samples: int = 2000,
    tooltip_metadata: int = 8,
    **filters: Unpack[Filters],
) -> alt.Chart:
    """Each selected sample as a bar on its tile's row: for small selections (a phase, a few tiles).

    The tooltip shows the sample and, for the ``tooltip_metadata`` most common metadata
    names of the selection, each sample's value (``metadata=`` is the filter, as in `query`).

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
    if tooltip_metadata < 0:
        raise ValueError(f"tooltip_metadata must be at least 0 (metadata names in the tooltip), got {tooltip_metadata}")
    samples, _, _ = samples_of(source, filters)
    if samples.height > max_samples:
        raise SelectionTooLargeError(
            f"a Gantt chart of {samples.height:,} samples would be unreadable: it draws at most {max_samples:,}; "
            "narrow the selection (tiles=, phases=, at=, kind=) or raise max_samples"
        )
    data = gantt_frame(samples)
    profile, _ = as_profile(source)
    columns, names = metadata_columns(
        metadata_entries(samples, profile.metadata if profile is not None else None), tooltip_metadata
    )
    if names:
        fields = [field for field, _ in names]
        data = data.join(columns, on="sample", how="left", maintain_order="left").with_columns(
            pl.col(fields).fill_null("(missing)")  # as the query core names a sample without the key
        )
    tiles = data.get_column("tile").unique().sort().to_list()
    encoding = (
        alt.Color("drawn_as:N", scale=kind_scale(), title="kind (as drawn)")
        if color == "kind"
        else alt.Color(f"{color}:N", title=color, legend=alt.Legend(labelLimit=240))
    )
    fixed = [row for row in _GANTT_TOOLTIP if row[0] in data.columns]
    # Metadata names become titles only, made distinct from the fixed ones (a key named "tile" too).
    titles = distinct_names([*(title for _, _, title, _ in fixed), *(name for _, name in names)])[len(fixed) :]
    tooltip = [
        alt.Tooltip(field=field, type=kind, title=title, format=fmt or alt.Undefined)
        for field, kind, title, fmt in fixed
    ] + [
        alt.Tooltip(field=field, type="nominal", title=tooltip_title(title))
        for (field, _), title in zip(names, titles, strict=True)
    ]
    return (
        alt.Chart(chart_data(data))
        .mark_bar()
        .encode(
            x=alt.X("start:Q", title="offset (cycles)", scale=alt.Scale(zero=False)),
            x2="end:Q",
            y=alt.Y("tile:O", title="physical tile", sort=tiles),
            color=encoding,
            tooltip=tooltip,
        )
        .properties(
            title=f"{data.height} samples on {len(tiles)} tiles",
            width=640,
            height=alt.Step(max(6, 16 - len(tiles) // 20)),
        )
    )
