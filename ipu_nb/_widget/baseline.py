"""The widget's baseline: a second profile to compare the shown one with.

`comparison_of` runs `ipu_nb.compare` for the widget's filters and grouping (the alignment
is compare's, never redone here) and `group_deltas` turns its rows into the Δ columns of
the group table, one per row the table shows. `flame_deltas` gives each flame-graph node
its after − before cycles: a node's path (kind, kernel, phase number, operation, in the
tree's ``levels`` order) names the same samples in either profile, so the other side is
summed along the same paths.
"""

from __future__ import annotations

import os
from typing import Any

import polars as pl

from .._compare import Comparison, compare
from .._compare.align import check_clocks
from .._profile import Profile
from .._query import Query
from .._query.filters_codec import FILTER_KEYS
from .protocol import FlameTree, GroupDelta

__all__ = ["SHOWING", "baseline_profile", "comparison_of", "flame_deltas", "group_deltas"]

#: The values of ``ProfileWidget.showing``: the profile given first, or its baseline.
SHOWING: tuple[str, ...] = ("after", "baseline")


def baseline_profile(value: Any, after: Profile, *, allow_clock_mismatch: bool = False) -> Profile:
    """`value` (a Profile or a path) as the baseline of `after`, refused as `compare` refuses it.

    Raises
    ------
    TypeError
        Neither a Profile nor a path.
    ComparisonError
        The two clocks differ (without ``allow_clock_mismatch``): compare's own check and message.
    """
    if isinstance(value, (str, os.PathLike)):
        from .._profile import open_profile

        value = open_profile(os.fspath(value))
    if not isinstance(value, Profile):
        raise TypeError(
            "ProfileWidget(baseline=...): expected an ipu_nb.Profile or a path to a profile,"
            f" got {type(value).__name__}"
        )
    check_clocks(value.clock_hz, after.clock_hz, allow_mismatch=allow_clock_mismatch)
    return value


def comparison_of(baseline: Profile, after: Profile, q: Query, *, allow_clock_mismatch: bool = False) -> Comparison:
    """``compare(baseline, after, by=q.group_by, ...)`` with `q`'s filters: what the Δ columns show."""
    filters = {name: getattr(q, name) for name in FILTER_KEYS}
    return compare(
        baseline,
        after,
        by=q.group_by,
        metadata_key=q.metadata_key,
        allow_clock_mismatch=allow_clock_mismatch,
        **filters,
    )


def group_deltas(comparison: Comparison, names: list[str]) -> list[GroupDelta | None]:
    """The Δ columns of the groups named `names` (None: no such group on either side)."""
    fields = ("before", "after", "delta", "ratio")
    columns = ["name", "status", *(f"phase_cycles_{f}" for f in fields)]
    by_name = {row["name"]: row for row in comparison.groups.select(columns).iter_rows(named=True)}
    out: list[GroupDelta | None] = []
    for name in names:
        row = by_name.get(name)
        if row is None:
            out.append(None)
            continue
        out.append(
            {
                "status": str(row["status"]),
                "before": row["phase_cycles_before"],
                "after": row["phase_cycles_after"],
                "delta": int(row["phase_cycles_delta"]),
                "ratio": row["phase_cycles_ratio"],
            }
        )
    return out


def _path_sums(samples: pl.DataFrame, levels: list[str]) -> dict[tuple[Any, ...], int]:
    """Summed durations of `samples`, per prefix of flame `levels` (() is the total)."""
    base = samples.select(
        pl.col("kind", "kernel", "operation").cast(pl.String), "phase", pl.col("duration").cast(pl.Int64)
    )
    sums: dict[tuple[Any, ...], int] = {(): int(base.get_column("duration").sum())}
    for depth in range(1, len(levels) + 1):
        keys = levels[:depth]
        for row in base.group_by(keys).agg(pl.col("duration").sum()).iter_rows():
            sums[tuple(row[:-1])] = int(row[-1])
    return sums


def flame_deltas(tree: FlameTree, other: pl.DataFrame, *, shown: str) -> list[int | None]:
    """Per node of `tree` (the `shown` side's flame graph): after − before cycles on its path, `other`
    being the compared side's samples as the tree counts them (its filters applied).

    A path absent from `other` counts as 0 there; merged ("…") nodes, which stand for no one
    path, get None.
    """
    levels = tree["levels"]
    sums = _path_sums(other, levels)
    out: list[int | None] = []
    for node in tree["nodes"]:
        path = node["path"]
        if path is None:
            out.append(None)
            continue
        theirs = sums.get(tuple(path[k] for k in levels if k in path), 0)
        mine = int(node["value"])
        out.append(mine - theirs if shown == "after" else theirs - mine)
    return out
