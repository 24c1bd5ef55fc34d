"""Device-time layout of a synthetic schedule and the C600 tile permutation.

The model: docs/reference/workloads.md#timeline-model.

Per exchange phase k every tile syncs from the end of its previous compute until the
supervisor sync returns (≈600 cycles after the slowest tile, plus a few cycles of per-tile
skew), then exchanges until one common device time (the largest per-tile payload at
4 bytes/cycle), then computes (busy tiles) or records an idle sample lasting only the
sampling overhead. Each tile's counter is the device time plus a per-tile skew plus a
base chosen so the 32-bit counters wrap mid-profile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .plan import Command, Transfers

__all__ = ["CLOCK_HZ", "Timeline", "c600_physical_tiles", "ceil4", "timeline", "unique_sends"]

CLOCK_HZ = 1_500_000_000
_WRAP = 1 << 32


def c600_physical_tiles(count: int) -> np.ndarray:
    """Physical tile ids of logical tiles 0..count-1 on a C600: 0,1,2,3 → 0,2,64,66; 1471 → 63.

    The layout: docs/reference/workloads.md#tiles-and-the-c600-layout.
    """
    logical = np.arange(count, dtype=np.int64)
    pair, lane = logical // 2, logical % 2
    block, row = pair // 23, pair % 23
    row = np.where(block % 2 == 1, 22 - row, row)
    column = (block // 2) * 4 + (block % 2)
    return (row * 64 + column + 2 * lane).astype(np.uint32)


@dataclass
class Timeline:
    """Device-time boundaries of every (phase k, tile t) and the raw-counter mapping."""

    sync_start: np.ndarray  # int64 [K, T]
    sync_end: np.ndarray  # int64 [K, T]
    exchange_end: np.ndarray  # int64 [K], common to all tiles
    compute: np.ndarray  # int64 [K, T] compute / idle cycles
    send_cycles: list[np.ndarray]  # per k: int64 [T]
    receive_cycles: list[np.ndarray]
    skew: np.ndarray  # int64 [T]
    base: int

    def raw(self, device: np.ndarray, tile: np.ndarray) -> np.ndarray:
        """Raw 32-bit counter readings of device times on (logical) tiles."""
        return ((self.base + self.skew[tile] + device) % _WRAP).astype(np.uint32)


def ceil4(nbytes: np.ndarray) -> np.ndarray:
    return (np.asarray(nbytes, dtype=np.int64) + 3) // 4


def unique_sends(tr: Transfers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per multicast (tensor, source): the hardware sends each tensor once, however many receive it."""
    if not len(tr):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    order = np.lexsort((tr.tensor, tr.source))
    tensor, source, nbytes = tr.tensor[order], tr.source[order], tr.nbytes[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (tensor[1:] != tensor[:-1]) | (source[1:] != source[:-1])
    return tensor[first], source[first], nbytes[first]


def timeline(commands: list[Command], tiles: int, rng: np.random.Generator, base_cycle: int | None) -> Timeline:
    """Lay the phases out in device time (vectorised over phases and tiles)."""
    k_count = len(commands)
    compute = rng.integers(40, 300, size=(k_count, tiles), dtype=np.int64)  # idle: sampling overhead only
    send_cycles, receive_cycles = [], []
    exchange = np.empty(k_count, dtype=np.int64)
    for k, cmd in enumerate(commands):
        compute[k, cmd.tiles] = np.maximum(1, np.rint(cmd.cycles)).astype(np.int64)
        tr = cmd.transfers
        receive = np.bincount(tr.destination, weights=ceil4(tr.nbytes), minlength=tiles).astype(np.int64)
        _, src, nbytes = unique_sends(tr)
        send = np.bincount(src, weights=ceil4(nbytes), minlength=tiles).astype(np.int64)
        send_cycles.append(send)
        receive_cycles.append(receive)
        exchange[k] = max(int(receive.max(initial=0)), int(send.max(initial=0)))
    jitter = rng.integers(0, 40, size=(k_count, tiles), dtype=np.int64)  # sync-return skew between tiles
    sync_cost = 600 + rng.integers(0, 60, size=k_count)
    exchange_cost = exchange + 48 + rng.integers(0, 24, size=k_count)  # + exchange setup and sampling
    slowest = compute.max(axis=1)
    previous = np.concatenate([[0], slowest[:-1]])
    sync_return = np.cumsum(previous + sync_cost) + np.concatenate(
        [[0], np.cumsum(jitter.max(axis=1) + exchange_cost)[:-1]]
    )
    exchange_end = sync_return + jitter.max(axis=1) + exchange_cost
    sync_start = np.zeros_like(compute)
    sync_start[1:] = exchange_end[:-1, None] + compute[:-1]
    skew = rng.integers(0, 10_001, size=tiles, dtype=np.int64)
    span = int((exchange_end[-1] + compute[-1]).max()) if k_count else 0
    base = (_WRAP - span // 2 - 5_000) % _WRAP if base_cycle is None else int(base_cycle) % _WRAP
    return Timeline(
        sync_start=sync_start,
        sync_end=sync_return[:, None] + jitter,
        exchange_end=exchange_end,
        compute=compute,
        send_cycles=send_cycles,
        receive_cycles=receive_cycles,
        skew=skew,
        base=base,
    )
