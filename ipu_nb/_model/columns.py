"""Columnar interchange between the decoders, the writer and the frame builder.

Every decoder (fast wire decoder, pycapnp reference) produces a `Columns`; the
synthetic writer consumes one; `build_profile` turns one into polars frames.
Keeping this one plain structure lets tests compare decoders exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

__all__ = ["ACTIVITY_KINDS", "STEP_KINDS", "SUPPORTED_SCHEMA_VERSIONS", "Columns", "Strings"]

#: Schema versions this package decodes: the runtime writes 3, newer add fields 7/8
#: (docs/reference/format.md#schema-versions).
SUPPORTED_SCHEMA_VERSIONS = range(1, 6)

#: `StepKind` enumerants in wire order.
STEP_KINDS: tuple[str, ...] = ("exchange", "compute", "synchronization", "idle")
#: `ExchangeActivity.kind` enumerants in wire order.
ACTIVITY_KINDS: tuple[str, ...] = ("send", "receive", "partnerBusy")


@dataclass(frozen=True)
class Strings:
    """A dictionary-encoded string column: `values[codes[i]]` is row i.

    `values` holds distinct strings (a pyarrow string array); `codes` is uint32.
    """

    codes: np.ndarray
    values: pa.Array

    @classmethod
    def from_list(cls, items: list[str]) -> Strings:
        """Dictionary-encode a Python list (for small inputs, tests and the reference decoder)."""
        index: dict[str, int] = {}
        codes = np.fromiter((index.setdefault(s, len(index)) for s in items), dtype=np.uint32, count=len(items))
        return cls(codes, pa.array(list(index), type=pa.string()))

    def to_list(self) -> list[str]:
        """Decode to Python strings (for tests and small data)."""
        values = self.values.to_pylist()
        return [values[c] for c in self.codes.tolist()]

    def __len__(self) -> int:
        return len(self.codes)


def _empty_u32() -> np.ndarray:
    return np.zeros(0, dtype=np.uint32)


@dataclass(frozen=True)
class Columns:
    """A whole profile as flat arrays, in file order.

    Samples are grouped by tile entry: tile entry t owns `tile_sample_counts[t]`
    consecutive sample rows. Metadata entries and exchange activities are grouped
    by sample the same way through `metadata_counts` / `activity_counts`.
    Integer arrays are uint32 except the kinds (uint16) and the counts (int64).
    """

    schema_version: int
    clock_hz: int
    tiles: np.ndarray  # uint32[T] physicalTile per tile entry
    tile_sample_counts: np.ndarray  # int64[T]
    local_index: np.ndarray  # uint32[N]
    phase: np.ndarray  # uint32[N]
    epoch: np.ndarray  # uint32[N]
    kind: np.ndarray  # uint16[N], StepKind
    start: np.ndarray  # uint32[N]
    end: np.ndarray  # uint32[N]
    operation: Strings  # [N]
    kernel: Strings  # [N]
    metadata_counts: np.ndarray  # int64[N]
    metadata_name: Strings  # [M]
    metadata_value: Strings  # [M]
    exchange_event_cycles: np.ndarray  # uint32[N], 0 where the writer predates field 8
    activity_counts: np.ndarray  # int64[N]
    activity_kind: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint16))  # uint16[X]
    activity_start: np.ndarray = field(default_factory=_empty_u32)  # uint32[X]
    activity_end: np.ndarray = field(default_factory=_empty_u32)  # uint32[X]

    @property
    def sample_count(self) -> int:
        return len(self.start)

    @property
    def tile_count(self) -> int:
        return len(self.tiles)

    def head(self, tiles: int) -> Columns:
        """The first `tiles` tile entries with everything they own (e.g. a slice to benchmark)."""
        n = int(self.tile_sample_counts[:tiles].sum())
        m = int(self.metadata_counts[:n].sum())
        a = int(self.activity_counts[:n].sum())

        def cut(strings: Strings, rows: int) -> Strings:
            return Strings(strings.codes[:rows], strings.values)

        return Columns(
            schema_version=self.schema_version,
            clock_hz=self.clock_hz,
            tiles=self.tiles[:tiles],
            tile_sample_counts=self.tile_sample_counts[:tiles],
            local_index=self.local_index[:n],
            phase=self.phase[:n],
            epoch=self.epoch[:n],
            kind=self.kind[:n],
            start=self.start[:n],
            end=self.end[:n],
            operation=cut(self.operation, n),
            kernel=cut(self.kernel, n),
            metadata_counts=self.metadata_counts[:n],
            metadata_name=cut(self.metadata_name, m),
            metadata_value=cut(self.metadata_value, m),
            exchange_event_cycles=self.exchange_event_cycles[:n],
            activity_counts=self.activity_counts[:n],
            activity_kind=self.activity_kind[:a],
            activity_start=self.activity_start[:a],
            activity_end=self.activity_end[:a],
        )
