"""Turn decoded `Columns` into `ProfileData`: polars frames (docs/reference/format.md#normalisation)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.compute as pc

from .._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns, Strings
from .._model.profile import ProfileData
from ._errors import ProfileFormatError
from ._passes import THREADS, owner_positions, remap_codes

__all__ = ["ACTIVITY_KIND_DTYPE", "KIND_DTYPE", "build_profile", "infer_granularity"]

KIND_DTYPE = pl.Enum(list(STEP_KINDS))
ACTIVITY_KIND_DTYPE = pl.Enum(list(ACTIVITY_KINDS))


class _Categories:
    """Polars categories for the profile's text columns, registered (and kept alive) while its frames are built.

    Polars numbers a string the first time a process registers it; the decoder numbers it in
    its column's first-occurrence order. Each column's codes are moved to polars' numbering in
    place (`remap_codes`) unless the two agree, then handed to polars without a copy.
    """

    def __init__(self, pool: ThreadPoolExecutor, reuse: bool) -> None:
        self._pool = pool
        self._reuse = reuse
        self._keep: list[pl.Series] = []
        #: Each column's polars id of each of its values.
        self.ids: dict[str, np.ndarray] = {}

    def physical(self, name: str, strings: Strings) -> np.ndarray:
        """`strings`' codes as polars category ids (the caller's array itself when `reuse` allows)."""
        registered = pl.Series(strings.values).cast(pl.Categorical)
        self._keep.append(registered)  # the ids stay assigned while a series holds them
        ids = registered.to_physical().to_numpy().astype(np.uint32, copy=False)
        self.ids[name] = ids
        codes = strings.codes
        if len(codes) == 0:
            return np.zeros(0, dtype=np.uint32)
        if np.array_equal(ids, np.arange(len(ids), dtype=np.uint32)):
            if int(codes.max()) >= len(ids):
                raise ProfileFormatError(f"text code {int(codes.max())} out of range ({len(ids)} values)")
            return codes.astype(np.uint32, copy=False)
        writable = self._reuse and codes.dtype == np.uint32 and codes.flags.writeable and codes.flags.c_contiguous
        codes = codes if writable else np.array(codes, dtype=np.uint32)
        try:
            remap_codes(codes, ids, self._pool)
        except ValueError as exc:
            raise ProfileFormatError(f"text {exc}") from None
        return codes


def _as_categorical(columns: dict[str, np.ndarray]) -> pl.DataFrame:
    """Category-id columns as Categorical, converted side by side (polars checks every id)."""
    frame = pl.DataFrame({name: pl.Series(name, codes) for name, codes in columns.items()})
    return frame.select(pl.all().cat.to(pl.Categorical))


def _flag_owners(
    flags: np.ndarray, owner: np.ndarray, names: np.ndarray, values: np.ndarray, name: int, value: int
) -> None:
    """Set ``flags[owner[i]]`` for every entry i whose name and value are `name` and `value` (a slice at a time)."""
    step = 1 << 22
    for lo in range(0, len(owner), step):
        hit = names[lo : lo + step] == name
        hit &= values[lo : lo + step] == value
        flags[owner[lo : lo + step][hit]] = True


def _enum(codes: np.ndarray, names: tuple[str, ...], dtype: pl.Enum, what: str) -> pl.Series:
    if len(codes) and int(codes.max()) >= len(names):
        bad = int(np.flatnonzero(codes >= len(names))[0])
        raise ProfileFormatError(f"unknown {what} value {int(codes[bad])} at row {bad}")
    return pl.Series(codes.astype(np.uint8)).cat.to(dtype)


def _wrapped_offset(counter: np.ndarray, base: np.ndarray) -> np.ndarray:
    """``counter - base`` modulo 2**32 (the 32-bit counters wrap), as uint64, with one temporary at most."""
    difference = np.subtract(counter, base, dtype=np.uint32, casting="unsafe")
    return difference.astype(np.uint64)


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


def build_profile(
    columns: Columns,
    path: Path | None = None,
    *,
    reuse: bool = False,
    entry_ids: tuple[np.ndarray, np.ndarray] | None = None,
) -> ProfileData:
    """Build the frames of docs/reference/format.md#frames from decoded columns.

    `reuse`: the frames may take over (and rewrite) the columns' arrays instead of copying
    them, for a caller that drops `columns` afterwards (the loader). `entry_ids`: each
    metadata entry's owner sample and position, when the decoder made them (`EntryIds`).
    """
    c = columns
    n = c.sample_count
    counts = c.tile_sample_counts.astype(np.int64)
    tile_index = _owner_ids(counts)
    firsts = np.cumsum(counts) - counts
    has = counts > 0
    bases = np.zeros(len(counts), dtype=np.uint32)
    bases[has] = c.start[firsts[has]]
    base = np.repeat(bases, counts)
    offset = _wrapped_offset(c.start, base)
    duration = (c.end - c.start).astype(np.uint32)

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        categories = _Categories(pool, reuse)
        # The largest columns first: in a fresh process their codes are polars' ids already.
        text = {
            name: categories.physical(name, strings)
            for name, strings in (
                ("name", c.metadata_name),
                ("value", c.metadata_value),
                ("operation", c.operation),
                ("kernel", c.kernel),
            )
        }
        entries = len(c.metadata_name)
        if entry_ids is not None and len(entry_ids[0]) == len(entry_ids[1]) == entries:
            meta_sample, position = entry_ids
        else:
            meta_sample, position = owner_positions(c.metadata_counts, pool)
        inactive = np.zeros(n, dtype=bool)
        active, false = _code_of(c.metadata_name, "active"), _code_of(c.metadata_value, "false")
        if active is not None and false is not None:
            ids = categories.ids
            _flag_owners(inactive, meta_sample, text["name"], text["value"], ids["name"][active], ids["value"][false])
        meta_text = _as_categorical({"name": text["name"], "value": text["value"]})
        step_text = _as_categorical({"operation": text["operation"], "kernel": text["kernel"]})
        kind = _enum(c.kind, STEP_KINDS, KIND_DTYPE, "step kind")
    metadata = pl.DataFrame(
        {"sample": meta_sample, "position": position, "name": meta_text["name"], "value": meta_text["value"]}
    )
    operation, kernel = step_text["operation"], step_text["kernel"]
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
            "offset": _wrapped_offset(c.activity_start, act_base),
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
    return ProfileData(
        samples=samples,
        metadata=metadata,
        exchange_activities=exchange_activities,
        tiles=tiles,
        clock_hz=int(c.clock_hz),
        schema_version=int(c.schema_version),
        granularity=granularity,
        path=path,
    )
