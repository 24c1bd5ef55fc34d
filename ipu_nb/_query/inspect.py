"""`profile-inspect`: per operation, its phases and the sum of its per-phase longest samples."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["inspect_operations"]


def inspect_operations(profile: ProfileData) -> pl.DataFrame:
    """`profile-inspect`: per operation, over its distinct (phase, epoch) the maximum duration.

    The rules: docs/reference/query.md#profile-inspect.
    Columns ``operation`` (String, byte order), ``phases``, ``cycles`` (sum of the
    per-phase maxima) and ``max_phase_cycles``.
    """
    return (
        profile.samples.lazy()
        .group_by("phase", "epoch", "operation")
        .agg(longest=pl.col("duration").max().cast(pl.Int64))
        .group_by(pl.col("operation").cast(pl.String))
        .agg(
            phases=pl.len().cast(pl.Int64),
            cycles=pl.col("longest").sum(),
            max_phase_cycles=pl.col("longest").max(),
        )
        .sort("operation")
        .collect()
    )
