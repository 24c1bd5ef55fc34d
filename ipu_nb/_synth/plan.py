"""Building blocks of a synthetic schedule: commands, transfers and GEMM-style tile layouts.

A workload (see `ipu_nb._synth.workloads`) is a list of `Command`: one compute phase each,
with the tiles that have work, their planner metadata, their cycle cost and the
transfers of the exchange that precedes it. `ipu_nb._synth.build` turns the list into samples.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Command", "Fmt", "Layout", "Transfers", "address", "join", "layout", "spread"]


@dataclass(frozen=True)
class Fmt:
    """A per-tile string value: `fmt.format(*row)` over integer columns (scalars broadcast)."""

    fmt: str
    columns: tuple[np.ndarray | int, ...]

    def first(self) -> str:
        return self.fmt.format(*(int(c) if isinstance(c, int) or np.ndim(c) == 0 else int(c[0]) for c in self.columns))


@dataclass
class Transfers:
    """The transfers of one exchange, one row per (tensor, destination): logical tiles and bytes."""

    tensor: np.ndarray
    source: np.ndarray
    destination: np.ndarray
    nbytes: np.ndarray

    @classmethod
    def empty(cls) -> Transfers:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, z, z)

    @classmethod
    def concat(cls, parts: list[Transfers]) -> Transfers:
        parts = [p for p in parts if len(p.tensor)]
        if not parts:
            return cls.empty()
        return cls(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("tensor", "source", "destination", "nbytes"))
        )

    def __len__(self) -> int:
        return len(self.tensor)


@dataclass
class Command:
    """One compute phase: what every busy tile runs, and what the exchange before it moves."""

    kernel: str
    role: str
    region: str
    tiles: np.ndarray  # int64 logical tile positions with work, ascending
    # Metadata values are one per busy tile (int array or Fmt) or one for the phase (int or str).
    planner: dict[str, object]  # planner key -> value; `label` names the command (the compute operation)
    shape: Fmt
    cycles: np.ndarray  # float64 per busy tile
    transfers: Transfers = field(default_factory=Transfers.empty)
    step: list[tuple[str, object]] = field(default_factory=list)  # extra step-granularity metadata
    calls: tuple[tuple[str, float], ...] = ()  # step-granularity kernel calls (kernel, share); () = one call
    worker_count: object = 6
    active_commands: object = 1
    placement: int = 0  # which data layout the command works on (its tiles' share of the work follows it)

    def kernel_calls(self) -> tuple[tuple[str, float], ...]:
        return self.calls or ((self.kernel, 1.0),)


def spread(count: int, tiles: int) -> np.ndarray:
    """`count` logical tile positions spread evenly over `tiles` (the compiler balances placement)."""
    return (np.arange(count, dtype=np.int64) * tiles) // count


def join(unit_key: np.ndarray, dest_key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (unit, destination) index pairs whose keys are equal (a vectorised equi-join)."""
    order = np.argsort(dest_key, kind="stable")
    sorted_keys = dest_key[order]
    lo = np.searchsorted(sorted_keys, unit_key, "left")
    counts = np.searchsorted(sorted_keys, unit_key, "right") - lo
    units = np.repeat(np.arange(len(unit_key), dtype=np.int64), counts)
    starts = np.repeat(lo, counts)
    within = np.arange(len(units), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return units, order[starts + within]


def address(tensor: np.ndarray | int, tile: np.ndarray | int) -> np.ndarray:
    """A plausible, deterministic tile-memory address for a tensor (16-byte aligned, below 624 KiB)."""
    h = (np.asarray(tensor, dtype=np.int64) * 2654435761 + np.asarray(tile, dtype=np.int64) * 40503) % 0x8C00
    return 0x10000 + h * 0x10


@dataclass(frozen=True)
class Layout:
    """Output blocks of an M×N result placed on tiles: `splits` tiles share a block's rows; waves reuse tiles."""

    row_blocks: int
    column_blocks: int
    block: int
    splits: int
    per_wave: int
    waves: int
    busy: np.ndarray  # logical tiles, slot j*splits+s
    row_start: np.ndarray  # [splits] first row of sub-slice s inside a block
    rows: np.ndarray  # [splits]

    def wave(self, w: int) -> dict[str, np.ndarray]:
        """Per busy tile of wave `w`: block row `r`, column `c`, sub-slice `s`, `tile`, `row_start`, `rows`."""
        first = w * self.per_wave
        blocks = np.arange(first, min(first + self.per_wave, self.row_blocks * self.column_blocks), dtype=np.int64)
        b = np.repeat(blocks, self.splits)
        s = np.tile(np.arange(self.splits, dtype=np.int64), len(blocks))
        tile = self.busy[(b - first) * self.splits + s]
        order = np.argsort(tile, kind="stable")
        b, s, tile = b[order], s[order], tile[order]
        return {
            "b": b,
            "r": b // self.column_blocks,
            "c": b % self.column_blocks,
            "s": s,
            "tile": tile,
            "row_start": self.row_start[s],
            "rows": self.rows[s],
        }

    def owner(self, r: np.ndarray, c: np.ndarray, row_in_block: np.ndarray) -> np.ndarray:
        """The tile holding row `row_in_block` of output block (r, c)."""
        b = np.asarray(r) * self.column_blocks + np.asarray(c)
        s = np.searchsorted(self.row_start, row_in_block, "right") - 1
        return self.busy[(b % self.per_wave) * self.splits + s]


def layout(m: int, n: int, busy: np.ndarray, block: int = 64) -> Layout:
    """Place the (m/block)×(n/block) output blocks of a matmul on the `busy` tiles."""
    row_blocks, column_blocks = max(1, m // block), max(1, n // block)
    blocks = row_blocks * column_blocks
    splits = int(min(block, max(1, len(busy) // blocks)))
    per_wave = int(min(blocks, max(1, len(busy) // splits)))
    waves = -(-blocks // per_wave)
    rows = np.array([len(a) for a in np.array_split(np.arange(block), splits)], dtype=np.int64)
    row_start = np.cumsum(rows) - rows
    return Layout(row_blocks, column_blocks, block, splits, per_wave, waves, busy, row_start, rows)
