"""`supersteps()`: one row per (phase, epoch), its span, its critical tile and what balancing would recover.

An IPU runs in bulk-synchronous supersteps: a phase lasts as long as its slowest tile.
Per (phase, epoch) with a matching sample, this module measures the span (the union of
the matching intervals, the query core's phaseCycles), each tile's busy cycles (summed
durations), the busiest tile and the mean over the tiles present.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._query import KINDS, Query
from .intervals import union_lengths
from .source import filter_query, matching

if TYPE_CHECKING:
    from .._profile import Profile

__all__ = ["STEP", "Measured", "balance", "measure", "ms_values", "supersteps", "tile_sums"]

#: A superstep's key.
STEP = ("phase", "epoch")
#: Per-kind work columns, in the order `KINDS` lists the kinds (also the tie order of `dominant_kind`).
KIND_COLUMNS = tuple(f"{kind}_cycles" for kind in KINDS)

_SCHEMA = {
    "phase": pl.UInt32,
    "epoch": pl.UInt32,
    "start": pl.Int64,
    "end": pl.Int64,
    "span_cycles": pl.Int64,
    "span_ms": pl.Float64,
    "sample_count": pl.Int64,
    "tile_count": pl.Int64,
    "critical_tile": pl.UInt32,
    "critical_cycles": pl.Int64,
    "mean_tile_cycles": pl.Float64,
    "recoverable_cycles": pl.Float64,
    "recoverable_ms": pl.Float64,
    "imbalance": pl.Float64,
    "work_cycles": pl.Int64,
    **dict.fromkeys(KIND_COLUMNS, pl.Int64),
    "dominant_kind": pl.String,
    "dominant_kernel": pl.String,
    "dominant_kernel_cycles": pl.Int64,
    "dominant_operation": pl.String,
    "dominant_operation_cycles": pl.Int64,
}


def ms_values(cycles: pl.Series, clock_hz: int) -> pl.Series:
    """``(cycles × 1000.0) / clockHz`` element by element (SPEC §4's order), 0.0 when clockHz is 0."""
    values = cycles.cast(pl.Float64).to_numpy()
    ms = (values * 1000.0) / float(clock_hz) if clock_hz else np.zeros(len(values))
    return pl.Series(cycles.name, ms, pl.Float64)


def kind_rank() -> pl.Expr:
    """The position of ``kind`` in `KINDS` (Int64): the order of the kind columns and of ties."""
    return pl.col("kind").cast(pl.String).replace_strict(list(KINDS), list(range(len(KINDS))), return_dtype=pl.Int64)


def tile_sums(m: pl.LazyFrame, keys: tuple[str, ...]) -> pl.LazyFrame:
    """Per (keys, tile): ``cycles``, the tile's summed durations, and its logical ``tile_index``."""
    return m.group_by(*keys, "tile").agg(
        cycles=pl.col("duration").cast(pl.Int64).sum(), tile_index=pl.col("tile_index").min()
    )


def balance(per_tile: pl.LazyFrame, keys: tuple[str, ...]) -> pl.LazyFrame:
    """Per `keys`, from per-tile sums: the critical tile and what balancing over the tiles present recovers.

    ``critical_tile`` has the largest sum (ties: the smallest physical id);
    ``mean_tile_cycles`` = work ÷ tiles; ``recoverable_cycles`` = critical − mean;
    ``imbalance`` = critical ÷ mean, 1.0 when every tile is at zero.
    """
    critical = pl.col("cycles").max()
    grouped = per_tile.group_by(*keys).agg(
        tile_count=pl.len().cast(pl.Int64),
        critical_tile=pl.col("tile").filter(pl.col("cycles") == critical).min(),
        critical_cycles=critical,
        work_cycles=pl.col("cycles").sum(),
    )
    mean = pl.col("work_cycles").cast(pl.Float64) / pl.col("tile_count").cast(pl.Float64)
    peak = pl.col("critical_cycles").cast(pl.Float64)
    return grouped.with_columns(mean_tile_cycles=mean).with_columns(
        recoverable_cycles=peak - pl.col("mean_tile_cycles"),
        imbalance=pl.when(pl.col("critical_cycles") > 0).then(peak / pl.col("mean_tile_cycles")).otherwise(1.0),
    )


def _dominant(m: pl.LazyFrame, column: str, keys: tuple[str, ...] = STEP) -> pl.LazyFrame:
    """Per `keys`: the `column` value with the largest summed duration (ties: smallest in byte order)."""
    sums = m.group_by(*keys, column).agg(_cycles=pl.col("duration").cast(pl.Int64).sum())
    sums = sums.with_columns(pl.col(column).cast(pl.String))
    order = [pl.col("_cycles"), pl.col(column)]
    return sums.group_by(*keys).agg(
        pl.col(column).sort_by(order, descending=[True, False]).first().alias(f"dominant_{column}"),
        pl.col("_cycles").max().alias(f"dominant_{column}_cycles"),
    )


def _kinds(m: pl.LazyFrame) -> pl.LazyFrame:
    """Per superstep: samples, first start and last end, work per kind and the dominant kind.

    The dominant kind has the largest summed duration among the kinds present; ties go to
    the kind `KINDS` lists first.
    """
    end = pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)
    per_kind = m.group_by(*STEP, "kind").agg(
        _cycles=pl.col("duration").cast(pl.Int64).sum(),
        _count=pl.len().cast(pl.Int64),
        _start=pl.col("offset").cast(pl.Int64).min(),
        _end=end.max(),
    )
    per_kind = per_kind.with_columns(_rank=kind_rank())
    return per_kind.group_by(*STEP).agg(
        start=pl.col("_start").min(),
        end=pl.col("_end").max(),
        sample_count=pl.col("_count").sum(),
        **{f"{kind}_cycles": pl.col("_cycles").filter(pl.col("_rank") == i).sum() for i, kind in enumerate(KINDS)},
        dominant_kind=pl.col("kind")
        .cast(pl.String)
        .sort_by([pl.col("_cycles"), pl.col("_rank")], descending=[True, False])
        .first(),
    )


def step_key(m: pl.DataFrame) -> tuple[pl.Expr, int]:
    """A UInt64 id per (phase, epoch), ordered like (phase, epoch), and the bits it needs."""
    top_epoch = int(m.get_column("epoch").max() or 0)
    top_phase = int(m.get_column("phase").max() or 0)
    epoch_bits = top_epoch.bit_length()
    key = pl.col("phase").cast(pl.UInt64) * 2**epoch_bits + pl.col("epoch").cast(pl.UInt64)
    return key, top_phase.bit_length() + epoch_bits


def spans(m: pl.DataFrame, start: pl.Expr, end: pl.Expr, value_bits: int, *, per_kind: bool = False) -> pl.LazyFrame:
    """Per superstep (and kind, if `per_kind`) of the rows of `m`: ``span_cycles``, the union of ``[start, end)``."""
    key, key_bits = step_key(m)
    keys = list(STEP)
    if per_kind:
        key, key_bits = key * 4 + kind_rank().cast(pl.UInt64), key_bits + 2
        keys.append("kind")
    rows = m.lazy().select(*keys, _part=key, _start=start, _end=end)
    parts = rows.select(*keys, "_part").unique("_part")
    lengths = union_lengths(rows.select("_part", "_start", "_end"), key_bits, value_bits)
    return parts.join(lengths, on="_part").select(*keys, span_cycles="union_cycles")


def kind_spans(m: pl.DataFrame) -> pl.DataFrame:
    """Per (superstep, kind) present: the union of that kind's intervals (``supersteps(kind=K).span_cycles``)."""
    offset = pl.col("offset").cast(pl.Int64)
    return spans(m, offset, offset + pl.col("duration").cast(pl.Int64), 33, per_kind=True).collect()


@dataclass(frozen=True)
class Measured:
    """One profile's matching samples and their superstep structure, collected once for every analysis."""

    samples: pl.DataFrame  # the matching samples (source.matching)
    per_tile: pl.DataFrame  # per (phase, epoch, tile): cycles, tile_index
    steps: pl.DataFrame  # per superstep, in execution order: the `supersteps()` columns


def measure(profile: Profile, q: Query) -> Measured:
    """Collect the superstep structure of the samples matching `q` (one `collect_all`)."""
    m = matching(profile, q).collect()
    lazy = m.lazy()
    offset = pl.col("offset").cast(pl.Int64)
    span = spans(m, offset, offset + pl.col("duration").cast(pl.Int64), 33)  # offset < 2**32, duration < 2**32
    per_tile = tile_sums(lazy, STEP)
    per_tile_frame, balanced, kinds, kernels, operations, span_frame = pl.collect_all(
        [
            per_tile,
            balance(per_tile, STEP),
            _kinds(lazy),
            _dominant(lazy, "kernel"),
            _dominant(lazy, "operation"),
            span,
        ]
    )
    steps = (
        kinds.join(span_frame, on=STEP)
        .join(balanced, on=STEP)
        .join(kernels, on=STEP)
        .join(operations, on=STEP)
        .sort("start", *STEP)
    )
    steps = steps.with_columns(
        span_ms=ms_values(steps.get_column("span_cycles"), profile.clock_hz),
        recoverable_ms=ms_values(steps.get_column("recoverable_cycles"), profile.clock_hz),
    )
    steps = steps.select(pl.col(name).cast(dtype) for name, dtype in _SCHEMA.items())
    return Measured(samples=m, per_tile=per_tile_frame, steps=steps)


def supersteps(profile: Profile, query: Query | None = None, **filters: Any) -> pl.DataFrame:
    """One row per superstep (phase, epoch) with a matching sample, in execution order.

    Execution order is by ``start`` (the superstep's smallest matching offset), then
    ``phase``, then ``epoch``. Offsets are per tile (SPEC §2), so tiles' counter skews
    make supersteps overlap slightly; the spans are measured in the same offsets.

    Parameters
    ----------
    profile : Profile
        An opened profile.
    query : Query, optional
        Its filters are used (grouping, sorting and limits are ignored).
    **filters
        As in `ipu_nb.query`: ``kind``, ``kernel``, ``operation_contains``, ``tiles``,
        ``phases``, ``metadata``, ``at``; they override ``query``'s.

    Returns
    -------
    pl.DataFrame
        ``phase``, ``epoch``; ``start`` / ``end`` (first matching offset, last matching
        offset + duration); ``span_cycles`` (union length of the matching intervals: the
        phaseCycles `query(group_by="phase")` reports) and ``span_ms``;
        ``sample_count``, ``tile_count`` (tiles with a matching sample);
        ``critical_tile`` (largest summed duration, ties to the smallest physical id)
        and ``critical_cycles``; ``mean_tile_cycles`` (mean of the per-tile sums);
        ``recoverable_cycles`` = critical − mean (and ``recoverable_ms``);
        ``imbalance`` = critical ÷ mean (1.0 when every tile is at zero);
        ``work_cycles`` and its split ``compute_cycles``, ``exchange_cycles``,
        ``synchronization_cycles``, ``idle_cycles``; ``dominant_kind``;
        ``dominant_kernel`` / ``dominant_operation`` (largest summed duration, ties to
        the smallest string in byte order; the empty kernel is ``""``) and their cycles.

    Raises
    ------
    QueryError
        A keyword that is not a filter, or a bad filter value.

    Examples
    --------
    >>> steps = ipu_nb.supersteps(profile, kind="compute")  # doctest: +SKIP
    >>> steps.sort("recoverable_cycles", descending=True).head(5)  # doctest: +SKIP
    """
    return measure(profile, filter_query(query, **filters)).steps
