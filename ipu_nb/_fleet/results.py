"""Tidy frames from per-profile answers: the labels, the path, then the answer's own columns.

Every row of a per-profile table (`query()` groups, `compare()` groups, a comparison
summary) gets its profile's label values and path in front, so a fleet's answer is one
polars frame that filters, pivots and plots like any other. The schema of an answer with
no rows is taken from the same function run on an empty profile, so it never drifts from
what a real profile gives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from .._model.columns import Columns, Strings
from .._profile import Profile
from .errors import FleetError

__all__ = [
    "MEMBER",
    "PATH",
    "answer_columns",
    "check_label_names",
    "empty_profile",
    "summary_frame",
    "summary_row",
    "tidy",
]

#: The column naming each row's profile (as the fleet lists it).
PATH = "path"
#: A private join key: the profile's position in the fleet.
MEMBER = "_member"


@cache
def empty_profile() -> Profile:
    """A profile with no tiles and no samples: what every answer looks like with zero rows."""
    from .._load._frames import build_profile

    none = np.zeros(0, dtype=np.uint32)
    counts = np.zeros(0, dtype=np.int64)
    strings = Strings(none, pa.array([], type=pa.string()))
    columns = Columns(
        schema_version=3,
        clock_hz=1,
        tiles=none,
        tile_sample_counts=counts,
        local_index=none,
        phase=none,
        epoch=none,
        kind=np.zeros(0, dtype=np.uint16),
        start=none,
        end=none,
        operation=strings,
        kernel=strings,
        metadata_counts=counts,
        metadata_name=strings,
        metadata_value=strings,
        exchange_event_cycles=none,
        activity_counts=counts,
    )
    return Profile.of(build_profile(columns))


@cache
def answer_columns() -> frozenset[str]:
    """Every column a fleet's answer may have besides the labels: ``path``, query groups, comparison groups and summary.

    A label cannot share a name with any of them (one frame could not hold both); the
    comparison's columns are the same whatever it groups by.
    """
    from .._compare import compare
    from .._model.vocabulary import GROUP_FIELDS

    empty = empty_profile()
    comparison = compare(empty, empty)
    return frozenset({PATH, MEMBER, *GROUP_FIELDS, *comparison.groups.columns, *summary_row(comparison.summary)})


def check_label_names(names: Sequence[str], columns: Sequence[str]) -> None:
    """Refuse a label whose name is ``path`` or one of the answer's columns (the frame could not hold both)."""
    taken = {PATH, MEMBER, *columns}
    for name in names:
        if name in taken:
            raise FleetError(
                f"label {name!r} has the name of a result column ({', '.join(sorted(taken - {MEMBER}))}); rename it"
            )


def tidy(members: pl.DataFrame, parts: Sequence[tuple[int, pl.DataFrame]], empty: pl.DataFrame) -> pl.DataFrame:
    """Stack each profile's frame with its labels and path in front, in the fleet's order.

    `members` has one row per profile: the label columns, ``path`` and ``_member`` (its
    position); `parts` pairs a position with that profile's frame; `empty` is the frame
    with no rows that gives the schema when there are no parts.
    """
    pieces = [frame.with_columns(pl.lit(i, dtype=pl.UInt32).alias(MEMBER)) for i, frame in parts]
    body = pl.concat(pieces) if pieces else empty.with_columns(pl.lit(0, dtype=pl.UInt32).alias(MEMBER))
    columns = [c for c in body.columns if c != MEMBER]
    check_label_names([c for c in members.columns if c not in (PATH, MEMBER)], columns)
    joined = body.join(members, on=MEMBER, how="left", maintain_order="left")
    front = [c for c in members.columns if c != MEMBER]
    return joined.select(*front, *columns)


def summary_row(summary: Any) -> dict[str, Any]:
    """A `ComparisonSummary` as one flat row: its scalars, their deltas and the group counts per status."""
    row = {
        f.name: getattr(summary, f.name)
        for f in dataclasses.fields(summary)
        if f.name not in ("status_counts", "attribution")
    }
    for name in (
        "sample_count_delta",
        "matched_sample_count_delta",
        "span_cycles_delta",
        "phase_cycles_delta",
        "group_phase_cycles_delta",
        "overlap_term",
    ):
        row[name] = getattr(summary, name)
    before, after = summary.phase_cycles_before, summary.phase_cycles_after
    row["phase_cycles_ratio"] = float(after) / float(before) if before > 0 else None
    for status, count in summary.status_counts.items():
        row[f"groups_{status}"] = count
    return row


def summary_frame(rows: Sequence[dict[str, Any]], empty: dict[str, Any]) -> pl.DataFrame:
    """Summary rows as a frame, typed like `empty` (the row of an empty comparison) even with no rows."""
    schema = pl.DataFrame([empty]).schema
    schema["phase_cycles_ratio"] = pl.Float64()
    return pl.DataFrame(list(rows), schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
