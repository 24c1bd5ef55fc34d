"""Switching between the profile and its baseline (the ``showing`` trait): what follows the new value shown.

A flip keeps the view, the rows and the filters; what no longer fits the other profile is
fitted to it: the whole profile stays the whole profile (each is shown at its own span), a
view reaching past the other's span is cut at it, a selected sample or an area it does not
have is dropped. The new `Shown` value itself is made by the widget, as for any trait; `flip`
then sets the traits that follow it and sends the side views of the other profile.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from .handlers import Host, send_views
from .messages import MIN_VIEW_WIDTH
from .pushes import info
from .selection import SelectionError, normalise_selection
from .shown import Shown, Side

__all__ = ["FlipHost", "fitted_traits", "flip", "flipped_view"]


class FlipHost(Host, Protocol):
    """What a flip sets of the widget besides what the handlers use."""

    view: list[int]

    def hold_sync(self) -> AbstractContextManager[None]: ...

    def set_trait(self, name: str, value: Any) -> None: ...


def flipped_view(view: list[int], old_limit: int, new_limit: int) -> list[int]:
    """The view after a flip from a profile whose views end by `old_limit` to one whose end by `new_limit`.

    >>> flipped_view([0, 1000], 1000, 900)  # the whole profile: the whole of the other
    [0, 900]
    >>> flipped_view([0, 900], 900, 1000)
    [0, 1000]
    >>> flipped_view([100, 950], 1000, 900), flipped_view([100, 500], 1000, 900)
    ([100, 900], [100, 500])
    """
    start, end = view
    if start == 0 and end == old_limit:
        return [0, new_limit]
    if end > new_limit:
        return [max(0, min(start, new_limit - MIN_VIEW_WIDTH)), new_limit]
    return [start, end]


def fitted_traits(
    old: Side, new: Side, *, view: list[int], selected: int | None, selection: dict[str, Any] | None
) -> dict[str, Any]:
    """The view traits that change when `new` is shown instead of `old`: name → new value."""
    changes: dict[str, Any] = {}
    fitted = flipped_view(view, old.limits.end, new.limits.end)
    if fitted != view:
        changes["view"] = fitted
    if selected is not None and not new.lookup.is_sample(selected):
        changes["selected"] = None
    if selection is not None:
        try:
            normalise_selection(selection, new.tile_ids, new.limits.end)
        except SelectionError:  # the area lies beyond this profile's span or tiles
            changes["selection"] = None
    return changes


def flip(host: FlipHost, old: Shown, new: Shown) -> None:
    """`new`, of the other profile, is shown instead of `old`: the facts, the view traits fitted to it
    (the front end gets them in one update) and the side views, findings and highlights of that profile."""
    with host.hold_sync():
        host.set_trait("info", info(new.side, True))
        fitted = fitted_traits(old.side, new.side, view=host.view, selected=host.selected, selection=host.selection)
        for name, value in fitted.items():
            setattr(host, name, value)
    send_views(host, new)
