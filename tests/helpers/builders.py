"""Small hand-written profiles for tests: Columns from plain Python, and a pycapnp writer.

`write_with_pycapnp` is deliberately independent of `ipu_nb._io.capnp_writer`, so files it
writes check both our decoders and our writer against the schema-driven library.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ipu_nb._load._frames import build_profile
from ipu_nb._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns, Strings
from ipu_nb._profile import Profile
from ipu_nb._schema import load_schema


@dataclass
class S:
    """One sample, as a test writes it."""

    start: int
    end: int
    kind: str = "compute"
    operation: str = "op"
    kernel: str = "k"
    phase: int = 0
    epoch: int = 0
    local_index: int | None = None
    metadata: Sequence[tuple[str, str]] = ()
    activities: Sequence[tuple[str, int, int]] = ()
    exchange_event_cycles: int = 0


@dataclass
class T:
    """One tile entry: physical id and its samples in execution order."""

    tile: int
    samples: Sequence[S] = field(default_factory=list)


def columns_from_tiles(tiles: Sequence[T], clock_hz: int = 1_500_000_000, schema_version: int = 3) -> Columns:
    samples = [s for t in tiles for s in t.samples]
    local = [s.local_index if s.local_index is not None else i for t in tiles for i, s in enumerate(t.samples)]
    acts = [a for s in samples for a in s.activities]
    u32 = np.uint32
    return Columns(
        schema_version=schema_version,
        clock_hz=clock_hz,
        tiles=np.array([t.tile for t in tiles], dtype=u32),
        tile_sample_counts=np.array([len(t.samples) for t in tiles], dtype=np.int64),
        local_index=np.array(local, dtype=u32),
        phase=np.array([s.phase for s in samples], dtype=u32),
        epoch=np.array([s.epoch for s in samples], dtype=u32),
        kind=np.array([STEP_KINDS.index(s.kind) for s in samples], dtype=np.uint16),
        start=np.array([s.start % 2**32 for s in samples], dtype=u32),
        end=np.array([s.end % 2**32 for s in samples], dtype=u32),
        operation=Strings.from_list([s.operation for s in samples]),
        kernel=Strings.from_list([s.kernel for s in samples]),
        metadata_counts=np.array([len(s.metadata) for s in samples], dtype=np.int64),
        metadata_name=Strings.from_list([n for s in samples for n, _ in s.metadata]),
        metadata_value=Strings.from_list([v for s in samples for _, v in s.metadata]),
        exchange_event_cycles=np.array([s.exchange_event_cycles for s in samples], dtype=u32),
        activity_counts=np.array([len(s.activities) for s in samples], dtype=np.int64),
        activity_kind=np.array([ACTIVITY_KINDS.index(k) for k, _, _ in acts], dtype=np.uint16),
        activity_start=np.array([a for _, a, _ in acts], dtype=u32),
        activity_end=np.array([b for _, _, b in acts], dtype=u32),
    )


def profile_of(columns: Columns) -> Profile:
    """The `ipu_nb.Profile` of `columns`, built as the loader builds a file's (no file written)."""
    return Profile.of(build_profile(columns))


def profile_from_tiles(tiles: Sequence[T], clock_hz: int = 1_500_000_000, schema_version: int = 3) -> Profile:
    return profile_of(columns_from_tiles(tiles, clock_hz, schema_version))


def write_with_pycapnp(columns: Columns, path: str | Path) -> Path:
    """Write `columns` through pycapnp's builder (standard framing, multi-segment when large)."""
    schema = load_schema()
    c = columns
    message = schema.Profile.new_message()
    message.schemaVersion = int(c.schema_version)
    message.clockHz = int(c.clock_hz)
    operations, kernels = c.operation.to_list(), c.kernel.to_list()
    names, values = c.metadata_name.to_list(), c.metadata_value.to_list()
    tiles = message.init("tiles", c.tile_count)
    row = meta = act = 0
    for t, count in enumerate(c.tile_sample_counts.tolist()):
        tiles[t].physicalTile = int(c.tiles[t])
        samples = tiles[t].init("samples", count)
        for sample in samples:
            sample.startCycle = int(c.start[row])
            sample.endCycle = int(c.end[row])
            step = sample.step
            step.localIndex = int(c.local_index[row])
            step.phase = int(c.phase[row])
            step.epoch = int(c.epoch[row])
            step.kind = STEP_KINDS[int(c.kind[row])]
            step.operation = operations[row]
            step.kernel = kernels[row]
            step.exchangeEventCycles = int(c.exchange_event_cycles[row])
            entries = step.init("metadata", int(c.metadata_counts[row]))
            for entry in entries:
                entry.name, entry.value = names[meta], values[meta]
                meta += 1
            n_acts = int(c.activity_counts[row])
            if n_acts:
                activities = step.init("exchangeActivities", n_acts)
                for activity in activities:
                    activity.kind = ACTIVITY_KINDS[int(c.activity_kind[act])]
                    activity.startCycle = int(c.activity_start[act])
                    activity.endCycle = int(c.activity_end[act])
                    act += 1
            row += 1
    path = Path(path)
    path.write_bytes(message.to_bytes())
    return path
