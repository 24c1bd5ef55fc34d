"""Turn decoded `Columns` into `ProfileData`: polars frames (docs/reference/format.md#normalisation)."""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.compute as pc

from .._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns, Strings
from .._model.metadata import CompactMetadata, owner_ids, positions
from .._model.profile import ProfileData
from ._errors import ProfileFormatError
from ._pairs import pair_codes
from ._passes import THREADS, flag_owners, remap_codes

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
        self.pool = pool
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
            remap_codes(codes, ids, self.pool)
        except ValueError as exc:
            raise ProfileFormatError(f"text {exc}") from None
        return codes


def _as_categorical(columns: dict[str, np.ndarray]) -> pl.DataFrame:
    """Category-id columns as Categorical, converted side by side (polars checks every id)."""
    frame = pl.DataFrame({name: pl.Series(name, codes) for name, codes in columns.items()})
    return frame.select(pl.all().cat.to(pl.Categorical))


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


def _compact_metadata(c: Columns, categories: _Categories) -> CompactMetadata:
    """The entries as pair codes into a table of their distinct (name, value) pairs, with each sample's first entry.

    Past `pair_codes`' limit each entry keeps its own name and value codes (no pair codes).
    """
    counts = c.metadata_counts
    # Summed as int64 (counts are never negative): a running sum cast to uint64 as it goes is 20x slower.
    running = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=running[1:])
    starts = running.astype(np.uint32) if int(running[-1]) < 2**32 else running.view(np.uint64)
    names, values = c.metadata_name, c.metadata_value
    if len(names.codes) != len(values.codes) or int(starts[-1]) != len(names.codes):
        raise ProfileFormatError(
            f"{len(names.codes)} metadata names, {len(values.codes)} values, {int(starts[-1])} entries"
        )
    coded = pair_codes(names.codes, values.codes, categories.pool)
    if coded is None:
        pairs = {"name": categories.physical("name", names), "value": categories.physical("value", values)}
        return CompactMetadata(starts, None, _as_categorical(pairs))
    codes, pair_names, pair_values = coded
    pairs = {
        "name": categories.physical("name", Strings(pair_names, names.values)),
        "value": categories.physical("value", Strings(pair_values, values.values)),
    }
    return CompactMetadata(starts, codes, _as_categorical(pairs))


def _inactive_owners(
    metadata: CompactMetadata, names: Strings, values: Strings, n: int, pool: Executor | None = None
) -> np.ndarray:
    """Per sample: whether some entry of it is ``active=false`` (bool[n])."""
    flags = np.zeros(n, dtype=bool)
    active, false = _code_of(names, "active"), _code_of(values, "false")
    if active is None or false is None:
        return flags
    wanted = pl.Series(metadata.pairs.select((pl.col("name") == "active") & (pl.col("value") == "false")))
    rows = np.flatnonzero(wanted.to_numpy())
    if not len(rows):
        return flags
    if metadata.codes is None:
        flags[metadata.owners(rows)] = True
        return flags
    flag_owners(metadata.codes, metadata.starts, rows, flags, pool)
    return flags


def build_profile(
    columns: Columns,
    path: Path | None = None,
    *,
    reuse: bool = False,
    entry_ids: tuple[np.ndarray, np.ndarray] | None = None,
) -> ProfileData:
    """Build the frames of docs/reference/format.md#frames from decoded columns.

    `reuse`: the frames may take over (and rewrite) the columns' arrays instead of copying
    them, for a caller that drops `columns` afterwards (the loader). The metadata is held
    compactly (`CompactMetadata`: no owner or position per entry), so `entry_ids` (each
    entry's owner and position, `EntryIds`) is accepted and not needed.
    """
    c = columns
    n = c.sample_count
    counts = c.tile_sample_counts.astype(np.int64)
    tile_index = owner_ids(counts)
    firsts = np.cumsum(counts) - counts
    has = counts > 0
    bases = np.zeros(len(counts), dtype=np.uint32)
    bases[has] = c.start[firsts[has]]
    base = np.repeat(bases, counts)
    offset = _wrapped_offset(c.start, base)
    duration = (c.end - c.start).astype(np.uint32)

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        categories = _Categories(pool, reuse)
        metadata = _compact_metadata(c, categories)
        step_text = _as_categorical(
            {
                "operation": categories.physical("operation", c.operation),
                "kernel": categories.physical("kernel", c.kernel),
            }
        )
        kind = _enum(c.kind, STEP_KINDS, KIND_DTYPE, "step kind")
        inactive = _inactive_owners(metadata, c.metadata_name, c.metadata_value, n, pool)
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
    act_sample = owner_ids(act_counts)
    act_base = base[act_sample] if len(act_sample) else np.zeros(0, dtype=np.uint32)
    exchange_activities = pl.DataFrame(
        {
            "sample": act_sample,
            "position": positions(act_counts),
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
        metadata=metadata,  # type: ignore[arg-type]  # the field takes a CompactMetadata as it is
        exchange_activities=exchange_activities,
        tiles=tiles,
        clock_hz=int(c.clock_hz),
        schema_version=int(c.schema_version),
        granularity=granularity,
        path=path,
    )
