"""`Fleet.compare`'s answer, and how a baseline is named: a path, a profile, or labels.

Each profile is compared with the baseline by `ipu_nb.compare` itself (in its worker), so
every number is exactly what `Comparison.groups` and `Comparison.summary` report for that
pair; `FleetComparison` stacks them with each profile's labels in front.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._terminal import printable
from .errors import FleetError
from .files import file_identity

if TYPE_CHECKING:
    from .._query import Query
    from .labels import Labels

__all__ = ["FleetComparison", "resolve_baseline"]


@dataclass(frozen=True, eq=False)
class FleetComparison:
    """Every profile of a fleet compared with one baseline (`Fleet.compare`).

    Attributes
    ----------
    baseline : Path
        The baseline profile (the ``before`` side of every comparison).
    by : str
        The group key.
    query : Query
        The query run on both sides of each comparison.
    groups : pl.DataFrame
        The labels, ``path``, then `Comparison.groups`' columns: one row per group of each
        compared profile (``_before`` is the baseline, ``_after`` the profile).
    summary : pl.DataFrame
        The labels, ``path``, then one row per compared profile: `ComparisonSummary`'s
        scalars (``clock_hz_before`` … ``group_phase_cycles_after``), their deltas
        (``sample_count_delta``, ``matched_sample_count_delta``, ``span_cycles_delta``,
        ``phase_cycles_delta``, ``group_phase_cycles_delta``, ``overlap_term``),
        ``phase_cycles_ratio`` (after / before; null when before is 0) and the number of
        groups per status (``groups_added``, ``groups_removed``, ``groups_changed``,
        ``groups_unchanged``).
    """

    baseline: Path
    by: str
    query: Query = field(repr=False)
    groups: pl.DataFrame = field(repr=False)
    summary: pl.DataFrame = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"<FleetComparison by={self.by} against {printable(self.baseline)}: {self.summary.height} profiles, "
            f"{self.groups.height} group rows>"
        )


def _same(value: Any, wanted: Any) -> bool:
    """Label equality: 8 == 8.0, but a boolean equals only a boolean (not 1 or 0)."""
    if isinstance(value, bool) or isinstance(wanted, bool):
        return isinstance(value, bool) and isinstance(wanted, bool) and value == wanted
    return bool(value == wanted)


def _matches(labels: Labels, wanted: Mapping[str, Any]) -> bool:
    return all(name in labels and _same(labels[name], value) for name, value in wanted.items())


def resolve_baseline(baseline: Any, paths: Sequence[Path], labels: Sequence[Labels]) -> tuple[Path, int | None]:
    """The baseline's file and its position in the fleet (None when it is not a member).

    A `Profile` stands for its file; a path is a member when it names the same file as
    one, else any existing file; a mapping selects the one member whose labels have those
    values; any other value (or a string that is no file) the one member with a label of
    that value.
    """
    from .._profile import Profile

    if isinstance(baseline, Profile):
        if baseline.path is None:
            raise FleetError("baseline: this Profile was not read from a file; pass the path of one")
        baseline = baseline.path
    if isinstance(baseline, Mapping):
        chosen = [i for i, row in enumerate(labels) if _matches(row, baseline)]
        return _one(chosen, paths, f"labels {dict(baseline)!r}")
    if isinstance(baseline, (str, os.PathLike)):
        target = file_identity(baseline)
        for i, path in enumerate(paths):
            if file_identity(path) == target:
                return path, i
        if Path(baseline).is_file():
            return Path(baseline), None
        if not isinstance(baseline, str):
            raise FleetError(f"baseline {os.fspath(baseline)}: no such profile")
    chosen = [i for i, row in enumerate(labels) if any(_same(value, baseline) for value in row.values())]
    if not chosen and isinstance(baseline, str):
        raise FleetError(f"baseline {baseline!r} is neither a profile file nor the value of any profile's label")
    return _one(chosen, paths, f"a label equal to {baseline!r}")


def _one(chosen: list[int], paths: Sequence[Path], what: str) -> tuple[Path, int]:
    if not chosen:
        raise FleetError(f"baseline: no profile of the fleet has {what}")
    if len(chosen) > 1:
        listed = ", ".join(str(paths[i]) for i in chosen[:3]) + (", ..." if len(chosen) > 3 else "")
        raise FleetError(
            f"baseline: {len(chosen)} profiles have {what} ({listed}); name more labels, e.g. a mapping, or a path"
        )
    return paths[chosen[0]], chosen[0]
