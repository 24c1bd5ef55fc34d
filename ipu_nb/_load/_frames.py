"""Turn decoded `Columns` into a `Profile` of polars frames (docs/reference/format.md#normalisation)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from .._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns, Strings
from .._model.profile import Profile
from ._errors import ProfileFormatError

__all__ = ["ACTIVITY_KIND_DTYPE", "KIND_DTYPE", "build_profile", "infer_granularity"]

KIND_DTYPE = pl.Enum(list(STEP_KINDS))
ACTIVITY_KIND_DTYPE = pl.Enum(list(ACTIVITY_KINDS))


def _categorical(strings: Strings) -> pl.Series:
    dictionary = pa.DictionaryArray.from_arrays(pa.array(strings.codes, type=pa.uint32()), strings.values)
    return pl.Series(pl.from_arrow(dictionary)).cast(pl.Categorical)


def _enum(codes: np.ndarray, names: tuple[str, ...], dtype: pl.Enum, what: str) -> pl.Series:
    if len(codes) and int(codes.max()) >= len(names):
        bad = int(np.flatnonzero(codes >= len(names))[0])
        raise ProfileFormatError(f"unknown {what} value {int(codes[bad])} at row {bad}")
    return (
        pl.Series(codes.astype(np.uint32))
        .cast(pl.UInt32)
        .replace_strict(list(range(len(names))), list(names), return_dtype=dtype)
    )


def _u32(values: np.ndarray) -> np.ndarray:
    """`values` as uint32, without a copy when they already are (the frames may share them)."""
    return values.astype(np.uint32, copy=False)


def _owner_ids(counts: np.ndarray) -> np.ndarray:
    """Row id of the owner of each child row, for children grouped by owner."""
    return np.repeat(np.arange(len(counts), dtype=np.uint32), counts)


def _positions(counts: np.ndarray) -> np.ndarray:
    """Index of each child row inside its owner's group.

    A running sum of ones that drops back to 0 at each group's first row, in place: no
    `np.repeat` temporary as large as the output (fresh pages are costly at 13M rows).
    """
    total = int(counts.sum())
    if total >= 2**32:
        starts = np.cumsum(counts) - counts
        return (np.arange(total, dtype=np.int64) - np.repeat(starts, counts)).astype(np.uint32)
    positions = np.ones(total, dtype=np.uint32)
    sizes = counts[counts > 0]
    if len(sizes):
        firsts = np.cumsum(sizes[:-1])
        positions[0] = 0
        # 1 - (previous group's size), modulo 2**32: the running sum wraps back to 0.
        positions[firsts] = (1 - sizes[:-1]).astype(np.int64).astype(np.uint32)
        np.cumsum(positions, dtype=np.uint32, out=positions)
    return positions


def _code_of(strings: Strings, text: str) -> int | None:
    """Dictionary code of `text` in a `Strings` column, or None when it never occurs."""
    found = np.flatnonzero(np.asarray(pc.equal(strings.values, text).fill_null(False)))
    return int(found[0]) if len(found) else None


#: The metadata names `infer_granularity` looks for.
_GRANULARITY_NAMES = ("phase_start", "output_address", "label", "alignment")


def infer_granularity(samples: pl.DataFrame, metadata_names: set[str], max_per_tile: int) -> str:
    """Guess the collection level from what the samples carry (docs/reference/format.md#inferred-granularity)."""
    if samples.height == 0:
        return "unknown"
    if max_per_tile <= 1:
        return "graph"
    if "phase_start" in metadata_names:
        return "region"
    if "output_address" in metadata_names or ("label" in metadata_names and "alignment" in metadata_names):
        return "step"
    kinds = set(samples.get_column("kind").unique().to_list())
    if kinds & {"exchange", "synchronization"}:
        return "phase"
    return "unknown"


def _entry_ids(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner sample, position in its list) of each metadata entry."""
    return _owner_ids(counts), _positions(counts)


def build_profile(columns: Columns, path: Path | None = None) -> Profile:
    """Build the frames of docs/reference/format.md#frames from decoded columns."""
    c = columns
    n = c.sample_count
    counts = c.tile_sample_counts.astype(np.int64)
    tile_index = _owner_ids(counts)
    firsts = np.cumsum(counts) - counts
    has = counts > 0
    bases = np.zeros(len(counts), dtype=np.uint32)
    bases[has] = c.start[firsts[has]]
    base = np.repeat(bases, counts)
    offset = (c.start - base).astype(np.uint32).astype(np.uint64)
    duration = (c.end - c.start).astype(np.uint32)

    with ThreadPoolExecutor(max_workers=1) as pool:
        # The metadata entry ids (the largest arrays) build on another core meanwhile.
        ids = pool.submit(_entry_ids, c.metadata_counts.astype(np.int64))
        name, value = _categorical(c.metadata_name), _categorical(c.metadata_value)
        kind = _enum(c.kind, STEP_KINDS, KIND_DTYPE, "step kind")
        operation, kernel = _categorical(c.operation), _categorical(c.kernel)
        meta_sample, position = ids.result()
    metadata = pl.DataFrame({"sample": meta_sample, "position": position, "name": name, "value": value})
    inactive = np.zeros(n, dtype=bool)
    active, false = _code_of(c.metadata_name, "active"), _code_of(c.metadata_value, "false")
    if active is not None and false is not None:
        flagged = (c.metadata_name.codes == active) & (c.metadata_value.codes == false)
        inactive[meta_sample[flagged]] = True
    inactive &= c.kind == STEP_KINDS.index("compute")

    samples = pl.DataFrame(
        {
            "sample": np.arange(n, dtype=np.uint32),
            "tile": np.repeat(c.tiles.astype(np.uint32), counts),
            "tile_index": tile_index,
            "local_index": _u32(c.local_index),
            "phase": _u32(c.phase),
            "epoch": _u32(c.epoch),
            "kind": kind,
            "operation": operation,
            "kernel": kernel,
            "start": _u32(c.start),
            "end": _u32(c.end),
            "offset": offset,
            "duration": duration,
            "exchange_event_cycles": _u32(c.exchange_event_cycles),
            "inactive": inactive,
        }
    )

    act_counts = c.activity_counts.astype(np.int64)
    act_sample = _owner_ids(act_counts)
    act_base = base[act_sample] if len(act_sample) else np.zeros(0, dtype=np.uint32)
    exchange_activities = pl.DataFrame(
        {
            "sample": act_sample,
            "position": _positions(act_counts),
            "kind": _enum(c.activity_kind, ACTIVITY_KINDS, ACTIVITY_KIND_DTYPE, "exchange activity kind"),
            "start": _u32(c.activity_start),
            "end": _u32(c.activity_end),
            "offset": (c.activity_start - act_base).astype(np.uint32).astype(np.uint64),
            "duration": (c.activity_end - c.activity_start).astype(np.uint32),
        }
    )
    tiles = pl.DataFrame(
        {
            "tile_index": np.arange(len(counts), dtype=np.uint32),
            "tile": c.tiles.astype(np.uint32),
            "sample_count": counts.astype(np.uint32),
            "base": pl.Series(bases).set(pl.Series(~has), None) if len(counts) else pl.Series([], dtype=pl.UInt32),
        }
    )
    # Only the names the inference looks for (not a Python string per distinct name).
    names = {n for n in _GRANULARITY_NAMES if _code_of(c.metadata_name, n) is not None}
    granularity = infer_granularity(samples, names, int(counts.max()) if len(counts) else 0)
    return Profile(
        samples=samples,
        metadata=metadata,
        exchange_activities=exchange_activities,
        tiles=tiles,
        clock_hz=int(c.clock_hz),
        schema_version=int(c.schema_version),
        granularity=granularity,
        path=path,
    )
