"""A tiny word-level Cap'n Proto message builder for hand-crafted decoder fixtures.

Objects are placed explicitly (segment, position) and pointers written explicitly
(near, single-far or double-far), so tests can build what normal writers never emit:
double-far pointers, zero-sized structs, primitive lists read as structs, pointer
loops, amplification bombs and every kind of broken pointer.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

STRUCT, LIST, FAR = 0, 1, 2
VOID, BIT, BYTE, TWO, FOUR, EIGHT, POINTER, COMPOSITE = range(8)


@dataclass(frozen=True)
class Obj:
    """An object in the message: where its content starts and the pointer bits describing it."""

    seg: int
    start: int  # first word of the content (the tag for composite lists)
    kind: int  # STRUCT or LIST
    a: int  # struct: data words; list: element size code
    b: int  # struct: pointer count; list: element count (word count for composite)
    tag_count: int = 0  # composite: element count
    tag_dw: int = 0
    tag_pc: int = 0

    def element(self, i: int) -> int:
        """First word of element i of a composite list."""
        return self.start + 1 + i * (self.tag_dw + self.tag_pc)


def struct_word(offset: int, dw: int, pc: int) -> int:
    return ((offset << 2) & 0xFFFFFFFF) | STRUCT | (dw << 32) | (pc << 48)


def list_word(offset: int, es: int, count: int) -> int:
    return ((offset << 2) & 0xFFFFFFFF) | LIST | (es << 32) | (count << 35)


def far_word(seg: int, pos: int, double: bool = False) -> int:
    return FAR | (int(double) << 2) | (pos << 3) | (seg << 32)


class Words:
    """Segments of 64-bit words with explicit allocation and pointer writing."""

    def __init__(self, segments: int = 1) -> None:
        self.segs: list[list[int]] = [[] for _ in range(segments)]

    def alloc(self, seg: int, n: int) -> int:
        start = len(self.segs[seg])
        self.segs[seg].extend([0] * n)
        return start

    def set(self, seg: int, index: int, word: int) -> None:
        self.segs[seg][index] = word & 0xFFFFFFFFFFFFFFFF

    def set_u32(self, seg: int, word: int, byte: int, value: int) -> None:
        shift = 8 * (byte % 8)
        index = word + byte // 8
        mask = 0xFFFFFFFF << shift
        self.segs[seg][index] = (self.segs[seg][index] & ~mask) | ((value & 0xFFFFFFFF) << shift)

    def set_u16(self, seg: int, word: int, byte: int, value: int) -> None:
        shift = 8 * (byte % 8)
        index = word + byte // 8
        mask = 0xFFFF << shift
        self.segs[seg][index] = (self.segs[seg][index] & ~mask) | ((value & 0xFFFF) << shift)

    # -- objects -----------------------------------------------------------------------------

    def struct(self, seg: int, dw: int, pc: int) -> Obj:
        return Obj(seg, self.alloc(seg, dw + pc), STRUCT, dw, pc)

    def composite(self, seg: int, count: int, dw: int, pc: int) -> Obj:
        words = count * (dw + pc)
        start = self.alloc(seg, 1 + words)
        self.set(seg, start, struct_word(count, dw, pc))
        return Obj(seg, start, LIST, COMPOSITE, words, count, dw, pc)

    def text(self, seg: int, value: bytes | str, nul: bool = True) -> Obj:
        raw = value.encode() if isinstance(value, str) else value
        raw = raw + (b"\0" if nul else b"")
        return self.data_list(seg, BYTE, raw)

    def data_list(self, seg: int, es: int, raw: bytes, count: int | None = None) -> Obj:
        width = {BYTE: 1, TWO: 2, FOUR: 4, EIGHT: 8}[es]
        count = len(raw) // width if count is None else count
        words = (len(raw) + 7) // 8
        start = self.alloc(seg, words)
        padded = raw + b"\0" * (words * 8 - len(raw))
        for i in range(words):
            self.set(seg, start + i, int.from_bytes(padded[8 * i : 8 * i + 8], "little"))
        return Obj(seg, start, LIST, es, count)

    # -- pointers ----------------------------------------------------------------------------

    def pointer_word(self, at_seg: int, at: int, obj: Obj, offset: int | None = None) -> int:
        if offset is None:
            assert at_seg == obj.seg, "near pointers stay in one segment"
            offset = obj.start - (at + 1)
        if obj.kind == STRUCT:
            return struct_word(offset, obj.a, obj.b)
        return list_word(offset, obj.a, obj.b)

    def point(self, at_seg: int, at: int, obj: Obj, far: str | None = None, pad_seg: int | None = None) -> None:
        """Write a pointer to `obj` at word `at` of segment `at_seg`: near, "single" or "double" far."""
        if far is None:
            self.set(at_seg, at, self.pointer_word(at_seg, at, obj))
        elif far == "single":
            pad = self.alloc(obj.seg, 1)
            self.set(obj.seg, pad, self.pointer_word(obj.seg, pad, obj))
            self.set(at_seg, at, far_word(obj.seg, pad))
        else:
            pseg = at_seg if pad_seg is None else pad_seg
            pad = self.alloc(pseg, 2)
            self.set(pseg, pad, far_word(obj.seg, obj.start))
            self.set(pseg, pad + 1, self.pointer_word(pseg, pad + 1, obj, offset=0))
            self.set(at_seg, at, far_word(pseg, pad, double=True))

    def to_bytes(self) -> bytes:
        count = len(self.segs)
        table = [count - 1] + [len(s) for s in self.segs]
        if len(table) % 2:
            table.append(0)
        head = struct.pack(f"<{len(table)}I", *table)
        body = b"".join(struct.pack(f"<{len(s)}Q", *s) for s in self.segs)
        return head + body


@dataclass
class Sample:
    """A sample as the hand builder writes it (the fields the fixtures vary)."""

    start: int = 0
    end: int = 0
    local_index: int = 0
    phase: int = 0
    kind: int = 1
    operation: str | None = "op"
    kernel: str | None = "k"
    metadata: tuple[tuple[str, str], ...] = ()
    event_cycles: int = 0
    activities: tuple[tuple[int, int, int], ...] = ()


def profile_root(version: int = 3, *, segments: int = 1) -> tuple[Words, Obj]:
    """A message whose root is a `Profile` struct (two data words, one pointer) with `version` set, and nothing else."""
    w = Words(segments)
    root = w.alloc(0, 1)
    prof = w.struct(0, 2, 1)
    w.point(0, root, prof)
    w.set_u32(0, prof.start, 0, version)
    return w, prof


def profile(
    tiles: list[tuple[int, list[Sample]]],
    *,
    version: int = 3,
    clock_hz: int = 1_500_000_000,
    step: tuple[int, int] = (2, 3),
    far: str | None = None,
) -> Words:
    """A whole profile message. `far` puts every sample list and step in segment 1, reached by far pointers."""
    w, prof = profile_root(version, segments=2 if far else 1)
    w.set(0, prof.start + 1, clock_hz)
    tl = w.composite(0, len(tiles), 1, 1)
    w.point(0, prof.start + 2, tl)
    dw, pc = step
    for t, (physical, samples) in enumerate(tiles):
        el = tl.element(t)
        w.set_u32(0, el, 0, physical)
        seg = 1 if far else 0
        sl = w.composite(seg, len(samples), 1, 1)
        w.point(0, el + 1, sl, far=far)
        for i, s in enumerate(samples):
            se = sl.element(i)
            w.set_u32(seg, se, 0, s.start)
            w.set_u32(seg, se, 4, s.end)
            st = w.struct(seg, dw, pc)
            w.point(seg, se + 1, st)
            fields = [(0, s.local_index), (4, s.phase), (16, s.event_cycles)]
            for byte, value in fields:
                if byte + 4 <= 8 * dw:
                    w.set_u32(seg, st.start, byte, value)
            if 8 * dw >= 14:
                w.set_u16(seg, st.start, 12, s.kind)
            ptr = st.start + dw
            for j, text in enumerate((s.operation, s.kernel)):
                if j < pc and text is not None:
                    w.point(seg, ptr + j, w.text(seg, text))
            if pc > 2 and s.metadata:
                ml = w.composite(seg, len(s.metadata), 0, 2)
                w.point(seg, ptr + 2, ml)
                for m, (entry_name, entry_value) in enumerate(s.metadata):
                    w.point(seg, ml.element(m), w.text(seg, entry_name))
                    w.point(seg, ml.element(m) + 1, w.text(seg, entry_value))
            if pc > 3 and s.activities:
                al = w.composite(seg, len(s.activities), 2, 0)
                w.point(seg, ptr + 3, al)
                for a, (kind, start, end) in enumerate(s.activities):
                    w.set_u16(seg, al.element(a), 0, kind)
                    w.set_u32(seg, al.element(a), 4, start)
                    w.set_u32(seg, al.element(a), 8, end)
    return w
