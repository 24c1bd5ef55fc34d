"""A profile for the colour tests: every tile does the same, so any band of rows has the same mean colour.

Runs of compute, exchange and idle of many lengths, 200-cycle synchronizations between them and
gaps now and then, on 600 tiles: the whole view is summarised by the kernel, the zoomed views
partly re-binned from raw intervals in the page, and several tiles share a pixel row.
"""

from __future__ import annotations

import random

from builders import S, T, profile_from_tiles

from ipu_nb._profile import Profile

TILES = 600
SAMPLES = 300


def tile_intervals() -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every tile's samples (the same on each)."""
    rng = random.Random(11)
    out, cursor = [], 0
    for _ in range(SAMPLES):
        kind = rng.choice(["compute", "compute", "exchange", "idle", "synchronization"])
        length = 200 if kind == "synchronization" else rng.choice([40, 300, 900, 2500, 6000])
        out.append((cursor, cursor + length, kind))
        cursor += length + (rng.choice([0, 0, 0, 150, 1200]))
    return out


def colour_profile() -> Profile:
    samples = [(a, b, kind) for a, b, kind in tile_intervals()]
    tiles = [T(t, [S(a, b, kind, "op", "k", phase=i) for i, (a, b, kind) in enumerate(samples)]) for t in range(TILES)]
    return profile_from_tiles(tiles)
