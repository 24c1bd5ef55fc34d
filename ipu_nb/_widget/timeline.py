"""What the widget's timeline asks the kernel beyond windows, as plain functions of the profile.

Row facts for the front end's tile orders, the extent `ProfileWidget.zoom_to` fits, and
the search box's matches in timeline order. The widget (`widget`) holds the state and
sends the answers; everything here selects through the query core or the timeline index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._query import filter_mask
from .._query.search import search_mask
from .lod import TimelineFacts, TimelineIndex

if TYPE_CHECKING:
    from .._profile import Profile
    from .._query import ProfileIndex

__all__ = ["MIN_FIT", "extent", "fit", "grid_position", "row_order", "row_positions", "search_rows", "timeline_matches"]

MIN_FIT = 8
"""The narrowest view a fit gives (the front end's narrowest view, js/timeline/view.ts)."""


def grid_position(physical: int) -> tuple[int, int]:
    """``(column, row)`` of a physical tile id on the C600's grid of 64 columns (two lanes each pair).

    The layout is docs/reference/workloads.md#tiles-and-the-c600-layout:
    ``physical = row · 64 + column + 2 · lane``, so the id's remainder by 64 is its column.

    >>> grid_position(66), grid_position(1411)
    ((2, 1), (3, 22))
    """
    return physical % 64, physical // 64


def row_positions(profile: Profile, index: TimelineFacts) -> dict[str, Any]:
    """Per timeline row: its tile's logical index (tile entry order) and C600 grid position (`info` keys)."""
    tiles = profile.tiles.group_by("tile").agg(pl.col("tile_index").min())
    logical = dict(zip(tiles.get_column("tile").to_list(), tiles.get_column("tile_index").to_list(), strict=True))
    rows = index.row_tiles.tolist()
    return {"logical": [logical.get(t, t) for t in rows], "grid": [list(grid_position(t)) for t in rows]}


def row_order(info: dict[str, Any], tracks: dict[str, Any], only: list[int]) -> list[int]:
    """Physical tile ids top to bottom as the front end orders its rows (``orderRows`` in
    js/timeline/tracks.ts): the `info` rows kept to `only` (all when empty), sorted by ``tracks``'
    order (logical index, grid column then row, or physical as sent; ties by row), pinned first.

    >>> info = {"rows": [0, 2, 64], "logical": [2, 0, 1], "grid": [[0, 0], [2, 0], [0, 1]]}
    >>> row_order(info, {"order": "logical", "pinned": [64]}, [])
    [64, 2, 0]
    >>> row_order(info, {"order": "grid", "pinned": []}, [2, 64])
    [64, 2]
    """
    rows: list[int] = list(info["rows"])
    keep = set(only)
    kept = [r for r in range(len(rows)) if not keep or rows[r] in keep]
    order = tracks.get("order", "physical")
    logical, grid = info.get("logical"), info.get("grid")
    if order == "logical" and logical is not None and len(logical) == len(rows):
        kept.sort(key=lambda r: (logical[r], r))
    elif order == "grid" and grid is not None and len(grid) == len(rows):
        kept.sort(key=lambda r: (grid[r][0], grid[r][1], r))
    tiles = [rows[r] for r in kept]
    present = set(tiles)
    pinned = [t for t in tracks.get("pinned", []) if t in present]
    return pinned + [t for t in tiles if t not in set(pinned)]


def search_rows(profile: Profile, text: str, case_sensitive: bool, mask: np.ndarray | None) -> np.ndarray:
    """Per ``profile.samples`` row: its operation or kernel contains `text`, and it matches `mask` (by sample id)."""
    found = search_mask(profile, text, case_sensitive)
    if mask is not None:
        found &= mask[profile.samples.get_column("sample").to_numpy()]
    return found


def timeline_matches(
    index: TimelineIndex, lookup: ProfileIndex, rows: np.ndarray, limit: int
) -> tuple[int, np.ndarray]:
    """How many samples `rows` marks, and the sorted positions of the first `limit` by offset, then row."""
    pos = np.flatnonzero(lookup.by_id(rows)[index.sample])
    count = len(pos)
    if count > limit:
        pos = pos[np.argpartition(index.start[pos], limit - 1)[:limit]]
    return count, pos[np.lexsort((index.row[pos], index.start[pos]))]


def extent(
    profile: Profile, index: TimelineIndex, lookup: ProfileIndex, mask: np.ndarray | None, by: str, value: int | None
) -> tuple[int, int] | None:
    """First offset and last end of one sample (`by` "sample"), one phase, or the samples `mask` marks
    (by sample id; None: all) for "matching"; None when there is no such sample."""
    if by == "sample":
        row = lookup.row_of(value) if value is not None else -1
        if row < 0:
            return None
        sample = profile.samples.row(row, named=True)
        return sample["offset"], sample["offset"] + sample["duration"]
    if by == "phase":
        if value is None:
            return None
        rows = np.flatnonzero(filter_mask(profile, phases=[value]))
    elif mask is None:
        return (0, index.span) if index.span else None
    else:
        rows = lookup.rows_of(np.flatnonzero(mask))
    if not len(rows):
        return None
    offsets = profile.samples.get_column("offset").to_numpy()[rows]
    ends = offsets + profile.samples.get_column("duration").to_numpy()[rows]
    return int(offsets.min()), int(ends.max())


def fit(span: tuple[int, int], margin: float, limit: int) -> list[int]:
    """The view showing `span` with `margin` of its width each side, at least `MIN_FIT` wide, inside ``[0, limit]``."""
    start, end = span
    width = min(max(end - start + 2 * (end - start) * margin, MIN_FIT), limit)
    lo = int(max(0, min((start + end) / 2 - width / 2, limit - width)))
    return [lo, int(min(limit, max(lo + MIN_FIT, round(lo + width))))]
