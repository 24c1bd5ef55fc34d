"""The widget's area selection: its validation, and the query, samples and groups of an area.

An area is ``{"start": int, "end": int, "tiles": list[int] | None}``: the offsets
``[start, end)`` (the window rule of `ipu_nb._query.window`) on those physical tiles (None:
every tile). It narrows the widget's filters and never replaces them: a ``window`` filter
and the area's window both hold (their intersection), as do a ``tiles`` filter and the
area's tiles. Everything an area shows is one `Query` (`area_query`): its samples are the
query core's `ipu_nb._query.window_samples` (found in the widget's timeline index when it
has one), and its groups the core's clipping and aggregation of those samples
(`area_groups`), equal to ``ipu_nb.query(...)`` for that query.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, cast

import numpy as np
import polars as pl

from .._profile import Profile
from .._query import Query, check_metadata_key, index_of, make_query, query, window_samples
from .._query.plan import aggregate, longest, with_ms
from .._query.window import clip_to_window, clipped_cycles
from .lod.index import TimelineIndex, positions
from .protocol import MAX_SAFE_INTEGER, AreaSample

__all__ = [
    "SELECTION_KEYS",
    "SelectionError",
    "area_groups",
    "area_longest",
    "area_query",
    "normalise_selection",
    "selection_groups",
    "selection_samples",
]

#: The keys of a selection, in the order `normalise_selection` returns them.
SELECTION_KEYS = ("start", "end", "tiles")


class SelectionError(ValueError):
    """A value that is not an area of this profile (the message says which key and why)."""


def _is_integer(value: Any) -> bool:
    """An int or a numpy integer, not a bool (which is no offset or tile id)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _offset(value: Any, key: str, limit: int) -> int:
    if not _is_integer(value):
        raise SelectionError(f"selection[{key!r}] must be an integer offset, got {value!r}")
    if not 0 <= value <= limit:
        raise SelectionError(f"selection[{key!r}] must be in 0..{limit} (the timeline's range), got {value}")
    return int(value)


def normalise_selection(value: Any, tiles: Collection[int], limit: int) -> dict[str, Any] | None:
    """`value` checked as an area of a profile whose timeline has `tiles` and ends at `limit`.

    Returns None or ``{"start", "end", "tiles"}`` with ``0 <= start < end <= limit`` and
    ``tiles`` None or a sorted list without repeats of the profile's physical tile ids.
    ``end`` at most 2⁵³ − 1 as well (what a browser holds exactly).

    Raises
    ------
    SelectionError
        Naming the key and what it must be.

    >>> normalise_selection({"start": 5, "end": 90, "tiles": [3, 1, 3]}, {1, 3}, 100)
    {'start': 5, 'end': 90, 'tiles': [1, 3]}
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SelectionError(
            f"selection must be None or a dict with keys {', '.join(SELECTION_KEYS)}, got {type(value).__name__}"
        )
    unknown = sorted(map(repr, set(value) - set(SELECTION_KEYS)))
    if unknown:
        raise SelectionError(f"unknown selection key(s) {', '.join(unknown)}; expected {', '.join(SELECTION_KEYS)}")
    missing = [k for k in ("start", "end") if k not in value]
    if missing:
        raise SelectionError(f"selection needs {' and '.join(repr(k) for k in missing)}")
    top = min(limit, MAX_SAFE_INTEGER)
    start = _offset(value["start"], "start", top)
    end = _offset(value["end"], "end", top)
    if start >= end:
        raise SelectionError(f"selection must have start < end, got start {start} and end {end}")
    picked = value.get("tiles")
    if picked is not None:
        if isinstance(picked, (str, bytes, Mapping)) or not isinstance(picked, Iterable):
            raise SelectionError(f"selection['tiles'] must be None (every tile) or a list of tile ids, got {picked!r}")
        ids = list(picked)
        bad = [t for t in ids if not _is_integer(t)]
        if bad:
            raise SelectionError(f"selection['tiles'] must hold integer tile ids, got {bad[0]!r}")
        ids = [int(t) for t in ids]
        if not ids:
            raise SelectionError("selection['tiles'] must not be empty: None selects every tile")
        strangers = sorted(set(ids) - set(tiles))
        if strangers:
            shown = ", ".join(map(str, strangers[:5])) + (", …" if len(strangers) > 5 else "")
            raise SelectionError(f"selection['tiles'] holds ids that are no tile of this profile: {shown}")
        picked = sorted(set(ids))
    return {"start": start, "end": end, "tiles": picked}


def area_query(base: Query, selection: Mapping[str, Any]) -> Query | None:
    """`base` (filters and grouping) narrowed to the area, clipped: what its aggregate runs.

    The window is the area's, cut to a ``window`` filter of `base`; the tiles are the
    area's, cut to a ``tiles`` filter of `base` (None and no filter: every tile). None when
    nothing is left (the area misses the filters' window or tiles).

    >>> area_query(make_query(tiles=[1, 2]), {"start": 0, "end": 9, "tiles": [2, 5]}).tiles
    (2,)
    """
    start, end = selection["start"], selection["end"]
    if base.window is not None:
        start, end = max(start, base.window[0]), min(end, base.window[1])
        if start >= end:
            return None
    tiles: tuple[int, ...] = base.tiles
    if selection.get("tiles") is not None:
        picked = set(selection["tiles"])
        tiles = tuple(t for t in sorted(picked) if not base.tiles or t in base.tiles)
        if not tiles:
            return None
    return make_query(base, window=(start, end), tiles=tiles, clip=True)


def selection_samples(
    profile: Profile,
    base: Query,
    selection: Mapping[str, Any] | None,
    index: TimelineIndex | None = None,
    matched: np.ndarray | None = None,
) -> pl.DataFrame:
    """The samples matching `base`'s filters that overlap the area on its tiles, with ``clipped_cycles``.

    Every column of ``profile.samples`` (file order) plus ``clipped_cycles``, each sample's
    cycles inside the area's window (`window_samples`). No rows without a selection. With
    the profile's timeline `index` and `matched` (per sample id, whether it matches `base`'s
    filters; None: every sample) the rows are found there instead of by a scan of every
    sample (about half the time at 100k samples of the full-size profile): the same frame.
    """
    q = None if selection is None else area_query(base, selection)
    if q is None:
        return window_samples(profile, None, (0, 1), tiles=[])
    assert q.window is not None
    if index is None:
        return window_samples(profile, base, q.window, q.tiles or None)
    rows = np.zeros(profile.samples.height, dtype=bool)
    rows[index_of(profile).rows_of(_area_ids(index, q.window, q.tiles, matched))] = True
    return profile.samples.filter(pl.Series(rows)).with_columns(clipped_cycles(q.window))


def _area_ids(
    index: TimelineIndex, window: tuple[int, int], tiles: tuple[int, ...], matched: np.ndarray | None
) -> np.ndarray:
    """Ids of the samples overlapping `window` (the timeline index's window rule) on `tiles` (empty:
    every tile) that `matched` marks."""
    pos = positions(index, *window)
    ids = index.sample[pos]
    if tiles:
        on = np.isin(index.row_tiles, tiles)[index.row[pos]]
        ids = ids[on]
    return ids if matched is None else ids[matched[ids]]


def area_groups(profile: Profile, q: Query, frame: pl.DataFrame, *, percentiles: bool = True) -> pl.DataFrame:
    """``ipu_nb.query(profile, q).groups`` for an area's query `q` (`area_query`) whose matching
    samples are `frame` (`selection_samples`): the query core's clipping and aggregation of
    those rows, so the profile is not scanned a second time. Without `percentiles`, the
    p50, p95 and maximum columns are left out (the side panel shows none of them).

    Raises
    ------
    QueryError
        ``group_by="metadata"`` without a ``metadata_key``, as `ipu_nb.query` does.
    """
    assert q.window is not None and q.clip
    check_metadata_key(q)
    lf = frame.lazy()
    if q.group_by == "metadata" and q.metadata_key is not None:
        index = index_of(profile)
        rows = pl.Series(index.rows_of(frame.get_column("sample").to_numpy()), dtype=pl.Int64)
        lf = lf.with_columns(index.first_values(q.metadata_key).gather(rows))
    # An area's rows are few: polars' in-memory engine runs this plan in about half the time
    # the default (streaming) engine takes on them, with the same results.
    plan = aggregate(profile, clip_to_window(lf, q.window), q, percentiles=percentiles)
    groups = plan.collect(engine="in-memory")
    return with_ms(groups, profile.clock_hz)


def area_longest(frame: pl.DataFrame, window: tuple[int, int], n: int) -> list[AreaSample]:
    """The `n` samples of `frame` (`selection_samples`) with the most cycles inside `window`, in the
    query core's order of a clipped query's longest samples (`ipu_nb._query.plan.longest`).

    Only the rows reaching the `n`-th largest ``clipped_cycles`` can be among them (every tie
    of it included), so the full ordering sorts those few rows, not the whole area.
    """
    if not frame.height or n <= 0:
        return []
    floor = frame.get_column("clipped_cycles").top_k(n).min()
    rows = frame.filter(pl.col("clipped_cycles") >= floor)
    top = longest(clip_to_window(rows.lazy(), window), n, clipped=True).collect(engine="in-memory")
    return [cast("AreaSample", row) for row in top.iter_rows(named=True)]


def selection_groups(
    profile: Profile, base: Query, selection: Mapping[str, Any] | None, frame: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The area's clipped aggregate: ``ipu_nb.query(profile, area_query(base, selection)).groups``.

    `frame` is `selection_samples` for the same arguments when the caller holds it. No rows
    without a selection or when the area misses the filters (the query core's columns kept).
    """
    q = None if selection is None else area_query(base, selection)
    if q is None:
        return query(profile, make_query(base, window=(0, 1), clip=True)).groups.clear()
    if frame is None:
        frame = selection_samples(profile, base, selection)
    return area_groups(profile, q, frame)
