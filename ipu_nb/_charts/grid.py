"""Charts on the physical tile grid of a C600 (23 rows × 64 columns, physical id = row·64 + column)."""

from __future__ import annotations

from typing import Any

import altair as alt
import polars as pl

from .._model.grid import GRID_COLUMNS, GRID_ROWS
from .._model.index import int_extreme
from .common import chart_data

__all__ = ["grid_chart"]


def grid_chart(frame: pl.DataFrame, color: alt.Color, tooltip: list[Any], title: str, *, cell: int = 11) -> alt.Chart:
    """One rectangle per row of `frame` (it has ``row`` and ``column``) at its place on the grid.

    At least the C600's 23 rows are drawn, more if a tile id lies beyond them; the
    column axis always spans the 64 columns, so every grid chart lines up with the others.
    """
    rows = max(GRID_ROWS, int_extreme(frame.get_column("row")) + 1) if frame.height else GRID_ROWS
    return (
        alt.Chart(chart_data(frame))
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
            color=color,
            tooltip=tooltip,
        )
        .properties(title=title, width=GRID_COLUMNS * cell, height=rows * cell)
    )
