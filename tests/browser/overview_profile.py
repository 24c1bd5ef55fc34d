"""A profile for the overview test: tiles that differ (each its own runs of kinds and gaps, of its own
length, one tile without idle and one without samples), so the strip's columns mix many tiles' colours."""

from __future__ import annotations

import random

from builders import S, T, profile_from_tiles

from ipu_nb._profile import Profile

TILES = 40
KINDS = ["compute", "compute", "exchange", "idle", "synchronization"]


def tile_intervals() -> list[tuple[int, int, int, str]]:
    """``(tile, start, end, kind)`` of every sample of the profile."""
    out = []
    for tile in range(TILES):
        rng = random.Random(tile)
        cursor = 0  # offsets count from each tile's first sample
        for _ in range(rng.randrange(40, 120)):
            kind = rng.choice(KINDS[:3] if tile == 7 else KINDS)
            length = rng.choice([30, 300, 900, 2500, 7000])
            out.append((tile, cursor, cursor + length, kind))
            cursor += length + rng.choice([0, 0, 100, 3000])
    return out


def overview_profile() -> Profile:
    samples: dict[int, list[S]] = {t: [] for t in range(TILES + 1)}  # tile TILES has no samples
    for tile, a, b, kind in tile_intervals():
        samples[tile].append(S(a, b, kind, "op", "k", phase=len(samples[tile])))
    return profile_from_tiles([T(t, s) for t, s in samples.items()])
