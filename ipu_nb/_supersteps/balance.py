"""`tile_balance()`: per physical tile, how often it held a superstep back and how much it waited."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from .._query import KINDS, Filters, Query
from .._query.signature import keyword_signature
from .source import filter_query
from .structure import KIND_COLUMNS, Measured, measure

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile

__all__ = ["balance_of", "tile_balance"]

_SCHEMA = {
    "tile": pl.UInt32,
    "tile_index": pl.UInt32,
    "phase_count": pl.Int64,
    "critical_count": pl.Int64,
    "critical_share": pl.Float64,
    "recoverable_cycles": pl.Float64,
    "busy_cycles": pl.Int64,
    "span_cycles": pl.Int64,
    "busy_share": pl.Float64,
    "slack_cycles": pl.Int64,
    **dict.fromkeys(KIND_COLUMNS, pl.Int64),
}


def balance_of(measured: Measured) -> pl.DataFrame:
    """The `tile_balance` frame of already measured supersteps."""
    steps = measured.steps.select("_step", "critical_tile", "critical_cycles", "span_cycles", "recoverable_cycles")
    joined = measured.per_tile.lazy().join(steps.lazy(), on="_step")
    is_critical = pl.col("tile") == pl.col("critical_tile")
    per_tile = joined.group_by("tile").agg(
        phase_count=pl.len().cast(pl.Int64),
        critical_count=is_critical.sum().cast(pl.Int64),
        recoverable_cycles=pl.col("recoverable_cycles").filter(is_critical).sum(),
        busy_cycles=pl.col("cycles").sum(),
        span_cycles=pl.col("span_cycles").sum(),
        slack_cycles=(pl.col("critical_cycles") - pl.col("cycles")).sum(),
    )
    kinds = (
        measured.samples.lazy()
        .group_by("tile")
        .agg(
            pl.col("tile_index").min(),
            *(
                pl.col("duration").cast(pl.Int64).filter(pl.col("kind") == kind).sum().alias(f"{kind}_cycles")
                for kind in KINDS
            ),
        )
    )
    total = max(measured.steps.height, 1)
    busy = pl.col("busy_cycles").cast(pl.Float64)
    frame = (
        per_tile.join(kinds, on="tile")
        .with_columns(
            busy_share=pl.when(pl.col("span_cycles") > 0)
            .then(busy / pl.col("span_cycles").cast(pl.Float64))
            .otherwise(0.0),
        )
        .sort(["critical_count", "tile"], descending=[True, False])
        .collect()
    )
    # numpy divides element by element; polars may multiply by the reciprocal of a scalar.
    share = frame.get_column("critical_count").to_numpy().astype("float64") / float(total)
    frame = frame.with_columns(critical_share=pl.Series(share, dtype=pl.Float64))
    return frame.select(pl.col(name).cast(dtype) for name, dtype in _SCHEMA.items())


@keyword_signature(Filters)
def tile_balance(profile: Profile, query: Query | None = None, **filters: Unpack[Filters]) -> pl.DataFrame:
    """Per physical tile with a matching sample: how often it was critical, its slack, its busy share.

    Over the supersteps of ``supersteps(profile, query, **filters)``, and only the
    tile's matching samples:

    - ``phase_count``: supersteps in which the tile has a matching sample;
    - ``critical_count``: supersteps whose ``critical_tile`` it is, and
      ``critical_share`` = that ÷ all supersteps of the table;
    - ``recoverable_cycles``: Σ ``recoverable_cycles`` of the supersteps it is critical in
      (what balancing them would save: the cost of this tile as a straggler);
    - ``busy_cycles``: Σ of its durations; ``span_cycles``: Σ ``span_cycles`` of the
      supersteps it has samples in; ``busy_share`` = busy ÷ span (0.0 for a zero span;
      above 1 only if the tile's own samples overlap in time);
    - ``slack_cycles``: Σ over those supersteps of (``critical_cycles`` − its own sum):
      how long it waited for the critical tile, in total;
    - ``compute_cycles`` … ``idle_cycles``: its busy cycles per kind;
    - ``tile_index``: its logical index (position of its first entry in the file).

    Rows are ordered by ``critical_count`` descending, then ``tile`` ascending.

    Raises
    ------
    QueryError
        A keyword that is not a filter, or a bad filter value.
    """
    return balance_of(measure(profile, filter_query(query, **filters)))
