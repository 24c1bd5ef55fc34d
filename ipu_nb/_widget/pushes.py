"""The payloads the kernel sends the front end, each built from a `Shown` value and a request.

Pure builders: what is shown, the request (or the trait it answers) and the kept `Answers`
in, the message (and its binary buffers) out. Sending, and whether the value is still the
one shown when it goes, is the caller's (`ipu_nb._widget.views`, `ipu_nb._widget.handlers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import polars as pl

from .._model.vocabulary import COLOR_BYS, widget_vocabulary
from .._query import filter_mask
from .answers import Answers
from .baseline import flame_deltas, group_deltas
from .flame import accounting_samples
from .highlight import highlight_ids
from .inspector import labels
from .messages import Search
from .protocol import (
    OVERVIEW_SHARES,
    AreaPush,
    FlamePush,
    GroupsReply,
    HighlightPush,
    OverviewPush,
    SearchReply,
    WindowReply,
)
from .selection import area_longest, area_query
from .shown import Shown, Side
from .timeline import row_positions, search_rows, timeline_matches
from .wire import encode_buffers

__all__ = [
    "AREA_LONGEST",
    "HIGHLIGHT_SENT",
    "LABEL_LIMIT",
    "SEARCH_LIMIT",
    "Marks",
    "area_push",
    "flame_push",
    "groups_reply",
    "highlight_push",
    "info",
    "overview_push",
    "search_reply",
    "window_reply",
    "with_labels",
]

LABEL_LIMIT = 20_000
"""Most raw samples of a window whose operation names are sent with it."""
SEARCH_LIMIT = 100_000
"""Most search matches sent (the first by offset; the reply counts them all)."""
AREA_LONGEST = 10
"""Longest samples of a selected area the side panel lists."""
HIGHLIGHT_SENT = 200_000
"""Most highlighted samples whose places are sent (the first by offset; the push counts them all)."""

Payload = tuple[Any, list[bytes]]


@dataclass(frozen=True, eq=False)
class Marks:
    """Highlighted samples: positions in the timeline index of side ``which`` (no marks on the other side)."""

    which: str
    positions: np.ndarray

    @classmethod
    def of(cls, shown: Shown, frame: Any) -> Marks:
        """The samples of `frame` (a DataFrame with a ``sample`` column, ids of the shown profile: else named)."""
        side = shown.side
        return cls(side.which, np.flatnonzero(np.isin(side.index.sample, highlight_ids(frame, side.lookup))))


def info(side: Side, has_baseline: bool) -> dict[str, Any]:
    """The header facts of `side` (the ``info`` trait)."""
    profile, facts = side.profile, side.facts
    kernels = profile.samples.get_column("kernel").unique().cast(pl.String).sort().to_list()  # distinct first: cheap
    return {
        "tiles": profile.tile_count,
        "samples": profile.sample_count,
        "span": facts.span,
        "clock_hz": profile.clock_hz,
        "granularity": profile.granularity,
        "rows": facts.row_tiles.tolist(),
        **row_positions(profile, facts),
        "legend": {mode: facts.legend(mode) for mode in COLOR_BYS},
        "kernels": kernels[:500],
        "vocabulary": widget_vocabulary(),
        "baseline": has_baseline,
    }


def window_reply(
    shown: Shown, view: str | None, request: int | None, header: dict[str, Any], **more: Any
) -> WindowReply:
    """A window reply: the request's address, the value answered (colouring, filtered), a raw or summary header."""
    # A RawHeader or a LodHeader after the request's address: WindowReply by construction.
    return cast(
        WindowReply,
        {
            "type": "window",
            "view": view,
            "id": request,
            "color_by": shown.color_by,
            "filtered": shown.matching.mask is not None,
            **header,
            **more,
        },
    )


def with_labels(shown: Shown, reply: WindowReply, buffers: list[bytes]) -> list[bytes]:
    """Add the operation names of a raw reply's samples (when few enough): ``labels`` and one more buffer."""
    if reply["mode"] != "raw" or reply["count"] > LABEL_LIMIT:
        return buffers
    names, codes = labels(shown, np.frombuffer(buffers[4], "<u4"))
    reply["labels"] = names
    return [*buffers, codes.astype("<u4").tobytes()]


def overview_push(shown: Shown, answers: Answers) -> Payload:
    """The overview strip: each colour class's share of all tiles' cycles per bin over the span."""
    pic = answers.overview(shown)
    push: OverviewPush = {
        "type": "overview",
        "bins": pic.bins,
        "span": pic.span,
        "planes": len(pic.classes),
        "color_by": shown.color_by,
    }
    return push, encode_buffers(OVERVIEW_SHARES, push, {"classes": pic.classes, "shares": pic.shares})


def flame_push(
    shown: Shown, answers: Answers, selection: dict[str, Any] | None, other: Side | None, hierarchy: str
) -> Payload:
    """The flame graph in `hierarchy` of the matching samples (of the area's, clipped, with a selection);
    with the `other` side (the compared profile on the same clock, None without one) each node's Δ, its
    samples counted as the tree counts them (split into accounting parts in colour mode "activity")."""
    tree = answers.flame(shown, hierarchy) if selection is None else answers.area_flame(shown, selection, hierarchy)
    push: FlamePush = {
        "type": "flame",
        "total": tree["total"],
        "levels": tree["levels"],
        "nodes": tree["nodes"],
        "metadata": tree["metadata"],
        "area": selection is not None,
    }
    if other is not None and selection is None:
        theirs = other.profile.samples.filter(pl.Series(filter_mask(other.profile, shown.matching.query)))
        if shown.color_by == "activity":
            theirs = accounting_samples(theirs, other.accounting)
        push["deltas"] = flame_deltas(tree, theirs, shown=shown.side.which)
    return push, []


def groups_reply(
    shown: Shown, answers: Answers, request_id: Any, selection: dict[str, Any] | None, has_baseline: bool
) -> Payload:
    """The top groups of `ProfileWidget.groups` (of `selection_groups` with a selected area), with
    the Δ columns against the baseline when there is one and no area."""
    q = shown.query if selection is None else area_query(shown.query, selection)
    area = None if selection is None else answers.area_samples(shown, selection)
    error, rows = (None, []) if q is None else answers.group_rows(shown, q, area)
    reply: GroupsReply = {
        "type": "groups",
        "id": request_id,
        "group_by": shown.group_by,
        "error": error,
        "rows": rows,
        "area": selection is not None,
    }
    if has_baseline and selection is None and error is None:
        reply["deltas"] = group_deltas(answers.comparison(shown.query, shown.side.clock), [row["name"] for row in rows])
    return reply, []


def area_push(shown: Shown, answers: Answers, selection: dict[str, Any] | None) -> Payload:
    """The selected area's summary and longest samples for the side panel (cleared: all None)."""
    q = None if selection is None else area_query(shown.query, selection)
    frame = answers.area_samples(shown, selection)
    window = None if q is None else q.window
    push: AreaPush = {
        "type": "area",
        "selection": selection,
        "window": None if window is None else list(window),
        "tiles": None if q is None or not q.tiles else list(q.tiles),
        "count": frame.height,
        "tiles_hit": frame.get_column("tile").n_unique() if frame.height else 0,
        "cycles": int(frame.get_column("clipped_cycles").sum()) if frame.height else 0,
        "longest": [] if window is None else area_longest(frame, window, AREA_LONGEST),
    }
    return push, []


def _places(shown: Shown, pos: np.ndarray) -> list[bytes]:
    """The buffers of samples at positions `pos` of the timeline index: start, end (f64), row (u16), sample (u32)."""
    idx = shown.side.index
    return [
        idx.start[pos].astype("<f8").tobytes(),
        idx.end[pos].astype("<f8").tobytes(),
        idx.row[pos].astype("<u2").tobytes(),
        idx.sample[pos].astype("<u4").tobytes(),
    ]


def highlight_push(shown: Shown, marks: Marks | None) -> Payload:
    """The highlighted samples' places on the shown side, the first `HIGHLIGHT_SENT` by offset (none: cleared)."""
    idx = shown.side.index
    pos = marks.positions if marks is not None and marks.which == shown.side.which else np.zeros(0, np.int64)
    count = len(pos)
    if count > HIGHLIGHT_SENT:
        pos = pos[np.argpartition(idx.start[pos], HIGHLIGHT_SENT - 1)[:HIGHLIGHT_SENT]]
    pos = pos[np.lexsort((idx.row[pos], idx.start[pos]))]
    push: HighlightPush = {"type": "highlight", "count": count, "sent": len(pos)}
    return push, _places(shown, pos)


def search_reply(shown: Shown, message: Search) -> Payload:
    """The matching samples whose operation or kernel contains the text: the first `SEARCH_LIMIT` by offset."""
    found = search_rows(shown.profile, message.text, message.case_sensitive, shown.matching.mask)
    count, pos = timeline_matches(shown.side.index, shown.side.lookup, found, SEARCH_LIMIT)
    reply: SearchReply = {
        "type": "search",
        "id": message.id,
        "text": message.text,
        "case_sensitive": message.case_sensitive,
        "count": count,
        "sent": len(pos),
    }
    return reply, _places(shown, pos)
