"""`compare(before, after, by=...)`: two profiles' `query()` groups aligned, with totals and an exact attribution.

Every before/after number is what `ipu_nb.query` reports for that group on that side
(the same validated `Query`, run on each profile); the deltas, statuses and the
attribution are derived from those numbers only.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from .._query import FILTERS, GROUP_BYS, SORT_BYS, Filters, Query, QueryResult, check_metadata_key, make_query, query
from .._query.signature import keyword_signature
from .align import STATUSES, align_groups, check_clocks, check_renames, normalise_renames
from .attribution import SideTotals, attribution_table, side_totals
from .errors import ComparisonError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._profile import Profile

__all__ = ["FILTERS", "Comparison", "ComparisonSummary", "compare"]

# `Comparison.top` sort keys: the groups column whose |after − before| ranks (name: by name alone).
_SORT_DELTA = {
    "phase-cycles": "phase_cycles",
    "work-cycles": "work_cycles",
    "maximum-cycles": "maximum_cycles",
    "samples": "sample_count",
}


@dataclass(frozen=True)
class ComparisonSummary:
    """Both sides' report scalars and totals, their deltas (after − before), and the delta's attribution.

    ``sample_count`` counts every sample in the file, ``matched_sample_count`` those
    matching the filters; ``span_cycles`` is `query()`'s ``profile_span_cycles`` (all
    samples) and ``span_ms`` is at each side's own clock. ``phase_cycles`` is the total
    (per-phase unions summed), ``group_phase_cycles`` the groups' phase cycles summed,
    ``overlap_cycles`` their difference. ``attribution`` lists every group's contribution
    and the overlap term; its ``cycles`` sum to ``phase_cycles_delta`` exactly.
    """

    clock_hz_before: int
    clock_hz_after: int
    tile_count_before: int
    tile_count_after: int
    sample_count_before: int
    sample_count_after: int
    matched_sample_count_before: int
    matched_sample_count_after: int
    span_cycles_before: int
    span_cycles_after: int
    span_ms_before: float
    span_ms_after: float
    phase_cycles_before: int
    phase_cycles_after: int
    group_phase_cycles_before: int
    group_phase_cycles_after: int
    status_counts: dict[str, int]
    attribution: pl.DataFrame = field(repr=False)

    @property
    def sample_count_delta(self) -> int:
        return self.sample_count_after - self.sample_count_before

    @property
    def matched_sample_count_delta(self) -> int:
        return self.matched_sample_count_after - self.matched_sample_count_before

    @property
    def span_cycles_delta(self) -> int:
        return self.span_cycles_after - self.span_cycles_before

    @property
    def phase_cycles_delta(self) -> int:
        """Total phase cycles after − before: Σ group contributions + the overlap term, exactly."""
        return self.phase_cycles_after - self.phase_cycles_before

    @property
    def group_phase_cycles_delta(self) -> int:
        """Σ of the groups' ``phase_cycles_delta`` (their contributions)."""
        return self.group_phase_cycles_after - self.group_phase_cycles_before

    @property
    def overlap_cycles_before(self) -> int:
        return self.group_phase_cycles_before - self.phase_cycles_before

    @property
    def overlap_cycles_after(self) -> int:
        return self.group_phase_cycles_after - self.phase_cycles_after

    @property
    def overlap_term(self) -> int:
        """The attribution's overlap term: overlap before − overlap after (more overlap after lowers the total)."""
        return self.overlap_cycles_before - self.overlap_cycles_after


@dataclass(frozen=True, eq=False)
class Comparison:
    """Two profiles compared group by group: `groups` (a polars DataFrame) and `summary`.

    Attributes
    ----------
    by : str
        The group key (kind, kernel, operation, phase, tile or metadata).
    query : Query
        The validated query run on both sides (``group_by=by``, every group, no samples).
    renames : tuple of (old, new)
        Before-side group names mapped onto after-side names.
    groups : pl.DataFrame
        One row per group present in either profile; see `ipu_nb.compare`.
    summary : ComparisonSummary
        Spans, totals, sample counts, their deltas and the attribution.
    before, after : Profile
        The compared profiles.
    """

    by: str
    query: Query
    renames: tuple[tuple[str, str], ...]
    groups: pl.DataFrame
    summary: ComparisonSummary
    before: Profile
    after: Profile

    def attribution(self, limit: int = 0) -> pl.DataFrame:
        """The total phase-cycle delta as terms that sum to it: groups, ``other`` (beyond ``limit``), overlap.

        Columns ``name``, ``term`` (group, other, overlap), ``status``, ``cycles``,
        ``start``, ``end`` (running total, for a waterfall). ``limit`` 0 keeps every group.
        """
        return attribution_table(self.groups, self.summary.overlap_term, _limit(limit))

    def top(self, limit: int = 20, sort_by: str = "phase-cycles") -> pl.DataFrame:
        """The groups ranked for display: by |after − before| of ``sort_by``'s field, largest first, then name.

        ``sort_by`` takes `profile-query`'s keys: phase-cycles (the `groups` order),
        work-cycles, maximum-cycles, samples (an absent side counting as 0), or name
        (ascending). ``limit`` 0 keeps every group.
        """
        if sort_by not in SORT_BYS:
            raise ComparisonError(f"sort_by must be one of {', '.join(SORT_BYS)}; got {sort_by!r}")
        ranked = self.groups
        if sort_by == "name":
            ranked = ranked.sort("name")
        elif sort_by != "phase-cycles":
            column = _SORT_DELTA[sort_by]
            change = (pl.col(f"{column}_after").fill_null(0) - pl.col(f"{column}_before").fill_null(0)).abs()
            ranked = ranked.sort([change, pl.col("name")], descending=[True, False])
        limit = _limit(limit)
        return ranked.head(limit) if limit else ranked

    def to_text(self, limit: int = 20, sort_by: str = "phase-cycles") -> str:
        """`ipu-nb profile-diff` text output (docs/reference/compare.md#text-output)."""
        from .render import comparison_text

        return comparison_text(self, limit=limit, sort_by=sort_by)

    def to_json(self, limit: int = 20, sort_by: str = "phase-cycles") -> str:
        """`ipu-nb profile-diff --json` output (docs/reference/compare.md#json-output)."""
        from .render import comparison_json

        return comparison_json(self, limit=limit, sort_by=sort_by)

    def _repr_html_(self) -> str:
        from .repr_html import comparison_html

        return comparison_html(self)

    def __repr__(self) -> str:
        s = self.summary
        counts = ", ".join(f"{s.status_counts[name]} {name}" for name in STATUSES)
        return (
            f"<Comparison by={self.by}: {self.groups.height} groups ({counts}); phase cycles "
            f"{s.phase_cycles_before} -> {s.phase_cycles_after} ({s.phase_cycles_delta:+d})>"
        )


def _limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ComparisonError(f"limit must be a non-negative integer, got {limit!r}")
    return limit


def _profile(value: Any, side: str) -> Profile:
    from .._profile import Profile, open_profile

    if isinstance(value, Profile):
        return value
    if isinstance(value, (str, os.PathLike)):
        return open_profile(os.fspath(value))
    raise ComparisonError(f"{side} must be a Profile or a path to a profile, got {type(value).__name__}")


def _validated_query(by: Any, metadata_key: Any, filters: Mapping[str, Any]) -> Query:
    if by not in GROUP_BYS:
        raise ComparisonError(f"by must be one of {', '.join(GROUP_BYS)}; got {by!r}")
    for name in filters:
        if name == "group_by":
            raise ComparisonError("compare() groups with by=..., not group_by")
        if name not in FILTERS:
            raise ComparisonError(f"unknown filter {name!r}; compare() takes the query filters {', '.join(FILTERS)}")
    q = make_query(group_by=by, metadata_key=metadata_key, limit=0, samples=0, **filters)
    check_metadata_key(q)  # its warning once, here, not once per side
    return q if q.group_by == "metadata" else dataclasses.replace(q, metadata_key=None)


def _groups(profile: Profile, q: Query) -> tuple[QueryResult, QueryResult]:
    """`query()` by the compared key and by phase (the totals), on one side; one run when they are the same."""
    by = query(profile, q)
    return by, by if q.group_by == "phase" else query(
        profile, dataclasses.replace(q, group_by="phase", metadata_key=None)
    )


@keyword_signature(Filters)
def compare(
    before: Profile | str | os.PathLike[str],
    after: Profile | str | os.PathLike[str],
    by: str = "kernel",
    metadata_key: str | None = None,
    renames: Mapping[str, str] | None = None,
    allow_clock_mismatch: bool = False,
    **filters: Unpack[Filters],
) -> Comparison:
    """Compare two profiles group by group: what got slower, what appeared, what went away.

    Parameters
    ----------
    before, after : Profile or path
        The baseline and the new profile (a path is opened with `ipu_nb.open_profile`).
    by : {"kernel", "kind", "operation", "phase", "tile", "metadata"}, default "kernel"
        The group key, as `query`'s ``group_by``. Groups align by `query()`'s names:
        phases (``phase P/E``) and tiles (``tile T``) by number, the others by string.
    metadata_key : str, optional
        Required with ``by="metadata"`` (same error as `query`).
    renames : mapping of str to str, optional
        Before-side group names onto after-side names (a kernel renamed by a compiler
        change). Each old name must be a before-side group and each new name an
        after-side group under the filters; two old names onto one new one, or onto a
        before-side group that is not itself renamed, are refused (merging groups is
        not exact). Renamed groups take the new name; ``name_before`` keeps the old.
    allow_clock_mismatch : bool, default False
        Two clocks that differ raise `ComparisonError`; with True, cycles are compared
        as cycles and milliseconds use each profile's own clock.
    **filters
        `query`'s filters, applied to both sides: ``kind``, ``kernel``, ``operation``,
        ``operation_contains``, ``tiles``, ``phases``, ``metadata``, ``at``, ``window``
        (whole samples: there is no ``clip``).

    Returns
    -------
    Comparison
        ``groups``: one row per group present in either profile: ``name``, ``status``
        (``added``: after only; ``removed``: before only; ``unchanged``: on both sides
        with all nine fields equal; ``changed``: on both with some field different),
        ``<field>_before`` and ``<field>_after`` for ``sample_count``, ``tile_count``,
        ``phase_count``, ``phase_cycles``, ``work_cycles``, ``mean_cycles``,
        ``p50_cycles``, ``p95_cycles``, ``maximum_cycles`` (exactly `query`'s values;
        null where absent), ``phase_cycles_delta`` and ``work_cycles_delta`` (after −
        before, absent = 0), ``phase_cycles_ratio`` (after / before; null when before
        is 0 or absent, 0.0 when after is absent), then ``name_before``,
        ``dimensions``, ``phase_ms_before``, ``phase_ms_after``. Sorted by
        |phase_cycles_delta| descending, then name in code point order.
        ``summary``: totals and the attribution: group contributions
        (``phase_cycles_delta``) + the overlap term (overlap before − overlap after,
        where a side's overlap = Σ its groups' phase cycles − its total phase cycles)
        = total phase cycles after − before, exactly.

    Raises
    ------
    ComparisonError
        Different clocks (without ``allow_clock_mismatch``), renames that do not align,
        a bad ``by`` or an unknown filter.
    QueryError
        A bad filter value, or ``by="metadata"`` without ``metadata_key``.

    Examples
    --------
    >>> c = ipu_nb.compare("before.capnp", "after.capnp", by="kernel", kind="compute")
    >>> c.groups.filter(pl.col("status") == "changed").select("name", "phase_cycles_delta").rows()
    [('gemm_f32_accumulate_large_rows', -16437), ('gemm_f32_init_large_rows', -2252)]
    """
    q = _validated_query(by, metadata_key, filters)
    pairs = normalise_renames(renames)
    before_profile, after_profile = _profile(before, "before"), _profile(after, "after")
    check_clocks(before_profile.clock_hz, after_profile.clock_hz, allow_mismatch=bool(allow_clock_mismatch))
    before_by, before_phase = _groups(before_profile, q)
    after_by, after_phase = _groups(after_profile, q)
    if pairs:
        what = f"{q.metadata_key!r} metadata" if q.group_by == "metadata" else q.group_by
        check_renames(pairs, before_by.groups["name"].to_list(), after_by.groups["name"].to_list(), what)
    groups = align_groups(before_by.groups, after_by.groups, pairs)
    totals_before = side_totals(before_by.groups, before_phase.groups)
    totals_after = side_totals(after_by.groups, after_phase.groups)
    summary = _summary(before_by, after_by, totals_before, totals_after, groups)
    return Comparison(
        by=q.group_by,
        query=q,
        renames=pairs,
        groups=groups,
        summary=summary,
        before=before_profile,
        after=after_profile,
    )


def _summary(
    before: QueryResult, after: QueryResult, tb: SideTotals, ta: SideTotals, groups: pl.DataFrame
) -> ComparisonSummary:
    counts = dict.fromkeys(STATUSES, 0)
    for status, n in groups.get_column("status").cast(pl.String).value_counts().iter_rows():
        counts[status] = int(n)
    overlap_term = tb.overlap_cycles - ta.overlap_cycles
    return ComparisonSummary(
        clock_hz_before=before.clock_hz,
        clock_hz_after=after.clock_hz,
        tile_count_before=before.tile_count,
        tile_count_after=after.tile_count,
        sample_count_before=before.sample_count,
        sample_count_after=after.sample_count,
        matched_sample_count_before=before.matched_sample_count,
        matched_sample_count_after=after.matched_sample_count,
        span_cycles_before=before.profile_span_cycles,
        span_cycles_after=after.profile_span_cycles,
        span_ms_before=before.profile_span_ms,
        span_ms_after=after.profile_span_ms,
        phase_cycles_before=tb.phase_cycles,
        phase_cycles_after=ta.phase_cycles,
        group_phase_cycles_before=tb.group_phase_cycles,
        group_phase_cycles_after=ta.group_phase_cycles,
        status_counts=counts,
        attribution=attribution_table(groups, overlap_term),
    )
