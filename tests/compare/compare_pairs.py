"""Realistic "after" profiles for comparison tests: a generated profile transformed as a compiler change would.

Each helper takes `Columns` (file order, raw counters) and returns new `Columns`:
a kernel's samples scaled on some tiles (later samples on those tiles shift, so the
tile stays contiguous), a kernel renamed, dropped, or split so a new kernel appears.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np

from ipu_nb._model.columns import Columns, Strings

_WRAP = 2**32


def _tile_of_rows(c: Columns) -> np.ndarray:
    return np.repeat(c.tiles, c.tile_sample_counts)


def scale_kernel(c: Columns, kernel: str, factor: float, tiles: Iterable[int] | None = None) -> Columns:
    """Durations of `kernel`'s samples (on physical `tiles`, default all) times `factor`, rounded."""
    start, end = c.start.astype(np.int64), c.end.astype(np.int64)
    duration = (end - start) % _WRAP
    hit = np.array([k == kernel for k in c.kernel.to_list()], dtype=bool)
    if tiles is not None:
        hit &= np.isin(_tile_of_rows(c), np.array(list(tiles), dtype=np.int64))
    scaled = duration.copy()
    scaled[hit] = np.rint(duration[hit] * factor).astype(np.int64)
    change = scaled - duration
    # Shift every later sample of the same tile by the summed change of the samples before it.
    row_tile = np.repeat(np.arange(c.tile_count), c.tile_sample_counts)
    running = np.cumsum(change) - change
    first = np.concatenate(([0], np.cumsum(c.tile_sample_counts)[:-1])).astype(np.int64)
    shift = running - running[first][row_tile] if len(running) else running
    new_start = (start + shift) % _WRAP
    new_end = (new_start + scaled) % _WRAP
    return dataclasses.replace(c, start=new_start.astype(np.uint32), end=new_end.astype(np.uint32))


def rename_kernel(c: Columns, old: str, new: str) -> Columns:
    return dataclasses.replace(c, kernel=Strings.from_list([new if k == old else k for k in c.kernel.to_list()]))


def split_kernel(c: Columns, kernel: str, new: str, tiles: Iterable[int]) -> Columns:
    """`kernel`'s samples on physical `tiles` become kernel `new` (an added group; the old one shrinks)."""
    on = set(tiles)
    names = c.kernel.to_list()
    row_tiles = _tile_of_rows(c).tolist()
    return dataclasses.replace(
        c,
        kernel=Strings.from_list(
            [new if k == kernel and t in on else k for k, t in zip(names, row_tiles, strict=True)]
        ),
    )


def drop_kernel(c: Columns, kernel: str) -> Columns:
    """Every sample of `kernel` removed, with its metadata and activities (the kernel's group disappears)."""
    keep = np.array([k != kernel for k in c.kernel.to_list()], dtype=bool)
    keep_meta = np.repeat(keep, c.metadata_counts)
    keep_acts = np.repeat(keep, c.activity_counts)
    row_tile = np.repeat(np.arange(c.tile_count), c.tile_sample_counts)
    counts = np.bincount(row_tile[keep], minlength=c.tile_count).astype(np.int64)

    def cut(s: Strings, mask: np.ndarray) -> Strings:
        return Strings(s.codes[mask], s.values)

    return dataclasses.replace(
        c,
        tile_sample_counts=counts,
        local_index=c.local_index[keep],
        phase=c.phase[keep],
        epoch=c.epoch[keep],
        kind=c.kind[keep],
        start=c.start[keep],
        end=c.end[keep],
        operation=cut(c.operation, keep),
        kernel=cut(c.kernel, keep),
        metadata_counts=c.metadata_counts[keep],
        metadata_name=cut(c.metadata_name, keep_meta),
        metadata_value=cut(c.metadata_value, keep_meta),
        exchange_event_cycles=c.exchange_event_cycles[keep],
        activity_counts=c.activity_counts[keep],
        activity_kind=c.activity_kind[keep_acts],
        activity_start=c.activity_start[keep_acts],
        activity_end=c.activity_end[keep_acts],
    )
