"""The exchange anatomy chart: per exchange phase, a stacked bar of where its tiles' exchange cycles went."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import altair as alt
import polars as pl

from .._exchange import ANATOMY_PARTS, anatomy_frame
from .._model.palette import ACTIVITY_PALETTE
from .common import as_profile, chart_data

if TYPE_CHECKING:
    from .._profile import Profile

__all__ = ["exchange_anatomy"]

#: Phases shown one per bar up to this many; beyond, consecutive phases share a bar.
_LABELLED = 40


def exchange_anatomy(source: Profile | str | os.PathLike[str] | pl.DataFrame, *, max_bars: int = 400) -> alt.Chart:
    """Stacked bars, one per exchange phase: its boundary wait, send, receive, both, partner busy and idle cycles.

    The parts are work cycles summed over the phase's tiles, the newest runtime's reading
    of a schema 4-5 profile (docs/reference/head.md#exchange-anatomy): the wait before the
    last tile enters, then each exchange window split as its renderer labels it, coloured from
    its table (`ipu_nb._model.palette.ACTIVITY_PALETTE`). `source` is a profile, a path or
    `ipu_nb._exchange.anatomy_frame`'s frame; more than ``max_bars`` phases are merged into
    runs of consecutive phases.

    >>> charts.exchange_anatomy(ipu_nb.generate_profile("v5.capnp", tiles=8, phases=4, schema_version=5))
    alt.Chart(...)
    """
    if max_bars < 1:
        raise ValueError(f"max_bars must be at least 1, got {max_bars}")
    if isinstance(source, pl.DataFrame):
        frame = source
    else:
        profile, _ = as_profile(source)
        if profile is None and not isinstance(source, (str, os.PathLike)):
            raise TypeError(f"expected a Profile, a path or an anatomy frame, got {type(source).__name__}")
        frame = anatomy_frame(profile if profile is not None else source)
    phases = frame.get_column("order").n_unique()
    run = max(1, -(-phases // max_bars))
    bars = (
        frame.with_columns(bar=pl.col("order") // run)
        .group_by("bar", "part", "activity", "stack")
        .agg(
            pl.col("cycles").sum(),
            pl.col("name").sort_by("order").first().alias("first"),
            pl.col("name").sort_by("order").last().alias("last"),
            pl.len().alias("phases"),
        )
        .sort("bar", "stack")
        .with_columns(
            to=pl.col("cycles").cum_sum().over("bar"),
            label=pl.when(pl.col("first") == pl.col("last"))
            .then(pl.col("first"))
            .otherwise(pl.format("{} … {}", "first", "last")),
        )
        .with_columns(start=pl.col("to") - pl.col("cycles"))
        .drop("first", "last")
    )
    parts = [part for part, _, _ in ANATOMY_PARTS]
    colours = [ACTIVITY_PALETTE[activity] for _, activity, _ in ANATOMY_PARTS]
    labelled = bars.get_column("bar").n_unique() <= _LABELLED
    merged = f", runs of {run} phases" if run > 1 else ""
    return (
        alt.Chart(chart_data(bars))
        .mark_bar()
        .encode(
            x=alt.X(
                "label:N",
                sort=alt.EncodingSortField("bar", op="min"),
                title="exchange phase, in (epoch, phase) order",
                axis=alt.Axis(labels=labelled, ticks=labelled, labelAngle=-45),
            ),
            y=alt.Y("start:Q", title="work cycles, summed over tiles"),
            y2="to:Q",
            color=alt.Color("part:N", title="part", scale=alt.Scale(domain=parts, range=colours), sort=parts),
            order=alt.Order("stack:Q"),
            tooltip=[
                alt.Tooltip("label:N", title="phase"),
                alt.Tooltip("part:N"),
                alt.Tooltip("cycles:Q", format=","),
                alt.Tooltip("phases:Q"),
            ],
        )
        .properties(
            title=f"exchange anatomy ({phases} exchange phases{merged})",
            width=min(1200, max(360, 14 * bars.get_column("bar").n_unique())),
            height=300,
        )
    )
