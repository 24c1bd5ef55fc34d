"""The aggregation plan of `profile-query`: groups, their statistics, their order (docs/reference/query.md#aggregates).

Pure functions from a filtered lazy frame (`ipu_nb._query.predicate.filtered`) to the
groups table and the longest samples: integer group ids, union-of-intervals phase
cycles (`ipu_nb._query.intervals`), integer-indexed percentiles, the ratio columns in
the runtime's operation order, then sort and limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from .._model.index import global_code, global_codes, index_of
from .._model.vocabulary import MISSING, NO_KERNEL, SORT_COLUMNS
from .flags import Query
from .intervals import interval_gains

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["PAIR", "aggregate", "empty_samples", "longest", "with_ms"]

PAIR = pl.Struct({"name": pl.String, "value": pl.String})
#: High bits of the one-column sort key available for (group, phase, epoch); wider ids take a multi-column sort.
_KEY_BITS = 32
#: offset < 2**32 and duration < 2**32, so offset + duration < 2**33.
_END_BITS = 33


def _group_columns(profile: ProfileData, lf: pl.LazyFrame, q: Query) -> tuple[pl.LazyFrame, pl.Expr, int, pl.Expr]:
    """Add the integer group id ``gid``; return (frame, name source, gid bit width, name expression).

    Groups are keyed by their displayed name, so ids that print alike share one id
    (an empty kernel and a kernel named ``(no kernel)``; a missing value and ``(missing)``).
    For ``phase`` the id is the (phase, epoch) pair packed into one integer.
    """
    gb = q.group_by
    if gb == "kind":
        gid = pl.col("kind").to_physical()
        return lf.with_columns(gid=gid.cast(pl.UInt64)), pl.col("kind").first(), 2, pl.col("_src").cast(pl.String)
    if gb == "phase":
        phase_bits, epoch_bits = _phase_bits(profile)
        return lf.with_columns(gid=_phase_epoch(epoch_bits)), pl.lit(None), phase_bits + epoch_bits, pl.lit(None)
    if gb == "tile":
        bits = index_of(profile).bits("tile")
        return lf.with_columns(gid=pl.col("tile").cast(pl.UInt64)), pl.lit(None), bits, pl.lit(None)
    if gb == "kernel":
        # Kernels are few, but their global codes are as wide as the operations' (one table for both):
        # dense ids keep (gid, phase, epoch) in one sort key.
        no_kernel = global_code(NO_KERNEL)
        physical = global_codes("kernel", profile.samples.schema["kernel"])
        physical = pl.when(pl.col("kernel") == "").then(pl.lit(no_kernel, pl.UInt64)).otherwise(physical)
        dense, bits = _dense_ids(profile, "kernel", no_kernel)
        name = pl.col("_src").cast(pl.String).replace("", NO_KERNEL)
        return lf.with_columns(gid=pl.lit(dense).gather(physical)), pl.col("kernel").first(), bits, name
    if gb == "operation":
        bits = index_of(profile).code_bits("samples", "operation")
        physical = global_codes("operation", profile.samples.schema["operation"])
        return lf.with_columns(gid=physical), pl.col("operation").first(), bits, pl.col("_src").cast(pl.String)
    # metadata: the value of the first entry named KEY (by position), joined in by `query`
    bits = index_of(profile).code_bits("metadata", "value")
    missing = global_code(MISSING)
    bits = max(bits, missing.bit_length())
    lf = lf.with_columns(gid=global_codes("_mvalue", index_of(profile).metadata_dtype("value")).fill_null(missing))
    name = pl.col("_src").cast(pl.String).fill_null(MISSING)
    return lf, pl.col("_mvalue").first(), bits, name


def _dense_ids(profile: ProfileData, column: str, extra: int) -> tuple[pl.Series, int]:
    """A table from each global code of ``samples[column]`` (and `extra`) to a dense id, and the ids' bit width.

    Codes the profile does not hold (none reach the plan) would all share the one id past the dense ones.
    """
    distinct = index_of(profile).distinct(column)
    codes = pl.DataFrame({column: distinct}).select(global_codes(column, distinct.dtype)).to_series().to_numpy()
    codes = np.unique(np.append(codes, np.uint64(extra)))
    table = np.full(int(codes[-1]) + 1, len(codes), dtype=np.uint64)
    table[codes] = np.arange(len(codes), dtype=np.uint64)
    return pl.Series(table), len(codes).bit_length()


def _phase_bits(profile: ProfileData) -> tuple[int, int]:
    index = index_of(profile)
    return index.bits("phase"), index.bits("epoch")


def _phase_epoch(epoch_bits: int) -> pl.Expr:
    """(phase, epoch) packed into one u64: phase in the high bits, so the order is (phase, epoch)."""
    return pl.col("phase").cast(pl.UInt64) * 2**epoch_bits + pl.col("epoch").cast(pl.UInt64)


def _phase_cycles(
    lf: pl.LazyFrame, gid_bits: int, phase_bits: int, epoch_bits: int, by_phase: bool, *, whole_group: bool = False
) -> pl.LazyFrame:
    """Per gid: ``phase_cycles`` (Σ union length per (phase, epoch)) and ``phase_count``.

    The partition is (gid, phase, epoch), packed into one integer when it fits in 31
    bits (the fast path of `interval_gains`), else kept as two sort columns. With
    `whole_group` the partition is the gid alone: one union per group (and ``phase_count``
    is then 1 per group, not the number of its phases).
    """
    end = pl.col("offset") + pl.col("duration").cast(pl.UInt64)
    by_phase = by_phase or whole_group
    pe_bits = 0 if by_phase else phase_bits + epoch_bits
    if gid_bits + pe_bits <= _KEY_BITS - 1:
        partition = pl.col("gid") if by_phase else pl.col("gid") * 2**pe_bits + _phase_epoch(epoch_bits)
        rows = lf.select(_part=partition, _start=pl.col("offset"), _end=end)
        gains = interval_gains(rows, ["_part"], gid_bits + pe_bits, _END_BITS)
        gains = gains.select(gid=(pl.col("_part") // 2**pe_bits).set_sorted(), _new=pl.col("_new"), _gain="_gain")
    else:
        rows = lf.select("gid", _pe=_phase_epoch(epoch_bits), _start=pl.col("offset"), _end=end)
        gains = interval_gains(rows, ["gid"] if whole_group else ["gid", "_pe"], gid_bits + pe_bits, _END_BITS)
    # gid is sorted here: the flag lets the group-by slice instead of hashing.
    return gains.group_by("gid").agg(
        phase_cycles=pl.col("_gain").sum().cast(pl.Int64), phase_count=pl.col("_new").sum().cast(pl.Int64)
    )


def _percentiles(lf: pl.LazyFrame, gid_bits: int) -> pl.LazyFrame:
    """Per gid: p50, p95 and maximum of the durations, by integer index (docs/reference/query.md#aggregates).

    One narrow sort by (gid, duration); each group's durations are then ascending, so
    ``get`` picks d[(n−1)·50 div 100] without sorting per group.
    """
    if gid_bits <= _KEY_BITS:
        rows = lf.select(_key=pl.col("gid") * 2**32 + pl.col("duration").cast(pl.UInt64)).sort("_key")
        rows = rows.select(gid=(pl.col("_key") // 2**32).set_sorted(), _d=(pl.col("_key") % 2**32).cast(pl.Int64))
    else:
        rows = lf.select("gid", _d=pl.col("duration").cast(pl.Int64)).sort("gid", "_d")
        rows = rows.with_columns(pl.col("gid").set_sorted())
    n = pl.len().cast(pl.Int64)
    return rows.group_by("gid").agg(
        p50_cycles=pl.col("_d").get((n - 1) * 50 // 100),
        p95_cycles=pl.col("_d").get((n - 1) * 95 // 100),
        maximum_cycles=pl.col("_d").last(),
    )


def aggregate(
    profile: ProfileData, lf: pl.LazyFrame, q: Query, *, percentiles: bool = True, phase_union: bool = True
) -> pl.LazyFrame:
    """Per-group statistics of docs/reference/query.md#aggregates, sorted and cut to the limit.

    Three branches over the same filtered frame, joined on the group id: plain
    aggregates, the union-of-intervals phase cycles and the percentiles. Without
    `percentiles` the p50, p95 and maximum columns are left out (and not computed) unless
    the order needs the maximum: every other column and the order are the same.
    ``phase_union=False`` measures ``phase_cycles`` as one union over each whole group,
    as the newest runtime does (docs/reference/head.md#groups-and-statistics).
    """
    lf, source, gid_bits, name = _group_columns(profile, lf, q)
    phase_bits, epoch_bits = _phase_bits(profile)
    by_phase = q.group_by == "phase"
    phase_count = {} if phase_union else {"phase_count": _phase_epoch(epoch_bits).n_unique().cast(pl.Int64)}
    plain = lf.group_by("gid").agg(
        _src=source,
        _tile=pl.col("tile").first(),
        phase=pl.col("phase").first(),
        epoch=pl.col("epoch").first(),
        sample_count=pl.len().cast(pl.Int64),
        tile_count=pl.col("tile").n_unique().cast(pl.Int64),
        work_cycles=pl.col("duration").cast(pl.Int64).sum(),
        first_offset=pl.col("offset").min().cast(pl.Int64),
        last_offset=(pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)).max(),
        **phase_count,
    )
    percentiles = percentiles or q.sort_by == "maximum-cycles"
    cycles = _phase_cycles(lf, gid_bits, phase_bits, epoch_bits, by_phase, whole_group=not phase_union)
    grouped = plain.join(cycles if phase_union else cycles.drop("phase_count"), on="gid")
    if percentiles:
        grouped = grouped.join(_percentiles(lf, gid_bits), on="gid")
    grouped = grouped.with_columns(_names(q, name)).with_columns(_derived())
    if q.sort_by == "name":
        grouped = grouped.sort(["name", "first_offset"])
    else:
        grouped = grouped.sort([SORT_COLUMNS[q.sort_by], "first_offset", "name"], descending=[True, False, False])
    if q.limit:
        grouped = grouped.head(min(q.limit, max(profile.sample_count, 1)))  # groups <= samples
    return grouped.select(
        "name",
        "dimensions",
        "sample_count",
        "tile_count",
        "phase_count",
        "phase_cycles",
        "work_cycles",
        "average_active_tiles",
        "mean_cycles",
        *(["p50_cycles", "p95_cycles", "maximum_cycles"] if percentiles else []),
        "first_offset",
        "last_offset",
    )


def with_ms(groups: pl.DataFrame, clock_hz: int) -> pl.DataFrame:
    """Insert ``phase_ms`` = (cycles × 1000.0) / clockHz, computed element by element in numpy.

    (polars turns a division by a scalar into a multiplication by its reciprocal,
    which changes the last bit; docs/reference/query.md#float-operation-order fixes the operation order.)
    """
    cycles = groups.get_column("phase_cycles").to_numpy().astype(np.float64)
    ms = (cycles * 1000.0) / float(clock_hz) if clock_hz else np.zeros(len(cycles))
    return groups.insert_column(groups.columns.index("phase_cycles") + 1, pl.Series("phase_ms", ms, pl.Float64))


def _pair(name: str, value: pl.Expr) -> pl.Expr:
    return pl.struct(name=pl.lit(name, pl.String), value=value.cast(pl.String))


def _names(q: Query, name: pl.Expr) -> list[pl.Expr]:
    """``name`` and ``dimensions`` (a list of {name, value}, names sorted) of each group."""
    gb = q.group_by
    if gb == "phase":
        return [
            pl.format("phase {}/{}", "phase", "epoch").alias("name"),
            pl.concat_list(_pair("epoch", pl.col("epoch")), _pair("phase", pl.col("phase"))).alias("dimensions"),
        ]
    if gb == "tile":
        return [
            pl.format("tile {}", "_tile").alias("name"),
            pl.concat_list(_pair("physicalTile", pl.col("_tile"))).alias("dimensions"),
        ]
    if gb == "metadata":
        assert q.metadata_key is not None
        return [
            name.alias("name"),
            pl.concat_list(_pair("metadataKey", pl.lit(q.metadata_key)), _pair("metadataValue", name)).alias(
                "dimensions"
            ),
        ]
    return [name.alias("name"), pl.lit([], dtype=pl.List(PAIR)).alias("dimensions")]


def _derived() -> list[pl.Expr]:
    """The ratio columns, each in the runtime's operation order (docs/reference/query.md#float-operation-order).

    Both operands are columns: polars divides column by column exactly, whereas a
    column divided by a scalar may become a multiplication by its reciprocal.
    """
    phase = pl.col("phase_cycles").cast(pl.Float64)
    work = pl.col("work_cycles").cast(pl.Float64)
    return [
        pl.when(pl.col("phase_cycles") > 0).then(work / phase).otherwise(0.0).alias("average_active_tiles"),
        (work / pl.col("sample_count").cast(pl.Float64)).alias("mean_cycles"),
    ]


def longest(lf: pl.LazyFrame, n: int, *, clipped: bool = False) -> pl.LazyFrame:
    """The `n` longest samples: duration desc, tile asc, offset asc, file order.

    For a clipped frame (`ipu_nb._query.window.clip_to_window`) "longest" means the
    most cycles inside the window: ordered by the clipped duration, reported with the
    sample's own offset and duration and the clipped length as ``clipped_cycles``.
    """
    offset, duration = ("_full_offset", "_full_duration") if clipped else ("offset", "duration")
    inside = [pl.col("duration").cast(pl.Int64).alias("clipped_cycles")] if clipped else []
    return (
        lf.sort(["duration", "tile", offset, "sample"], descending=[True, False, False, False])
        .head(n)
        .select(
            "sample",
            "tile",
            pl.col(offset).alias("offset"),
            pl.col(duration).alias("duration"),
            *inside,
            "phase",
            "epoch",
            pl.col("kind").cast(pl.String),
            pl.col("operation").cast(pl.String),
            pl.col("kernel").cast(pl.String),
        )
    )


def empty_samples(*, clipped: bool = False) -> pl.DataFrame:
    """`QueryResult.samples` with no rows (``samples=0``), with ``clipped_cycles`` for a clipped query."""
    return pl.DataFrame(
        schema={
            "sample": pl.UInt32,
            "tile": pl.UInt32,
            "offset": pl.UInt64,
            "duration": pl.UInt32,
            **({"clipped_cycles": pl.Int64} if clipped else {}),
            "phase": pl.UInt32,
            "epoch": pl.UInt32,
            "kind": pl.String,
            "operation": pl.String,
            "kernel": pl.String,
            "metadata": pl.List(PAIR),
        }
    )
