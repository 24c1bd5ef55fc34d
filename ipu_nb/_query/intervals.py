"""The union-of-intervals rule behind ``phaseCycles`` and superstep spans (docs/reference/query.md#phase-cycles).

The length of the union of half-open intervals ``[start, end)`` per partition: touching
intervals merge, empty ones add nothing. `interval_gains` is the one implementation; the
query plan sums it per group over (phase, epoch) partitions, the superstep analyses per
superstep, and what-if over replayed bounds wider than the profile's offsets.
"""

from __future__ import annotations

import polars as pl

__all__ = ["interval_gains", "union_lengths"]

#: Bits of an unsigned 64-bit sort key.
_KEY_BITS = 64
#: Widest ``value_bits`` for which the partition-index prefix of the general path fits an Int64.
_PREFIX_VALUE_BITS = 33


def interval_gains(rows: pl.LazyFrame, part: list[str], part_bits: int, value_bits: int) -> pl.LazyFrame:
    """Per interval, in partition order: the `part` columns, ``_new`` (first of its partition), ``_gain``.

    ``rows`` holds the partition columns `part`, and ``_start``, ``_end`` with
    ``0 <= _start <= _end < 2**value_bits``; `part_bits` bounds a single partition
    column (UInt64). Summing ``_gain`` per partition gives its union length, and
    summing ``_new`` counts the partitions.

    Fast path (one partition column, partition and value in one u64): sort the keyed
    starts and the keyed ends *independently*. Pairing the i-th smallest start with
    the i-th smallest end keeps every point's coverage count, hence the union; with
    both sorted each interval adds ``end − max(start, previous end)`` when positive.
    Otherwise one multi-column sort by (partition, start) and a running maximum of the
    ends, made monotone across partitions by a partition-index prefix (or taken per
    partition when the values are too wide for the prefix).
    """
    if len(part) == 1 and part_bits + value_bits <= _KEY_BITS:
        shift = 2**value_bits
        key = pl.col(part[0]).cast(pl.UInt64) * shift
        keyed = rows.select(
            _starts=(key + pl.col("_start").cast(pl.UInt64)).sort(),
            _ends=(key + pl.col("_end").cast(pl.UInt64)).sort(),
        )
        owner = pl.col("_starts") // shift
        new = (owner != owner.shift(1)).fill_null(True)
        start = (pl.col("_starts") % shift).cast(pl.Int64)
        stop = (pl.col("_ends") % shift).cast(pl.Int64)
        previous = pl.when(new).then(None).otherwise(stop.shift(1))
        gain = (stop - pl.max_horizontal(start, previous)).clip(0)
        return keyed.select(owner.set_sorted().alias(part[0]), _new=new, _gain=gain)
    ordered = rows.select(*part, _start=pl.col("_start").cast(pl.Int64), _end=pl.col("_end").cast(pl.Int64))
    ordered = ordered.sort(*part, "_start")
    boundary = pl.any_horizontal([pl.col(c) != pl.col(c).shift(1) for c in part])
    ordered = ordered.with_columns(_new=boundary.fill_null(True))
    if value_bits <= _PREFIX_VALUE_BITS:
        prefix = pl.col("_new").cast(pl.Int64).cum_sum() * 2**_PREFIX_VALUE_BITS
        covered = (prefix + pl.col("_end")).cum_max().shift(1)
        gain = ((prefix + pl.col("_end")) - pl.max_horizontal(prefix + pl.col("_start"), covered)).clip(0)
    else:
        covered = pl.col("_end").cum_max().shift(1).over(part)
        gain = (pl.col("_end") - pl.max_horizontal(pl.col("_start"), covered)).clip(0)
    return ordered.select(pl.col(part[0]).set_sorted(), *part[1:], "_new", _gain=gain)


def union_lengths(rows: pl.LazyFrame, part_bits: int, value_bits: int) -> pl.LazyFrame:
    """Per ``_part`` (UInt64 below ``2**part_bits``): ``union_cycles``, the union length of its ``[_start, _end)``."""
    gains = interval_gains(rows, ["_part"], part_bits, value_bits)
    return gains.group_by("_part").agg(union_cycles=pl.col("_gain").sum().cast(pl.Int64))
