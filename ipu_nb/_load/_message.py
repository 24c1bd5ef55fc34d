"""Cap'n Proto framing and vectorised pointer resolution over one in-memory message.

A `Message` holds numpy views of the whole file and checks every pointer the way the reference C++ reader
does. Its two budgets, traversal and memory, are charged before the work they pay for, so a hostile file is
refused (`ProfileFormatError`) at a cost linear in its size; docs/reference/loader.md#reading-a-file-_messagepy
says what each charge covers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._errors import ProfileFormatError

__all__ = [
    "ACTIVITY_BYTES",
    "ENTRY_BYTES",
    "MAX_SEGMENTS",
    "NUMPY_TEXT_BYTE_COST",
    "NUMPY_TEXT_VALUE_BYTES",
    "SAMPLE_BYTES",
    "TEXT_BYTE_COST",
    "TEXT_VALUE_BYTES",
    "TILE_BYTES",
    "Budget",
    "Cancelled",
    "Elements",
    "Lists",
    "Message",
    "Texts",
    "rows_of",
    "text_bytes",
    "text_memory",
    "uniform",
]

#: More segments than any real writer emits (the C++ stream reader allows 512).
MAX_SEGMENTS = 1 << 16
#: Words a valid message may be traversed for, per word of file, plus a small allowance.
BUDGET_PER_WORD = 4
BUDGET_SLACK = 4096
#: Bytes of memory a file may decode to, per byte of file, plus an allowance for small files.
MEMORY_PER_BYTE = 2
MEMORY_SLACK = 64_000_000
#: Peak bytes per output row, from the decoder's arrays through to the finished frames: what a
#: row really costs, so a dense valid file is not refused for memory it would never use.
#: (Measured, frames built in place: about 144, 97, 16-29 and 60-73 bytes.)
TILE_BYTES = 192
SAMPLE_BYTES = 104
ENTRY_BYTES = 32
ACTIVITY_BYTES = 96
#: Peak bytes per distinct text, fixed and per byte of text: the interner's copy and polars'
#: categories (measured: 109-126 bytes for 12-byte texts with the C interner, of which polars'
#: category registry alone is about 123 once the interner's table is freed; 2.2 per byte).
TEXT_VALUE_BYTES = 128
TEXT_BYTE_COST = 3
#: The numpy text path's (`_text`) costs per distinct text: its Arrow dictionaries and Python
#: bytes on top (measured: about 165 bytes plus 3.2 per byte).
NUMPY_TEXT_VALUE_BYTES = 224
NUMPY_TEXT_BYTE_COST = 4

_M29 = np.uint64((1 << 29) - 1)
_M30 = np.uint64((1 << 30) - 1)
_M16 = np.uint64(0xFFFF)
_MAX_ELEMENTS = (1 << 29) - 1
_M3 = np.uint64(3)
_TEXT_MASK = np.uint64((7 << 32) | 3)
_TEXT_TAG = np.uint64((2 << 32) | 1)
# List element size code -> (bits per element, data bits, pointers). Code 1 (bit) and 7 are special.
_STEP_BITS = np.array([0, 1, 8, 16, 32, 64, 64, 0], dtype=np.int64)
_DATA_BITS = np.array([0, 1, 8, 16, 32, 64, 0, 0], dtype=np.int64)
_PTRS = np.array([0, 0, 0, 0, 0, 0, 1, 0], dtype=np.int64)
_KINDS = ("struct", "list", "far", "capability")
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3}

Describe = Callable[[int], str]
#: Segment of each object in a batch: one int when the whole batch lies in one segment.
Seg = np.ndarray | int


def _u(x: int) -> np.uint64:
    return np.uint64(x)


def _signed_offset(w: np.ndarray) -> np.ndarray:
    """Signed 30-bit word offset of struct/list pointers (bits 2..31)."""
    return (w.astype(np.uint32).view(np.int32) >> 2).astype(np.int64)


def text_bytes(count: np.ndarray) -> int:
    """Traversal bytes of text pointers whose byte lists hold `count` bytes (0 for null): a word
    for the pointer and the text's bytes. The one rule both text paths and the C interner charge."""
    return 8 * len(count) + int(count.sum())


def rows_of(what: str, count: np.ndarray, describe: Describe) -> str:
    """'what (N rows from <where the first is>)': what a memory charge for lists of `count` rows names."""
    first = int(np.flatnonzero(count)[0]) if count.any() else 0
    return f"{what} ({int(count.sum()):,} rows from {describe(first)} on)"


def text_memory(length: np.ndarray | int, values: int = 1, *, numpy: bool = False) -> int:
    """Memory charged for `values` new distinct texts of `length` bytes in all (by the numpy path if `numpy`)."""
    if numpy:
        return values * NUMPY_TEXT_VALUE_BYTES + NUMPY_TEXT_BYTE_COST * int(np.sum(length))
    return values * TEXT_VALUE_BYTES + TEXT_BYTE_COST * int(np.sum(length))


class Cancelled(Exception):
    """The decode was abandoned (Ctrl-C, or another chunk failed): work in progress stops."""


class Budget:
    """A bound on what a message may cost (traversal or memory, both in bytes), spent before the work.

    `charge` spends exactly; a C call borrows an allowance with `lend`, spends from it and
    gives back what it did not use with `settle`. A charge that does not fit waits for
    outstanding allowances to be settled before it refuses, so only what was really spent
    counts: a file is refused exactly when its charges add up to more than the total.
    """

    def __init__(self, total: int, refusal: Callable[[str, int, int], str], cancel: threading.Event) -> None:
        """`refusal(what, need, left)` words the error for a charge that does not fit; a charge
        waiting for allowances gives up (`Cancelled`) once `cancel` is set."""
        self.total = total
        self.left = total
        self._lent = 0
        self._refusal = refusal
        self._cancel = cancel
        self._cond = threading.Condition()

    def charge(self, amount: int, what: str | Callable[[], str]) -> None:
        """Spend `amount`, or raise a `ProfileFormatError` naming `what` when it does not fit."""
        self._take(amount, amount, what, lend=False)

    def lend(self, need: int, most: int, what: str | Callable[[], str]) -> int:
        """An allowance of at least `need` (at most `most`, or what is left) for one bounded call."""
        return self._take(need, max(need, most), what, lend=True)

    def settle(self, lent: int, unused: int) -> None:
        """End an allowance of `lent` of which `unused` was not spent."""
        with self._cond:
            self.left += unused
            self._lent -= lent
            self._cond.notify_all()

    def _take(self, need: int, most: int, what: str | Callable[[], str], lend: bool) -> int:
        with self._cond:
            while need > self.left:
                if not self._lent:
                    raise ProfileFormatError(self._refusal(what() if callable(what) else what, need, self.left))
                if self._cancel.is_set():
                    raise Cancelled
                self._cond.wait(0.1)
            grant = min(most, self.left)
            self.left -= grant
            if lend:
                self._lent += grant
            return grant


@dataclass
class Elements:
    """A batch of structs: byte address of each data section, its size, and its pointer section.

    `data_bytes` and `ptrs` are scalars when uniform over the batch (the common case).
    """

    byte: np.ndarray  # int64 absolute byte address of the data section
    data_bytes: np.ndarray | int
    ptrs: np.ndarray | int
    seg: np.ndarray | int  # segment of each element, or of all of them

    def __len__(self) -> int:
        return len(self.byte)


@dataclass
class Lists:
    """Resolved struct lists, their elements numbered in one sequence of rows and expanded on demand.

    Per list: its element count, the byte address of its first element, the row of that
    element, and (scalars when uniform over the non-empty lists) the bytes per element,
    data bytes and pointers per element, and segment. `elements(lo, hi)` expands only rows
    [lo, hi), so a batch's temporaries stay the size of the batch, not of every list.
    """

    count: np.ndarray  # int64 per list
    base: np.ndarray  # int64 byte address of each list's first element
    first: np.ndarray  # int64 row of each list's first element
    step: np.ndarray | int
    data: np.ndarray | int
    ptrs: np.ndarray | int
    seg: np.ndarray | int
    total: int

    def elements(self, lo: int = 0, hi: int | None = None) -> Elements:
        """Rows [lo, hi) as structs."""
        hi = self.total if hi is None else hi
        if lo == 0 and hi == self.total:
            j0, j1 = 0, len(self.count)
        else:
            j0 = int(np.searchsorted(self.first + self.count, lo, side="right"))
            j1 = max(j0, int(np.searchsorted(self.first, hi, side="left")))
        first = self.first[j0:j1]
        start = np.maximum(first, lo)
        n = np.maximum(np.minimum(first + self.count[j0:j1], hi) - start, 0)
        rows = hi - lo

        def part(x: np.ndarray | int) -> np.ndarray | int:
            return x if isinstance(x, int) else x[j0:j1]

        step = part(self.step)
        base = self.base[j0:j1] + (start - first) * step  # each piece's first element
        rel = start - lo  # and its row in the batch
        if isinstance(step, int):
            # element byte = base + (row - rel) * step, as one repeat and in-place arithmetic
            byte = np.arange(rows, dtype=np.int64)
            byte *= step
            byte += np.repeat(base - rel * step, n)
        else:
            byte = np.repeat(base, n) + (np.arange(rows, dtype=np.int64) - np.repeat(rel, n)) * np.repeat(step, n)
        data, ptrs = part(self.data), part(self.ptrs)
        data = data if isinstance(data, int) else np.repeat(data, n)
        ptrs = ptrs if isinstance(ptrs, int) else np.repeat(ptrs, n)
        return Elements(byte, data, ptrs, _uniform_seg(part(self.seg), n))

    def owner_of(self, row: int) -> tuple[int, int]:
        """(list index, position in that list) of `row`."""
        # Empty lists share their successor's `first`; the last list of such a run holds the row.
        j = int(np.searchsorted(self.first, row, side="right")) - 1
        return j, row - int(self.first[j])


@dataclass
class Texts:
    """Resolved Text pointers: absolute byte address and length (without the NUL terminator)."""

    byte: np.ndarray  # int64
    length: np.ndarray  # int64


class Message:
    """One framed, unpacked Cap'n Proto message over a buffer (bytes, mmap, ...)."""

    def __init__(self, buffer: object, where: str) -> None:
        self.where = where
        self.buffer = buffer
        size = len(memoryview(buffer).cast("B"))  # type: ignore[arg-type]
        if size == 0:
            raise ProfileFormatError(f"{where}: empty file (not a Cap'n Proto message)")
        if size < 8:
            raise ProfileFormatError(f"{where}: truncated: {size} bytes is shorter than a segment table")
        u8 = np.frombuffer(buffer, dtype=np.uint8)  # type: ignore[call-overload]
        whole = size // 8 * 8
        self.u8 = u8
        self.u16 = u8[: size // 2 * 2].view("<u2")
        self.u32 = u8[: size // 4 * 4].view("<u4")
        self.u64 = u8[:whole].view("<u8")
        count = int(self.u32[0]) + 1
        if count > MAX_SEGMENTS:
            raise ProfileFormatError(f"{where}: segment table claims {count} segments (limit {MAX_SEGMENTS})")
        table_words = (count + 2) // 2
        if table_words * 8 > size:
            raise ProfileFormatError(
                f"{where}: truncated: segment table of {count} segments needs {table_words * 8} bytes, file has {size}"
            )
        sizes = self.u32[1 : 1 + count].astype(np.int64)
        total = table_words + int(sizes.sum())
        if total * 8 > size:
            raise ProfileFormatError(
                f"{where}: truncated: segments need {total * 8} bytes, file has {size} "
                f"({len(sizes)} segments of {sizes[:8].tolist()}{'...' if count > 8 else ''} words)"
            )
        if total * 8 < size:
            raise ProfileFormatError(f"{where}: {size - total * 8} bytes of trailing garbage after the message")
        ends = table_words + np.cumsum(sizes)
        self.seg_start = ends - sizes
        self.seg_end = ends
        self.segment_count = count
        self.words = total
        self.size = size
        #: Set when the decode is abandoned; long-running work polls it (`stop_if_cancelled`).
        self.cancel = threading.Event()
        self.traversal = Budget(8 * (BUDGET_PER_WORD * total + BUDGET_SLACK), self._traversal_refusal, self.cancel)
        self.memory = Budget(MEMORY_PER_BYTE * size + MEMORY_SLACK, self._memory_refusal, self.cancel)
        if sizes[0] == 0:
            raise ProfileFormatError(f"{where}: segment 0 is empty: no root pointer")

    # -- helpers -----------------------------------------------------------------------------

    def fail(self, what: str, addr: int | None = None, describe: Describe | None = None, i: int = 0) -> None:
        """Raise a one-line `ProfileFormatError` naming the problem and where it is."""
        parts = [self.where]
        if describe is not None:
            parts.append(describe(i))
        if addr is not None:
            parts.append(self.locate(int(addr)))
        raise ProfileFormatError(": ".join(parts) + f": {what}")

    def locate(self, addr: int) -> str:
        """'segment S word W' for an absolute word address."""
        seg = int(np.searchsorted(self.seg_end, addr, side="right"))
        seg = min(seg, self.segment_count - 1)
        return f"segment {seg} word {addr - int(self.seg_start[seg])}"

    def charge(self, words: int, what: str | Callable[[], str]) -> None:
        """Spend traversal budget before the work it pays for (loops and amplification stop here)."""
        self.traversal.charge(8 * words, what)

    def charge_memory(self, nbytes: int, what: str | Callable[[], str]) -> None:
        """Spend memory budget before allocating what it pays for."""
        self.memory.charge(nbytes, what)

    def stop_if_cancelled(self) -> None:
        """Raise `Cancelled` once the decode has been abandoned."""
        if self.cancel.is_set():
            raise Cancelled

    def _traversal_refusal(self, what: str, need: int, left: int) -> str:
        need, left = -(-need // 8), max(left, 0) // 8  # bytes, in words
        return (
            f"{self.where}: {what}: traversal budget exceeded ({need} more words, {left} left of "
            f"{BUDGET_PER_WORD}x the file's {self.words} words): pointer loop, aliased texts or amplified list"
        )

    def _memory_refusal(self, what: str, need: int, left: int) -> str:
        mb, left = 1e6, max(left, 0)
        return (
            f"{self.where}: {what}: memory budget exceeded ({need / mb:.1f} MB more, {left / mb:.1f} MB left of "
            f"{MEMORY_PER_BYTE}x the file's {self.size / mb:.1f} MB + {MEMORY_SLACK / mb:.0f} MB): "
            "more rows or distinct text than a file of this size can hold"
        )

    def _bounds(self, seg: Seg) -> tuple[np.ndarray | int, np.ndarray | int]:
        if isinstance(seg, int):
            return int(self.seg_start[seg]), int(self.seg_end[seg])
        return self.seg_start[seg], self.seg_end[seg]

    def _check(self, bad: np.ndarray, what: str, addr: np.ndarray, describe: Describe) -> None:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            self.fail(what, addr[i], describe, i)

    # -- pointer resolution ------------------------------------------------------------------

    def resolve(
        self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe
    ) -> tuple[np.ndarray, np.ndarray, Seg, np.ndarray, np.ndarray]:
        """Follow pointers at word addresses `addr` (absent ones read as null).

        Returns (word, target, seg, null, loc): the struct/list pointer word describing each
        object (the landing pad or double-far tag for far pointers), the absolute word where its
        content starts, its segment, a null mask, and the pointer's own address (for messages).
        """
        w = self.u64[addr] if present is None else np.where(present, self.u64[np.where(present, addr, 0)], _u(0))
        null = w == 0
        target = addr + 1 + _signed_offset(w)
        far = (w & _M3) == _u(2)
        double = None
        if far.any():
            idx = np.flatnonzero(far)
            w = w.copy()
            seg = np.full(len(w), seg, dtype=np.int64) if isinstance(seg, int) else seg.copy()
            fw = w[idx]
            dbl = ((fw >> _u(2)) & _u(1)).astype(bool)
            sid = (fw >> _u(32)).astype(np.int64)
            pos = ((fw >> _u(3)) & _M29).astype(np.int64)
            unknown = sid >= self.segment_count
            if unknown.any():
                j = int(np.flatnonzero(unknown)[0])
                self.fail(f"far pointer to unknown segment {int(sid[j])}", addr[idx[j]], describe, int(idx[j]))
            pad = self.seg_start[sid] + pos
            pad_words = 1 + dbl.astype(np.int64)
            over = pad + pad_words > self.seg_end[sid]
            if over.any():
                j = int(np.flatnonzero(over)[0])
                self.fail("far pointer's landing pad is out of bounds", addr[idx[j]], describe, int(idx[j]))
            self.charge(int(pad_words.sum()), "far pointer landing pads")
            pad_word = self.u64[pad]
            # Single far: the pad is an ordinary pointer relative to itself.
            new_w = pad_word.copy()
            new_target = pad + 1 + _signed_offset(pad_word)
            new_seg = sid
            if dbl.any():
                d = np.flatnonzero(dbl)
                p0 = pad_word[d]
                not_far = (p0 & _M3) != _u(2)
                if not_far.any():
                    j = int(idx[d[int(np.flatnonzero(not_far)[0])]])
                    self.fail("double-far landing pad does not start with a far pointer", addr[j], describe, j)
                sid2 = (p0 >> _u(32)).astype(np.int64)
                if (sid2 >= self.segment_count).any():
                    k = int(np.flatnonzero(sid2 >= self.segment_count)[0])
                    j = int(idx[d[k]])
                    self.fail(f"double-far pointer to unknown segment {int(sid2[k])}", addr[j], describe, j)
                new_w[d] = self.u64[pad[d] + 1]  # the tag describing the object
                new_target[d] = self.seg_start[sid2] + ((p0 >> _u(3)) & _M29).astype(np.int64)
                new_seg = sid.copy()
                new_seg[d] = sid2
                double = np.zeros(len(w), dtype=bool)
                double[idx[d]] = True
            w[idx] = new_w
            target[idx] = new_target
            seg[idx] = new_seg
        lo, hi = self._bounds(seg)
        # Like the C++ reader, an out-of-segment target (not double-far) lands at the segment's end,
        # where only a content-free (zero-sized) object is in bounds.
        outside = (target < lo) | (target > hi)
        if double is not None:
            outside &= ~double
            target = np.where(double & (target > hi), np.asarray(hi) + 1, target)
        if outside.any():
            target = np.where(outside, hi, target)
        return w, target, seg, null, addr

    def structs(
        self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, what: str, describe: Describe
    ) -> Elements:
        """Struct pointers -> Elements (null pointers read as structs of all defaults)."""
        w, target, seg, null, loc = self.resolve(addr, seg, present, describe)
        self._check(~null & ((w & _M3) != _u(0)), f"{what}: expected a struct pointer", loc, describe)
        dw = ((w >> _u(32)) & _M16).astype(np.int64)
        pc = (w >> _u(48)).astype(np.int64)
        _, hi = self._bounds(seg)
        self._check(target + dw + pc > hi, f"{what}: struct pointer out of bounds", loc, describe)
        self.charge(int(dw.sum() + pc.sum()), what)
        data = dw * 8
        return Elements(target * 8, uniform(data), uniform(pc), seg)

    def lists(
        self,
        addr: np.ndarray,
        seg: Seg,
        present: np.ndarray | None,
        what: str,
        describe: Describe,
        row_bytes: int,
        charge: bool = True,
    ) -> Lists:
        """List(struct) pointers -> `Lists` (null reads as empty), charged before anything is expanded.

        Accepts composite lists and, as Cap'n Proto's schema evolution allows
        (docs/reference/format.md#lists-and-text), lists of primitives or pointers read as
        structs whose first field is the element (bit lists are refused).
        Charges the lists' words to the traversal budget and `row_bytes` per element to the
        memory budget (`charge=False`: the C interner already charged exactly these lists).
        """
        w, target, seg, null, loc = self.resolve(addr, seg, present, describe)
        self._check(~null & ((w & _M3) != _u(1)), f"{what}: expected a list pointer", loc, describe)
        es = ((w >> _u(32)) & _u(7)).astype(np.int64)
        es[null] = 0
        cnt = (w >> _u(35)).astype(np.int64)
        self._check(es == 1, f"{what}: bit list where a struct list was expected", loc, describe)
        _, hi = self._bounds(seg)
        composite = es == 7
        step_bits = _STEP_BITS[es]
        data_bits = _DATA_BITS[es]
        ptrs = _PTRS[es]
        words = (cnt * step_bits + 63) >> 6
        count = cnt.copy()
        base = target * 8
        amplified = np.where(es == 0, cnt, 0)
        if composite.any():
            c = np.flatnonzero(composite)
            wc = cnt[c]
            tc = target[c]
            hic = np.asarray(hi) if np.isscalar(hi) else np.asarray(hi)[c]
            over = tc + 1 + wc > hic
            if over.any():
                j = int(c[int(np.flatnonzero(over)[0])])
                self.fail(f"{what}: composite list out of bounds", loc[j], describe, j)
            tag = self.u64[tc]
            not_struct = (tag & _M3) != _u(0)
            if not_struct.any():
                j = int(c[int(np.flatnonzero(not_struct)[0])])
                self.fail(f"{what}: composite list tag is not a struct tag", loc[j], describe, j)
            n = ((tag >> _u(2)) & _M30).astype(np.int64)
            too_many = n > _MAX_ELEMENTS
            if too_many.any():
                k = int(np.flatnonzero(too_many)[0])
                j = int(c[k])
                self.fail(
                    f"{what}: composite list tag claims {int(n[k])} elements (limit 2**29 - 1)", loc[j], describe, j
                )
            tdw = ((tag >> _u(32)) & _M16).astype(np.int64)
            tpc = (tag >> _u(48)).astype(np.int64)
            overrun = n * (tdw + tpc) > wc
            if overrun.any():
                j = int(c[int(np.flatnonzero(overrun)[0])])
                self.fail(f"{what}: composite list elements overrun its word count", loc[j], describe, j)
            words[c] = wc + 1
            count[c] = n
            step_bits[c] = (tdw + tpc) * 64
            data_bits[c] = tdw * 64
            ptrs[c] = tpc
            base[c] = (tc + 1) * 8
            amplified[c] = np.where(tdw + tpc == 0, n, 0)
        count[null] = 0
        words[null] = 0
        amplified[null] = 0
        simple = ~composite & ~null
        self._check(simple & (target + words > hi), f"{what}: list out of bounds", loc, describe)
        total = int(count.sum())
        if charge:
            self.charge(int(words.sum()) + int(amplified.sum()), what)
            self.charge_memory(total * row_bytes, lambda: rows_of(what, count, describe))
        live = count > 0
        any_live = bool(live.any())

        def per_list(values: np.ndarray) -> np.ndarray | int:
            same = uniform(values[live]) if any_live else 0
            return same if isinstance(same, int) else values

        return Lists(
            count=count,
            base=base,
            first=np.cumsum(count) - count,
            step=per_list(step_bits // 8),
            data=per_list(data_bits // 8),
            ptrs=per_list(ptrs),
            seg=seg if isinstance(seg, int) else per_list(seg),
            total=total,
        )

    def texts(self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, what: str, describe: Describe) -> Texts:
        """Text pointers -> (byte address, length); null reads as the empty string.

        The common case (near byte-list pointers or nulls) takes a fused path of a few
        whole-array operations; anything else (far pointers, wrong kinds) the general one.
        """
        w = self.u64[addr] if present is None else np.where(present, self.u64[np.where(present, addr, 0)], _u(0))
        n = len(w)
        if n == 0:
            return self._texts_general(w, addr, seg, present, what, describe)
        nulls = n - np.count_nonzero(w)
        if np.count_nonzero((w & _TEXT_MASK) == _TEXT_TAG) + nulls != n:
            return self._texts_general(w, addr, seg, present, what, describe)
        lo, hi = self._bounds(seg)
        start = (w.view(np.int64) << 32) >> 34  # signed word offset
        start += addr
        start += 1
        start <<= 3
        cnt = (w >> _u(35)).view(np.int64)
        end = start + cnt
        if isinstance(seg, int):
            outside = int(start.min()) < lo * 8 or int(end.max()) > hi * 8
        else:  # a batch straddling segments: per-element bounds
            outside = bool((start < lo * 8).any() or (end > hi * 8).any())
        if outside or n - np.count_nonzero(cnt) != nulls:
            return self._texts_general(w, addr, seg, present, what, describe)
        # A null pointer's "end" is the pointer word's own last byte, which is zero.
        end -= 1
        last = self.u8[end]
        if last.any() if present is None else (last != 0)[present].any():
            return self._texts_general(w, addr, seg, present, what, describe)
        self.traversal.charge(text_bytes(cnt), what)
        cnt -= 1
        np.maximum(cnt, 0, out=cnt)
        return Texts(start, cnt)

    def _texts_general(
        self, w: np.ndarray, addr: np.ndarray, seg: Seg, present: np.ndarray | None, what: str, describe: Describe
    ) -> Texts:
        w, target, seg, null, loc = self.resolve(addr, seg, present, describe)
        bad = ~null & ((w & _TEXT_MASK) != _TEXT_TAG)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            kind = int(w[i]) & 3
            if kind != 1:
                self.fail(f"{what}: expected text, found a {_KINDS[kind]} pointer", loc[i], describe, i)
            self.fail(f"{what}: expected text, found a list of non-bytes", loc[i], describe, i)
        cnt = (w >> _u(35)).astype(np.int64)
        words = (cnt + 7) >> 3
        _, hi = self._bounds(seg)
        self._check(~null & (target + words > hi), f"{what}: text out of bounds", loc, describe)
        self.traversal.charge(text_bytes(cnt), what)
        self._check(~null & (cnt == 0), f"{what}: text is not NUL-terminated (empty byte list)", loc, describe)
        last = np.where(null, 0, target * 8 + cnt - 1)
        self._check(~null & (self.u8[last] != 0), f"{what}: text is not NUL-terminated", loc, describe)
        length = np.where(null, 0, cnt - 1)
        return Texts(np.where(null, 0, target * 8), length)

    # -- fields ------------------------------------------------------------------------------

    def field(self, elements: Elements, offset: int, dtype: type) -> np.ndarray:
        """A primitive field at byte `offset` of each struct's data section (default 0 beyond it)."""
        size = np.dtype(dtype).itemsize
        view = {1: self.u8, 2: self.u16, 4: self.u32, 8: self.u64}[size]
        n = len(elements)
        if isinstance(elements.data_bytes, int):
            if elements.data_bytes < offset + size or n == 0:
                return np.zeros(n, dtype=dtype)
            index = elements.byte + offset
            index >>= _SHIFT[size]  # addresses are non-negative: a shift is the division, much cheaper
            return view[index].astype(dtype, copy=False)
        present = elements.data_bytes >= offset + size
        values = view[np.where(present, (elements.byte + offset) >> _SHIFT[size], 0)].astype(dtype, copy=False)
        values[~present] = 0
        return values

    def pointer(self, elements: Elements, index: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Word address of pointer `index` of each struct, and a mask of structs that have it (None: all)."""
        if isinstance(elements.ptrs, int):
            if elements.ptrs > index:
                addr = elements.byte >> 3
                addr += elements.data_bytes // 8 + index
                return addr, None
            return np.zeros(len(elements), dtype=np.int64), np.zeros(len(elements), dtype=bool)
        addr = ((elements.byte + elements.data_bytes) >> 3) + index
        present = elements.ptrs > index
        return np.where(present, addr, 0), present


def _uniform_seg(seg: Seg, count: np.ndarray) -> Seg:
    """The segment of every element of lists in segments `seg` of `count` elements (one int when shared)."""
    if isinstance(seg, int):
        return seg
    same = uniform(seg[count > 0])
    if isinstance(same, int):
        return same
    return np.repeat(seg, count)


def uniform(values: np.ndarray) -> np.ndarray | int:
    """A scalar when every value is the same (saves gathers on the common path)."""
    if len(values) == 0:
        return 0
    first = int(values[0])
    if (values == first).all():
        return first
    return values
