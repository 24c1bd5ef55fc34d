"""The widget's baseline (issue 13): a second profile to compare the shown one with.

`comparison_of` runs `ipu_nb.compare` for the widget's filters and grouping (the alignment
is compare's, never redone here) and `group_deltas` turns its rows into the Δ columns of
the group table, one per row the table shows.
"""

from __future__ import annotations

import os
from typing import Any

from .._compare import Comparison, compare
from .._compare.align import check_clocks
from .._model.profile import Profile
from .._query import Query
from .filters import FILTER_KEYS
from .protocol import GroupDelta

__all__ = ["SHOWING", "baseline_profile", "comparison_of", "group_deltas"]

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
        from .._load import open_profile

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
