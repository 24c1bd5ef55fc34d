"""Switching the clock the widget reads offsets on (the ``clock`` trait): what follows the new clock.

Each clock has its own `Side` (the profile on that clock, its index), made by the widget like
any value shown. A switch keeps the same part of the profile in view: every offset trait (the
view, the cursor, the area, the markers and a ``window`` filter) moves by `clocks.converted`,
then is fitted to the new side as a flip fits it (`ipu_nb._widget.flip.fitted_traits`): the
whole profile stays the whole profile, what the other clock lacks (a sample cropped away, an
area before the crop) is dropped. Highlights are moved to the new index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .clocks import converted
from .flip import FlipHost, fitted_traits
from .handlers import send_views
from .markers import normalise_markers
from .messages import MIN_VIEW_WIDTH
from .pushes import Marks, info
from .shown import Shown, Side, Sides

__all__ = ["ClockHost", "moved_filters", "moved_traits", "moved_view", "switch_clock"]


def moved_view(view: list[int], old: str, new: str, crop: int, old_limit: int, new_limit: int) -> list[int]:
    """`view` on clock `old` moved to clock `new` and fitted to views ending by `new_limit`.

    >>> moved_view([0, 1000], "cropped", "shared", 40, 1000, 1040)  # the whole profile: the whole
    [0, 1040]
    >>> moved_view([100, 200], "cropped", "shared", 40, 1000, 1040)
    [140, 240]
    >>> moved_view([10, 30], "shared", "cropped", 40, 1040, 1000)  # before the crop: its first cycles
    [0, 8]
    """
    if view == [0, old_limit]:
        return [0, new_limit]
    start = min(converted(view[0], old, new, crop), max(new_limit - MIN_VIEW_WIDTH, 0))
    end = min(max(converted(view[1], old, new, crop), start + MIN_VIEW_WIDTH), new_limit)
    return [start, end]


def moved_filters(filters: dict[str, Any], old: str, new: str, crop: int) -> dict[str, Any]:
    """`filters` with their ``window`` moved from clock `old` to `new` (the rest unchanged).

    >>> moved_filters({"kind": "compute", "window": [100, 200]}, "cropped", "shared", 40)["window"]
    [140, 240]
    """
    window = filters.get("window")
    if window is None:
        return filters
    start, end = (converted(v, old, new, crop) for v in window)
    return {**filters, "window": [start, max(end, start + 1)]}


def _moved_markers(rows: list[dict[str, Any]], old: str, new: str, crop: int, limit: int) -> list[Any]:
    """The markers on clock `new` (one wholly before the crop becomes a point at 0, its label kept)."""
    moved = [{**row, **{k: min(converted(row[k], old, new, crop), limit) for k in ("start", "end")}} for row in rows]
    return list(normalise_markers(moved, limit))  # kept in order, within the limit: valid as they were


def moved_traits(
    old_side: Side,
    new_side: Side,
    crop: int,
    *,
    view: list[int],
    at: int | None,
    selected: int | None,
    selection: dict[str, Any] | None,
    marker_rows: list[dict[str, Any]],
) -> dict[str, Any]:
    """The offset traits on `new_side`'s clock after a switch from `old_side`'s: name → new value,
    only those that change."""
    old, new = old_side.clock, new_side.clock
    moved_to = moved_view(view, old, new, crop, old_side.limits.end, new_side.limits.end)
    area = None
    if selection is not None:
        start, end = (converted(selection[k], old, new, crop) for k in ("start", "end"))
        area = None if end <= start else {**selection, "start": start, "end": end}
    changes: dict[str, Any] = {
        "view": moved_to,
        "at": None if at is None else converted(at, old, new, crop),
        "selection": area,
        "marker_rows": _moved_markers(marker_rows, old, new, crop, new_side.limits.end),
    }
    # A view, sample or area the new side cannot show, as a flip drops it.
    fitted = fitted_traits(new_side, new_side, view=moved_to, selected=selected, selection=area)
    changes.update(fitted)
    current = {"view": view, "at": at, "selection": selection, "marker_rows": marker_rows, "selected": selected}
    return {k: v for k, v in changes.items() if v != current[k]}


class ClockHost(FlipHost, Protocol):
    """What a clock switch sets of the widget besides what a flip sets."""

    clock: str
    filters: dict[str, Any]
    marker_rows: list[dict[str, Any]]
    _sides: Sides


def switch_clock(host: ClockHost, old: Shown, crop: int, refresh: Callable[[], Shown]) -> Shown:
    """Show the profile on ``host.clock`` instead of `old`'s clock: the ``window`` filter moved, the value
    shown made again (`refresh` returns it), the offset traits moved, then the facts, highlights and side
    views of the new side sent. Returns the new value shown."""
    with host.hold_sync():
        filters = moved_filters(host.filters, old.side.clock, host.clock, crop)
        if filters != host.filters:
            host.filters = filters
        new = refresh()
        host.set_trait("info", info(new.side, host._sides.has_baseline))
        changes = moved_traits(
            old.side,
            new.side,
            crop,
            view=host.view,
            at=host.at,
            selected=host.selected,
            selection=host.selection,
            marker_rows=host.marker_rows,
        )
        for name, value in changes.items():
            setattr(host, name, value)
    marks = host._marks
    if marks is not None and marks.which == old.side.which:
        ids = old.side.index.sample[marks.positions]
        host._marks = Marks(new.side.which, np.flatnonzero(np.isin(new.side.index.sample, ids)))
    send_views(host, new)
    return new
