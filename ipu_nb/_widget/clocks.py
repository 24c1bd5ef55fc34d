"""The clock the widget's offsets are read on (the ``clock`` trait), and the one conversion between clocks.

``"tile"`` is the default semantics' clock (docs/reference/format.md#offsets-and-durations):
each tile's first sample at offset 0, every tile on its own clock. ``"cropped"`` and
``"shared"`` are the newest runtime's (`ipu_nb._query.head.clock`): every tile on one clock
from the device-wide `cycle_origin`, cropped at the last tile's first sample ("crop initial
sync") or not ("shared clock"). The widget shows a profile on its clock as
`clocked_profile` makes it, so every offset it shows, takes and returns is on that clock;
`converted` moves an offset from one clock to another when the clock is switched.
"""

from __future__ import annotations

from .._profile import Profile
from .._query.head.clock import CLOCKS, head_clock

__all__ = ["CLOCKS", "CLOCK_LABELS", "PER_TILE", "clock_crop", "clocked_profile", "converted", "default_clock"]

PER_TILE = "tile"
"""The default semantics' per-tile clock: what ``ipu_nb.query`` and `Profile.filter` read offsets on."""
#: The first schema version the ba7339c runtime cannot read: such files come from a newer runtime.
_NEWER_RUNTIME_SCHEMA = 4
CLOCK_LABELS: dict[str, str] = {"tile": "per-tile clock", "cropped": "crop initial sync", "shared": "shared clock"}
"""How the front end names each clock (``CLOCK_LABELS`` in js/panels/controls.ts)."""


def default_clock(profile: Profile) -> str:
    """The clock a widget opens on: the writer's own. A profile the ba7339c runtime reads (schema 1–3)
    is shown per tile, as ``ipu_nb.query`` reads it; a newer runtime's (schema 4 and up) on its
    default, ``"cropped"`` ("crop initial sync"), so offsets match that runtime's viewer.

    >>> profile.schema_version, default_clock(profile)
    (3, 'tile')
    """
    return "cropped" if profile.schema_version >= _NEWER_RUNTIME_SCHEMA else PER_TILE


def clocked_profile(profile: Profile, clock: str) -> Profile:
    """`profile` with offsets on `clock` (`Profile.on_clock`), made once per profile and clock.

    >>> shared = clocked_profile(profile, "shared")
    >>> int(shared.samples["offset"].min()), shared.sample_count == profile.sample_count
    (0, True)
    """
    return profile.on_clock(clock)


def clock_crop(profile: Profile) -> int:
    """The cycles the newest runtime crops from the start of `profile`'s shared clock: the raw offset
    of the last tile's first sample."""
    return head_clock(profile).crop


def converted(offset: int, old: str, new: str, crop: int) -> int:
    """`offset` on clock `old` as an offset on clock `new`, for a profile whose crop is `crop`.

    Exact between ``"cropped"`` and ``"shared"`` (they differ by the crop; an offset before
    the crop becomes 0). Per-tile offsets have another shift on each tile (0 on the last
    tiles to start, up to the crop on the first), so a ``"tile"`` offset is taken as the
    cropped one: off by at most the crop on any tile.

    >>> converted(100, "cropped", "shared", 40), converted(100, "shared", "cropped", 40)
    (140, 60)
    >>> converted(10, "shared", "cropped", 40), converted(100, "tile", "cropped", 40)
    (0, 100)
    """
    shift = {"tile": crop, "cropped": crop, "shared": 0}
    return max(offset + shift[old] - shift[new], 0)
