"""Charts of two profiles compared: the delta's attribution, the delta per physical tile, both distributions.

They draw what `ipu_nb.compare` computed (a `Comparison`) or, for the distributions, the
two profiles' samples under the same filters; every frame is bounded by the groups,
tiles or bins shown, never by the sample count.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

import altair as alt
import polars as pl

from .._markup.sanitize import distinct_names, label
from .._model.index import int_extreme
from .._query.keywords import Filters
from .._query.signature import keyword_signature
from .common import chart_data, samples_of
from .data import distribution_frame, grid_position
from .grid import grid_chart
from .samples import ecdf_chart

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._compare import Comparison

__all__ = ["DELTA_COLORS", "SIDE_COLORS", "delta_distribution", "delta_heatmap", "delta_waterfall", "waterfall_frame"]

#: What a delta bar means, and its colour: slower is red, faster green (the widget's Δ colours too).
DELTA_COLORS: dict[str, str] = {
    "slower": "#d6604d",
    "faster": "#4d9221",
    "no change": "#bababa",
    "overlap": "#8073ac",
    "total": "#333333",
}
#: The two sides of a comparison.
SIDE_COLORS: dict[str, str] = {"before": "#8c8c8c", "after": "#4c78a8"}

_TILE_NAME = re.compile(r"^tile (\d+)$")
_HEATMAP_VALUES = ("phase_cycles_delta", "work_cycles_delta")


def _comparison(value: object) -> Comparison:
    from .._compare import Comparison

    if not isinstance(value, Comparison):
        raise TypeError(f"expected a Comparison (ipu_nb.compare(before, after, ...)), got {type(value).__name__}")
    return value


def _by_title(c: Comparison) -> str:
    return label(f"metadata {c.query.metadata_key}" if c.by == "metadata" else c.by)


def waterfall_frame(c: Comparison, limit: int = 20) -> pl.DataFrame:
    """The attribution in waterfall order with a closing ``total`` bar: one row per bar.

    Columns: ``label`` (distinct text: the overlap, "other" and total rows keep theirs, a
    group named like one of them gets a suffix), ``term`` (group, other, overlap, total),
    ``status``, ``effect`` (a `DELTA_COLORS` key), ``cycles``, ``start``, ``end``,
    ``delta`` (``+1,234``) and ``rank`` (drawing order).
    """
    terms = c.attribution(limit).with_columns(pl.col("term").cast(pl.String))
    total = int(c.summary.phase_cycles_delta)
    rows = pl.concat(
        [
            terms,
            pl.DataFrame(
                {
                    "name": ["total"],
                    "term": ["total"],
                    "status": [None],
                    "cycles": [total],
                    "start": [0],
                    "end": [total],
                },
                schema=terms.schema,
            ),
        ]
    )
    names = rows.get_column("name").to_list()
    fixed = [i for i, t in enumerate(rows.get_column("term").to_list()) if t != "group"]
    # Synthetic rows first, so they keep their names and a group spelled like one of them is renamed.
    order = fixed + [i for i in range(len(names)) if i not in fixed]
    distinct = distinct_names([names[i] for i in order])
    labels = [""] * len(names)
    for position, i in enumerate(order):
        labels[i] = distinct[position]
    effect = (
        pl.when(pl.col("term").is_in(["overlap", "total"]))
        .then(pl.col("term"))
        .when(pl.col("cycles") > 0)
        .then(pl.lit("slower"))
        .when(pl.col("cycles") < 0)
        .then(pl.lit("faster"))
        .otherwise(pl.lit("no change"))
    )
    return rows.with_columns(
        label=pl.Series(labels, dtype=pl.String),
        effect=effect,
        delta=pl.Series([f"{v:+,}" for v in rows.get_column("cycles").to_list()], dtype=pl.String),
        rank=pl.int_range(pl.len(), dtype=pl.Int64),
    )


def delta_waterfall(comparison: Comparison, *, limit: int = 20) -> alt.LayerChart:
    """The total phase-cycle delta as a waterfall of its attribution: one bar per group, then the rest.

    Bars run from the running total before a term to the one after it (`Comparison.attribution`):
    the ``limit`` largest groups (by absolute delta), the other groups folded into one bar,
    the overlap term (overlap before − overlap after) and a closing bar from 0 to the total
    delta, so the bars add up to the total exactly. Red is slower, green faster.
    """
    c = _comparison(comparison)
    data = chart_data(waterfall_frame(c, limit))
    s = c.summary
    effects = list(DELTA_COLORS)
    base = alt.Chart(data).encode(
        y=alt.Y(
            "label:N",
            sort=alt.EncodingSortField("rank", op="min"),
            title=c.by if c.by != "metadata" else "group",
            axis=alt.Axis(labelLimit=320),
        ),
        tooltip=[
            alt.Tooltip("label:N", title="term"),
            alt.Tooltip("term:N", title="kind"),
            alt.Tooltip("status:N"),
            alt.Tooltip("cycles:Q", format="+,", title="Δ phaseCycles"),
            alt.Tooltip("start:Q", format=",", title="running total before"),
            alt.Tooltip("end:Q", format=",", title="running total after"),
        ],
    )
    ends = [0, *data.get_column("start").to_list(), *data.get_column("end").to_list()]
    pad = max((max(ends) - min(ends)) * 0.15, 1)  # room for the labels beside the bars
    x_scale = alt.Scale(domain=[min(ends) - pad * (min(ends) < 0), max(ends) + pad], nice=False)
    bars = base.mark_bar().encode(
        x=alt.X("start:Q", title="phase-cycle delta (running total, cycles)", scale=x_scale),
        x2="end:Q",
        color=alt.Color(
            "effect:N", title="effect", scale=alt.Scale(domain=effects, range=[DELTA_COLORS[e] for e in effects])
        ),
    )
    text = (
        base.mark_text(align="left", dx=4, fontSize=10)
        .encode(x=alt.X("right:Q"), text=alt.Text("delta:N"))
        .transform_calculate(right="max(datum.start, datum.end)")
    )
    zero = alt.Chart(pl.DataFrame({"x": [0]})).mark_rule(color="#555555").encode(x="x:Q")
    title = (
        f"phase-cycle delta by {_by_title(c)}: {s.phase_cycles_before:,} → {s.phase_cycles_after:,} cycles "
        f"({s.phase_cycles_delta:+,}; groups {s.group_phase_cycles_delta:+,}, overlap {s.overlap_term:+,})"
    )
    return alt.layer(bars, text, zero).properties(title=title, width=560, height=alt.Step(18))


def delta_heatmap(
    comparison_by_tile: Comparison,
    value: Literal["phase_cycles_delta", "work_cycles_delta"] = "phase_cycles_delta",
    *,
    cell: int = 11,
) -> alt.Chart:
    """The per-tile delta of a comparison by tile, on the physical C600 grid, diverging around 0.

    Red tiles got slower, blue ones faster, white ones did not change; the scale is symmetric
    (−m to +m, m the largest absolute delta). Every tile of either profile is drawn (a tile
    with no matching sample on either side counts 0).

    Raises
    ------
    ValueError
        The comparison is not by tile (``compare(before, after, by="tile")``), or a bad ``value``.
    """
    c = _comparison(comparison_by_tile)
    if c.by != "tile":
        raise ValueError(
            f"delta_heatmap draws a comparison by tile: compare(before, after, by='tile'); this one is by {c.by!r}"
        )
    if value not in _HEATMAP_VALUES:
        raise ValueError(f"value must be one of {', '.join(_HEATMAP_VALUES)}, got {value!r}")
    field = value.removesuffix("_delta")
    groups = c.groups.select(
        tile=pl.col("name").str.extract(_TILE_NAME.pattern, 1).cast(pl.Int64),
        status=pl.col("status").cast(pl.String),
        before=pl.col(f"{field}_before"),
        after=pl.col(f"{field}_after"),
        delta=pl.col(value),
        ratio=pl.col("phase_cycles_ratio"),
    )
    tiles = pl.concat([p.tiles.select(pl.col("tile").cast(pl.Int64)) for p in (c.before, c.after)]).unique()
    grid = (
        tiles.join(groups, on="tile", how="full", coalesce=True)
        .with_columns(pl.col("delta").fill_null(0), pl.col("status").fill_null("no samples"))
        .with_columns(*grid_position(pl.col("tile")))
        .sort("tile")
    )
    reach = max(int_extreme(grid.get_column("delta").abs()), 1)
    what = "phaseCycles" if field == "phase_cycles" else "workCycles"
    color = alt.Color(
        "delta:Q",
        title=f"Δ {what}",
        scale=alt.Scale(scheme="redblue", reverse=True, domain=[-reach, reach], domainMid=0),
        legend=alt.Legend(format="~s"),
    )
    tooltip = [
        alt.Tooltip("tile:Q", title="physical tile"),
        alt.Tooltip("row:O"),
        alt.Tooltip("column:O"),
        alt.Tooltip("status:N"),
        alt.Tooltip("before:Q", format=",", title=f"{what} before"),
        alt.Tooltip("after:Q", format=",", title=f"{what} after"),
        alt.Tooltip("delta:Q", format="+,", title=f"Δ {what}"),
        alt.Tooltip("ratio:Q", format=".3f", title="phaseCycles ratio"),
    ]
    changed = int((grid.get_column("delta") != 0).sum())
    title = f"Δ {what} per tile (physical grid; {changed:,} of {grid.height:,} tiles changed)"
    return grid_chart(grid, color, tooltip, title, cell=cell)


@keyword_signature(Filters)
def delta_distribution(
    before: Any,
    after: Any,
    *,
    style: Literal["histogram", "ecdf"] = "histogram",
    bins: int = 40,
    log: bool | None = None,
    **filters: Unpack[Filters],
) -> alt.LayerChart:
    """The duration distributions of the two profiles' matching samples, overlaid on shared bins.

    ``filters`` are `query`'s filters (``kernel=``, ``kind=``, ``phases=``…), applied to both
    sides. The histogram's height is each side's share of its own samples, so sides of
    different sizes compare; p50 and p95 (docs/reference/query.md#percentiles, as ``profile-query`` reports them)
    are marked per side. ``style="ecdf"`` overlays the cumulative distributions instead.
    """
    if style not in ("histogram", "ecdf"):
        raise ValueError(f"style must be histogram or ecdf, got {style!r}")
    sides = []
    for name, source in (("before", before), ("after", after)):
        samples, _, _ = samples_of(source, filters)
        sides.append(samples.select(pl.col("duration"), side=pl.lit(name)))
    dist = distribution_frame(pl.concat(sides), "side", top=2, bins=bins, log=log)
    x_scale = alt.Scale(type="symlog") if dist.log else alt.Scale(zero=False)
    sides_order = list(SIDE_COLORS)
    side = alt.Color(
        "group:N", title="profile", scale=alt.Scale(domain=sides_order, range=[SIDE_COLORS[s] for s in sides_order])
    )
    what = ", ".join(f"{key}={value!r}" for key, value in filters.items()) or "all samples"
    counts = {r["group"]: r["samples"] for r in dist.markers.filter(pl.col("stat") == "p50").iter_rows(named=True)}
    title = label(
        f"duration distribution before ({counts.get('before', 0):,} samples) and after "
        f"({counts.get('after', 0):,}): {what}"
    )
    if style == "ecdf":
        return ecdf_chart(dist, side, x_scale, "profile").properties(title=title)
    marker_tooltip = [
        alt.Tooltip("group:N", title="profile"),
        alt.Tooltip("stat:N", title="percentile"),
        alt.Tooltip("cycles:Q", format=","),
        alt.Tooltip("samples:Q", format=","),
    ]
    bars = (
        alt.Chart(chart_data(dist.histogram))
        .mark_bar(opacity=0.55)
        .encode(
            x=alt.X("start:Q", bin="binned", title="duration (cycles)", scale=x_scale),
            x2="end:Q",
            y=alt.Y("share:Q", title="share of the profile's samples", stack=None, axis=alt.Axis(format="%")),
            color=side,
            tooltip=[
                alt.Tooltip("group:N", title="profile"),
                alt.Tooltip("start:Q", format=",.0f", title="from"),
                alt.Tooltip("end:Q", format=",.0f", title="to (excl.)"),
                alt.Tooltip("count:Q", format=","),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
    )
    rules = (
        alt.Chart(chart_data(dist.markers))
        .mark_rule(strokeWidth=2)
        .encode(
            x="cycles:Q",
            color=side,
            strokeDash=alt.StrokeDash(
                "stat:N", title="percentile", scale=alt.Scale(domain=["p50", "p95"], range=[[1, 0], [4, 3]])
            ),
            tooltip=marker_tooltip,
        )
    )
    return alt.layer(bars, rules).properties(title=title, width=560, height=260)
