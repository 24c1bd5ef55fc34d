"""Fast columnar decoder: the profile schema read straight from the wire format with numpy.

Root `Profile` -> `tiles` -> per-tile `samples` lists are resolved as arrays, charged to the
message's traversal and memory budgets (`_message`) before anything is expanded; then the
samples are decoded in chunks of `CHUNK_SAMPLES` rows (bounded temporaries, progress
updates, file pages released after each chunk), their metadata entries and exchange
activities in batches of at most `BATCH_ROWS`. Every struct size comes from its pointer,
so older (smaller) and newer (larger) writers both decode: fields beyond a struct's data
or pointer section read as their defaults, exactly like the C++ reader. Text fields, two
thirds of the work, go to the C interner (`_intern`) when it is built, else to numpy
(`_text`); either way each field is interned in file order.

Every output array is sized from a count the file states and the memory budget has paid
for (or grown geometrically as rows arrive), never extrapolated from the rows so far.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from .._model.columns import SUPPORTED_SCHEMA_VERSIONS, Columns
from .._progress import Report
from ._errors import ProfileFormatError, UnsupportedSchemaVersionError
from ._intern import NATIVE, EntryLists, NativeTextColumn, count_entries
from ._mapped import FileBytes, open_bytes
from ._message import ACTIVITY_BYTES, ENTRY_BYTES, SAMPLE_BYTES, TILE_BYTES, Cancelled, Elements, Lists, Message
from ._passes import EntryIds
from ._text import TextColumn

__all__ = ["BATCH_ROWS", "CHUNK_SAMPLES", "decode_bytes", "decode_file"]

#: Samples per chunk: temporaries stay a few tens of MB, and each chunk's fixed cost (a few
#: dozen numpy calls, a turn per text field, a hand-over of the GIL) stays small beside its work.
CHUNK_SAMPLES = 1 << 16
#: Metadata entries (or exchange activities) of a chunk expanded at once by the numpy path.
BATCH_ROWS = 1 << 17
#: Chunks decoded in parallel: numpy and Arrow release the GIL in the heavy loops.
WORKERS = min(2, os.cpu_count() or 1)

#: Which interner decodes the text fields: the C one ("native"), the numpy one, or "auto"
#: (the C one when it is built, else numpy). Tests pass a text-column class to spy on it.
TextPath = Literal["auto", "native", "numpy"]
TextColumns = TextColumn | NativeTextColumn


def text_column_class(text_path: TextPath | type[TextColumns]) -> type[TextColumns]:
    """The text-column class `text_path` names ("native" needs the C interner built)."""
    if isinstance(text_path, type):
        return text_path
    if text_path == "numpy":
        return TextColumn
    if text_path == "native":
        if not NATIVE:
            raise RuntimeError("text_path='native': the C interner is not built (run `python hatch_build.py`)")
        return NativeTextColumn
    if text_path == "auto":
        return NativeTextColumn if NATIVE else TextColumn
    raise ValueError(f"text_path must be 'auto', 'native' or 'numpy', got {text_path!r}")


def decode_file(
    path: str | Path,
    *,
    report: Report | None = None,
    text_path: TextPath | type[TextColumns] = "auto",
    entry_ids: EntryIds | None = None,
) -> Columns:
    """Decode a profile file (memory-mapped and guarded, or read into memory: `_mapped`).

    A file truncated or rewritten while it loads is a `ProfileFormatError` saying so.
    `report(done, total)` is called in samples after each chunk; `text_path` chooses the
    text interner (`text_column_class`); `entry_ids`, if given, receives each metadata entry's
    owner sample and position as chunks finish (for `build_profile`).
    """
    path = Path(path)
    with open_bytes(path) as file:
        try:
            columns = _decode(file.buffer, str(path), report, file, text_column_class(text_path), entry_ids)
        except BaseException:
            file.check()  # a file that changed under the decoder explains whatever went wrong
            raise
        file.check()
        return columns


def decode_bytes(
    data: bytes,
    where: str = "<bytes>",
    *,
    report: Report | None = None,
    text_path: TextPath | type[TextColumns] = "auto",
) -> Columns:
    """Decode one framed message held in memory."""
    if len(data) == 0:
        raise ProfileFormatError(f"{where}: empty file (not a Cap'n Proto message)")
    return _decode(data, where, report, None, text_column_class(text_path))


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


#: What decoding a chunk returns: its activities and the byte span its samples and texts occupy.
_Result = tuple[_Chunk, tuple[int, int]]


def _decode(
    buffer: object,
    where: str,
    report: Report | None,
    file: FileBytes | None,
    text_column: type[TextColumns],
    entry_ids: EntryIds | None = None,
) -> Columns:
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
    tiles = msg.lists(addr, root.seg, present, "Profile.tiles", lambda i: "root", TILE_BYTES).elements()
    physical = msg.field(tiles, 0, np.uint32)
    addr, present = msg.pointer(tiles, 0)
    samples = msg.lists(addr, tiles.seg, present, "TileProfile.samples", lambda i: f"tile entry {i}", SAMPLE_BYTES)
    del addr, present, tiles
    counts, total = samples.count, samples.total
    at_row = _tile_finder(samples.first, counts)
    texts = {
        name: text_column(label, msg, capacity=total if name in ("operation", "kernel") else 0)
        for name, label in _TEXT_FIELDS
    }
    chunks: list[_Chunk] = []
    if report is not None:
        report(0, total)
    row_ranges = [slice(lo, min(lo + CHUNK_SAMPLES, total)) for lo in range(0, total, CHUNK_SAMPLES)]
    in_order = _InOrder(msg.cancel)

    # Workers fill these in place: no concatenation (and no fresh pages touched) at the end.
    out = {name: np.empty(total, dtype=dtype) for name, dtype in _SAMPLE_FIELDS.items()}
    _keep_arena_tops()

    def work(k: int) -> _Result:
        return _decode_chunk(msg, texts, in_order, k, samples, row_ranges[k], at_row, out)

    workers = min(WORKERS, len(row_ranges))
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        indices = range(len(row_ranges))
        results = _in_turn([pool.submit(work, k) for k in indices]) if workers > 1 else map(work, indices)
        try:
            for rows, (chunk, span) in zip(row_ranges, results, strict=True):
                chunks.append(chunk)
                if entry_ids is not None:
                    entry_ids.extend(out["metadata_counts"][rows], rows.start)
                if file is not None:
                    file.check()
                    file.release(*span)
                if report is not None:
                    report(rows.stop, total)
        except BaseException:
            in_order.abandon()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    operation = texts["operation"].finish(where, at_row)
    kernel = texts["kernel"].finish(where, at_row)
    meta_owner = out["metadata_counts"]
    meta_first = np.cumsum(meta_owner) - meta_owner

    def entry_where(r: int) -> str:
        s = int(np.searchsorted(meta_first, r, side="right")) - 1
        return f"{at_row(s)}, metadata entry {r - int(meta_first[s])}"

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


@functools.cache
def _keep_arena_tops() -> None:
    """Let worker threads reuse their chunks' temporaries instead of faulting them in afresh.

    glibc hands a thread arena's free top back to the kernel whenever it exceeds M_TOP_PAD
    (128 KB by default), so every chunk's few MB of numpy and Arrow temporaries were paged
    out on free and faulted in again by the next chunk: up to a third of a load's time.
    Keeping 16 MB of top avoids that (memory the threads use again at once, never more than
    they used). Setting it turns off glibc's sliding mmap threshold, so that is pinned where
    the sliding one ends up in a long-running process (32 MB), not left at 128 KB. Once per
    process; elsewhere (no glibc) this does nothing.
    """
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(None)
        libc.mallopt(ctypes.c_int(-2), ctypes.c_int(16 << 20))  # M_TOP_PAD
        libc.mallopt(ctypes.c_int(-3), ctypes.c_int(32 << 20))  # M_MMAP_THRESHOLD


def _tile_finder(firsts: np.ndarray, counts: np.ndarray) -> Callable[[int], str]:
    ends = firsts + counts

    def describe(sample: int) -> str:
        tile = int(np.searchsorted(ends, sample, side="right"))
        return f"tile entry {tile}, sample {sample - int(firsts[tile])} (row {sample})"

    return describe


def _in_turn(futures: list[Future[_Result]]) -> Iterator[_Result]:
    """The futures' results in order, waited for in short slices.

    A signal may be delivered to any thread, and one delivered to a worker does not wake a
    main thread blocked on a lock: waiting in slices lets Ctrl-C reach the main thread promptly.
    """
    for future in futures:
        while True:
            try:
                yield future.result(timeout=0.05)
                break
            except TimeoutError:
                continue


def _batches(lo: int, total: int) -> list[tuple[int, int]]:
    """Rows [lo, total) in ranges of at most BATCH_ROWS."""
    return [(a, min(a + BATCH_ROWS, total)) for a in range(lo, total, BATCH_ROWS)]


class _InOrder:
    """Lets chunks intern each text field strictly in file order, while chunks decode in parallel.

    Codes are assigned in first-occurrence order, so chunk k's texts of a field must be
    interned after chunk k-1's: `turn(field, k)` waits for that. Workers take chunks in
    order, so the chunk waited for is always being decoded. When one fails (or Ctrl-C
    stops the caller), the caller (which collects results in order, so sees that failure
    before any chunk waiting on it) calls `abandon`: waiters give up, and work in progress
    stops at its next check of `cancel` (the C interner returns to Python every few ms).
    """

    def __init__(self, cancel: threading.Event) -> None:
        self._cond = threading.Condition()
        self._next: dict[str, int] = {}
        self._cancel = cancel

    @contextlib.contextmanager
    def turn(self, field: str, k: int) -> Iterator[None]:
        with self._cond:
            while self._next.get(field, 0) != k:
                if self._cancel.is_set():
                    raise Cancelled
                self._cond.wait()
        if self._cancel.is_set():
            raise Cancelled
        yield
        with self._cond:
            self._next[field] = k + 1
            self._cond.notify_all()

    def abandon(self) -> None:
        with self._cond:
            self._cancel.set()
            self._cond.notify_all()


def _decode_chunk(
    msg: Message,
    texts: dict[str, TextColumns],
    in_order: _InOrder,
    k: int,
    sample_lists: Lists,
    rows: slice,
    at_row: Callable[[int], str],
    out: dict[str, np.ndarray],
) -> _Result:
    """Decode chunk `k`, the samples in `rows`; also returns the byte span they occupy (to release it)."""
    row0 = rows.start

    def at_sample(i: int) -> str:
        return at_row(row0 + i)

    samples = sample_lists.elements(rows.start, rows.stop)
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
    del samples, start, end

    def add(name: str, structs: Elements, index: int, describe: Callable[[int], str]) -> None:
        """Text pointer `index` of each struct, appended to field `name` (in its turn)."""
        addr, present = msg.pointer(structs, index)
        span[1] = max(span[1], texts[name].add(addr, structs.seg, present, describe))

    for index, name in ((0, "operation"), (1, "kernel")):
        with in_order.turn(name, k):
            add(name, steps, index, at_sample)

    # Metadata: the C interner walks the entry lists itself when it can; else numpy lists them.
    addr, present = msg.pointer(steps, 2)
    native = all(isinstance(texts[name], NativeTextColumn) for name in ("name", "value"))
    counted = count_entries(msg, addr, steps.seg, present, "ProfileStep.metadata", at_sample) if native else None

    @functools.cache
    def entries() -> Lists:
        """The general path's listing (not charged again where C counted, and so charged, these very lists)."""
        return msg.lists(
            addr, steps.seg, present, "ProfileStep.metadata", at_sample, ENTRY_BYTES, charge=counted is None
        )

    @functools.lru_cache(maxsize=1)
    def batch(lo: int, hi: int) -> Elements:
        return entries().elements(lo, hi)

    def at_entry(row: int) -> str:
        lists: Lists | EntryLists = counted if counted is not None else entries()
        s, position = lists.owner_of(row)
        return f"{at_sample(s)}, metadata entry {position}"

    for index, name in ((0, "name"), (1, "value")):
        column = texts[name]
        with in_order.turn(name, k):
            done = 0
            if counted is not None:
                assert isinstance(column, NativeTextColumn)
                last, done = column.add_entries(counted, index, at_entry)
                span[1] = max(span[1], last)
            if counted is None or done < counted.total:
                for lo, hi in _batches(done, entries().total):
                    msg.stop_if_cancelled()
                    add(name, batch(lo, hi), index, functools.partial(_shifted, at_entry, lo))
    meta_counts = counted.counts if counted is not None else entries().count
    batch.cache_clear()

    # Activities: counted (and charged) in C when it can; listed by numpy only when there are some.
    addr, present = msg.pointer(steps, 3)
    what = "ProfileStep.exchangeActivities"
    counted_acts = count_entries(msg, addr, steps.seg, present, what, at_sample, ACTIVITY_BYTES) if native else None
    if counted_acts is not None and not counted_acts.total:
        acts, act_counts = None, counted_acts.counts
    else:
        acts = msg.lists(addr, steps.seg, present, what, at_sample, ACTIVITY_BYTES, charge=counted_acts is None)
        act_counts = acts.count
    out["metadata_counts"][rows] = meta_counts
    out["activity_counts"][rows] = act_counts
    parts = []
    for lo, hi in _batches(0, acts.total) if acts is not None else []:
        assert acts is not None
        msg.stop_if_cancelled()
        elements = acts.elements(lo, hi)
        parts.append(
            (msg.field(elements, 0, np.uint16), msg.field(elements, 4, np.uint32), msg.field(elements, 8, np.uint32))
        )
    if not parts:
        parts.append((np.zeros(0, np.uint16), np.zeros(0, np.uint32), np.zeros(0, np.uint32)))
    kinds, starts, ends = (np.concatenate(p) if len(parts) > 1 else p[0] for p in zip(*parts, strict=True))
    return _Chunk(activity_kind=kinds, activity_start=starts, activity_end=ends), (span[0], span[1])


def _shifted(describe: Callable[[int], str], lo: int, j: int) -> str:
    """`describe` of row ``lo + j``: a batch's rows described by their place in the whole field."""
    return describe(lo + j)
