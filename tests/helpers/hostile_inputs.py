"""Crafted hostile profiles: each family of input that once cost the loader unbounded time or memory.

Every function returns the bytes of one framed message of about `size` bytes, laid out
with numpy (so a 200 MB file takes a fraction of a second to craft). The messages are
legal Cap'n Proto as far as framing and pointers go; what makes them hostile is what
they make a reader do:

- `shared_step_text`: every sample points at one shared step whose operation (or kernel)
  is one huge text: pointer aliasing, each reference costing the text's full size.
- `shared_metadata_name`: every entry of a shared metadata list names one huge text.
- `overlapping_texts`: texts that all end at the same NUL but start a word apart, so
  every reference is a different (distinct) huge text.
- `void_samples`: tile entries whose sample lists are VOID lists (or composite lists of
  zero-sized structs) claiming many samples in no bytes at all.
- `byte_list_samples`: sample lists of BYTE (or TWO/FOUR) elements read as structs
  (schema evolution): one byte of file per sample.
- `void_entries`: one shared step whose metadata (or exchange activities) is a VOID list
  of many entries.
- `void_tiles`: a VOID list of tile entries.
- `colliding_texts`: distinct texts whose C interner hashes agree in their low 32 bits, so
  every lookup probes past all the texts before it (hash flooding).
- `metadata_heavy_then_long`: a *valid* profile (Columns) whose first chunk carries many
  metadata entries and whose second tile is long: it must load.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ipu_nb._load._message import MEMORY_PER_BYTE, MEMORY_SLACK
from ipu_nb._load._wire import TextPath
from ipu_nb._model.columns import Columns, Strings

VOID, BIT, BYTE, TWO, FOUR, EIGHT, POINTER, COMPOSITE = range(8)
_U64 = np.uint64


def rss_bound(size: int) -> int:
    """The peak memory any load of a file of `size` bytes may reach, accepted or refused."""
    return 3 * size + 300_000_000


def rows_at_the_edge(size: int, row_bytes: int, fill: float = 0.97) -> int:
    """Rows charged `row_bytes` each that fill `fill` of the memory budget of a `size`-byte file."""
    return int(fill * (MEMORY_PER_BYTE * size + MEMORY_SLACK) / row_bytes)


#: Run in a fresh interpreter: load argv[1] (text path argv[2]; argv[3] "lift": no memory budget,
#: to measure what a file would cost) and print the outcome, time and peak RSS.
LOAD_AND_MEASURE = r"""
import json, resource, sys, time
from ipu_nb._load import ProfileFormatError, _message, open_profile
if sys.argv[3] == "lift":
    _message.MEMORY_PER_BYTE = 1 << 20
t = time.perf_counter()
try:
    profile = open_profile(sys.argv[1], cache=False, progress=False, text_path=sys.argv[2])
    outcome = {"accepted": [profile.samples.height, profile.metadata.height, profile.exchange_activities.height]}
except ProfileFormatError as exc:
    outcome = {"refused": str(exc)}
seconds = time.perf_counter() - t
try:  # VmHWM: ru_maxrss would carry the parent's peak across exec (Linux)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({**outcome, "seconds": seconds, "peak": peak}))
"""


def load_in_subprocess(
    path: str | Path, text_path: TextPath = "native", timeout: float = 300, lift: bool = False
) -> dict:
    """Load `path` in a fresh interpreter: {"accepted": [samples, entries, activities]} or
    {"refused": message}, with "seconds" and "peak" (peak resident bytes). `lift`: without
    the memory budget (to measure what a file costs)."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", LOAD_AND_MEASURE, str(path), text_path, "lift" if lift else ""],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def struct_word(at: np.ndarray | int, target: np.ndarray | int, dw: int, pc: int) -> np.ndarray:
    """Struct pointers at words `at` to structs at words `target`."""
    offset = (np.asarray(target, dtype=np.int64) - np.asarray(at, dtype=np.int64) - 1) << 2
    return (offset & 0xFFFFFFFF).astype(_U64) | _U64(dw << 32) | _U64(pc << 48)


def list_word(at: np.ndarray | int, target: np.ndarray | int, es: int, count: int | np.ndarray) -> np.ndarray:
    """List pointers at words `at` to lists at words `target` (count: elements, or words if composite)."""
    offset = (np.asarray(target, dtype=np.int64) - np.asarray(at, dtype=np.int64) - 1) << 2
    count = np.asarray(count, dtype=np.uint64)
    return (offset & 0xFFFFFFFF).astype(_U64) | _U64(1) | _U64(es << 32) | (count << _U64(35))


def tag_word(count: int, dw: int, pc: int) -> int:
    return (count << 2) | (dw << 32) | (pc << 48)


def frame(*segments: np.ndarray) -> bytes:
    """Segments (of uint64 words) as one framed message."""
    table = [len(segments) - 1] + [len(s) for s in segments] + ([0] if len(segments) % 2 == 0 else [])
    return np.array(table, dtype="<u4").tobytes() + b"".join(s.astype("<u8").tobytes() for s in segments)


class _Layout:
    """A growing single segment: word 0 is the root pointer, then Profile, then what is placed."""

    def __init__(self, words: int) -> None:
        self.seg = np.zeros(max(words, 16), dtype=_U64)
        self.used = 0

    def alloc(self, n: int) -> int:
        start = self.used
        self.used += n
        if self.used > len(self.seg):
            grown = np.zeros(max(self.used, 2 * len(self.seg)), dtype=_U64)
            grown[: len(self.seg)] = self.seg
            self.seg = grown
        return start

    def profile(self, tiles: int, version: int = 3) -> int:
        """Root pointer, Profile struct and a tiles list of `tiles` (1 data word, 1 pointer) entries.

        Returns the first word of the first tile entry (entry t at first + 1 + 2 t... see `tile`)."""
        root = self.alloc(1)
        prof = self.alloc(3)
        self.seg[root] = struct_word(root, prof, 2, 1)
        self.seg[prof] = version
        self.seg[prof + 1] = 1_500_000_000
        tag = self.alloc(1 + 2 * tiles)
        self.seg[prof + 2] = list_word(prof + 2, tag, COMPOSITE, 2 * tiles)
        self.seg[tag] = tag_word(tiles, 1, 1)
        self.seg[tag + 1 : tag + 1 + 2 * tiles : 2] = np.arange(tiles, dtype=_U64)  # physicalTile
        return tag + 1

    def text(self, length: int, fill: int = ord("x")) -> tuple[int, int]:
        """A text of `length` bytes (plus NUL): (first word, byte count with the NUL)."""
        words = (length + 1 + 7) // 8
        start = self.alloc(words)
        raw = np.full(words * 8, fill, dtype=np.uint8)
        raw[length:] = 0
        self.seg[start : start + words] = raw.view(_U64)
        return start, length + 1

    def done(self) -> bytes:
        return frame(self.seg[: self.used])


def shared_step_text(
    size: int, field: str = "operation", text_fraction: float = 0.9, samples: int | None = None
) -> bytes:
    """Samples (by default as many as the rest of `size` holds) all pointing at one step whose
    `field` ("operation" or "kernel") is one huge text."""
    text_bytes = int(size * text_fraction)
    samples = max(1, (size - text_bytes) // 16) if samples is None else samples
    lay = _Layout(size // 8 + 64)
    tile = lay.profile(1)
    step = lay.alloc(5)  # ProfileStep (2 data words, 3 pointers)
    start, count = lay.text(text_bytes)
    ptr = step + 2 + (0 if field == "operation" else 1)
    lay.seg[ptr] = list_word(ptr, start, BYTE, count)
    tag = lay.alloc(1 + 2 * samples)
    lay.seg[tile + 1] = list_word(tile + 1, tag, COMPOSITE, 2 * samples)
    lay.seg[tag] = tag_word(samples, 1, 1)
    at = tag + 2 + 2 * np.arange(samples)
    lay.seg[tag + 1 : tag + 1 + 2 * samples : 2] = np.arange(samples, dtype=_U64) << _U64(32)  # end cycle
    lay.seg[at] = struct_word(at, step, 2, 3)
    return lay.done()


def shared_metadata_name(size: int, entries: int = 8, text_fraction: float = 0.9) -> bytes:
    """Samples all pointing at one step whose `entries` metadata entries all name the same huge text."""
    text_bytes = int(size * text_fraction)
    samples = max(1, (size - text_bytes - 16 * entries) // 16)
    lay = _Layout(size // 8 + 64)
    tile = lay.profile(1)
    step = lay.alloc(5)
    start, count = lay.text(text_bytes)
    tag = lay.alloc(1 + 2 * entries)
    lay.seg[step + 4] = list_word(step + 4, tag, COMPOSITE, 2 * entries)
    lay.seg[tag] = tag_word(entries, 0, 2)
    names = tag + 1 + 2 * np.arange(entries)
    lay.seg[names] = list_word(names, start, BYTE, count)
    stag = lay.alloc(1 + 2 * samples)
    lay.seg[tile + 1] = list_word(tile + 1, stag, COMPOSITE, 2 * samples)
    lay.seg[stag] = tag_word(samples, 1, 1)
    at = stag + 2 + 2 * np.arange(samples)
    lay.seg[at] = struct_word(at, step, 2, 3)
    return lay.done()


def overlapping_texts(size: int, field: str = "operation", text_fraction: float = 0.5) -> bytes:
    """Each sample's step names a different text: all end at one NUL, each starting a word later.

    Every reference is a distinct value as long as the remaining text: aliasing without sharing.
    """
    text_bytes = int(size * text_fraction) // 8 * 8
    samples = max(1, (size - text_bytes) // 56)
    lay = _Layout(size // 8 + 64)
    tile = lay.profile(1)
    start, count = lay.text(text_bytes - 1)
    tag = lay.alloc(1 + 2 * samples)
    lay.seg[tile + 1] = list_word(tile + 1, tag, COMPOSITE, 2 * samples)
    lay.seg[tag] = tag_word(samples, 1, 1)
    steps = lay.alloc(5 * samples)
    step = steps + 5 * np.arange(samples)
    at = tag + 2 + 2 * np.arange(samples)
    lay.seg[at] = struct_word(at, step, 2, 3)
    ptr = step + 2 + (0 if field == "operation" else 1)
    skip = np.arange(samples) % (text_bytes // 8)
    lay.seg[ptr] = list_word(ptr, start + skip, BYTE, count - 8 * skip)
    return lay.done()


def void_samples(size: int, composite: bool = False, samples: int | None = None) -> bytes:
    """Tile entries whose sample lists claim `samples` samples in all, in no bytes; the rest is padding.

    The padding (an unused zero region) only enlarges the file, and with it the traversal
    budget a reader grants (4 words a word): by default the samples use most of it (each
    costs a word for itself and one for each of its two null text pointers).
    `composite` uses composite lists of zero-sized structs instead of VOID lists.
    """
    tiles = 256
    samples = int(0.15 * size) if samples is None else samples
    per_list = max(1, samples // tiles)
    lay = _Layout(size // 8)
    tile = lay.profile(tiles)
    ptrs = tile + 1 + 2 * np.arange(tiles)
    if composite:
        tag = lay.alloc(1)
        lay.seg[tag] = tag_word(per_list, 0, 0)
        lay.seg[ptrs] = list_word(ptrs, tag, COMPOSITE, 0)
    else:
        lay.seg[ptrs] = list_word(ptrs, ptrs + 1, VOID, per_list)
    lay.alloc(max(0, size // 8 - lay.used - 1))  # padding
    return lay.done()


def byte_list_samples(size: int, es: int = BYTE, tiles: int = 16, samples: int | None = None) -> bytes:
    """Sample lists of BYTE (or TWO / FOUR / EIGHT) elements read as structs: one element per sample.

    Padded to `size` (the padding raises the traversal budget), by default with as many samples
    as that budget lets through (a sample costs its bytes and its two null text pointers).
    """
    width = {BYTE: 1, TWO: 2, FOUR: 4, EIGHT: 8}[es]
    samples = int(0.2 * size / (1 + width / 16)) if samples is None else samples
    lay = _Layout(size // 8 + 64)
    tile = lay.profile(tiles)
    per_tile = max(1, samples // tiles)
    words = (per_tile * width + 7) // 8
    for t in range(tiles):
        start = lay.alloc(words)
        lay.seg[start : start + words] = _U64(0x0101010101010101)  # nonzero bytes: real data
        ptr = tile + 1 + 2 * t
        lay.seg[ptr] = list_word(ptr, start, es, per_tile)
    lay.alloc(max(0, size // 8 - lay.used - 1))  # padding
    return lay.done()


def void_entries(size: int, entries: int | None = None, samples: int = 64, field: str = "metadata") -> bytes:
    """Samples all sharing one step whose `field` ("metadata" or "exchangeActivities") is a VOID list
    of `entries` entries; padded to `size`. By default the entries (a word each, per reference) use
    most of the traversal budget."""
    entries = int(0.15 * size / samples) if entries is None else entries
    lay = _Layout(size // 8)
    tile = lay.profile(1, version=3 if field == "metadata" else 4)
    step = lay.alloc(7)  # a newer writer's step (3 data words, 4 pointers): room for exchange activities
    ptr = step + 3 + (2 if field == "metadata" else 3)
    lay.seg[ptr] = list_word(ptr, ptr + 1, VOID, entries)
    tag = lay.alloc(1 + 2 * samples)
    lay.seg[tile + 1] = list_word(tile + 1, tag, COMPOSITE, 2 * samples)
    lay.seg[tag] = tag_word(samples, 1, 1)
    at = tag + 2 + 2 * np.arange(samples)
    lay.seg[at] = struct_word(at, step, 3, 4)
    lay.alloc(max(0, size // 8 - lay.used - 1))
    return lay.done()


def void_tiles(size: int, tiles: int | None = None) -> bytes:
    """A VOID list of `tiles` tile entries (each reads as tile 0 without samples), padded to `size`."""
    tiles = size // 4 if tiles is None else tiles
    lay = _Layout(size // 8)
    root = lay.alloc(1)
    prof = lay.alloc(3)
    lay.seg[root] = struct_word(root, prof, 2, 1)
    lay.seg[prof] = 3
    lay.seg[prof + 2] = list_word(prof + 2, prof + 3, VOID, tiles)
    lay.alloc(max(0, size // 8 - lay.used - 1))
    return lay.done()


_M64 = (1 << 64) - 1


def _unshift(x: int, shift: int) -> int:
    """Invert x ^= x >> shift on 64 bits."""
    y = x
    for _ in range(64 // shift + 1):
        y = x ^ (y >> shift)
    return y


def _text_word_with_hash(h: int) -> int:
    """The 8-byte text whose hash in _intern.c (hash_text) is `h`: the hash of one word inverted."""
    k, c1, c2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
    x = _unshift(h, 29) * pow(c2, -1, 1 << 64) & _M64  # undo the finish
    x = _unshift(x, 31) * pow(c1, -1, 1 << 64) & _M64  # undo mix(h0, word)
    return x ^ (8 * k & _M64)


def colliding_texts(size: int) -> bytes:
    """Samples with their own steps, each naming a distinct 8-byte text; all the texts' hashes
    share their low 32 bits (the slot in any table of up to 2**32 slots)."""
    samples = max(1, size // 80)
    lay = _Layout(size // 8 + 64)
    tile = lay.profile(1)
    tag = lay.alloc(1 + 2 * samples)
    lay.seg[tile + 1] = list_word(tile + 1, tag, COMPOSITE, 2 * samples)
    lay.seg[tag] = tag_word(samples, 1, 1)
    steps = lay.alloc(5 * samples)
    texts = lay.alloc(2 * samples)
    i = np.arange(samples)
    at = tag + 2 + 2 * i
    lay.seg[at] = struct_word(at, steps + 5 * i, 2, 3)
    words = [_text_word_with_hash(((j + 1) << 32) | 0x5EED) for j in range(samples)]
    lay.seg[texts + 2 * i] = np.array(words, dtype=_U64)
    ptr = steps + 5 * i + 2
    lay.seg[ptr] = list_word(ptr, texts + 2 * i, BYTE, 9)
    return lay.done()


def _strings(values: list[str], codes: np.ndarray) -> Strings:
    import pyarrow as pa

    return Strings(codes.astype(np.uint32), pa.array(values, type=pa.string()))


def metadata_heavy_then_long(heavy_samples: int, entries: int, long_samples: int) -> Columns:
    """A valid profile: tile 0 has `heavy_samples` samples of `entries` metadata entries each, tile 1
    has `long_samples` samples without metadata. Reading chunk 1 says nothing about the rest."""
    n = heavy_samples + long_samples
    m = heavy_samples * entries
    u32 = np.uint32
    start = np.arange(n, dtype=np.int64) * 10
    names = [f"key_{i}" for i in range(entries)]
    return Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=np.array([0, 2], dtype=u32),
        tile_sample_counts=np.array([heavy_samples, long_samples], dtype=np.int64),
        local_index=np.concatenate([np.arange(heavy_samples), np.arange(long_samples)]).astype(u32),
        phase=np.zeros(n, dtype=u32),
        epoch=np.zeros(n, dtype=u32),
        kind=np.ones(n, dtype=np.uint16),
        start=start.astype(u32),
        end=(start + 10).astype(u32),
        operation=_strings(["op"], np.zeros(n)),
        kernel=_strings(["k"], np.zeros(n)),
        metadata_counts=np.concatenate([np.full(heavy_samples, entries), np.zeros(long_samples)]).astype(np.int64),
        metadata_name=_strings(names, np.tile(np.arange(entries), heavy_samples)),
        metadata_value=_strings(["v"], np.zeros(m)),
        exchange_event_cycles=np.zeros(n, dtype=u32),
        activity_counts=np.zeros(n, dtype=np.int64),
    )
