"""`supersteps()`: one row per (phase, epoch), its span, its critical tile and what balancing would recover.

An IPU runs in bulk-synchronous supersteps: a phase lasts as long as its slowest tile.
Per (phase, epoch) with a matching sample, this module measures the span (the union of
the matching intervals, the query core's phaseCycles), each tile's busy cycles (summed
durations), the busiest tile and the mean over the tiles present.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from .._model.index import int_extreme
from .._query import KINDS, Filters, Query
from .._query.intervals import union_lengths
from .._query.signature import keyword_signature
from .source import filter_query, matching

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile

__all__ = ["STEP", "Measured", "balance", "keyed", "measure", "ms_values", "spans", "supersteps", "tile_sums"]

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
    """``(cycles × 1000.0) / clockHz`` element by element, 0.0 when clockHz is 0.

    The operation order: docs/reference/format.md#milliseconds.
    """
    values = cycles.cast(pl.Float64).to_numpy()
    ms = (values * 1000.0) / float(clock_hz) if clock_hz else np.zeros(len(values))
    return pl.Series(cycles.name, ms, pl.Float64)


def kind_rank() -> pl.Expr:
    """The position of ``kind`` in `KINDS` (Int64): the order of the kind columns and of ties."""
    return pl.col("kind").cast(pl.String).replace_strict(list(KINDS), list(range(len(KINDS))), return_dtype=pl.Int64)


@dataclass(frozen=True)
class Keys:
    """How keyed samples pack their ids: ``_cell`` = ``_step`` · 2^tile_bits + tile."""

    step_bits: int
    tile_bits: int


def keyed(m: pl.DataFrame) -> tuple[pl.DataFrame, Keys]:
    """`m` with ``_step`` (UInt64, one id per (phase, epoch)) and ``_cell`` (UInt64, one per (phase, epoch, tile)).

    Group-bys on one integer column are several times faster than on three. The step id
    packs (phase, epoch) when phase, epoch and tile bits fit in 64, else it is a dense
    index of the distinct pairs.
    """

    def bits(column: str) -> int:
        return int_extreme(m.get_column(column)).bit_length()

    tile_bits, phase_bits, epoch_bits = bits("tile"), bits("phase"), bits("epoch")
    if phase_bits + epoch_bits + tile_bits <= 64:
        m = m.with_columns(_step=pl.col("phase").cast(pl.UInt64) * 2**epoch_bits + pl.col("epoch").cast(pl.UInt64))
        step_bits = phase_bits + epoch_bits
    else:
        ids = m.select(STEP).unique().with_row_index("_step").with_columns(pl.col("_step").cast(pl.UInt64))
        m = m.join(ids, on=STEP, how="left", maintain_order="left")
        step_bits = ids.height.bit_length()
    m = m.with_columns(_cell=pl.col("_step") * 2**tile_bits + pl.col("tile").cast(pl.UInt64))
    return m, Keys(step_bits, tile_bits)


def tile_sums(m: pl.LazyFrame, keys: Keys, by: tuple[str, ...] = ()) -> pl.LazyFrame:
    """Per (by, superstep, tile) of keyed samples: ``cycles``, the summed durations, with ``_step`` and ``tile``."""
    sums = m.group_by(*by, "_cell").agg(cycles=pl.col("duration").cast(pl.Int64).sum())
    return sums.with_columns(**_cell_parts(keys))


def _cell_parts(keys: Keys) -> dict[str, pl.Expr]:
    """``_step`` and ``tile`` unpacked from ``_cell``."""
    return {
        "_step": pl.col("_cell") // 2**keys.tile_bits,
        "tile": (pl.col("_cell") % 2**keys.tile_bits).cast(pl.UInt32),
    }


#: Widest packed ``_cell`` counted with a dense numpy table (2**24 cells: 128 MiB of float64 sums at most).
_DENSE_CELL_BITS = 24
#: Integers below this add exactly in float64.
_EXACT_FLOAT = 2**53


def _collected_tile_sums(m: pl.DataFrame, keys: Keys) -> pl.DataFrame:
    """`tile_sums` of collected keyed samples, with a dense count by cell when the packed cells are few.

    ``np.bincount`` adds in float64, exactly when the total duration is below 2**53 (every
    partial sum is then an integer below it); otherwise, and for wide cells, the polars group-by.
    Rows are in ``_cell`` order.
    """
    durations = m.get_column("duration").to_numpy()
    if keys.step_bits + keys.tile_bits > _DENSE_CELL_BITS or int(durations.sum(dtype=np.uint64)) >= _EXACT_FLOAT:
        return tile_sums(m.lazy(), keys).collect()
    cells = m.get_column("_cell").to_numpy().astype(np.int64)
    present = np.flatnonzero(np.bincount(cells))
    cycles = np.bincount(cells, weights=durations)[present].astype(np.int64)
    frame = pl.DataFrame({"_cell": pl.Series(present, dtype=pl.UInt64), "cycles": pl.Series(cycles, dtype=pl.Int64)})
    return frame.with_columns(**_cell_parts(keys))


def balance(per_tile: pl.LazyFrame, by: tuple[str, ...] = ()) -> pl.LazyFrame:
    """Per (by, superstep), from per-tile sums: the critical tile and what balancing over the tiles present recovers.

    ``critical_tile`` has the largest sum (ties: the smallest physical id);
    ``mean_tile_cycles`` = work ÷ tiles; ``recoverable_cycles`` = critical − mean;
    ``imbalance`` = critical ÷ mean, 1.0 when every tile is at zero.
    """
    critical = pl.col("cycles").max()
    grouped = per_tile.group_by(*by, "_step").agg(
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


def _dominant(m: pl.LazyFrame, column: str) -> pl.LazyFrame:
    """Per superstep: the `column` value with the largest summed duration (ties: smallest in byte order)."""
    sums = m.group_by("_step", column).agg(_cycles=pl.col("duration").cast(pl.Int64).sum())
    sums = sums.with_columns(pl.col(column).cast(pl.String))
    order = [pl.col("_cycles"), pl.col(column)]
    return sums.group_by("_step").agg(
        pl.col(column).sort_by(order, descending=[True, False]).first().alias(f"dominant_{column}"),
        pl.col("_cycles").max().alias(f"dominant_{column}_cycles"),
    )


def _kinds(m: pl.LazyFrame) -> pl.LazyFrame:
    """Per superstep: phase and epoch, samples, first start and last end, work per kind, the dominant kind.

    The dominant kind has the largest summed duration among the kinds present; ties go to
    the kind `KINDS` lists first.
    """
    end = pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)
    per_kind = m.group_by("_step", "kind").agg(
        phase=pl.col("phase").first(),
        epoch=pl.col("epoch").first(),
        _cycles=pl.col("duration").cast(pl.Int64).sum(),
        _count=pl.len().cast(pl.Int64),
        _start=pl.col("offset").cast(pl.Int64).min(),
        _end=end.max(),
    )
    per_kind = per_kind.with_columns(_rank=kind_rank())
    return per_kind.group_by("_step").agg(
        phase=pl.col("phase").first(),
        epoch=pl.col("epoch").first(),
        start=pl.col("_start").min(),
        end=pl.col("_end").max(),
        sample_count=pl.col("_count").sum(),
        **{f"{kind}_cycles": pl.col("_cycles").filter(pl.col("_rank") == i).sum() for i, kind in enumerate(KINDS)},
        dominant_kind=pl.col("kind")
        .cast(pl.String)
        .sort_by([pl.col("_cycles"), pl.col("_rank")], descending=[True, False])
        .first(),
    )


def spans(
    m: pl.DataFrame, start: pl.Expr, end: pl.Expr, keys: Keys, value_bits: int, *, per_kind: bool = False
) -> pl.LazyFrame:
    """Per superstep (and kind, if `per_kind`) of keyed rows: ``span_cycles``, the union of ``[start, end)``."""
    part, part_bits, columns = pl.col("_step"), keys.step_bits, ["_step"]
    if per_kind:
        kind = pl.col("kind").to_physical() if isinstance(m.schema["kind"], pl.Enum) else kind_rank()
        part, part_bits, columns = part * 4 + kind.cast(pl.UInt64), part_bits + 2, ["_step", "kind"]
    rows = m.lazy().select(*columns, _part=part, _start=start, _end=end)
    lengths = union_lengths(rows.select("_part", "_start", "_end"), part_bits, value_bits)
    if not per_kind:  # the partition is the step itself
        return lengths.select(_step="_part", span_cycles="union_cycles")
    parts = rows.select(*columns, "_part").unique("_part")
    return parts.join(lengths, on="_part").select(*columns, span_cycles="union_cycles")


def _offsets() -> tuple[pl.Expr, pl.Expr]:
    offset = pl.col("offset").cast(pl.Int64)
    return offset, offset + pl.col("duration").cast(pl.Int64)


#: offset < 2**32 and duration < 2**32, so offset + duration < 2**33.
_END_BITS = 33


@dataclass(frozen=True)
class Measured:
    """One profile's matching samples and their superstep structure, collected once for every analysis."""

    samples: pl.DataFrame  # the matching samples (source.matching), keyed: ``_step``, ``_cell``
    keys: Keys  # how ``_step`` and ``_cell`` are packed
    per_tile: pl.DataFrame  # per (superstep, tile): ``_cell``, ``cycles``, ``_step``, ``tile``
    steps: pl.DataFrame  # per superstep, in execution order: the `supersteps()` columns, then ``_step``

    def kind_spans(self, kinds: tuple[str, ...] = KINDS) -> pl.DataFrame:
        """Per (superstep, kind) present, of `kinds`: the union of its intervals (``supersteps(kind=K)`` spans)."""
        samples = self.samples
        if set(kinds) != set(KINDS):
            samples = samples.filter(pl.col("kind").is_in(kinds))
        return spans(samples, *_offsets(), self.keys, _END_BITS, per_kind=True).collect()


def _bounds(m: pl.LazyFrame) -> pl.LazyFrame:
    """Per superstep: phase, epoch, first start, last end and samples (the light form of `_kinds`)."""
    return m.group_by("_step").agg(
        phase=pl.col("phase").first(),
        epoch=pl.col("epoch").first(),
        start=pl.col("offset").cast(pl.Int64).min(),
        end=(pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)).max(),
        sample_count=pl.len().cast(pl.Int64),
    )


def measure(profile: Profile, q: Query, *, detail: bool = True) -> Measured:
    """Collect the superstep structure of the samples matching `q` (one `collect_all`).

    Without `detail`, the steps lack the per-kind work and the dominant kind, kernel and
    operation (what-if does not need them).
    """
    m, keys = keyed(matching(profile, q).collect())
    lazy = m.lazy()
    per_tile_frame = _collected_tile_sums(m, keys)
    plans = [balance(per_tile_frame.lazy()), spans(m, *_offsets(), keys, _END_BITS)]
    plans += [_kinds(lazy), _dominant(lazy, "kernel"), _dominant(lazy, "operation")] if detail else [_bounds(lazy)]
    balanced, span_frame, *described = pl.collect_all(plans)
    steps = described[0].join(span_frame, on="_step").join(balanced, on="_step")
    for more in described[1:]:
        steps = steps.join(more, on="_step")
    steps = steps.sort("start", *STEP)
    steps = steps.with_columns(
        span_ms=ms_values(steps.get_column("span_cycles"), profile.clock_hz),
        recoverable_ms=ms_values(steps.get_column("recoverable_cycles"), profile.clock_hz),
    )
    columns = [pl.col(name).cast(dtype) for name, dtype in _SCHEMA.items() if name in steps.columns]
    steps = steps.select(*columns, pl.col("_step"))
    return Measured(samples=m, keys=keys, per_tile=per_tile_frame, steps=steps)


@keyword_signature(Filters)
def supersteps(profile: Profile, query: Query | None = None, **filters: Unpack[Filters]) -> pl.DataFrame:
    """One row per superstep (phase, epoch) with a matching sample, in execution order.

    Execution order is by ``start`` (the superstep's smallest matching offset), then
    ``phase``, then ``epoch``. Offsets are per tile (docs/reference/format.md#offsets-and-durations),
    so tiles' counter skews make supersteps overlap slightly; the spans are measured in the same offsets.

    Parameters
    ----------
    profile : Profile
        An opened profile.
    query : Query, optional
        Its filters are used (grouping, sorting and limits are ignored).
    **filters
        As in `ipu_nb.query`: ``kind``, ``kernel``, ``operation``, ``operation_contains``,
        ``tiles``, ``phases``, ``metadata``, ``at``, ``window``; they override ``query``'s.

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
    >>> steps = ipu_nb.supersteps(profile, kind="compute")
    >>> worst = steps.sort("recoverable_cycles", descending=True).head(3)
    >>> worst.select("phase", "span_cycles", "critical_tile").rows()
    [(3, 44952, 386), (9, 44923, 386), (5, 44207, 386)]
    """
    return measure(profile, filter_query(query, **filters)).steps.drop("_step")
