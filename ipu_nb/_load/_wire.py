"""Fast columnar decoder: the profile schema read straight from the wire format with numpy.

Root `Profile` -> `tiles` -> per-tile `samples` lists are resolved as arrays; then tiles
are decoded in chunks of about `CHUNK_SAMPLES` samples (bounded temporaries, progress
updates, and file pages released after each chunk). Every struct size comes from its
pointer, so older (smaller) and newer (larger) writers both decode: fields beyond a
struct's data or pointer section read as their defaults, exactly like the C++ reader.
Text fields, two thirds of the work, go to the C interner (`_intern`) when it is built,
else to numpy (`_text`); either way each field is interned in file order.
"""

from __future__ import annotations

import contextlib
import functools
import mmap
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._columns import SUPPORTED_SCHEMA_VERSIONS, Columns
from ._errors import ProfileFormatError, UnsupportedSchemaVersionError
from ._intern import NATIVE, NativeTextColumn, count_entries
from ._message import Elements, Message, uniform
from ._text import TextColumn

__all__ = ["CHUNK_SAMPLES", "decode_bytes", "decode_file"]

#: Samples per chunk: temporaries stay a few MB (cache- and allocator-friendly).
CHUNK_SAMPLES = 1 << 13
#: Chunks decoded in parallel: numpy and Arrow release the GIL in the heavy loops.
WORKERS = min(2, os.cpu_count() or 1)
_PAGE = mmap.PAGESIZE

#: Text fields go to the C interner when it is built, else to the numpy path.
_TextColumn = NativeTextColumn if NATIVE else TextColumn
#: ``progress(done, total)`` in samples, called after each chunk.
Progress = Callable[[int, int], None]


def decode_file(path: str | Path, progress: Progress | None = None) -> Columns:
    """Decode a profile file through a read-only memory map."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0:
                raise ProfileFormatError(f"{path}: empty file (not a Cap'n Proto message)")
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise ProfileFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return _decode(mapped, str(path), progress, mapped)
    finally:
        with contextlib.suppress(BufferError):  # a view still alive: the GC unmaps it later
            mapped.close()


def decode_bytes(data: bytes, where: str = "<bytes>", progress: Progress | None = None) -> Columns:
    """Decode one framed message held in memory."""
    if len(data) == 0:
        raise ProfileFormatError(f"{where}: empty file (not a Cap'n Proto message)")
    return _decode(data, where, progress, None)


#: Per-sample columns (and their dtypes) that workers write straight into the output arrays.
_SAMPLE_FIELDS = {
    "local_index": np.uint32,
    "phase": np.uint32,
    "epoch": np.uint32,
    "kind": np.uint16,
    "start": np.uint32,
    "end": np.uint32,
    "exchange_event_cycles": np.uint32,
    "metadata_counts": np.int64,
    "activity_counts": np.int64,
}


@dataclass
class _Chunk:
    """The exchange activities of one chunk of samples (their count is only known once decoded)."""

    activity_kind: np.ndarray
    activity_start: np.ndarray
    activity_end: np.ndarray


def _decode(buffer: object, where: str, progress: Progress | None, mapped: mmap.mmap | None) -> Columns:
    msg = Message(buffer, where)
    root_addr = np.array([msg.seg_start[0]], dtype=np.int64)
    root = msg.structs(root_addr, 0, None, "root Profile", lambda i: "root")
    version = int(msg.field(root, 0, np.uint32)[0])
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        error = UnsupportedSchemaVersionError(version, SUPPORTED_SCHEMA_VERSIONS)
        error.args = (f"{where}: {error}",)
        raise error
    clock_hz = int(msg.field(root, 8, np.uint64)[0])
    addr, present = msg.pointer(root, 0)
    _, tiles = msg.struct_lists(addr, root.seg, present, "Profile.tiles", lambda i: "root")
    physical = msg.field(tiles, 0, np.uint32)
    addr, present = msg.pointer(tiles, 0)
    counts, samples_all = msg.struct_lists(addr, tiles.seg, present, "TileProfile.samples", lambda i: f"tile entry {i}")
    del addr, present
    firsts = np.cumsum(counts) - counts
    texts = {name: _TextColumn(label, msg) for name, label in _TEXT_FIELDS}
    chunks: list[_Chunk] = []
    total = int(counts.sum())
    if progress is not None:
        progress(0, total)
    row_ranges = [
        slice(int(firsts[lo]), int(firsts[lo]) + int(counts[lo:hi].sum())) for lo, hi in _chunk_bounds(counts)
    ]
    in_order = _InOrder()

    # Workers fill these in place: no concatenation (and no fresh pages touched) at the end.
    out = {name: np.empty(total, dtype=dtype) for name, dtype in _SAMPLE_FIELDS.items()}

    def work(k: int) -> tuple[_Chunk, tuple[int, int]]:
        return _decode_chunk(msg, texts, in_order, k, samples_all, row_ranges[k], firsts, total, out)

    workers = min(WORKERS, len(row_ranges))
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        indices = range(len(row_ranges))
        results = pool.map(work, indices) if workers > 1 else map(work, indices)
        try:
            for rows, (chunk, span) in zip(row_ranges, results, strict=True):
                chunks.append(chunk)
                if mapped is not None:
                    _release(mapped, span)
                if progress is not None:
                    progress(rows.stop, total)
        except BaseException:
            in_order.abandon()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    sample_tile = _tile_finder(firsts, counts)
    operation = texts["operation"].finish(where, lambda r: sample_tile(r))
    kernel = texts["kernel"].finish(where, lambda r: sample_tile(r))
    meta_owner = out["metadata_counts"]
    meta_first = np.cumsum(meta_owner) - meta_owner

    def entry_where(r: int) -> str:
        s = int(np.searchsorted(meta_first, r, side="right")) - 1
        return f"{sample_tile(s)}, metadata entry {r - int(meta_first[s])}"

    name = texts["name"].finish(where, entry_where)
    value = texts["value"].finish(where, entry_where)

    def cat(attr: str, dtype: type) -> np.ndarray:
        if not chunks:
            return np.zeros(0, dtype=dtype)
        return np.concatenate([getattr(c, attr) for c in chunks]).astype(dtype, copy=False)

    return Columns(
        schema_version=version,
        clock_hz=clock_hz,
        tiles=physical,
        tile_sample_counts=counts.astype(np.int64),
        local_index=out["local_index"],
        phase=out["phase"],
        epoch=out["epoch"],
        kind=out["kind"],
        start=out["start"],
        end=out["end"],
        operation=operation,
        kernel=kernel,
        metadata_counts=meta_owner,
        metadata_name=name,
        metadata_value=value,
        exchange_event_cycles=out["exchange_event_cycles"],
        activity_counts=out["activity_counts"],
        activity_kind=cat("activity_kind", np.uint16),
        activity_start=cat("activity_start", np.uint32),
        activity_end=cat("activity_end", np.uint32),
    )


_TEXT_FIELDS = (
    ("operation", "ProfileStep.operation"),
    ("kernel", "ProfileStep.kernel"),
    ("name", "MetadataEntry.name"),
    ("value", "MetadataEntry.value"),
)


def _chunk_bounds(counts: np.ndarray) -> list[tuple[int, int]]:
    """Tile ranges holding about CHUNK_SAMPLES samples each (at least one tile per range)."""
    n = len(counts)
    if n == 0:
        return []
    ends = np.cumsum(counts)
    cuts = np.searchsorted(ends, np.arange(CHUNK_SAMPLES, int(ends[-1]) + CHUNK_SAMPLES, CHUNK_SAMPLES), side="left")
    bounds = sorted({int(c) + 1 for c in cuts if c < n} | {n})
    out = []
    lo = 0
    for hi in bounds:
        if hi > lo:
            out.append((lo, hi))
            lo = hi
    return out


def _tile_finder(firsts: np.ndarray, counts: np.ndarray) -> Callable[[int], str]:
    ends = firsts + counts

    def describe(sample: int) -> str:
        tile = int(np.searchsorted(ends, sample, side="right"))
        return f"tile entry {tile}, sample {sample - int(firsts[tile])} (row {sample})"

    return describe


def _slice(elements: Elements, rows: slice) -> Elements:
    def part(x: np.ndarray | int) -> np.ndarray | int:
        return x if isinstance(x, int) else x[rows]

    seg = elements.seg if isinstance(elements.seg, int) else uniform(elements.seg[rows])
    return Elements(elements.byte[rows], part(elements.data_bytes), part(elements.ptrs), seg)


class _InOrder:
    """Lets chunks intern each text field strictly in file order, while chunks decode in parallel.

    Codes are assigned in first-occurrence order, so chunk k's texts of a field must be
    interned after chunk k-1's: `turn(field, k)` waits for that. Workers take chunks in
    order, so the chunk waited for is always being decoded. When one fails, the caller
    (which collects results in order, so sees that failure before any chunk waiting on
    it) calls `abandon`, and the waiters give up.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next: dict[str, int] = {}
        self._abandoned = False

    @contextlib.contextmanager
    def turn(self, field: str, k: int) -> Iterator[None]:
        with self._cond:
            while self._next.get(field, 0) != k:
                if self._abandoned:
                    raise _Abandoned
                self._cond.wait()
        yield
        with self._cond:
            self._next[field] = k + 1
            self._cond.notify_all()

    def abandon(self) -> None:
        with self._cond:
            self._abandoned = True
            self._cond.notify_all()


class _Abandoned(Exception):
    """Another chunk failed: this one stops (the caller reports that chunk's error)."""


def _decode_chunk(
    msg: Message,
    texts: dict[str, _TextColumn],
    in_order: _InOrder,
    k: int,
    samples_all: Elements,
    rows: slice,
    firsts: np.ndarray,
    total: int,
    out: dict[str, np.ndarray],
) -> tuple[_Chunk, tuple[int, int]]:
    """Decode chunk `k`, the samples in `rows`; also returns the byte span they occupy (to release it)."""
    row0 = rows.start
    ends = np.append(firsts[1:], np.iinfo(np.int64).max)

    def at_sample(i: int) -> str:
        s = row0 + i
        tile = int(np.searchsorted(ends, s, side="right"))
        return f"tile entry {tile}, sample {s - int(firsts[tile])} (row {s})"

    samples = _slice(samples_all, rows)
    start = msg.field(samples, 0, np.uint32)
    end = msg.field(samples, 4, np.uint32)
    addr, present = msg.pointer(samples, 0)
    steps = msg.structs(addr, samples.seg, present, "CycleSample.step", at_sample)
    out["start"][rows] = start
    out["end"][rows] = end
    out["local_index"][rows] = msg.field(steps, 0, np.uint32)
    out["phase"][rows] = msg.field(steps, 4, np.uint32)
    out["epoch"][rows] = msg.field(steps, 8, np.uint32)
    out["kind"][rows] = msg.field(steps, 12, np.uint16)
    out["exchange_event_cycles"][rows] = msg.field(steps, 16, np.uint32)
    span = [int(samples.byte.min()), int(samples.byte.max())] if len(samples) else [0, 0]

    def expected(column: _TextColumn, rows_now: int) -> int:
        """Rows of a field so far, extrapolated to the whole file (plus a little)."""
        return (column.codes.size + rows_now) * total // max(rows.stop, 1) * 21 // 20 + 1024

    def add(name: str, structs: Elements, index: int, describe: Callable[[int], str]) -> None:
        """Text pointer `index` of each struct, appended to field `name` (in its turn)."""
        addr, present = msg.pointer(structs, index)
        column = texts[name]
        span[1] = max(span[1], column.add(addr, structs.seg, present, describe, expected(column, len(addr))))

    for index, name in ((0, "operation"), (1, "kernel")):
        with in_order.turn(name, k):
            add(name, steps, index, at_sample)

    # Metadata: the C interner walks the entry lists itself when it can; else numpy lists them.
    addr, present = msg.pointer(steps, 2)
    native = all(isinstance(texts[name], NativeTextColumn) for name in ("name", "value"))
    lists = count_entries(msg, addr, steps.seg, present, "ProfileStep.metadata") if native else None

    @functools.cache
    def entries() -> tuple[np.ndarray, Elements]:
        """The general path's listing (charged again when C counted first: rare, and only ever more strict)."""
        return msg.struct_lists(addr, steps.seg, present, "ProfileStep.metadata", at_sample)

    def at_entry(j: int) -> str:
        s, position = entries()[1].owner_of(j)
        return f"{at_sample(s)}, metadata entry {position}"

    for index, name in ((0, "name"), (1, "value")):
        column = texts[name]
        with in_order.turn(name, k):
            last = None
            if lists is not None:
                assert isinstance(column, NativeTextColumn)
                last = column.add_entries(lists, index, expected(column, lists.total))
            if last is None:
                add(name, entries()[1], index, at_entry)
            else:
                span[1] = max(span[1], last)
    meta_counts = lists.counts if lists is not None else entries()[0]

    addr, present = msg.pointer(steps, 3)
    act_counts, acts = msg.struct_lists(addr, steps.seg, present, "ProfileStep.exchangeActivities", at_sample)
    out["metadata_counts"][rows] = meta_counts
    out["activity_counts"][rows] = act_counts
    chunk = _Chunk(
        activity_kind=msg.field(acts, 0, np.uint16),
        activity_start=msg.field(acts, 4, np.uint32),
        activity_end=msg.field(acts, 8, np.uint32),
    )
    return chunk, (span[0], span[1])


def _release(mapped: mmap.mmap, span: tuple[int, int]) -> None:
    """Drop a chunk's file pages from our resident set (they stay in the page cache).

    Pages another chunk still needs fault back in transparently; this only bounds peak memory.
    """
    if not hasattr(mmap, "MADV_DONTNEED"):
        return
    lo = span[0] // _PAGE * _PAGE
    hi = span[1] // _PAGE * _PAGE
    if hi > lo:
        mapped.madvise(mmap.MADV_DONTNEED, lo, hi - lo)
