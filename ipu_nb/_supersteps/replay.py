"""`what_if()`: the supersteps' spans if some kernels ran `factor` times as long.

The model (docs/reference/supersteps.md#what-if-model): each superstep is replayed on
its own. On every tile, the matching samples of the superstep keep their order and the
gaps between them; a sample of a scaled kernel lasts round(duration × factor) cycles
(halves to even) and every later sample of that tile in that superstep moves by the
change. The superstep then lasts the union length of the replayed intervals: when
each tile has one interval, from the earliest start to the end of the slowest tile.
The total is the sum over the supersteps, as supersteps run one after another.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._query import Filters, Query, QueryError
from .._query.signature import keyword_signature
from .source import filter_query
from .structure import STEP, Keys, balance, measure, spans, tile_sums

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile

__all__ = ["WhatIf", "what_if"]

_COLUMNS = {
    "phase": pl.UInt32,
    "epoch": pl.UInt32,
    "start": pl.Int64,
    "span_cycles": pl.Int64,
    "estimated_cycles": pl.Int64,
    "saved_cycles": pl.Int64,
    "scaled_samples": pl.Int64,
    "critical_tile": pl.UInt32,
    "critical_cycles": pl.Int64,
    "estimated_critical_tile": pl.UInt32,
    "estimated_critical_cycles": pl.Int64,
}


@dataclass(frozen=True, eq=False)
class WhatIf:
    """The answer of `what_if`: per-superstep and total cycles, measured and estimated.

    Attributes
    ----------
    scale : dict[str, float]
        Kernel name → duration factor, as validated.
    query : Query
        The filters the supersteps were measured with.
    supersteps : pl.DataFrame
        In `supersteps()` order: ``phase``, ``epoch``, ``start``, ``span_cycles``
        (measured), ``estimated_cycles``, ``saved_cycles`` (measured − estimated; negative
        when slower), ``scaled_samples``, and the measured and estimated critical tile
        and its cycles (``estimated_critical_*``: largest replayed per-tile sum).
    measured_cycles, estimated_cycles : int
        Σ of the per-superstep columns.
    clock_hz : int
    """

    scale: dict[str, float]
    query: Query
    supersteps: pl.DataFrame
    measured_cycles: int
    estimated_cycles: int
    clock_hz: int

    @property
    def saved_cycles(self) -> int:
        """Measured − estimated total (negative when the change makes the run slower)."""
        return self.measured_cycles - self.estimated_cycles

    @property
    def speedup(self) -> float:
        """Measured ÷ estimated total (1.0 when both are zero; inf when the estimate is zero)."""
        if self.estimated_cycles == 0:
            return 1.0 if self.measured_cycles == 0 else math.inf
        return self.measured_cycles / self.estimated_cycles

    def ms(self, cycles: int | float) -> float:
        """Cycles to milliseconds at the profile's clock (0.0 when clockHz is 0)."""
        return (cycles * 1000.0) / self.clock_hz if self.clock_hz else 0.0

    def __repr__(self) -> str:
        factors = ", ".join(f"{k!r}: {v:g}" for k, v in self.scale.items())
        return (
            f"<WhatIf {{{factors}}}: {self.measured_cycles:,} → {self.estimated_cycles:,} cycles "
            f"over {self.supersteps.height} supersteps (saves {self.saved_cycles:,}, ×{self.speedup:.4f})>"
        )


#: Replayed timelines stay below this many cycles, so every sum of cycles is an exact Int64.
_LONGEST = float(2**62)


def _close_matches(name: str, kernels: list[str]) -> list[str]:
    folded = name.casefold()
    containing = [k for k in kernels if folded and folded in k.casefold()]
    similar = difflib.get_close_matches(name, kernels, n=5, cutoff=0.6)
    return list(dict.fromkeys(containing + similar))[:5]


def _validated_scale(profile: Profile, scale: Any) -> dict[str, float]:
    """``scale`` as {kernel: float}, every kernel one of the profile's, every factor finite and ≥ 0."""
    if not isinstance(scale, Mapping):
        raise QueryError(f"scale must be a mapping of kernel name to factor, got {type(scale).__name__}")
    kernels = sorted(profile.samples.get_column("kernel").cast(pl.String).unique().to_list())
    known = set(kernels)
    out: dict[str, float] = {}
    for name, factor in scale.items():
        if not isinstance(name, str):
            raise QueryError(f"scale keys must be kernel names (strings), got {name!r}")
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)):
            raise QueryError(f"scale[{name!r}] must be a number, got {factor!r}")
        factor = float(factor)
        if not math.isfinite(factor) or factor < 0:
            raise QueryError(f"scale[{name!r}] must be a finite number >= 0, got {factor!r}")
        if name not in known:
            close = _close_matches(name, kernels)
            if close:
                hint = "did you mean " + ", ".join(map(repr, close)) + "?"
            else:
                shown = ", ".join(map(repr, kernels[:10]))
                hint = f"the profile's kernels are {shown}" + (f" ({len(kernels)} in all)" if len(kernels) > 10 else "")
            if name == "(no kernel)" and "" in known:
                hint += " (samples without a kernel have the kernel '')"
            raise QueryError(f"unknown kernel {name!r} in scale; {hint}")
        out[name] = factor
    return out


def _earlier_changes(rows: pl.DataFrame, delta: np.ndarray) -> np.ndarray:
    """Per row: Σ `delta` of the earlier rows (in row order) of the same superstep and tile (``_cell``)."""
    cells = rows.get_column("_cell").to_numpy()
    order = np.argsort(cells, kind="stable")  # stable: each cell keeps its rows' order
    ordered = cells[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    changes = delta[order]
    total = np.cumsum(changes)
    start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
    earlier = total - changes - (total[start] - changes[start])
    out = np.empty_like(earlier)
    out[order] = earlier
    return out


def _replay(rows: pl.DataFrame, keys: Keys, scale: dict[str, float]) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Per affected superstep: the replayed span, and the replayed per-tile sums' balance.

    `rows` are the keyed matching samples of the affected supersteps; execution order on
    a tile is sample (file) order.
    """
    ids = rows.get_column("sample").to_numpy()
    if len(ids) > 1 and not bool(np.all(ids[1:] > ids[:-1])):
        rows = rows.sort("sample")
    factor = pl.lit(1.0)
    for name, value in scale.items():
        factor = pl.when(pl.col("kernel") == name).then(pl.lit(value)).otherwise(factor)
    flags = rows.select(_factor=factor, _scaled=pl.col("kernel").is_in(list(scale)))
    duration = rows.get_column("duration").to_numpy().astype(np.int64)
    exact = duration.astype(np.float64) * flags.get_column("_factor").to_numpy()
    offset = rows.get_column("offset").to_numpy().astype(np.int64)
    if float(exact.sum()) + float(offset.max(initial=0)) >= _LONGEST:
        raise QueryError(f"scale {scale} stretches the supersteps beyond {_LONGEST:.3g} cycles; use smaller factors")
    new = np.where(flags.get_column("_scaled").to_numpy(), np.rint(exact).astype(np.int64), duration)
    begin = offset + _earlier_changes(rows, new - duration)
    begin -= min(int(begin.min(initial=0)), 0)  # a translation: union lengths do not change
    top = int((begin + new).max(initial=0))
    rows = rows.with_columns(_from=pl.Series(begin, dtype=pl.Int64), duration=pl.Series(new, dtype=pl.Int64))
    span = spans(rows, pl.col("_from"), pl.col("_from") + pl.col("duration"), keys, max(top.bit_length(), 1))
    return span, balance(tile_sums(rows.lazy(), keys))


@keyword_signature(Filters)
def what_if(
    profile: Profile, scale: Mapping[str, float], query: Query | None = None, **filters: Unpack[Filters]
) -> WhatIf:
    """Estimate every superstep's cycles if the named kernels' samples took ``factor`` times as long.

    Parameters
    ----------
    profile : Profile
    scale : mapping of str to float
        Exact kernel name (as in the ``kernel`` filter; ``""`` for samples without one)
        → factor ≥ 0: 0.8 is "20% faster", 2 "twice as slow", 0 "gone".
    query, **filters
        The supersteps to model, as in `supersteps()` (default: every sample).

    Returns
    -------
    WhatIf
        Per-superstep and total cycles, measured and estimated. With every factor at 1
        the estimate is the measurement, superstep by superstep.

    Raises
    ------
    QueryError
        A kernel the profile does not have (with close matches), a factor that is not a
        finite number ≥ 0, or a bad filter.

    Examples
    --------
    >>> result = ipu_nb.what_if(profile, scale={"gemm_f32_accumulate_large_rows": 0.8})
    >>> result
    <WhatIf {'gemm_f32_accumulate_large_rows': 0.8}: 769,289 → 707,404 cycles over 16 supersteps (saves 61,885, ...)>
    >>> result.saved_cycles, round(result.speedup, 3)
    (61885, 1.087)
    """
    factors = _validated_scale(profile, scale)
    q = filter_query(query, **filters)
    measured = measure(profile, q, detail=False)
    steps = measured.steps.select("_step", *STEP, "start", "span_cycles", "critical_tile", "critical_cycles")
    rows = measured.samples
    counts = rows.lazy().filter(pl.col("kernel").is_in(list(factors))).group_by("_step").agg(scaled_samples=pl.len())
    counts_frame = counts.collect()
    steps = steps.join(counts_frame, on="_step", how="left", maintain_order="left")
    if counts_frame.height:
        affected = rows
        if counts_frame.height < steps.height:
            affected = rows.join(counts_frame.select("_step"), on="_step", how="semi", maintain_order="left")
        span, estimated = _replay(affected, measured.keys, factors)
        span_frame, estimated_frame = pl.collect_all([span, estimated])
        replayed = span_frame.rename({"span_cycles": "_replayed"}).join(
            estimated_frame.select(
                "_step", estimated_critical_tile="critical_tile", estimated_critical_cycles="critical_cycles"
            ),
            on="_step",
        )
        steps = steps.join(replayed, on="_step", how="left", maintain_order="left")
    else:
        steps = steps.with_columns(
            _replayed=pl.lit(None, pl.Int64),
            estimated_critical_tile=pl.lit(None, pl.UInt32),
            estimated_critical_cycles=pl.lit(None, pl.Int64),
        )
    table = (
        steps.with_columns(
            estimated_cycles=pl.coalesce("_replayed", "span_cycles"),
            estimated_critical_tile=pl.coalesce("estimated_critical_tile", "critical_tile"),
            estimated_critical_cycles=pl.coalesce("estimated_critical_cycles", "critical_cycles"),
            scaled_samples=pl.col("scaled_samples").fill_null(0),
        )
        .with_columns(saved_cycles=pl.col("span_cycles") - pl.col("estimated_cycles"))
        .select(pl.col(name).cast(dtype) for name, dtype in _COLUMNS.items())
    )
    return WhatIf(
        scale=factors,
        query=q,
        supersteps=table,
        measured_cycles=int(table.get_column("span_cycles").sum()),
        estimated_cycles=int(table.get_column("estimated_cycles").sum()),
        clock_hz=profile.clock_hz,
    )
