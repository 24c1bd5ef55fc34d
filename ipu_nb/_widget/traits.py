"""Trait types of `ProfileWidget` that traitlets lacks, and the checks of what its traits are set to.

Each check raises `traitlets.TraitError` naming the trait and what it must be; those of the
view's traits (`VIEW_CHECKS`) check against the profile shown, its span, tiles and samples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import traitlets

from .markers import MarkerError, normalise_markers
from .messages import MAX_SAFE_INTEGER, MessageError, check_range
from .selection import SelectionError, normalise_selection
from .shown import Side
from .state import StateError, check_depth, normalise_tracks, parse_state

__all__ = ["VIEW_CHECKS", "Integer", "OptionalText", "check_trait_depth", "merged_state", "state_traits"]


class Integer(traitlets.Int):
    """`traitlets.Int` (which takes numpy integers and integral floats as int) refusing bools, which are not offsets."""

    info_text = "an int (not a bool)"

    def validate(self, obj: Any, value: Any) -> int:
        if isinstance(value, (bool, np.bool_)):
            self.error(obj, value)
        return super().validate(obj, value)


class OptionalText(traitlets.Unicode):
    """A str-or-None trait whose None still meets the widget's ``@validate`` (traitlets skips it when allow_none)."""

    info_text = "a str or None"

    def validate(self, obj: Any, value: Any) -> str | None:
        return None if value is None else super().validate(obj, value)


def check_trait_depth(name: str, value: Any) -> None:
    """`traitlets.TraitError` for a value of trait `name` nested deeper than any view's (`check_depth`)."""
    try:
        check_depth(value, name)
    except StateError as error:
        raise traitlets.TraitError(str(error)) from None


def state_traits(state: Any) -> dict[str, Any]:
    """The trait values a saved view sets (`parse_state`), `traitlets.TraitError` saying what is wrong."""
    try:
        return parse_state(state)
    except StateError as error:
        raise traitlets.TraitError(str(error)) from None


def merged_state(state: Any, traits: dict[str, Any]) -> dict[str, Any]:
    """Constructor keywords `traits` with those of `state` (a trait in both is refused: `TypeError`)."""
    parsed = state_traits(state)
    both = sorted(set(parsed) & set(traits))
    if both:
        raise TypeError(f"ProfileWidget: {', '.join(both)} given both in state and as keywords")
    return {**traits, **parsed}


def _view(value: Any, side: Side) -> list[int]:
    limit = side.limits.end
    try:
        start, end = value
        return list(check_range(start, end, "view", limit))
    except MessageError as error:
        raise traitlets.TraitError(
            f"{error}; view must be [start, end] with integers 0 <= start < end <= {limit}"
            f" (the profile spans {side.facts.span} cycles)"
        ) from None


def _at(value: int | None, side: Side) -> int | None:
    if value is not None and not 0 <= value <= MAX_SAFE_INTEGER:
        raise traitlets.TraitError(
            f"at must be None or an offset in cycles in 0..{MAX_SAFE_INTEGER} (the integers a browser holds"
            f" exactly; the profile spans {side.facts.span} cycles and nothing is active beyond), got {value}"
        )
    return value


def _selected(value: int | None, side: Side) -> int | None:
    # The range first: an id beyond int64 cannot be looked up (numpy would overflow).
    if value is not None and not (0 <= value <= MAX_SAFE_INTEGER and side.lookup.is_sample(value)):
        raise traitlets.TraitError(
            f"selected must be None or a sample id of this profile (a value of profile.samples['sample'],"
            f" 0..{side.profile.sample_count - 1} when the ids are contiguous), got {value}"
        )
    return value


def _selection(value: Any, side: Side) -> dict[str, Any] | None:
    try:
        return normalise_selection(value, side.tile_ids, side.limits.end)
    except SelectionError as error:
        raise traitlets.TraitError(str(error)) from None


def _tracks(value: Any, side: Side) -> dict[str, Any]:
    try:
        return normalise_tracks(value, side.tile_ids)
    except StateError as error:
        raise traitlets.TraitError(str(error)) from None


def _markers(value: Any, side: Side) -> list[Any]:
    try:
        return list(normalise_markers(value, side.limits.end))
    except MarkerError as error:
        raise traitlets.TraitError(str(error)) from None


#: The check of each view trait (its value as set, the profile shown) → the value kept.
VIEW_CHECKS: dict[str, Callable[[Any, Side], Any]] = {
    "view": _view,
    "at": _at,
    "selected": _selected,
    "selection": _selection,
    "tracks": _tracks,
    "marker_rows": _markers,
}
