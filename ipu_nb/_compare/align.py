"""Aligning two profiles' groups: the clock check, renames, and the outer join of two `query()` group tables.

Groups align by their `query()` name: phases (``phase P/E``) and tiles (``tile T``) by
number, kinds, kernels, operations and metadata values by their string. ``renames``
maps before-side names onto after-side names. Every number on either side is copied
from `query()`'s groups, never recomputed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from .errors import ComparisonError

__all__ = [
    "FIELDS",
    "STATUSES",
    "align_groups",
    "check_clocks",
    "check_renames",
    "normalise_renames",
]

#: The per-group statistics a comparison reports on both sides, in column order (`query()`'s names).
FIELDS: tuple[str, ...] = (
    "sample_count",
    "tile_count",
    "phase_count",
    "phase_cycles",
    "work_cycles",
    "mean_cycles",
    "p50_cycles",
    "p95_cycles",
    "maximum_cycles",
)
#: A group's status: only in after, only in before, present on both with some field different, or all equal.
STATUSES: tuple[str, ...] = ("added", "removed", "changed", "unchanged")
STATUS = pl.Enum(STATUSES)


def check_clocks(before_hz: int, after_hz: int, *, allow_mismatch: bool) -> None:
    """Refuse two clocks that differ, unless the caller accepts comparing cycles as cycles."""
    if before_hz != after_hz and not allow_mismatch:
        clocks = f"cannot compare profiles with different clocks: before clockHz={before_hz}, after clockHz={after_hz}"
        how = "to compare cycles as cycles, with milliseconds at each profile's own clock"
        raise ComparisonError(
            f"{clocks}; pass allow_clock_mismatch=True {how}",
            usage=False,
            cli_message=f"{clocks}; pass --allow-clock-mismatch {how}",
        )


def normalise_renames(renames: Any) -> tuple[tuple[str, str], ...]:
    """``renames`` as (old, new) pairs in the given order, dropping nothing; bad forms are usage errors.

    Two old names onto one new name would merge two before-side groups, whose numbers
    would then no longer be what `query()` reports for any one group: refused.
    """
    if renames is None:
        return ()
    if not isinstance(renames, Mapping):
        raise ComparisonError(f"renames must be a mapping of old name to new name, got {type(renames).__name__}")
    pairs: list[tuple[str, str]] = []
    targets: dict[str, str] = {}
    for old, new in renames.items():
        if not isinstance(old, str) or not isinstance(new, str):
            raise ComparisonError(f"renames must map strings to strings, got {old!r}: {new!r}")
        if new in targets:
            raise ComparisonError(
                f"renames {targets[new]!r} and {old!r} both map to {new!r}: merging two groups would not "
                "give any one group's numbers; compare them separately"
            )
        targets[new] = old
        pairs.append((old, new))
    return tuple(pairs)


def check_renames(renames: tuple[tuple[str, str], ...], before: list[str], after: list[str], what: str) -> None:
    """Every rename must name a before-side group and an after-side group, and keep before names distinct.

    A rename that matches nothing is almost always a typo, and would silently leave the
    two groups as one removed and one added: an error, not a warning.
    """
    before_names, after_names = set(before), set(after)
    renamed = {old for old, _ in renames}
    for old, new in renames:
        if old not in before_names:
            raise ComparisonError(
                f"renames: the before profile has no {what} group {old!r} (under these filters)", usage=False
            )
        if new not in after_names:
            raise ComparisonError(
                f"renames: {old!r} -> {new!r}, but the after profile has no {what} group {new!r} (under these filters)",
                usage=False,
            )
        if new != old and new in before_names and new not in renamed:
            raise ComparisonError(
                f"renames: {old!r} -> {new!r} collides with the before profile's own {what} group {new!r}; "
                "rename that one too, or drop this rename",
                usage=False,
            )


def _side(groups: pl.DataFrame, suffix: str) -> pl.DataFrame:
    return groups.select(
        "name",
        pl.col("dimensions").alias(f"dimensions_{suffix}"),
        pl.col("phase_ms").alias(f"phase_ms_{suffix}"),
        *(pl.col(f).alias(f"{f}_{suffix}") for f in FIELDS),
    )


def align_groups(before: pl.DataFrame, after: pl.DataFrame, renames: tuple[tuple[str, str], ...] = ()) -> pl.DataFrame:
    """The comparison's groups table from two `query()` group tables (every group, any order).

    Columns: ``name`` (after-side name when present, else the renamed before-side
    name), ``status``, ``<field>_before`` and ``<field>_after`` for each of `FIELDS`,
    ``phase_cycles_delta``, ``work_cycles_delta`` (absent side = 0),
    ``phase_cycles_ratio`` (after / before, absent after = 0; null when before is 0 or
    absent), then ``name_before`` (the before-side name, null when added),
    ``dimensions`` (after side's, else before side's), ``phase_ms_before``,
    ``phase_ms_after``. Sorted by |phase_cycles_delta| descending, then ``name`` in
    code point order (polars compares UTF-8 bytes, which orders code points the same).
    """
    mapping = dict(renames)
    left = _side(before, "before").with_columns(name_before=pl.col("name"))
    if mapping:
        renamed = [mapping.get(n, n) for n in left.get_column("name").to_list()]
        left = left.with_columns(name=pl.Series("name", renamed, dtype=pl.String))
    # No maintain_order: the sort below is total (names are unique), and keeping order costs 5x.
    joined = left.join(_side(after, "after"), on="name", how="full", coalesce=True)
    in_before = pl.col("sample_count_before").is_not_null()
    in_after = pl.col("sample_count_after").is_not_null()
    equal = pl.all_horizontal([pl.col(f"{f}_before") == pl.col(f"{f}_after") for f in FIELDS])
    status = (
        pl.when(~in_before)
        .then(pl.lit("added"))
        .when(~in_after)
        .then(pl.lit("removed"))
        .when(equal)
        .then(pl.lit("unchanged"))
        .otherwise(pl.lit("changed"))
        .cast(STATUS)
    )
    phase_before = pl.col("phase_cycles_before").fill_null(0)
    phase_after = pl.col("phase_cycles_after").fill_null(0)
    ratio = (
        pl.when(phase_before > 0)
        .then(phase_after.cast(pl.Float64) / phase_before.cast(pl.Float64))
        .otherwise(pl.lit(None, pl.Float64))
    )
    joined = joined.with_columns(
        status=status,
        phase_cycles_delta=phase_after - phase_before,
        work_cycles_delta=pl.col("work_cycles_after").fill_null(0) - pl.col("work_cycles_before").fill_null(0),
        phase_cycles_ratio=ratio,
        dimensions=pl.coalesce("dimensions_after", "dimensions_before"),
    )
    joined = joined.sort([pl.col("phase_cycles_delta").abs(), pl.col("name")], descending=[True, False])
    return joined.select(
        "name",
        "status",
        *(f"{f}_{side}" for f in FIELDS for side in ("before", "after")),
        "phase_cycles_delta",
        "work_cycles_delta",
        "phase_cycles_ratio",
        "name_before",
        "dimensions",
        "phase_ms_before",
        "phase_ms_after",
    )
