"""What the widget shows, as one immutable value: the profile, what its filters select, colouring and grouping.

A `Shown` is made whole from the traits that define it (``showing``, ``filters``, ``color_by``,
``group_by``, ``metadata_key``) and never changes: `ProfileWidget` holds one and swaps it for a
new one when one of those traits changes. Every answer the kernel keeps is keyed by (part of)
its `Shown.key`, and a worker thread takes the value once and answers for it, so a flip or a
filter change can never be answered from what was shown before.

`Side` is one of the two profiles on one clock (`ipu_nb._widget.clocks`) with its timeline index
and lookups, made once; `Matching`
is what normalised filters select in one side (their `Query` and masks), made once per
filters and side and shared by every `Shown` with those filters (`Sides` keeps the last few).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import polars as pl

from .._exchange.display import accounting_parts
from .._model.index import ProfileIndex
from .._query import Query, filter_mask, index_of, make_query
from .._query.filters_codec import filters_query
from . import lod
from .clocks import PER_TILE, clocked_profile
from .kept import Kept
from .messages import Limits, view_limit

if TYPE_CHECKING:
    from .._model.vocabulary import GroupBy
    from .._profile import Profile

__all__ = ["MATCHINGS_KEPT", "Matching", "Shown", "Side", "Sides", "filters_key"]

MATCHINGS_KEPT = 6
"""Filter selections kept (per profile shown): a flip back, or filters set again, finds their masks made."""


def filters_key(filters: dict[str, Any] | None) -> str:
    """Normalised `filters` (or an area, the ``selection`` trait) as one canonical string: equal values, equal keys.

    >>> filters_key({"tiles": [1], "kind": None}) == filters_key({"kind": None, "tiles": [1]})
    True
    """
    return json.dumps(filters, sort_keys=True)


@dataclass(frozen=True, eq=False)
class Side:
    """One profile the widget can show (``which``: "after" or "baseline") on one ``clock``, its timeline
    index and lookups."""

    which: str
    clock: str
    profile: Profile
    """The profile with offsets on ``clock`` (`clocked_profile`)."""
    build: lod.IndexBuild
    """The timeline index, built on a thread from the side's first use on."""
    lookup: ProfileIndex
    """Sample id → row, and the metadata of samples."""

    @classmethod
    def of(cls, which: str, profile: Profile, clock: str = PER_TILE) -> Side:
        shown = clocked_profile(profile, clock)
        return cls(which, clock, shown, lod.IndexBuild(shown.samples, shown.tiles), index_of(shown))

    @property
    def key(self) -> tuple[str, str]:
        """(profile, clock): what every answer about this side is kept under."""
        return (self.which, self.clock)

    @property
    def facts(self) -> lod.TimelineFacts:
        """Rows, span and legends (there at once)."""
        return self.build.facts

    @property
    def index(self) -> lod.TimelineIndex:
        """The timeline index: waits for its build (`lod.TimelineIndexError` if that failed)."""
        return self.build.index()

    @cached_property
    def activity_index(self) -> lod.TimelineIndex:
        """The index of colour mode "activity": the samples' display pieces (`lod.activity_index`; waits for
        `index`)."""
        return lod.activity_index(self.profile, self.index, per_tile=self.clock == PER_TILE)

    @cached_property
    def accounting(self) -> pl.DataFrame:
        """The newest runtime's accounting parts of every exchange sample (`accounting_parts`)."""
        clock = lod.bounds_clock(self.profile, self.clock == PER_TILE)
        return accounting_parts(self.profile.samples, clock)

    def timeline(self, color_by: str) -> lod.TimelineIndex:
        """The index drawn for `color_by`: `activity_index` for "activity", else `index`."""
        return self.activity_index if color_by == "activity" else self.index

    @cached_property
    def limits(self) -> Limits:
        """What the front end's numbers are checked against: the view limit and the timeline's rows."""
        return Limits(end=view_limit(self.facts.span), rows=self.facts.rows)

    @cached_property
    def tile_ids(self) -> frozenset[int]:
        """The physical tiles of the timeline's rows."""
        return frozenset(self.facts.row_tiles.tolist())


@dataclass(frozen=True, eq=False)
class Matching:
    """What normalised filters select in one side: their `Query`, and which samples match."""

    side: Side
    filters: str
    """The filters as `filters_key` writes them."""
    query: Query
    row_mask: np.ndarray
    """Per row of ``profile.samples``."""
    mask: np.ndarray | None
    """Per sample id; None when every sample matches."""

    @classmethod
    def of(cls, side: Side, filters: dict[str, Any]) -> Matching:
        """The selection of normalised `filters` in `side` (`QueryError` or polars' error when it cannot be made)."""
        q = filters_query(filters)
        row_mask = filter_mask(side.profile, q)
        mask = side.lookup.by_id(row_mask)
        return cls(side, filters_key(filters), q, row_mask, None if mask.all() else mask)

    @property
    def key(self) -> tuple[str, str, str]:
        """(side, clock, filters): what every answer about the matching samples is kept under."""
        return (*self.side.key, self.filters)

    @cached_property
    def sorted_mask(self) -> np.ndarray | None:
        """`mask` per position of the timeline index (made on first use; waits for the index)."""
        return None if self.mask is None else self.mask[self.side.index.sample]

    @cached_property
    def activity_mask(self) -> np.ndarray | None:
        """`mask` per position of `Side.activity_index` (each piece matches as its sample does)."""
        return None if self.mask is None else self.mask[self.side.activity_index.sample]

    def drawn(self, color_by: str) -> tuple[lod.TimelineIndex, np.ndarray | None]:
        """The sorted index drawn for `color_by` (`Side.timeline`) and the mask per its positions: what the
        overview sums classes over, ``index.classes(color_by)``."""
        if color_by == "activity":
            return self.side.activity_index, self.activity_mask
        return self.side.index, self.sorted_mask

    def windowed(self, color_by: str = "kind") -> tuple[lod.Windowed, np.ndarray | None]:
        """What answers windows now, and the mask for it: the index once sorted, before that the
        file-order samples (`lod.FileRuns` or `lod.UnsortedSamples`: the same answers, so the
        first picture does not wait for the sort). Colour mode "activity" draws `Side.activity_index`."""
        if color_by == "activity":
            return self.side.activity_index, self.activity_mask
        early = self.side.build.early()
        if early is None:
            return self.side.index, self.sorted_mask
        return early, None if self.mask is None else self.row_mask


@dataclass(frozen=True, eq=False)
class Shown:
    """What the widget shows: a `Matching` (profile and filters), the timeline's colouring and the grouping."""

    matching: Matching
    color_by: str
    group_by: str
    metadata_key: str | None

    @property
    def side(self) -> Side:
        return self.matching.side

    @property
    def profile(self) -> Profile:
        return self.matching.side.profile

    @property
    def key(self) -> tuple[Any, ...]:
        """Equal for equal values: (side, filters), colouring, grouping."""
        return (self.matching.key, self.color_by, self.group_by, self.metadata_key)

    @property
    def drawing(self) -> tuple[Any, ...]:
        """What a picture of the timeline depends on: the matching samples and the colouring."""
        return (self.matching.key, self.color_by)

    @property
    def grouping(self) -> tuple[Any, ...]:
        """What the group table depends on: the matching samples and the grouping."""
        return (self.matching.key, self.group_by, self.metadata_key)

    @cached_property
    def query(self) -> Query:
        """The filters' `Query` with the grouping; its metadata key only while grouping by metadata."""
        key = self.metadata_key if self.group_by == "metadata" else None
        return make_query(self.matching.query, group_by=cast("GroupBy", self.group_by), metadata_key=key)


class Sides:
    """The widget's profiles ("after", and "baseline" when there is one), each `Side` made on first use,
    on each clock, and the `Matching` of the last few filters in each."""

    def __init__(self, after: Profile, baseline: Profile | None) -> None:
        self._profiles = {"after": after, "baseline": baseline}
        self._sides: dict[tuple[str, str], Side] = {}
        self._lock = threading.Lock()
        self._matchings: Kept[Matching] = Kept(MATCHINGS_KEPT)

    def profile(self, which: str) -> Profile:
        profile = self._profiles[which]
        if profile is None:
            raise ValueError("this widget has no baseline: ProfileWidget(profile, baseline=before)")
        return profile

    @property
    def has_baseline(self) -> bool:
        return self._profiles["baseline"] is not None

    def other(self, side: Side) -> Side | None:
        """The side compared with `side`: the other profile on its clock (None without a baseline)."""
        if not self.has_baseline:
            return None
        return self.side("baseline" if side.which == "after" else "after", side.clock)

    def side(self, which: str, clock: str = PER_TILE) -> Side:
        """The side `which` on `clock`, its index build started the first time it is asked for."""
        with self._lock:
            side = self._sides.get((which, clock))
            if side is None:
                side = self._sides[which, clock] = Side.of(which, self.profile(which), clock)
            return side

    def matching(self, which: str, filters: dict[str, Any], clock: str = PER_TILE) -> Matching:
        """What normalised `filters` select in side `which` on `clock` (kept: `QueryError` or polars'
        error if it fails)."""
        side = self.side(which, clock)
        return self._matchings.get((*side.key, filters_key(filters)), lambda: Matching.of(side, filters))

    def shown(
        self,
        which: str,
        filters: dict[str, Any],
        color_by: str,
        group_by: str,
        metadata_key: str | None,
        clock: str = PER_TILE,
    ) -> Shown:
        """The value for these traits (their filters normalised)."""
        return Shown(self.matching(which, filters, clock), color_by, group_by, metadata_key)
