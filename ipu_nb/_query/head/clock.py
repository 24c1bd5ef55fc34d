"""The newest runtime's clock: one device-wide origin for every tile, and the crop of its leading interval.

Every tile's counter is read against one `cycle_origin` (the earliest first sample, found
with wrapping 32-bit arithmetic), so offsets of different tiles compare. By default the
query then crops the interval before the last tile's first sample, the time when not every
tile is profiled yet; ``shared_clock=True`` keeps it. The rules:
docs/reference/head.md#the-shared-clock-and-the-crop.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import polars as pl

from ..._model.profile import ProfileData

__all__ = ["CLOCKS", "HeadClock", "cycle_origin", "first_starts", "head_clock", "raw_offsets"]

CLOCKS: tuple[str, ...] = ("tile", "cropped", "shared")
"""The clocks a profile's offsets can be read on: the default semantics' per-tile clock, and the
newest runtime's shared clock cropped at the last tile's first sample or whole (`head_clock`)."""

_WRAP = 2**32


def first_starts(profile: ProfileData) -> np.ndarray:
    """The start counter of each tile's first sample, tiles in file order, those without samples left out."""
    return profile.tiles.get_column("base").drop_nulls().to_numpy().astype(np.uint32)


def cycle_origin(profile: ProfileData) -> int:
    """The device-wide cycle origin: the first tile's first start moved back to the earliest first start.

    Each tile's first start is compared with the first tile's as a signed 32-bit difference,
    so a counter that wrapped just before still counts as later (0 for a profile without samples).

    >>> int(raw_offsets(first_starts(profile), cycle_origin(profile)).min())  # the earliest first start
    0
    """
    starts = first_starts(profile)
    if not len(starts):
        return 0
    reference = np.uint32(starts[0])
    deltas = (starts - reference).view(np.int32)
    return (int(reference) + int(deltas.min())) % _WRAP


def raw_offsets(start: np.ndarray, origin: int) -> np.ndarray:
    """Counters (u32) read against `origin`: ``(start - origin) mod 2**32``, as u64."""
    return (np.asarray(start, dtype=np.uint32) - np.uint32(origin)).astype(np.uint64)


@dataclass(frozen=True, eq=False)
class HeadClock:
    """A profile's samples on the shared clock, cropped: what the newest runtime's query aggregates.

    Attributes
    ----------
    origin : int
        `cycle_origin` of the profile.
    crop : int
        The cycles cut from the start of the shared clock (0 with ``shared_clock``).
    span_cycles : int
        ``profileSpanCycles``: the latest cropped end of any sample, zero-length ones included.
    profile : ProfileData
        The same profile with each sample's ``offset`` and ``duration`` cropped and the
        samples left with no cycles dropped; sample ids and every other column unchanged.
    """

    origin: int
    crop: int
    span_cycles: int
    profile: ProfileData


def _clock(profile: ProfileData, shared_clock: bool) -> HeadClock:
    origin = cycle_origin(profile)
    starts = first_starts(profile)
    crop = 0 if shared_clock or not len(starts) else int(raw_offsets(starts, origin).max())
    samples = profile.samples
    raw = raw_offsets(samples.get_column("start").to_numpy(), origin)
    raw_end = raw + samples.get_column("duration").to_numpy().astype(np.uint64)
    offset = np.maximum(raw, np.uint64(crop)) - np.uint64(crop)
    end = np.maximum(raw_end, np.uint64(crop)) - np.uint64(crop)
    span = int(end.max()) if len(end) else 0
    cropped = samples.with_columns(
        pl.Series("offset", offset, dtype=pl.UInt64), pl.Series("duration", (end - offset).astype(np.uint32))
    ).filter(pl.Series(end > offset))
    data = ProfileData(
        samples=cropped,
        metadata=profile.metadata_source(),  # type: ignore[arg-type]  # the field takes either
        exchange_activities=profile.exchange_activities,
        tiles=profile.tiles,
        clock_hz=profile.clock_hz,
        schema_version=profile.schema_version,
        granularity=profile.granularity,
        path=profile.path,
    )
    return HeadClock(origin=origin, crop=crop, span_cycles=span, profile=data)


_CLOCKS: weakref.WeakKeyDictionary[ProfileData, dict[bool, HeadClock]] = weakref.WeakKeyDictionary()


def head_clock(profile: ProfileData, shared_clock: bool = False) -> HeadClock:
    """The `HeadClock` of `profile` (cropped unless `shared_clock`), computed once per profile and choice.

    >>> clock = head_clock(profile)
    >>> clock.profile.samples.height <= profile.samples.height
    True
    """
    clocks = _CLOCKS.setdefault(profile, {})
    if shared_clock not in clocks:
        clocks[shared_clock] = _clock(profile, shared_clock)
    return clocks[shared_clock]
