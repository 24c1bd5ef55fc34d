"""The answers the widget's kernel side keeps, each under the part of a `Shown` value it depends on.

Windows and cache blocks are kept per side, filters and colouring (`Shown.drawing`), the flame
graph and an area's samples per side and filters, the group table per side and query, the
overview per side, filters and colouring (`Shown.drawing` too), the comparison with the baseline
per query. A flip or a filter change asks under other keys, so nothing kept for what was shown
before can answer; the caches are bounded (`Kept`), so nothing needs clearing either.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl

from .._compare import Comparison
from .._query import Query, QueryError
from . import lod
from .baseline import comparison_of
from .flame import DEFAULT_HIERARCHY, accounting_samples, flame_tree
from .kept import Kept
from .lod.overview_shares import OverviewShares, overview_shares
from .protocol import FlameTree, GroupRow
from .selection import area_groups, selection_samples
from .shown import Shown, Side, Sides, filters_key

__all__ = [
    "ANSWERS_KEPT",
    "GROUP_ROWS",
    "OVERVIEW_BINS",
    "WINDOW_PIXELS",
    "Answers",
]

ANSWERS_KEPT = 48
"""Encoded window and block answers kept (each well under 2 MB)."""
WINDOW_PIXELS = 8192
"""Widest window answered; wider requests are answered at this width (summaries use fewer bins still)."""
OVERVIEW_BINS = 1024
"""Bins of the overview strip over the whole span."""
GROUP_ROWS = 12
"""Rows of the side panel's group table."""
_GROUP_COLUMNS = ["name", "dimensions", "sample_count", "phase_cycles", "work_cycles", "average_active_tiles"]

Encoded = tuple[dict[str, Any], list[bytes]]


class Answers:
    """Computes the kernel's answers for a `Shown` value and keeps the costly ones (50-200 ms each on a
    full-size profile) for the few values shown last."""

    def __init__(self, sides: Sides, *, allow_clock_mismatch: bool = False) -> None:
        self._sides = sides
        self._allow_clock_mismatch = allow_clock_mismatch
        # One bounded cache per kind of answer (benchmarks empty them to time the work again).
        self.encoded: Kept[Encoded] = Kept(ANSWERS_KEPT)
        self.flames: Kept[FlameTree] = Kept(8)
        self.groups: Kept[tuple[str | None, list[GroupRow]]] = Kept(8)
        self.areas: Kept[pl.DataFrame] = Kept(4)
        self.overviews: Kept[OverviewShares] = Kept(4)
        self.comparisons: Kept[Comparison] = Kept(4)

    def forget(self) -> None:
        """Drop everything kept (for benchmarks timing the work)."""
        for kept in (self.encoded, self.flames, self.groups, self.areas, self.overviews, self.comparisons):
            kept.forget()

    def warm_up(self, shown: Shown, hierarchy: str = DEFAULT_HIERARCHY) -> None:
        """Make what the side panels and a first click need (the flame graph, the group table, the metadata
        order: about a second on a full-size profile). Queued once the timeline index is built, so after the
        first picture, and without holding up the side views asked for meanwhile (`SideViews.submit`)."""
        self.flame(shown, hierarchy)
        self.group_rows(shown, shown.query)
        shown.side.lookup.metadata_of(np.zeros(0, dtype=np.int64))

    # ---- the timeline -------------------------------------------------------------------------

    def window(self, shown: Shown, start: int, end: int, pixels: int) -> Encoded:
        """The encoded answer to a window request (checked numbers; wider than `WINDOW_PIXELS` answered at it), kept."""
        pixels = min(pixels, WINDOW_PIXELS)

        def make() -> Encoded:
            windowed, matched = shown.matching.windowed(shown.color_by)
            return lod.encode_window(lod.window(windowed, start, end, pixels, matched, shown.color_by))

        return self.encoded.get(("window", shown.drawing, start, end, pixels), make)

    def blocks(
        self, shown: Shown, level: int, bins: int, wanted: tuple[int, ...] | list[int]
    ) -> Iterator[tuple[int, dict[str, Any], list[bytes], float]]:
        """Encoded cache blocks `wanted` of `level`: (block, header, buffers, seconds spent), each as
        soon as it is ready, those kept from before first, then the others as computed."""
        missing = []
        for k in wanted:
            hit = self.encoded.peek(("block", shown.drawing, level, bins, k))
            if hit is None:
                missing.append(k)
            else:
                yield (k, *hit, 0.0)
        if not missing:
            return
        windowed, matched = shown.matching.windowed(shown.color_by)
        for block in lod.blocks(windowed, level, bins, missing, matched, shown.color_by):
            began = time.perf_counter()
            header, buffers = lod.encode_window(block.answer)
            self.encoded.put(("block", shown.drawing, level, bins, block.index), (header, buffers))
            yield block.index, header, buffers, block.seconds + time.perf_counter() - began

    def overview(self, shown: Shown) -> OverviewShares:
        """Each colour class's share of all tiles' cycles per overview bin, for the filters and colouring shown."""

        def make() -> OverviewShares:
            index, matched = shown.matching.drawn(shown.color_by)  # the timeline's classes for the colouring
            return overview_shares(index, OVERVIEW_BINS, matched, shown.color_by)

        return self.overviews.get(("overview", shown.drawing), make)

    # ---- the side views -----------------------------------------------------------------------

    def flame(self, shown: Shown, hierarchy: str = DEFAULT_HIERARCHY) -> FlameTree:
        """The flame graph of the matching samples in `hierarchy` (``flame_hierarchy``)."""
        matching = shown.matching

        split = shown.color_by == "activity"  # the newest runtime's accounting of exchange samples

        def make() -> FlameTree:
            samples = accounting_samples(shown.profile.samples, shown.side.accounting) if split else None
            return flame_tree(shown.profile, matching.mask, matching.query, samples=samples, hierarchy=hierarchy)

        return self.flames.get(("flame", matching.key, hierarchy, split), make)

    def area_flame(self, shown: Shown, selection: dict[str, Any], hierarchy: str = DEFAULT_HIERARCHY) -> FlameTree:
        """The flame graph of the area's matching samples, each counted with its cycles inside the area."""

        split = shown.color_by == "activity"  # the newest runtime's accounting of exchange samples

        def make() -> FlameTree:
            frame = self.area_samples(shown, selection)
            clipped = frame.with_columns(duration=pl.col("clipped_cycles").cast(pl.UInt32))
            if split:
                within = (int(selection["start"]), int(selection["end"]))
                clipped = accounting_samples(clipped, shown.side.accounting, within)
            return flame_tree(shown.profile, None, shown.matching.query, samples=clipped, hierarchy=hierarchy)

        return self.flames.get(("area", shown.matching.key, filters_key(selection), hierarchy, split), make)

    def area_samples(self, shown: Shown, selection: dict[str, Any] | None) -> pl.DataFrame:
        """`ProfileWidget.selection_samples` of `selection` for the matching samples."""
        matching = shown.matching

        def make() -> pl.DataFrame:
            index = _built_index(matching.side) if selection is not None else None
            return selection_samples(shown.profile, matching.query, selection, index, matching.mask)

        return self.areas.get((matching.key, filters_key(selection)), make)

    def group_rows(self, shown: Shown, q: Query, area: pl.DataFrame | None = None) -> tuple[str | None, list[GroupRow]]:
        """Error (or None) and the top rows of ``query(profile, q).groups``; for an area's query,
        aggregated from its samples `area` (`selection.area_groups`)."""
        from .._query import query

        key = dataclasses.replace(q, limit=GROUP_ROWS)

        def make() -> tuple[str | None, list[GroupRow]]:
            try:
                if area is None:
                    groups = query(shown.profile, key).groups
                else:  # the columns below only
                    groups = area_groups(shown.profile, key, area, percentiles=False)
            except QueryError as error:
                return (str(error), [])
            rows: list[GroupRow] = [
                {**row, "dimensions": {d["name"]: d["value"] for d in row["dimensions"]}}  # type: ignore[typeddict-item]
                for row in groups.select(_GROUP_COLUMNS).iter_rows(named=True)
            ]
            return (None, rows)

        return self.groups.get((shown.side.key, key, area is not None), make)

    def comparison(self, q: Query, clock: str) -> Comparison:
        """``compare(baseline, after, ...)`` for `q`'s filters and grouping, both profiles on `clock` (its
        ``window`` and ``at`` are offsets there; `ValueError` without a baseline)."""
        baseline, after = (self._sides.side(which, clock).profile for which in ("baseline", "after"))
        return self.comparisons.get(
            (q, clock), lambda: comparison_of(baseline, after, q, allow_clock_mismatch=self._allow_clock_mismatch)
        )


def _built_index(side: Side) -> lod.TimelineIndex | None:
    """The index to find an area's rows in (faster than a scan, the same frame): only once it is
    built, so that no area waits for it, and None when it failed (the scan still answers)."""
    if not side.build.ready:
        return None
    try:
        return side.index
    except lod.TimelineIndexError:
        return None
