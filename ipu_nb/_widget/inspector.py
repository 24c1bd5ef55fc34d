"""What the inspector, the tooltip and the timeline's labels show of samples: built from a `Shown` value.

Each function is pure: the value shown and the request in, the payload out (`ipu_nb._widget.protocol`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._model.vocabulary import NO_KERNEL
from . import lod
from .messages import Hover
from .protocol import AtSummary, HoverReply, PanelPush, SampleDetail, SampleInfo
from .shown import Shown

__all__ = ["TOP", "at_summary", "describe", "detail", "hover_reply", "labels", "panel_push"]

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
    """`describe` plus the sample's metadata entries in position order (the inspector)."""
    entries = shown.side.lookup.metadata_of(np.array([sid])).sort("position")
    return {**describe(shown, sid), "metadata": [[n, v] for n, v in entries.select("name", "value").iter_rows()]}


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
    return {"type": "hover", "view": message.view, "id": message.id, "sample": sample}


def labels(shown: Shown, ids: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Operation names of the given samples: a table of distinct names and an index per sample."""
    ops = shown.profile.samples.get_column("operation").gather(shown.side.lookup.rows_of(ids))
    _, first, inverse = np.unique(ops.to_physical().to_numpy(), return_index=True, return_inverse=True)
    return ops.gather(first).cast(pl.String).to_list(), inverse
