"""Vectorised Cap'n Proto writer: a `Columns` to a profile file framed like the IPU runtime's.

pycapnp's builder costs tens of µs per field, minutes for a full-size profile, so this
module lays the message out with numpy instead. It mimics a default growing message
builder: objects are allocated in builder order (root struct, tiles list, per tile its
samples list, then per sample its step, texts and lists), segments grow heuristically
(a new segment is as large as everything allocated so far), objects never straddle
segments and a pointer crossing segments becomes a far pointer (single, with its
landing pad just before the object as capnp places it, or double-far, with two-word
landing pads in a trailing segment). Every text is its own NUL-terminated blob.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa

from .._files import atomic_output
from .._model.columns import Columns, Strings
from .._progress import AUTO_PROGRESS_SAMPLES, Report, progress_bar
from .columns_check import check_columns
from .segments import MAX_SEGMENT_WORDS, place_objects

__all__ = ["encode_columns", "encoded_size", "write_columns"]

#: ProfileStep struct sizes (data words, pointers) of the v3 runtime and of newer writers (fields 7/8).
V3_STEP_LAYOUT = (2, 3)
NEWER_STEP_LAYOUT = (3, 4)
#: Words per streamed chunk (whole tiles are kept together, so a chunk may be larger).
_CHUNK_WORDS = 1 << 22

_U64 = np.uint64
_MASK30 = 0x3FFFFFFF


def encode_columns(
    columns: Columns,
    *,
    step_layout: tuple[int, int] | None = None,
    first_segment_words: int = 1024,
    far: Literal["single", "double"] = "single",
    empty_lists: Literal["empty", "null"] = "empty",
    max_segment_words: int | None = None,
) -> list[np.ndarray]:
    """Encode `columns` as a Cap'n Proto message and return its segments (uint64 words).

    Parameters
    ----------
    columns : Columns
        The profile to encode.
    step_layout : (data words, pointers), optional
        ProfileStep struct size. Default (2, 3) as the v3 runtime writes it, or (3, 4)
        when the schema version is above 3 or a sample has activities or exchange event
        cycles. Larger layouts leave the unknown trailing fields zero; smaller ones omit
        fields and raise ValueError if that would drop a non-default value.
    first_segment_words : int, default 1024
        Size of the first segment (capnp's default); later segments grow heuristically.
    far : {"single", "double"}, default "single"
        Far pointer flavour for pointers that cross segments.
    empty_lists : {"empty", "null"}, default "empty"
        Write empty lists as zero-length lists or as null pointers.
    max_segment_words : int, optional
        Cap on the heuristic segment growth (an object larger than it still gets its own
        segment); small values force far pointers everywhere, for decoder tests.
    """
    encoder = _Encoder(columns, step_layout, first_segment_words, far, empty_lists, max_segment_words)
    buffer = np.zeros(encoder.body_words + len(encoder.pad_segment), dtype=_U64)
    encoder.fill_head(buffer[: encoder.head_words])
    for t0, t1, lo, hi in encoder.chunks():
        encoder.fill_tiles(buffer[lo:hi], lo, t0, t1)
    buffer[encoder.body_words :] = encoder.pad_segment
    segments = [buffer[s : s + n] for s, n in zip(encoder.seg_start.tolist(), encoder.seg_used.tolist(), strict=True)]
    if len(encoder.pad_segment):
        segments.append(buffer[encoder.body_words :])
    return segments


def write_columns(
    columns: Columns,
    path: str | os.PathLike[str],
    *,
    progress: bool | None = False,
    report: Report | None = None,
    **layout: object,
) -> Path:
    """Write `columns` to `path` as a runtime-style profile file, atomically.

    Segments are streamed to a temporary file in the same directory, a chunk of whole
    tiles at a time, which then replaces `path`. `progress` shows a bar on stderr (None:
    only for large profiles); `report(done, total)` is called in bytes of the file.
    `layout` takes the keyword arguments of `encode_columns`.
    """
    path = Path(path)
    large = columns.sample_count >= AUTO_PROGRESS_SAMPLES
    with progress_bar(progress, f"writing {path.name}", large=large, unit="B") as bar:
        return _write_file(columns, path, report if bar is None else _both(report, bar), layout)


def _both(first: Report | None, second: Report) -> Report:
    if first is None:
        return second

    def report(done: int, total: int) -> None:
        first(done, total)
        second(done, total)

    return report


def _framing(encoder: _Encoder) -> tuple[bytes, int]:
    """The segment table of `encoder`'s message and the message's whole size in bytes."""
    sizes = [*encoder.seg_used.tolist()] + ([len(encoder.pad_segment)] if len(encoder.pad_segment) else [])
    header = _segment_table(sizes)
    return header, len(header) + 8 * sum(sizes)


def encoded_size(columns: Columns, **layout: object) -> int:
    """The exact size in bytes of the file `write_columns` would write, without writing it."""
    return _framing(_Encoder(columns, **layout))[1]  # type: ignore[arg-type]


def _write_file(columns: Columns, path: Path, report: Report | None, layout: dict[str, object]) -> Path:
    """`write_columns` without the bar."""
    encoder = _Encoder(columns, **layout)  # type: ignore[arg-type]
    header, total = _framing(encoder)
    with atomic_output(path) as out:
        out.write(header)
        done = len(header)
        head = np.zeros(encoder.head_words, dtype=_U64)
        encoder.fill_head(head)
        out.write(head.data)
        done += head.nbytes
        if report:
            report(done, total)
        for t0, t1, lo, hi in encoder.chunks():
            chunk = np.zeros(hi - lo, dtype=_U64)
            encoder.fill_tiles(chunk, lo, t0, t1)
            out.write(chunk.data)
            done += chunk.nbytes
            if report:
                report(done, total)
        out.write(encoder.pad_segment.data)
        done += encoder.pad_segment.nbytes
    if report:
        report(done, total)
    return path


def _segment_table(sizes: list[int]) -> bytes:
    table = np.array([len(sizes) - 1, *sizes], dtype="<u4")
    if len(table) % 2:
        table = np.append(table, np.uint32(0))
    return table.tobytes()


@dataclass(frozen=True)
class _Texts:
    """A Strings column as padded word blobs: value v occupies pool[start[v] : start[v] + words[v]]."""

    pool: np.ndarray  # uint64
    start: np.ndarray  # int64[V]
    words: np.ndarray  # int64[V]
    pointer: np.ndarray  # uint64[V], the near list pointer with offset 0
    codes: np.ndarray  # integer[rows], as given
    lengths: np.ndarray  # int64[V], bytes without the NUL

    def any_nonempty(self) -> bool:
        """Whether some row holds a non-empty string (one a smaller step layout would lose)."""
        return bool(len(self.codes)) and bool((self.lengths[np.unique(self.codes)] > 0).any())

    @classmethod
    def build(cls, strings: Strings, what: str) -> _Texts:
        values = strings.values
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        if not isinstance(values, pa.Array):
            raise ValueError(f"{what}: values must be a pyarrow string array, not {type(values).__name__}")
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            try:
                values = values.cast(pa.large_string())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise ValueError(f"{what}: values must be strings ({exc})") from None
        if values.null_count:
            raise ValueError(f"{what}: values contain nulls")
        codes = np.asarray(strings.codes)
        if codes.ndim != 1 or (len(codes) and codes.dtype.kind not in "iu"):
            raise ValueError(f"{what}: codes must be a 1-d integer array")
        if len(codes) and (codes.min() < 0 or codes.max() >= len(values)):
            raise ValueError(f"{what}: a code is outside the {len(values)} dictionary values")
        n = len(values)
        offsets = np.zeros(1, np.int64)
        data = np.zeros(0, np.uint8)
        if n:
            buffers = values.buffers()
            offset_type = np.int64 if pa.types.is_large_string(values.type) else np.int32
            raw = np.frombuffer(buffers[1], dtype=offset_type)
            offsets = raw[values.offset : values.offset + n + 1].astype(np.int64)
            if buffers[2] is not None:
                data = np.frombuffer(buffers[2], dtype=np.uint8)
        lengths = np.diff(offsets)
        if len(lengths) and lengths.max() >= (1 << 29) - 1:
            raise ValueError(f"{what}: a string is too long for a Cap'n Proto text")
        words = (lengths + 8) >> 3  # the bytes, a NUL terminator, padding to a word
        start = np.cumsum(words) - words
        pool = np.zeros(int(words.sum()) * 8, dtype=np.uint8)
        used = int(offsets[-1] - offsets[0])
        if used:
            dest = np.repeat(start * 8 - offsets[:-1], lengths) + np.arange(offsets[0], offsets[-1])
            pool[dest] = data[offsets[0] : offsets[-1]]
        upper = (lengths + 1).astype(_U64) << _U64(3) | _U64(2)  # element size 2 = byte
        return cls(pool.view(_U64), start, words, upper << _U64(32) | _U64(1), codes, lengths)


def _composite_pointer(words: np.ndarray | int) -> np.ndarray:
    """Near list pointer (offset 0) to a composite list of `words` element words."""
    return (np.asarray(words).astype(_U64) << _U64(35)) | _U64(7 << 32 | 1)


def _tag(count: np.ndarray | int, data: int, pointers: int) -> np.ndarray:
    """Composite-list tag word: element count in the offset field, then the struct size."""
    return (np.asarray(count).astype(_U64) << _U64(2)) | _U64(data << 32 | pointers << 48)


def _pack(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return low.astype(_U64) | (high.astype(_U64) << _U64(32))


class _Encoder:
    """Plans the object layout of one message, then fills word ranges of it on demand."""

    def __init__(
        self,
        columns: Columns,
        step_layout: tuple[int, int] | None = None,
        first_segment_words: int = 1024,
        far: Literal["single", "double"] = "single",
        empty_lists: Literal["empty", "null"] = "empty",
        max_segment_words: int | None = None,
    ) -> None:
        if far not in ("single", "double"):
            raise ValueError(f"far must be 'single' or 'double', not {far!r}")
        if empty_lists not in ("empty", "null"):
            raise ValueError(f"empty_lists must be 'empty' or 'null', not {empty_lists!r}")
        if int(first_segment_words) < 1:
            raise ValueError(f"first_segment_words must be at least 1, not {first_segment_words}")
        max_words = MAX_SEGMENT_WORDS if max_segment_words is None else int(max_segment_words)
        if not 1 <= max_words <= MAX_SEGMENT_WORDS:
            raise ValueError(f"max_segment_words must be between 1 and {MAX_SEGMENT_WORDS}, not {max_segment_words}")
        c = columns
        check_columns(c)
        self.c = c
        self.single = far == "single"
        self.op = _Texts.build(c.operation, "operation")
        self.kernel = _Texts.build(c.kernel, "kernel")
        self.data_words, self.pointers = _step_layout(c, step_layout, self.op, self.kernel)
        self.name = _Texts.build(c.metadata_name, "metadata_name")
        self.value = _Texts.build(c.metadata_value, "metadata_value")
        self._plan(empty_lists == "empty")
        self.addr, self.far, self.seg_start, self.seg_used = place_objects(
            self.size, self.parent, int(first_segment_words), max_words, self.single
        )
        del self.size, self.parent
        self.body_words = int(self.seg_used.sum())
        self.pad_segment_id = len(self.seg_used)
        self.far_objects = np.flatnonzero(self.far) if not self.single else np.zeros(0, np.int64)
        self.pad_segment = np.zeros(2 * len(self.far_objects), dtype=_U64)
        self.tile_lo = np.append(self._alloc_start(self.tile_first_obj), self.body_words)
        self.head_words = int(self.tile_lo[0])

    # ----------------------------------------------------------------- planning
    def _plan(self, empty: bool) -> None:
        """Number every object in builder order and record its size and parent object."""
        c = self.c
        d, p = self.data_words, self.pointers
        step_words = d + p
        counts = c.tile_sample_counts.astype(np.int64)
        m = c.metadata_counts.astype(np.int64)
        x = c.activity_counts.astype(np.int64)
        self.tile_start = np.concatenate([[0], np.cumsum(counts)])
        self.meta_start = np.concatenate([[0], np.cumsum(m)])
        self.act_start = np.concatenate([[0], np.cumsum(x)])
        self.counts, self.m, self.x = counts, m, x
        n_tiles = len(counts)
        self.tiles_list = n_tiles > 0 or empty
        n_head = 1 + self.tiles_list
        sl_present = (counts > 0) | empty
        self.ml_present = ((m > 0) | empty) & (p >= 3)
        self.al_present = ((x > 0) | empty) & (p >= 4)
        per_sample = (
            int(step_words > 0) + int(p >= 1) + int(p >= 2) + self.ml_present + 2 * m + self.al_present
        ).astype(np.int64)
        k = np.concatenate([[0], np.cumsum(per_sample)])
        lists_through = np.cumsum(sl_present)
        self.tile_of_sample = np.repeat(np.arange(n_tiles, dtype=np.int64), counts)
        self.first = n_head + lists_through[self.tile_of_sample] + k[:-1]
        self.tile_first_obj = n_head + (lists_through - sl_present) + k[self.tile_start[:-1]]
        self.sl_obj = np.where(sl_present, self.tile_first_obj, -1)
        n_obj = n_head + (int(lists_through[-1]) if n_tiles else 0) + int(k[-1])
        self.n_obj = n_obj

        size = np.zeros(n_obj, dtype=np.int32)
        parent = np.zeros(n_obj, dtype=np.int32 if n_obj < 1 << 31 else np.int64)
        size[0], parent[0] = 3, -1
        if self.tiles_list:
            size[1], parent[1] = 1 + 2 * n_tiles, 0
        sl = self.sl_obj[sl_present]
        size[sl], parent[sl] = 1 + 2 * counts[sl_present], 1
        first = self.first
        if step_words:
            size[first], parent[first] = step_words, self.sl_obj[self.tile_of_sample]
        if p >= 1:
            size[first + 1], parent[first + 1] = self.op.words[self.op.codes], first
        if p >= 2:
            size[first + 2], parent[first + 2] = self.kernel.words[self.kernel.codes], first
        if p >= 3:
            ml = first[self.ml_present] + 3
            size[ml], parent[ml] = 1 + 2 * m[self.ml_present], ml - 3
            names = self._name_objects(0, len(m))
            owner = np.repeat(first + 3, m)
            size[names], parent[names] = self.name.words[self.name.codes], owner
            size[names + 1], parent[names + 1] = self.value.words[self.value.codes], owner
        if p >= 4:
            al = (first + 3 + self.ml_present + 2 * m)[self.al_present]
            size[al], parent[al] = 1 + 2 * x[self.al_present], first[self.al_present]
        if n_obj > 1 and size.min() < 1:
            raise AssertionError("writer plan left an object unsized")  # a bug here, not bad input
        self.size, self.parent = size, parent

    def _name_objects(self, s0: int, s1: int) -> np.ndarray:
        """Object index of each metadata name text of samples s0..s1 (its value text follows it)."""
        m = self.m[s0:s1]
        base = self.first[s0:s1] + 4 - 2 * self.meta_start[s0:s1]
        e0, e1 = self.meta_start[s0], self.meta_start[s1]
        return np.repeat(base, m) + 2 * np.arange(e0, e1, dtype=np.int64)

    def _alloc_start(self, objects: np.ndarray) -> np.ndarray:
        """First word an object occupies, its landing pad included; n_obj maps to the end of the body."""
        out = np.full(len(objects), self.body_words, dtype=np.int64)
        inside = objects < self.n_obj
        o = objects[inside]
        out[inside] = self.addr[o] - (self.far[o] if self.single else 0)
        return out

    def chunks(self) -> Iterator[tuple[int, int, int, int]]:
        """Tile ranges (t0, t1) with their word ranges [lo, hi), about `_CHUNK_WORDS` each."""
        lo = self.tile_lo
        n_tiles = len(lo) - 1
        if n_tiles == 0:
            return
        targets = np.arange(lo[0], lo[-1], _CHUNK_WORDS)
        cuts = np.unique(np.concatenate([[0], np.searchsorted(lo[:-1], targets, side="right") - 1, [n_tiles]]))
        for t0, t1 in itertools.pairwise(cuts.tolist()):
            yield t0, t1, int(lo[t0]), int(lo[t1])

    # ----------------------------------------------------------------- pointers
    def _segment_of(self, address: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.seg_start, address, side="right") - 1

    def _pointer_words(self, at: np.ndarray, objects: np.ndarray, pointer: np.ndarray) -> np.ndarray:
        """Pointer words stored at global addresses `at` to `objects`; `pointer` is the offset-0 near form."""
        target = self.addr[objects]
        words = np.asarray(pointer, dtype=_U64) | (((target - at - 1) & _MASK30).astype(_U64) << _U64(2))
        is_far = self.far[objects]
        if is_far.any():
            fi = np.flatnonzero(is_far)
            if self.single:
                pad = target[fi] - 1
                seg = self._segment_of(pad)
                words[fi] = _far(pad - self.seg_start[seg], seg, double=False)
            else:
                rank = np.searchsorted(self.far_objects, objects[fi])
                words[fi] = _far(2 * rank, np.full(len(fi), self.pad_segment_id), double=True)
        return words

    def _landing_pads(self, out: np.ndarray, lo: int, objects: np.ndarray, pointer: np.ndarray) -> None:
        """Landing pads of the far-addressed `objects` (before the object, or in the pad segment)."""
        is_far = self.far[objects]
        if not is_far.any():
            return
        fi = np.flatnonzero(is_far)
        o = objects[fi]
        tag = np.broadcast_to(np.asarray(pointer, dtype=_U64), objects.shape)[fi]
        target = self.addr[o]
        if self.single:
            out[target - 1 - lo] = tag
        else:
            rank = np.searchsorted(self.far_objects, o)
            seg = self._segment_of(target)
            self.pad_segment[2 * rank] = _far(target - self.seg_start[seg], seg, double=False)
            self.pad_segment[2 * rank + 1] = tag

    def _link(self, out: np.ndarray, lo: int, at: np.ndarray, objects: np.ndarray, pointer: np.ndarray) -> None:
        pointer = np.broadcast_to(np.asarray(pointer, dtype=_U64), objects.shape)
        out[at - lo] = self._pointer_words(at, objects, pointer)
        self._landing_pads(out, lo, objects, pointer)

    # ----------------------------------------------------------------- filling
    def fill_head(self, out: np.ndarray) -> None:
        """Root pointer, Profile struct, tiles list and its pointers to the samples lists."""
        c = self.c
        zero = np.zeros(1, np.int64)
        self._link(out, 0, zero, zero, _U64(2 << 32 | 1 << 48))
        root = int(self.addr[0])
        out[root] = np.uint32(c.schema_version)
        out[root + 1] = _U64(c.clock_hz)
        if not self.tiles_list:
            return
        n_tiles = len(self.counts)
        self._link(out, 0, np.array([root + 2]), np.ones(1, np.int64), _composite_pointer(2 * n_tiles))
        tiles = int(self.addr[1])
        out[tiles] = _tag(n_tiles, 1, 1)
        out[tiles + 1 : tiles + 1 + 2 * n_tiles : 2] = c.tiles.astype(_U64)
        present = np.flatnonzero(self.sl_obj >= 0)
        at = tiles + 2 + 2 * present
        out[at] = self._pointer_words(at, self.sl_obj[present], _composite_pointer(2 * self.counts[present]))

    def fill_tiles(self, out: np.ndarray, lo: int, t0: int, t1: int) -> None:
        """Everything tiles t0..t1 own: samples lists, steps, texts and lists, landing pads included."""
        c = self.c
        d, p = self.data_words, self.pointers
        s0, s1 = int(self.tile_start[t0]), int(self.tile_start[t1])
        present = np.flatnonzero(self.sl_obj[t0:t1] >= 0) + t0
        sl = self.sl_obj[present]
        self._landing_pads(out, lo, sl, _composite_pointer(2 * self.counts[present]))
        sl_addr = np.full(t1 - t0, -1, np.int64)
        sl_addr[present - t0] = self.addr[sl]
        out[sl_addr[present - t0] - lo] = _tag(self.counts[present], 1, 1)
        if s1 == s0:
            return
        tile = self.tile_of_sample[s0:s1]
        row = np.arange(s0, s1, dtype=np.int64) - self.tile_start[tile]
        element = sl_addr[tile - t0] + 1 + 2 * row
        out[element - lo] = _pack(c.start[s0:s1], c.end[s0:s1])
        if d + p == 0:
            out[element + 1 - lo] = _U64(_MASK30 << 2)  # offset -1, no words: the empty struct
            return
        first = self.first[s0:s1]
        self._link(out, lo, element + 1, first, _U64(d << 32 | p << 48))
        step = self.addr[first]
        if d >= 1:
            out[step - lo] = _pack(c.local_index[s0:s1], c.phase[s0:s1])
        if d >= 2:
            out[step + 1 - lo] = _pack(c.epoch[s0:s1], c.kind[s0:s1])
        if d >= 3:
            out[step + 2 - lo] = c.exchange_event_cycles[s0:s1].astype(_U64)
        if p >= 1:
            self._put_texts(out, lo, step + d, first + 1, self.op, self.op.codes[s0:s1])
        if p >= 2:
            self._put_texts(out, lo, step + d + 1, first + 2, self.kernel, self.kernel.codes[s0:s1])
        if p >= 3:
            self._fill_metadata(out, lo, s0, s1, step + d + 2)
        if p >= 4:
            self._fill_activities(out, lo, s0, s1, step + d + 3)

    def _put_texts(
        self, out: np.ndarray, lo: int, at: np.ndarray, objects: np.ndarray, texts: _Texts, codes: np.ndarray
    ) -> None:
        self._link(out, lo, at, objects, texts.pointer[codes])
        target = self.addr[objects] - lo
        words = texts.words[codes]
        start = texts.start[codes]
        single = words == 1
        if single.all():
            out[target] = texts.pool[start]
            return
        out[target[single]] = texts.pool[start[single]]
        multi = ~single
        target, words, start = target[multi], words[multi], start[multi]
        before = np.cumsum(words) - words
        ramp = np.arange(int(before[-1] + words[-1]), dtype=np.int64)
        out[np.repeat(target - before, words) + ramp] = texts.pool[np.repeat(start - before, words) + ramp]

    def _fill_metadata(self, out: np.ndarray, lo: int, s0: int, s1: int, at: np.ndarray) -> None:
        present = np.flatnonzero(self.ml_present[s0:s1])
        m = self.m[s0:s1]
        lists = self.first[s0:s1][present] + 3
        self._link(out, lo, at[present], lists, _composite_pointer(2 * m[present]))
        list_addr = self.addr[lists]
        out[list_addr - lo] = _tag(m[present], 0, 2)
        e0, e1 = int(self.meta_start[s0]), int(self.meta_start[s1])
        if e1 == e0:
            return
        names = self._name_objects(s0, s1)
        owner_addr = np.zeros(s1 - s0, np.int64)
        owner_addr[present] = list_addr
        position = np.arange(e0, e1, dtype=np.int64) - np.repeat(self.meta_start[s0:s1], m)
        slot = np.repeat(owner_addr, m) + 1 + 2 * position
        self._put_texts(out, lo, slot, names, self.name, self.name.codes[e0:e1])
        self._put_texts(out, lo, slot + 1, names + 1, self.value, self.value.codes[e0:e1])

    def _fill_activities(self, out: np.ndarray, lo: int, s0: int, s1: int, at: np.ndarray) -> None:
        c = self.c
        present = np.flatnonzero(self.al_present[s0:s1])
        x = self.x[s0:s1]
        m = self.m[s0:s1]
        first = self.first[s0:s1]
        lists = (first + 3 + self.ml_present[s0:s1] + 2 * m)[present]
        self._link(out, lo, at[present], lists, _composite_pointer(2 * x[present]))
        list_addr = self.addr[lists]
        out[list_addr - lo] = _tag(x[present], 2, 0)
        a0, a1 = int(self.act_start[s0]), int(self.act_start[s1])
        if a1 == a0:
            return
        owner_addr = np.zeros(s1 - s0, np.int64)
        owner_addr[present] = list_addr
        position = np.arange(a0, a1, dtype=np.int64) - np.repeat(self.act_start[s0:s1], x)
        element = np.repeat(owner_addr, x) + 1 + 2 * position - lo
        out[element] = _pack(c.activity_kind[a0:a1], c.activity_start[a0:a1])
        out[element + 1] = c.activity_end[a0:a1].astype(_U64)


def _far(offset: np.ndarray, segment: np.ndarray, *, double: bool) -> np.ndarray:
    kind = _U64(6 if double else 2)
    return kind | (np.asarray(offset).astype(_U64) << _U64(3)) | (np.asarray(segment).astype(_U64) << _U64(32))


def _step_layout(c: Columns, requested: tuple[int, int] | None, op: _Texts, kernel: _Texts) -> tuple[int, int]:
    """The ProfileStep (data words, pointers) to write; refuse a layout that would lose values."""
    newer = bool(c.activity_counts.any() or c.exchange_event_cycles.any())
    if requested is None:
        return NEWER_STEP_LAYOUT if c.schema_version > 3 or newer else V3_STEP_LAYOUT
    try:
        d, p = (int(v) for v in requested)
    except (TypeError, ValueError):
        raise ValueError(f"step_layout must be (data words, pointers), not {requested!r}") from None
    if not (0 <= d < 1 << 16 and 0 <= p < 1 << 16):
        raise ValueError(f"step_layout sizes must be between 0 and 65535, not {requested!r}")
    lost = [
        (d < 1 and bool(c.local_index.any() or c.phase.any()), "localIndex/phase"),
        (d < 2 and bool(c.epoch.any() or c.kind.any()), "epoch/kind"),
        (d < 3 and bool(c.exchange_event_cycles.any()), "exchangeEventCycles"),
        (p < 1 and op.any_nonempty(), "operation"),
        (p < 2 and kernel.any_nonempty(), "kernel"),
        (p < 3 and bool(c.metadata_counts.any()), "metadata"),
        (p < 4 and bool(c.activity_counts.any()), "exchangeActivities"),
    ]
    dropped = [name for flag, name in lost if flag]
    if dropped:
        raise ValueError(f"step_layout {(d, p)} would drop non-default values of {', '.join(dropped)}")
    return d, p
