"""The window rule: which samples overlap an offset range, and what is left of them inside it.

A window ``(start, end)`` is a half-open range of per-tile offsets, the ones ``at`` and
the timeline use (docs/reference/format.md#normalisation). A sample overlaps it when its
interval ``[offset, offset + duration)`` shares at least one cycle with it, so a
zero-length sample never overlaps and ``window=(n, n + 1)`` selects what ``at=n`` does.
Clipping cuts each interval to ``[max(offset, start), min(offset + duration, end))``.
Both rules live here only: the predicate builder, the clipped query and the selection
frames read them from this module (docs/reference/query.md#window).
"""

from __future__ import annotations

import polars as pl

__all__ = ["clip_to_window", "clipped_cycles", "overlaps"]

#: offset < 2**32 and duration < 2**32, so every interval ends below 2**33; window bounds
#: beyond it can be cut to it without changing any overlap or clipped length.
_END_LIMIT = 2**33


def _bounds(window: tuple[int, int]) -> tuple[pl.Expr, pl.Expr]:
    start, end = (pl.lit(min(v, _END_LIMIT), dtype=pl.Int64) for v in window)
    return start, end


def _interval() -> tuple[pl.Expr, pl.Expr]:
    offset = pl.col("offset").cast(pl.Int64)
    return offset, offset + pl.col("duration").cast(pl.Int64)


def overlaps(window: tuple[int, int]) -> pl.Expr:
    """Whether the sample's interval shares at least one cycle with `window` (``start < end``)."""
    start, end = _bounds(window)
    lo, hi = _interval()
    return (lo < end) & (hi > start) & (hi > lo)


def _clipped(window: tuple[int, int]) -> tuple[pl.Expr, pl.Expr]:
    start, end = _bounds(window)
    lo, hi = _interval()
    return pl.max_horizontal(lo, start), pl.min_horizontal(hi, end)


def clipped_cycles(window: tuple[int, int]) -> pl.Expr:
    """``clipped_cycles`` (Int64): the cycles of the sample inside `window` (0 for one outside it)."""
    lo, hi = _clipped(window)
    return (hi - lo).clip(0).alias("clipped_cycles")


def clip_to_window(lf: pl.LazyFrame, window: tuple[int, int]) -> pl.LazyFrame:
    """`lf` (overlapping samples) with ``offset`` and ``duration`` cut to `window`.

    The aggregation reads each sample's interval from those two columns, so it then
    measures the clipped intervals; the sample's own interval stays in ``_full_offset``
    and ``_full_duration`` for the longest-samples list.
    """
    lo, hi = _clipped(window)
    return lf.with_columns(
        _full_offset=pl.col("offset"),
        _full_duration=pl.col("duration"),
        offset=lo.cast(pl.UInt64),
        duration=(hi - lo).clip(0).cast(pl.UInt32),
    )
