"""Totals of each side and the attribution of the total phase-cycle delta to groups, reconciling exactly.

Rule (docs/reference/compare.md#attribution):

- A side's **total phase cycles** is Σ over its (phase, epoch) pairs of the union length
  of every matching sample's interval: the sum of ``query(group_by="phase",
  limit=0)``'s phase cycles, the serialized graph-time estimate under the filters.
- A group's **contribution** is its ``phase_cycles_delta`` (after − before, an absent
  side counting as 0).
- A side's **overlap** is Σ of its groups' phase cycles − its total: the cycles that
  more than one group covers in the same phase (groups running side by side on
  different tiles, or interleaved on one). It is never negative, since every matching
  sample is in exactly one group and a union is at most the sum of its parts.
- The **overlap term** of the delta is overlap before − overlap after. Then, exactly,
  in integers: Σ contributions + overlap term = total after − total before.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

__all__ = ["TERMS", "SideTotals", "attribution_table", "side_totals"]

#: Kinds of attribution row: one group, the groups folded together beyond a limit, the overlap term.
TERMS: tuple[str, ...] = ("group", "other", "overlap")
OVERLAP_NAME = "(overlap)"


@dataclass(frozen=True)
class SideTotals:
    """One side's totals: ``phase_cycles`` (per-phase unions summed), ``group_phase_cycles`` (groups' summed)."""

    phase_cycles: int
    group_phase_cycles: int

    @property
    def overlap_cycles(self) -> int:
        """Cycles counted by more than one group in the same phase (≥ 0)."""
        return self.group_phase_cycles - self.phase_cycles


def _sum(frame: pl.DataFrame, column: str) -> int:
    # Int64 is exact here: a side's cycles are at most 2^32 per sample, far below 2^63 in total.
    return int(frame.get_column(column).sum())


def side_totals(by_groups: pl.DataFrame, phase_groups: pl.DataFrame) -> SideTotals:
    """Totals from one side's `query()` groups: all groups by the compared key, and all groups by phase."""
    return SideTotals(
        phase_cycles=_sum(phase_groups, "phase_cycles"), group_phase_cycles=_sum(by_groups, "phase_cycles")
    )


def attribution_table(groups: pl.DataFrame, overlap_term: int, limit: int = 0) -> pl.DataFrame:
    """The delta's terms in waterfall order: groups (comparison order), then the rest folded, then overlap.

    ``groups`` is a comparison's groups table; ``limit`` > 0 keeps that many groups and
    folds the others into one ``other`` row named ``(N other groups)``. Columns:
    ``name``, ``term`` (group, other, overlap), ``status`` (null except for groups),
    ``cycles`` (the term's contribution), ``start`` and ``end`` (the running total before
    and after it, from 0; the last ``end`` is the total delta).
    """
    shown = groups if not limit or groups.height <= limit else groups.head(limit)
    rows = shown.select(
        "name",
        term=pl.lit("group"),
        status=pl.col("status").cast(pl.String),
        cycles=pl.col("phase_cycles_delta"),
    )
    tail: list[dict[str, object]] = []
    rest = groups.height - shown.height
    if rest:
        folded = _sum(groups.tail(rest), "phase_cycles_delta")
        tail.append({"name": f"({rest} other groups)", "term": "other", "status": None, "cycles": folded})
    tail.append({"name": OVERLAP_NAME, "term": "overlap", "status": None, "cycles": overlap_term})
    schema = pl.Schema({"name": pl.String(), "term": pl.String(), "status": pl.String(), "cycles": pl.Int64()})
    rows = pl.concat([rows.cast(schema), pl.DataFrame(tail, schema=schema)])
    end = pl.col("cycles").cum_sum()
    return rows.with_columns(
        term=pl.col("term").cast(pl.Enum(TERMS)),
        start=end - pl.col("cycles"),
        end=end,
    )
