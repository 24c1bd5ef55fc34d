"""A profile for the exchange-activity colour test: every tile does the same, its exchanges full of activities.

The runs of `colour_profile.tile_intervals`, each exchange with an event window and sends,
receives (overlapping them) and a partner-busy wait inside it, on 600 tiles with one counter
base: every tile's exchange is its phase's last entry, so the window split is the same on
every row and any band of rows has the same mean colour.
"""

from __future__ import annotations

import random

from builders import S, T, profile_from_tiles
from colour_profile import TILES, tile_intervals

from ipu_nb._profile import Profile


def activity_samples() -> list[S]:
    """One tile's samples: exchanges with a window of most of their length and a few activities in it."""
    rng = random.Random(5)
    out = []
    for i, (a, b, kind) in enumerate(tile_intervals()):
        acts: list[tuple[str, int, int]] = []
        window = 0
        if kind == "exchange":
            window = max(1, (b - a) * 3 // 4)
            busy = rng.randint(0, window // 6)
            send = rng.randint(busy, window // 2)
            acts = [("partnerBusy", 0, busy), ("send", busy, send), ("receive", busy + (send - busy) // 2, window - 2)]
        out.append(S(a, b, kind, "op", "k", phase=i, activities=acts, exchange_event_cycles=window))
    return out


def activity_profile() -> Profile:
    samples = activity_samples()
    return profile_from_tiles([T(t, samples) for t in range(TILES)], schema_version=5)
