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
from .._query.head.clock import head_clock

__all__ = ["CLOCKS", "CLOCK_LABELS", "DEFAULT_CLOCK", "clock_crop", "clocked_profile", "converted"]

CLOCKS: tuple[str, ...] = ("tile", "cropped", "shared")
"""The ``clock`` trait's values."""
DEFAULT_CLOCK = "tile"
"""The default semantics' per-tile clock: what ``ipu_nb.query`` and `Profile.filter` read offsets on."""
CLOCK_LABELS: dict[str, str] = {"tile": "per-tile clock", "cropped": "crop initial sync", "shared": "shared clock"}
"""How the front end names each clock (``CLOCK_LABELS`` in js/panels/controls.ts)."""


def clocked_profile(profile: Profile, clock: str) -> Profile:
    """`profile` with offsets on `clock`: itself on ``"tile"``, else the newest runtime's samples
    (offsets from `cycle_origin`, cropped on ``"cropped"``, samples left with no cycles dropped;
    ids unchanged). Made once per profile and clock.

    >>> clocked_profile(profile, "tile") is profile
    True
    >>> shared = clocked_profile(profile, "shared")
    >>> int(shared.samples["offset"].min()), shared.sample_count == profile.sample_count
    (0, True)
    """
    if clock == "tile":
        return profile
    return Profile.of(head_clock(profile, shared_clock=clock == "shared").profile)


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
