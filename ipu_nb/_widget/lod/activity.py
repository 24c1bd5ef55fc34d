"""The timeline index of colour mode "activity": every sample's display pieces, as the newest runtime draws them.

`ipu_nb._exchange.display.display_segments` cuts each exchange sample with activities into
synchronization, send, receive, both, partner busy and idle stretches; every other sample
is one piece of its kind. The pieces make a `TimelineIndex` of their own (the same rows and
span; each position's ``sample`` the piece's sample, so filters, hover and labels read
the sample), whose ``activity_class`` holds each piece's class. The phase bounds are taken
on the clock the timeline shows when it is one for every tile (the newest runtime's, cropped
or not), else on the device-wide clock (docs/reference/head.md#the-shared-clock-and-the-crop,
uncropped), the pieces then drawn on each tile's own offsets. A profile with no sample to cut (no
activities: schema 3) answers from the samples' own index, exchange drawn as exchange.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from ..._exchange.display import DISPLAY_CLASSES, bounds_clock, display_segments
from ..._profile import Profile
from .build import sorted_index, unsorted_samples
from .index import TimelineIndex

__all__ = ["ACTIVITY_CLASSES", "activity_index", "bounds_clock"]

ACTIVITY_CLASSES: tuple[str, ...] = DISPLAY_CLASSES
"""Class 1 + index of these names when colouring by activity (the kind classes first, the same numbers)."""


def activity_index(profile: Profile, samples_index: TimelineIndex, per_tile: bool = True) -> TimelineIndex:
    """The index of `profile`'s display pieces (`samples_index` itself, classes by kind, when none is cut).

    `per_tile`: the offsets are each tile's own (the bounds are then taken on the device-wide
    clock); else they already are on one clock for every tile, the bounds' clock.
    """
    samples = profile.samples
    pieces = display_segments(samples, profile.exchange_activities, bounds_clock(profile, per_tile))
    if pieces.height == samples.height:  # nothing cut: the same intervals (`classes` then falls back to kind)
        return samples_index
    owner_rows = samples_index_rows(profile, pieces.get_column("sample").to_numpy())
    gathered = samples.select("tile", "kind", "inactive", "kernel")[owner_rows].with_columns(
        sample=pieces.get_column("sample"), offset=pieces.get_column("offset"), duration=pieces.get_column("duration")
    )
    # Pieces come in sample order, then offset: numbered so, they sort as the file's runs do (no sort at all
    # when the file lists each tile's samples together), then each position takes its sample's id.
    numbered = gathered.with_columns(sample=pl.int_range(pieces.height, dtype=pl.UInt32))
    unsorted = unsorted_samples(numbered, samples_index)
    owners = pieces.get_column("sample").to_numpy()
    unsorted = dataclasses.replace(unsorted, sample=owners)
    return sorted_index(unsorted, activity_class=pieces.get_column("cls").to_numpy())


def samples_index_rows(profile: Profile, ids: np.ndarray) -> np.ndarray:
    """The ``profile.samples`` row of each sample id of `ids` (ids are rows in loaded profiles; else looked up)."""
    column = profile.samples.get_column("sample").to_numpy().astype(np.int64)
    if len(column) and bool(np.all(column == np.arange(len(column)))):
        return ids.astype(np.int64)
    slot = np.full(int(column.max()) + 1 if len(column) else 0, -1, dtype=np.int64)
    slot[column] = np.arange(len(column))
    return slot[ids.astype(np.int64)]
