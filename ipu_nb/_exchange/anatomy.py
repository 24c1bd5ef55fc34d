"""The exchange anatomy per phase, in parts that add up: what a stacked bar of each exchange phase shows.

Per (epoch, phase), over its exchange samples with a window, in work cycles (summed over
the tiles): the boundary wait before the last tile enters, then the window split as the
runtime's renderer labels it, each cycle once: send and receive together, send only,
receive only, partner busy with neither, and idle (docs/reference/head.md#exchange-anatomy).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import polars as pl

from .summary import _profile, phase_table

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["ANATOMY_PARTS", "anatomy_frame"]

#: (part, its key in `ipu_nb._model.palette.ACTIVITY_PALETTE`, the per-sample column it sums), bottom first.
ANATOMY_PARTS: tuple[tuple[str, str, str], ...] = (
    ("boundary wait", "synchronization", "_wait"),
    ("send", "send", "send_only_cycles"),
    ("receive", "receive", "receive_only_cycles"),
    ("send + receive", "sendReceive", "simultaneous_cycles"),
    ("partner busy", "partnerBusy", "partner_busy_only_cycles"),
    ("idle", "exchangeIdle", "idle_cycles"),
)


def anatomy_frame(source: ProfileData | str | os.PathLike[str]) -> pl.DataFrame:
    """Long form, one row per (phase, part): ``phase``, ``epoch``, ``name`` (``phase P/E``), ``order`` (the
    phase's rank by (epoch, phase)), ``part``, ``activity`` (its palette key), ``stack`` (bottom first), ``cycles``.

    >>> anatomy = anatomy_frame(ipu_nb.generate_profile("v5.capnp", tiles=8, phases=4, schema_version=5))
    >>> anatomy.get_column("part").unique(maintain_order=True).to_list()[:3]
    ['boundary wait', 'send', 'receive']
    """
    table = phase_table(_profile(source)).with_columns(_wait=pl.col("last_entry") - pl.col("entry"))
    sums = (
        table.group_by("epoch", "phase")
        .agg([pl.col(column).cast(pl.Int64).sum().alias(part) for part, _, column in ANATOMY_PARTS])
        .sort("epoch", "phase")
        .with_columns(name=pl.format("phase {}/{}", "phase", "epoch"), order=pl.int_range(pl.len(), dtype=pl.Int64))
    )
    parts = pl.DataFrame(
        {
            "part": [part for part, _, _ in ANATOMY_PARTS],
            "activity": [key for _, key, _ in ANATOMY_PARTS],
            "stack": list(range(len(ANATOMY_PARTS))),
        },
        schema={"part": pl.String, "activity": pl.String, "stack": pl.Int64},
    )
    long = sums.unpivot(
        index=["phase", "epoch", "name", "order"], on=[part for part, _, _ in ANATOMY_PARTS], variable_name="part"
    ).rename({"value": "cycles"})
    return (
        long.join(parts, on="part")
        .sort("order", "stack")
        .select("phase", "epoch", "name", "order", "part", "activity", "stack", "cycles")
    )
