"""What the inspector, the tooltip and the timeline's labels show of samples: built from a `Shown` value.

Each function is pure: the value shown and the request in, the payload out (`ipu_nb._widget.protocol`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._exchange.display import ACCOUNTING_PARTS
from .._exchange.roles import ROLE_COLUMNS, role_cycles
from .._model.vocabulary import NO_KERNEL
from . import lod
from .messages import Hover
from .protocol import AtSummary, HoverReply, PanelPush, SampleDetail, SampleInfo
from .shown import Shown

__all__ = [
    "TOP",
    "activity_at",
    "at_summary",
    "describe",
    "detail",
    "exchange_detail",
    "hover_reply",
    "labels",
    "panel_push",
]

TOP = 10
"""Names listed per column of the cursor's summary."""


def describe(shown: Shown, sid: int) -> SampleInfo:
    """Sample `sid` as the tooltip shows it (``matched``: whether it matches the filters)."""
    row = shown.profile.samples.row(shown.side.lookup.row_of(sid), named=True)
    mask = shown.matching.mask
    return {
        "sample": sid,
        "tile": row["tile"],
        "kind": row["kind"],
        "inactive": row["inactive"],
        "operation": row["operation"],
        "kernel": row["kernel"],
        "phase": row["phase"],
        "epoch": row["epoch"],
        "offset": row["offset"],
        "duration": row["duration"],
        "local_index": row["local_index"],
        "start": row["start"],
        "end": row["end"],
        "matched": bool(mask is None or mask[sid]),
    }


def detail(shown: Shown, sid: int) -> SampleDetail:
    """`describe` plus the sample's metadata entries in position order and its exchange anatomy (the inspector)."""
    entries = shown.side.lookup.metadata_of(np.array([sid])).sort("position")
    activities, roles, parts = exchange_detail(shown, sid)
    return {
        **describe(shown, sid),
        "metadata": [[n, v] for n, v in entries.select("name", "value").iter_rows()],
        "activities": activities,
        "roles": roles,
        "parts": parts,
    }


def exchange_detail(shown: Shown, sid: int) -> tuple[list[list[Any]], dict[str, int], list[list[Any]]]:
    """Sample `sid`'s activities (``[kind, start, end]`` in its window), role cycles (none without a window)
    and accounting parts (``[name, offset, end]``)."""
    profile = shown.profile
    acts = profile.exchange_activities.filter(pl.col("sample") == sid).sort("position")
    activities = [[str(k), int(a), int(b)] for k, a, b in acts.select("kind", "start", "end").iter_rows()]
    window = int(profile.samples.row(shown.side.lookup.row_of(sid), named=True)["exchange_event_cycles"])
    roles: dict[str, int] = {}
    if window > 0:
        cycles = role_cycles(profile, np.array([sid]), np.array([window])).row(0, named=True)
        roles = {name: int(cycles[name]) for name in ROLE_COLUMNS}
    parts = shown.side.accounting.filter(pl.col("sample") == sid)
    named = [
        [ACCOUNTING_PARTS[p][0], int(o), int(o) + int(d)]
        for p, o, d in parts.select("part", "offset", "duration").iter_rows()
    ]
    return activities, roles, named


def at_summary(shown: Shown, at: int | None) -> AtSummary | None:
    """The matching samples active at offset `at`: counts and the most frequent names (None without `at`)."""
    if at is None:
        return None
    idx = shown.side.index
    # Samples with offset <= at < offset + duration, from the timeline index (no scan).
    ids = np.sort(idx.sample[lod.samples_at(idx, at)]).astype(np.int64)
    mask = shown.matching.mask
    if mask is not None:
        ids = ids[mask[ids]]
    lookup = shown.side.lookup
    frame = shown.profile.samples[pl.Series(lookup.rows_of(ids), dtype=pl.Int64)]

    def top(column: str, empty: str = "(empty)") -> list[list[Any]]:
        counts = frame.group_by(column).len().sort(["len", column], descending=[True, False]).head(TOP)
        return [[str(k) if k else empty, n] for k, n in counts.iter_rows()]

    meta = (
        lookup.metadata_of(ids)
        .group_by("name", "value")
        .len()
        .sort(["len", "name", "value"], descending=[True, False, False])
        .head(TOP)
    )
    return {
        "at": at,
        "count": frame.height,
        "tiles": frame.get_column("tile").n_unique(),
        "kinds": top("kind"),
        "operations": top("operation"),
        "kernels": top("kernel", NO_KERNEL),
        "metadata": [[n, v, c] for n, v, c in meta.iter_rows()],
    }


def panel_push(shown: Shown, at: int | None, selected: int | None) -> PanelPush:
    """The inspector: the cursor's summary and the selected sample."""
    return {
        "type": "panel",
        "at": at_summary(shown, at),
        "selected": None if selected is None else detail(shown, selected),
    }


def hover_reply(shown: Shown, message: Hover) -> HoverReply:
    """The sample under the pointer (timeline row and offset), or None."""
    sid = shown.side.index.sample_at(message.row, message.x)
    sample = None if sid is None else describe(shown, sid)
    reply: HoverReply = {"type": "hover", "view": message.view, "id": message.id, "sample": sample}
    if sid is not None and shown.color_by == "activity":
        piece, part = activity_at(shown, sid, message.row, message.x)
        if piece is not None:
            reply["piece"] = piece
        if part is not None:
            reply["part"] = part
    return reply


def activity_at(shown: Shown, sid: int, row: int, at: int) -> tuple[list[Any] | None, list[Any] | None]:
    """Colour mode "activity": the display piece of sample `sid` at (`row`, `at`) and its accounting part
    there, each ``[name, offset, end]`` (None where there is none)."""
    piece = part = None
    index = shown.side.activity_index
    pos = index.position_at(row, at)
    if pos is not None and int(index.sample[pos]) == sid:
        name = lod.ACTIVITY_CLASSES[int(index.classes("activity")[pos]) - 1]
        piece = [name, int(index.start[pos]), int(index.end[pos])]
    parts = shown.side.accounting.filter(
        (pl.col("sample") == sid) & (pl.col("offset") <= at) & (pl.col("offset") + pl.col("duration") > at)
    )
    if parts.height:
        number, offset, duration = parts.select("part", "offset", "duration").row(0)
        part = [ACCOUNTING_PARTS[number][0], int(offset), int(offset) + int(duration)]
    return piece, part


def labels(shown: Shown, ids: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Operation names of the given samples: a table of distinct names and an index per sample."""
    ops = shown.profile.samples.get_column("operation").gather(shown.side.lookup.rows_of(ids))
    _, first, inverse = np.unique(ops.to_physical().to_numpy(), return_index=True, return_inverse=True)
    return ops.gather(first).cast(pl.String).to_list(), inverse
