"""The widget's whole view as one JSON-serialisable dict, and the row layout it includes.

``widget.state`` gathers the synced traits that make up a view (`STATE_KEYS`) under a
``version``; ``ProfileWidget(profile, state=...)`` and ``widget.state = ...`` set them back
at once, each checked by its own trait. Every part is a synced trait, so the widget state a
notebook saves and a reopened page gets from the kernel hold the same view.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = [
    "MAX_DEPTH",
    "STATE_KEYS",
    "STATE_VERSION",
    "TILE_ORDERS",
    "StateError",
    "check_depth",
    "default_tracks",
    "normalise_tracks",
    "parse_state",
]

STATE_VERSION = 1
"""Bumped when a key changes meaning; a state of another version is refused."""

#: The traits a view is made of: range, rows, filters, cursor and inspected sample, area, grouping,
#: colours, which of a compared pair is shown, the clock of its offsets, the markers (notes on the
#: timeline) and the flame graph's levels.
STATE_KEYS: tuple[str, ...] = (
    "view",
    "tracks",
    "filters",
    "at",
    "selected",
    "selection",
    "group_by",
    "metadata_key",
    "color_by",
    "showing",
    "clock",
    "marker_rows",
    "flame_hierarchy",
)

#: The deepest nesting of lists and dicts a state (or a trait's value) may have; a view's deepest,
#: a metadata pair in the filters of a state, is 4 levels down.
MAX_DEPTH = 16

#: Orders of the timeline's tile rows (``TILE_ORDERS`` in js/timeline/tracks.ts).
TILE_ORDERS: tuple[str, ...] = ("physical", "logical", "grid")
TRACK_KEYS: tuple[str, ...] = ("order", "pinned", "rows", "scroll")


class StateError(ValueError):
    """A state or row layout that cannot be applied (the message names the key)."""


def check_depth(value: Any, what: str) -> None:
    """Refuse `value` if its lists, tuples, sets and dicts nest deeper than `MAX_DEPTH` levels.

    Checked without recursion, before anything that recurses into the value (copying it,
    validating it, or its ``repr`` in an error message) meets a hostile nesting.

    >>> check_depth({"filters": {"metadata": [["layer", "3"]]}}, "state")
    >>> deep = [0]
    >>> for _ in range(100_000):
    ...     deep = [deep]
    >>> check_depth({"view": deep}, "state")
    Traceback (most recent call last):
    ...
    ipu_nb._widget.state.StateError: state nests lists or dicts more than 16 levels deep
    """
    containers = (Mapping, list, tuple, set, frozenset)
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, containers) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise StateError(f"{what} nests lists or dicts more than {MAX_DEPTH} levels deep")
        children = [*item.keys(), *item.values()] if isinstance(item, Mapping) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, containers))


def default_tracks() -> dict[str, Any]:
    """Physical order, nothing pinned, every tile in view, scrolled to the top."""
    return {"order": "physical", "pinned": [], "rows": 0, "scroll": 0}


def _count(value: Any, key: str, tiles: int) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or not 0 <= value <= tiles:
        raise StateError(f"tracks[{key!r}] must be an integer in 0..{tiles} (tiles of the timeline), got {value!r}")
    return int(value)


def normalise_tracks(value: Any, tiles: Collection[int]) -> dict[str, Any]:
    """A (possibly partial) row layout checked against the timeline's `tiles` (physical ids).

    ``order`` is one of `TILE_ORDERS`; ``pinned`` physical ids shown first, in that order;
    ``rows`` how many tiles the view shows (0: all), ``scroll`` the first unpinned tile
    position on screen. The front end clamps ``rows`` and ``scroll`` to what fits.

    >>> normalise_tracks({"order": "grid", "pinned": [7, 7, 3]}, {3, 7})
    {'order': 'grid', 'pinned': [7, 3], 'rows': 0, 'scroll': 0}
    """
    if value is None:
        return default_tracks()
    if not isinstance(value, Mapping):
        raise StateError(f"tracks must be a dict with keys {', '.join(TRACK_KEYS)}, got {type(value).__name__}")
    unknown = sorted(map(repr, set(value) - set(TRACK_KEYS)))
    if unknown:
        raise StateError(f"unknown tracks key(s) {', '.join(unknown)}; expected some of {', '.join(TRACK_KEYS)}")
    out = {**default_tracks(), **value}
    if out["order"] not in TILE_ORDERS:
        raise StateError(f"tracks['order'] must be one of {', '.join(TILE_ORDERS)}, got {out['order']!r}")
    pinned = out["pinned"]
    if isinstance(pinned, (str, bytes, Mapping)) or not isinstance(pinned, Iterable):
        raise StateError(f"tracks['pinned'] must be a list of physical tile ids, got {pinned!r}")
    ids: list[int] = []
    for t in pinned:
        if not isinstance(t, (int, np.integer)) or isinstance(t, (bool, np.bool_)) or int(t) not in tiles:
            raise StateError(f"tracks['pinned'] must hold tile ids of this profile, got {t!r}")
        if int(t) not in ids:
            ids.append(int(t))
    return {
        "order": out["order"],
        "pinned": ids,
        "rows": _count(out["rows"], "rows", len(tiles)),
        "scroll": _count(out["scroll"], "scroll", len(tiles)),
    }


def parse_state(state: Any) -> dict[str, Any]:
    """The trait values a state sets: a copy of its `STATE_KEYS` entries (any may be left out).

    Raises
    ------
    StateError
        Not a dict, nested deeper than `MAX_DEPTH`, another ``version`` (an int, not a
        bool), or a key that is not part of a view.
    """
    if not isinstance(state, Mapping):
        raise StateError(f"state must be a dict (what widget.state returns), got {type(state).__name__}")
    check_depth(state, "state")
    version = state.get("version", STATE_VERSION)
    if type(version) is not int or version != STATE_VERSION:
        shown = repr(version)[:40]
        raise StateError(f"state version {shown} is not supported: this ipu-nb reads version {STATE_VERSION}")
    unknown = sorted(map(repr, set(state) - {"version", *STATE_KEYS}))
    if unknown:
        expected = ", ".join(("version", *STATE_KEYS))
        raise StateError(f"unknown state key(s) {', '.join(unknown)}; expected some of {expected}")
    return {key: copy.deepcopy(state[key]) for key in STATE_KEYS if key in state}
