"""The load imbalance of a real run, applied to the model cycles of a schedule (docs/reference/workloads.md).

Real IPU runs are never balanced: a few tiles are persistently slower, the compiler's
partitions leave some tiles more work, some kernels have a tail of slow samples, and
stored tensors pile up on some tiles so exchanges are uneven. Because a phase lasts as
long as its slowest tile, these effects are what superstep analytics find. The model:

- **speed**: every tile runs at a persistent speed factor, lognormal (median 1,
  σ = `SPEED_SIGMA`): memory and clock differences between tiles.
- **stragglers**: about one busy tile in `BUSY_PER_STRAGGLER` (at least one) is
  `STRAGGLER_SLOWDOWN` slower, in every phase.
- **partitions**: per data layout (the placement of one tensor's blocks over tiles, which
  every kernel on that layout inherits), `PARTITION_SHARE` of the tiles hold one or two
  extra grains of work (`PARTITION_EXTRA`).
- **tails**: a compute sample is `TAIL_FACTOR` times slower with a probability that
  depends on the kernel: `TAIL_RATE_MEMORY` for memory-bound kernels (element-wise,
  softmax: bank conflicts and worker stalls), `TAIL_RATE_MATMUL` for matrix products.
  A uniform 1–2% tail would put a slow sample in nearly every phase of 1,280 tiles
  (1 − 0.985^1280 ≈ 1) and multiply the whole span.
- **uneven exchange**: stored tensors land on tiles in proportion to lognormal weights
  (σ = `STORAGE_SIGMA`), so some tiles send far more than others (`_Context.stored_on`).

Every draw comes from its own stream of `seed`, so a profile generated with
``scale_kernel`` differs from its baseline only in the scaled kernel's samples.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .plan import Command

__all__ = [
    "BUSY_PER_STRAGGLER",
    "MATMUL_ROLES",
    "PARTITION_EXTRA",
    "PARTITION_SHARE",
    "SPEED_SIGMA",
    "STORAGE_SIGMA",
    "STRAGGLER_SLOWDOWN",
    "TAIL_FACTOR",
    "TAIL_RATE_MATMUL",
    "TAIL_RATE_MEMORY",
    "TileFactors",
    "apply_imbalance",
    "partition_factors",
    "storage_weights",
    "tile_factors",
]

SPEED_SIGMA = 0.02
BUSY_PER_STRAGGLER = 256
STRAGGLER_SLOWDOWN = (1.15, 1.40)
PARTITION_SHARE = 0.125
PARTITION_EXTRA = (1 / 16, 1 / 8)
TAIL_RATE_MEMORY = 0.08
TAIL_RATE_MATMUL = 5e-5
TAIL_FACTOR = (2.0, 5.0)
STORAGE_SIGMA = 0.5
#: Command roles whose kernels are matrix products (compute-bound, rarely slow).
MATMUL_ROLES = frozenset({"matmul", "attention_scores", "attention_values"})

# Stream tags: each kind of draw has a stream of its own.
_SPEED, _STRAGGLERS, _PARTITION, _TAILS, _STORAGE = range(5)


def _stream(seed: int, tag: int, *more: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, 0x1BA1, tag, *more]))


@dataclass(frozen=True)
class TileFactors:
    """The persistent per-tile part of the model: speed factors and the stragglers."""

    speed: np.ndarray  # float64 [T], stragglers' slowdown included
    stragglers: np.ndarray  # int64 logical tiles, ascending
    slowdown: np.ndarray  # float64, one per straggler


def tile_factors(tiles: int, busy: np.ndarray, seed: int) -> TileFactors:
    """Speed factors of `tiles` tiles, with stragglers chosen among the `busy` (logical) tiles."""
    speed = _stream(seed, _SPEED).lognormal(0.0, SPEED_SIGMA, tiles)
    rng = _stream(seed, _STRAGGLERS)
    count = min(len(busy), max(1, round(len(busy) / BUSY_PER_STRAGGLER)))
    stragglers = np.sort(rng.choice(busy, size=count, replace=False)).astype(np.int64)
    slowdown = rng.uniform(*STRAGGLER_SLOWDOWN, count)
    speed[stragglers] *= slowdown
    return TileFactors(speed, stragglers, slowdown)


def partition_factors(tiles: int, seed: int, placement: int) -> np.ndarray:
    """Work factor per tile of one data layout: 1, or 1 + an extra grain or two on `PARTITION_SHARE` of tiles."""
    rng = _stream(seed, _PARTITION, placement)
    extra = rng.random(tiles) < PARTITION_SHARE
    return 1.0 + extra * rng.choice(PARTITION_EXTRA, tiles)


def storage_weights(tiles: int, seed: int) -> np.ndarray:
    """Cumulative share of stored tensors per tile (ascending, ends at 1): where `stored_on` puts them."""
    weights = _stream(seed, _STORAGE).lognormal(0.0, STORAGE_SIGMA, tiles)
    cumulative = np.cumsum(weights)
    return cumulative / cumulative[-1]


def apply_imbalance(commands: list[Command], tiles: int, busy: np.ndarray, seed: int) -> list[Command]:
    """`commands` with every busy tile's cycles multiplied by its speed, partition and tail factors."""
    factors = tile_factors(tiles, busy, seed)
    partitions: dict[int, np.ndarray] = {}
    tails = _stream(seed, _TAILS)
    out = []
    for cmd in commands:
        t = cmd.tiles
        if cmd.placement not in partitions:
            partitions[cmd.placement] = partition_factors(tiles, seed, cmd.placement)
        rate = TAIL_RATE_MATMUL if cmd.role in MATMUL_ROLES else TAIL_RATE_MEMORY
        # Two draws per busy tile whatever the rate, so every command's draws stay where they are.
        hit = tails.random(len(t)) < rate
        slow = np.where(hit, tails.uniform(*TAIL_FACTOR, len(t)), 1.0)
        factor = factors.speed[t] * partitions[cmd.placement][t] * slow
        out.append(dataclasses.replace(cmd, cycles=cmd.cycles * factor))
    return out
