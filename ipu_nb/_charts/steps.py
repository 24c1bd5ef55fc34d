"""Charts of the superstep analytics: recoverable cycles over time, critical tiles on the grid, what-if.

Sources are a Profile (or a `ProfileWidget`: its profile under its filters) measured with
`ipu_nb.supersteps` / `ipu_nb.tile_balance`, those functions' DataFrames, or a `WhatIf`.
Long tables are merged into runs of consecutive supersteps, so a chart's data stays
bounded whatever the profile's length.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import altair as alt
import polars as pl

from .._markup.sanitize import distinct_names, label
from .._model.index import int_extreme
from .._model.vocabulary import Kind
from .._query.keywords import FiltersBesideKind
from .._query.signature import keyword_signature
from .common import as_profile, chart_data
from .data import grid_position
from .grid import grid_chart

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile
    from .._supersteps import WhatIf

__all__ = ["critical_tiles", "recoverable_cycles", "recoverable_frame", "what_if", "what_if_frame"]

#: Kernels coloured by name in `recoverable_cycles`; the others share one colour.
TOP_KERNELS = 8
_STEP_COLUMNS = ("phase", "epoch", "start", "end", "recoverable_cycles", "critical_tile", "dominant_kernel")
_BALANCE_COLUMNS = ("tile", "critical_count", "critical_share", "recoverable_cycles")
_SERIES = {"measured": "#8c8c8c", "estimated": "#4c78a8"}


def _measured(source: Any, what: str, filters: Mapping[str, Any]) -> tuple[Profile | None, Any]:
    """(Profile or None, its widget's base Query or None); a non-Profile source may not take filters."""
    profile, base = as_profile(source)
    if profile is None and filters:
        raise TypeError(f"filters ({', '.join(filters)}) apply to a Profile source; this {what} is already measured")
    return profile, base


def _require(frame: Any, columns: tuple[str, ...], what: str, producer: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"expected a Profile, ProfileWidget or {what} DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} DataFrame lacks column(s) {', '.join(missing)}: pass {producer} output")
    return frame


def recoverable_frame(steps: pl.DataFrame, max_bars: int = 400) -> tuple[pl.DataFrame, int]:
    """Supersteps (in execution order) merged into at most `max_bars` runs: (one row per run, run length).

    Per run: ``first`` and ``last`` superstep (``phase P/E``), ``label``, ``supersteps``,
    ``start`` / ``end`` (offsets), ``recoverable_cycles`` (Σ), and the ``critical_tile``,
    ``critical_cycles``, ``imbalance`` and ``kernel`` (dominant kernel, ``""`` for none) of
    its superstep with the most recoverable cycles.
    """
    if max_bars < 1:
        raise ValueError(f"max_bars must be at least 1, got {max_bars}")
    n = steps.height
    run = max(1, -(-n // max_bars))
    best = pl.col("recoverable_cycles").arg_max()
    keyed = steps.with_row_index("_order").with_columns(
        _bar=pl.col("_order") // run,
        _name=pl.format("phase {}/{}", "phase", "epoch"),
        _kernel=pl.col("dominant_kernel").cast(pl.String),
    )
    extra = [c for c in ("critical_cycles", "imbalance") if c in steps.columns]
    runs = (
        keyed.group_by("_bar", maintain_order=True)
        .agg(
            first=pl.col("_name").first(),
            last=pl.col("_name").last(),
            supersteps=pl.len().cast(pl.Int64),
            start=pl.col("start").min(),
            end=pl.col("end").max(),
            recoverable_cycles=pl.col("recoverable_cycles").sum(),
            critical_tile=pl.col("critical_tile").get(best),
            kernel=pl.col("_kernel").get(best),
            **{c: pl.col(c).get(best) for c in extra},
        )
        .with_columns(
            label=pl.when(pl.col("supersteps") == 1)
            .then(pl.col("first"))
            .otherwise(pl.format("{} … {}", "first", "last"))
        )
        .drop("_bar")
    )
    return runs, run


@keyword_signature(FiltersBesideKind)
def recoverable_cycles(
    source: Profile | pl.DataFrame,
    *,
    kind: Kind | None = "compute",
    max_bars: int = 400,
    **filters: Unpack[FiltersBesideKind],
) -> alt.LayerChart:
    """Recoverable cycles per superstep over time: what balancing each phase over its tiles would save.

    Each bar spans its superstep's offsets and rises to its ``recoverable_cycles`` (critical
    tile − mean tile, `ipu_nb.supersteps`), coloured by the superstep's dominant kernel (the
    `TOP_KERNELS` with the most recoverable cycles by name, the rest together). With a
    Profile, ``kind`` and ``filters`` choose the samples measured: compute by default, since
    in an exchange phase a tile's sum is mostly waiting (``kind=None`` measures every
    sample). More than ``max_bars`` supersteps are merged into runs of consecutive ones.
    """
    profile, base = _measured(source, "supersteps table", filters)
    clock_hz = 0
    if profile is not None:
        from .._supersteps import supersteps

        steps = supersteps(profile, base, kind=kind, **filters)
        clock_hz, span = profile.clock_hz, profile.span_cycles
    else:
        steps = _require(source, _STEP_COLUMNS, "supersteps", "ipu_nb.supersteps()")
        span = int_extreme(steps.get_column("end"))
    runs, run = recoverable_frame(steps, max_bars)
    totals = (
        runs.group_by("kernel")
        .agg(pl.col("recoverable_cycles").sum())
        .sort(["recoverable_cycles", "kernel"], descending=[True, False])
    )
    top = totals.get_column("kernel").head(TOP_KERNELS).to_list()
    rest = totals.height > len(top)
    names = distinct_names([*top, *(["(other kernels)"] if rest else [])], empty="(no kernel)")
    colours = dict(zip(top, names, strict=False))
    runs = runs.with_columns(
        kernel=pl.col("kernel").replace_strict(colours, default=names[-1] if rest else None, return_dtype=pl.String)
    )
    scale = 1000.0 / clock_hz if clock_hz else 1.0
    runs = runs.with_columns(time=pl.col("start") * scale, time_end=pl.col("end") * scale, base=pl.lit(0.0))
    x_title = "time (ms)" if clock_hz else "offset (cycles)"
    total = float(steps.get_column("recoverable_cycles").sum()) if steps.height else 0.0
    bars = (
        alt.Chart(chart_data(runs))
        .mark_bar()
        .encode(
            x=alt.X("time:Q", title=x_title),
            x2="time_end:Q",
            y=alt.Y("recoverable_cycles:Q", title="recoverable cycles", stack=None),
            y2="base:Q",
            color=alt.Color(
                "kernel:N", title="dominant kernel", scale=alt.Scale(domain=names), legend=alt.Legend(labelLimit=280)
            ),
            tooltip=[
                alt.Tooltip("label:N", title="superstep"),
                alt.Tooltip("supersteps:Q"),
                alt.Tooltip("recoverable_cycles:Q", format=",.0f", title="recoverable cycles"),
                alt.Tooltip("critical_tile:Q", title="critical tile (of the worst)"),
                alt.Tooltip("kernel:N", title="dominant kernel"),
                alt.Tooltip("start:Q", format=",", title="from offset"),
                alt.Tooltip("end:Q", format=",", title="to offset"),
            ],
        )
    )
    share = f", {total / span:.1%} of the span" if span else ""
    merged = f", runs of {run} supersteps" if run > 1 else ""
    title = f"recoverable cycles per superstep ({steps.height:,} supersteps{merged}; {total:,.0f} cycles in all{share})"
    return alt.layer(bars).properties(title=title, width=720, height=240)


@keyword_signature(FiltersBesideKind)
def critical_tiles(
    source: Profile | pl.DataFrame,
    *,
    kind: Kind | None = "compute",
    cell: int = 11,
    **filters: Unpack[FiltersBesideKind],
) -> alt.Chart:
    """How many supersteps each tile held back (was the critical tile of), on the physical C600 grid.

    From `ipu_nb.tile_balance` (compute samples by default, as in `recoverable_cycles`); with a
    Profile every profiled tile is drawn, zero where it was never critical. The tooltip has
    the tile's critical share, the cycles balancing its supersteps would save and its slack.
    """
    profile, base = _measured(source, "tile balance table", filters)
    if profile is not None:
        from .._supersteps import tile_balance

        balance = tile_balance(profile, base, kind=kind, **filters)
        every = profile.tiles.select(pl.col("tile").cast(pl.Int64))
    else:
        balance = _require(source, _BALANCE_COLUMNS, "tile balance", "ipu_nb.tile_balance()")
        every = balance.select(pl.col("tile").cast(pl.Int64))
    grid = (
        every.join(balance.with_columns(pl.col("tile").cast(pl.Int64)), on="tile", how="left")
        .with_columns(pl.col("critical_count", "critical_share", "recoverable_cycles").fill_null(0))
        .with_columns(*grid_position(pl.col("tile")))
        .sort("tile")
    )
    columns = set(grid.columns)
    tooltip = [
        alt.Tooltip("tile:Q", title="physical tile"),
        alt.Tooltip("row:O"),
        alt.Tooltip("column:O"),
        alt.Tooltip("critical_count:Q", format=",", title="critical in (supersteps)"),
        alt.Tooltip("critical_share:Q", format=".1%", title="critical share"),
        alt.Tooltip("recoverable_cycles:Q", format=",.0f", title="recoverable cycles"),
    ] + [
        alt.Tooltip(f"{name}:Q", format=fmt, title=title)
        for name, fmt, title in (
            ("phase_count", ",", "supersteps with samples"),
            ("slack_cycles", ",", "slack cycles"),
            ("busy_share", ".1%", "busy share"),
        )
        if name in columns
    ]
    color = alt.Color(
        "critical_count:Q", title="critical in", scale=alt.Scale(scheme="orangered"), legend=alt.Legend(format="~s")
    )
    held = int((grid.get_column("critical_count") > 0).sum())
    title = f"critical tiles: supersteps each tile held back (physical grid; {held:,} of {grid.height:,} tiles)"
    return grid_chart(grid, color, tooltip, title, cell=cell)


def what_if_frame(result: WhatIf, *, cumulative: bool = True, max_points: int = 400) -> tuple[pl.DataFrame, int]:
    """Measured and estimated cycles in execution order: (one row per point, supersteps per point).

    Per point (a run of consecutive supersteps): ``superstep`` (supersteps up to its last),
    ``first`` / ``last`` (``phase P/E``), ``measured``, ``estimated`` and ``saved``
    (measured − estimated): the run's sums, or the running totals when `cumulative`.
    """
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    steps = result.supersteps
    run = max(1, -(-steps.height // max_points))
    points = (
        steps.with_row_index("_order")
        .with_columns(_point=pl.col("_order") // run, _name=pl.format("phase {}/{}", "phase", "epoch"))
        .group_by("_point", maintain_order=True)
        .agg(
            superstep=(pl.col("_order").max() + 1).cast(pl.Int64),
            first=pl.col("_name").first(),
            last=pl.col("_name").last(),
            measured=pl.col("span_cycles").sum(),
            estimated=pl.col("estimated_cycles").sum(),
        )
        .drop("_point")
    )
    if cumulative:
        points = points.with_columns(pl.col("measured").cum_sum(), pl.col("estimated").cum_sum())
    return points.with_columns(saved=pl.col("measured") - pl.col("estimated")), run


def what_if(result: WhatIf, *, cumulative: bool = True, max_points: int = 400) -> alt.VConcatChart:
    """A what-if's measured and estimated cycles superstep by superstep, and what it saves (`ipu_nb.what_if`).

    The top panel draws the measured and estimated cycles, the bottom one their difference
    (saved cycles; negative when the change is slower). ``cumulative`` (default) draws running
    totals, which end at the totals; otherwise each superstep's own cycles. More than
    ``max_points`` supersteps are summed in runs of consecutive ones.
    """
    from .._supersteps import WhatIf

    if not isinstance(result, WhatIf):
        raise TypeError(f"expected a WhatIf (ipu_nb.what_if(profile, scale)), got {type(result).__name__}")
    points, run = what_if_frame(result, cumulative=cumulative, max_points=max_points)
    data = chart_data(points)
    long = data.unpivot(
        on=list(_SERIES), index=["superstep", "first", "last"], variable_name="series", value_name="cycles"
    )
    per = "superstep" if run == 1 else f"{run} supersteps"
    what = "cumulative cycles" if cumulative else f"cycles per {per}"
    saved = "cumulative saved cycles" if cumulative else f"saved cycles per {per}"
    x = alt.X("superstep:Q", title="supersteps, in execution order")
    span = [alt.Tooltip("first:N", title="from superstep"), alt.Tooltip("last:N", title="to superstep")]
    series = list(_SERIES)
    lines = (
        alt.Chart(long)
        .mark_line(interpolate="linear" if cumulative else "step-after")
        .encode(
            x=x,
            y=alt.Y("cycles:Q", title=what),
            color=alt.Color("series:N", title="cycles", scale=alt.Scale(domain=series, range=list(_SERIES.values()))),
            tooltip=[alt.Tooltip("series:N"), *span, alt.Tooltip("cycles:Q", format=",")],
        )
        .properties(width=640, height=220)
    )
    difference = (
        alt.Chart(data)
        .mark_area(interpolate="linear" if cumulative else "step-after", color="#4d9221", opacity=0.7)
        .encode(
            x=x,
            y=alt.Y("saved:Q", title=saved),
            tooltip=[*span, alt.Tooltip("saved:Q", format="+,", title="saved cycles")],
        )
        .properties(width=640, height=120)
    )
    scale = ", ".join(f"{kernel} ×{factor:g}" for kernel, factor in result.scale.items()) or "no change"
    title = label(
        f"what if {scale}: {result.measured_cycles:,} → {result.estimated_cycles:,} cycles "
        f"(saves {result.saved_cycles:,}, ×{result.speedup:.4f})"
    )
    return alt.vconcat(lines, difference).properties(title=title)
