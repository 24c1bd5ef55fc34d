"""Union length of intervals per partition: a superstep's span, measured or replayed.

The rule is the query core's phaseCycles (SPEC §3): the length of the union of the
half-open intervals [start, end), touching intervals merged, empty ones adding
nothing. It is written here over arbitrary non-negative Int64 bounds because what-if
replays intervals whose bounds no longer fit the core's 32-bit offsets.
"""

from __future__ import annotations

import polars as pl

__all__ = ["union_lengths"]

#: Bits a packed (partition, value) sort key may use (a non-negative Int64).
_PACKED_BITS = 62


def union_lengths(rows: pl.LazyFrame, part_bits: int, value_bits: int) -> pl.LazyFrame:
    """Per ``_part``: ``union_cycles``, the union length of the rows' ``[_start, _end)``.

    ``rows`` has ``_part`` (UInt64 below ``2**part_bits``), ``_start`` and ``_end`` (Int64,
    ``0 <= _start <= _end < 2**value_bits``). Sorted by (partition, start), each interval
    adds ``end − max(start, largest earlier end in its partition)`` when positive. When
    both fit in one key, the sort is on ``partition·2^value_bits + start`` and the running
    maximum on ``partition·2^value_bits + end``, which only grows across partitions.
    """
    if part_bits + value_bits <= _PACKED_BITS:
        shift = 2**value_bits
        part = pl.col("_part").cast(pl.Int64)
        ordered = rows.select(_key=part * shift + pl.col("_start"), _end=pl.col("_end")).sort("_key")
        owner = pl.col("_key") // shift
        start = pl.col("_key") % shift
        covered = (owner * shift + pl.col("_end")).cum_max().shift(1)
        previous = pl.when(covered // shift == owner).then(covered % shift).otherwise(None)
        gained = ordered.select(
            _part=owner.cast(pl.UInt64).set_sorted(), _gain=(pl.col("_end") - pl.max_horizontal(start, previous))
        )
    else:
        ordered = rows.select("_part", "_start", "_end").sort("_part", "_start")
        previous = pl.col("_end").cum_max().shift(1).over("_part")
        gained = ordered.select(
            pl.col("_part").set_sorted(), _gain=pl.col("_end") - pl.max_horizontal(pl.col("_start"), previous)
        )
    return gained.group_by("_part").agg(union_cycles=pl.col("_gain").clip(0).sum().cast(pl.Int64))
