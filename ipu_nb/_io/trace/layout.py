"""Where a sample lands in the trace, and when: tracks by physical tile, grouped by IPU column; cycles to time.

Perfetto and chrome://tracing group threads (``tid``) under processes (``pid``): a tile is
a thread, an IPU column of the C600 grid (physical id mod 64, `GRID_COLUMNS`) a process,
so a column's 23 tiles sit together, top row first. Ids are shifted by one because
Perfetto takes pid and tid 0 for the system's idle (swapper) task; the names (``tile 66``,
``IPU column 2``) and ``args.tile`` carry the real ids.

Trace time is microseconds. Each sample's start and end are converted from cycles at
the profile's clock to whole nanoseconds, rounding down, and the duration is their
difference: samples that touch in cycles touch in the trace, never overlap (an overlap
would nest one slice inside the other). Both are written with exactly three decimals,
which Perfetto reads back to the same nanosecond.
"""

from __future__ import annotations

import polars as pl

from ..._model.grid import GRID_COLUMNS

__all__ = ["TRACE_PID_OFFSET", "TRACE_TID_OFFSET", "column_of", "microseconds", "trace_nanoseconds"]

#: ``pid`` = IPU column + this; ``tid`` = physical tile + this (0 is the idle task in both viewers).
TRACE_PID_OFFSET = 1
TRACE_TID_OFFSET = 1


def column_of(tile: pl.Expr) -> pl.Expr:
    """The IPU column of a physical tile id (the x of `charts.tile_heatmap`'s grid)."""
    return tile % GRID_COLUMNS


def row_of(tile: pl.Expr) -> pl.Expr:
    """The grid row of a physical tile id (its place inside its column's process)."""
    return tile // GRID_COLUMNS


def trace_nanoseconds(cycles: pl.Expr, clock_hz: int) -> pl.Expr:
    """Cycles as whole nanoseconds at `clock_hz`, rounded down (1 cycle = 1 ns when the clock is unknown, 0)."""
    cycles = cycles.cast(pl.UInt64)  # offset + duration < 2**33, so cycles * 1e9 fits in 64 bits
    if clock_hz <= 0:
        return cycles
    return (cycles * 1_000_000_000) // clock_hz


def microseconds(nanoseconds: pl.Expr) -> pl.Expr:
    """Whole nanoseconds as a decimal number of microseconds with three fraction digits (``12.345``)."""
    return pl.concat_str(
        (nanoseconds // 1000).cast(pl.String),
        pl.lit("."),
        (nanoseconds % 1000).cast(pl.String).str.zfill(3),
    )
