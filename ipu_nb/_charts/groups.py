"""Charts of groups (`QueryResult.groups`): breakdown bars and the phase waterfall."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import altair as alt
import polars as pl

from .._markup.sanitize import distinct_names
from .._query.flags import FILTER_FLAGS, check_keywords
from .._query.keywords import FilterFlags
from .._query.signature import keyword_signature
from .common import KIND_COLORS, as_profile, chart_data, group_title, groups_of, kind_scale, spec_names

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile
    from .._query import QueryResult

__all__ = ["breakdown", "phase_waterfall"]

_MEASURES = {"phaseCycles": "phaseCycles", "workCycles": "workCycles"}
_MEASURE_ALIASES = {
    "phase-cycles": "phaseCycles",
    "phase_cycles": "phaseCycles",
    "work-cycles": "workCycles",
    "work_cycles": "workCycles",
}


@keyword_signature(FilterFlags)
def breakdown(
    source: Profile | QueryResult | pl.DataFrame,
    by: str = "kernel",
    measure: str = "phaseCycles",
    *,
    top: int = 20,
    metadata_key: str | None = None,
    **filters: Unpack[FilterFlags],
) -> alt.LayerChart:
    """Bars of phaseCycles or workCycles per group, coloured and labelled by averageActiveTiles.

    Parameters
    ----------
    source : Profile, QueryResult or DataFrame
        A Profile is queried with ``group_by=by`` and ``filters`` (`query`'s filters, and
        ``clip`` with a ``window``); a QueryResult or groups DataFrame is drawn as is.
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
    check_keywords(filters, FILTER_FLAGS, "filter")
    flags: dict[str, Any] = dict(filters)
    if as_profile(source)[0] is not None:
        sort_by = "phase-cycles" if measure == "phaseCycles" else "work-cycles"
        flags |= {"group_by": by, "sort_by": sort_by, "limit": top, "metadata_key": metadata_key}
    groups, group_by, q = groups_of(source, flags)
    total = groups.height
    data = groups.sort([measure, "name"], descending=[True, False]).head(top)
    # Bars are ordered by a rank column, not a sort list: Vega-Lite compiles a list into an expression.
    data = chart_data(
        data.with_columns(
            pl.Series("label", distinct_names(data.get_column("name").to_list()), dtype=pl.String),
            pl.int_range(pl.len(), dtype=pl.Int64).alias("rank"),
        )
    )
    shown = f"top {data.height} of {total}" if total > data.height else f"{data.height}"
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
        y=alt.Y("label:N", sort=alt.EncodingSortField("rank", op="min"), title=group_by, axis=alt.Axis(labelLimit=320)),
        # No stack: Vega 6.1's stack transform keys groups by a plain object, so a group named
        # "constructor" or "toString" would break the chart (one bar per group needs no stacking).
        x=alt.X(f"{measure}:Q", title=measure, stack=None),
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
        title=f"{measure} by {group_title(group_by, q)} ({shown} groups; label = average active tiles)",
        width=520,
        height=alt.Step(18),
    )


_PHASE_NAME = re.compile(r"^phase (\d+)/(\d+)$")


def _phase_table(source: Any, filters: FilterFlags) -> tuple[pl.DataFrame, pl.DataFrame | None, int]:
    """Per-phase groups (phase, epoch, phaseCycles, firstOffset…), the samples used and the clock."""
    profile, base = as_profile(source)
    if profile is not None:
        from .._query import query

        result = query(profile, base, **filters, group_by="phase", metadata_key=None, limit=0, samples=0)
        samples = profile.filter(base, **filters) if filters or base is not None else profile.samples
        groups, clock_hz = spec_names(result.groups), profile.clock_hz
    else:
        groups, label, _ = groups_of(source, filters)
        if label not in ("phase", "group"):
            raise ValueError(f"a phase waterfall needs groups by phase, got groups by {label}")
        samples, clock_hz = None, int(getattr(source, "clock_hz", 0) or 0)
    parsed = groups.get_column("name").str.extract_groups(_PHASE_NAME.pattern)
    if parsed.struct.field("1").null_count():
        raise ValueError("a phase waterfall needs groups named 'phase P/E' (query with group_by='phase')")
    table = groups.with_columns(
        parsed.struct.field("1").cast(pl.Int64).alias("phase"),
        parsed.struct.field("2").cast(pl.Int64).alias("epoch"),
    )
    return table, samples, clock_hz


@keyword_signature(FilterFlags)
def phase_waterfall(
    source: Profile | QueryResult | pl.DataFrame, *, max_bars: int = 400, **filters: Unpack[FilterFlags]
) -> alt.LayerChart | alt.Chart:
    """Each phase's phaseCycles stacked in execution order: where the serialized graph time goes.

    Bars rise from the cumulative phaseCycles of the earlier phases (ordered by
    first offset); coloured by the kind of the phase's longest sample when the
    source is a Profile (selected by ``filters``, `query`'s, and ``clip`` with a
    ``window``). More than ``max_bars`` phases are merged into runs of
    consecutive phases so the chart stays readable and its data bounded.
    """
    if max_bars < 1:
        raise ValueError(f"max_bars must be at least 1, got {max_bars}")
    check_keywords(filters, FILTER_FLAGS, "filter")
    table, samples, clock_hz = _phase_table(source, filters)
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
        alt.Chart(chart_data(bars))
        .mark_bar()
        .encode(
            x=alt.X("bar:Q", title="phase, in execution order", axis=alt.Axis(labels=False, ticks=False)),
            x2=alt.X2("bar_end:Q"),
            y=alt.Y("from:Q", title="cumulative phaseCycles"),
            y2="to:Q",
            color=alt.Color("kind:N", title="longest sample", scale=kind_scale()),
            tooltip=tooltip,
        )
        .transform_calculate(bar_end="datum.bar + 0.9")
        .properties(
            title=f"phase waterfall ({n} phases{merged})", width=min(1200, max(480, 3 * bars.height)), height=300
        )
    )
