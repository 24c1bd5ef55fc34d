"""Text fields interned by the loader's C library (`_intern.c`) through ctypes.

The library is compiled when the package is built (`hatch_build.py`). Without it (no C
compiler at install time, a stale build, a big-endian machine) `NATIVE` is False and the
loader uses `_text.TextColumn`, the numpy path: same frames, slower. The library also holds
the guard for memory-mapped files (`_guard.c`, used by `_mapped`).

Every C call is lent an allowance from the message's budgets (`Message.traversal`,
`Message.memory`) and stops before a text it cannot pay for; this module charges more,
or lets the budget refuse the file, and calls again. A call never works past about
``QUANTUM`` bytes of traversal, so a cancelled decode (`Message.cancel`) stops within milliseconds.
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from .._model.columns import Strings
from ._message import ENTRY_BYTES, TEXT_BYTE_COST, TEXT_VALUE_BYTES, Describe, Message, Seg, Texts, rows_of
from ._text import CodeBuffer, text_end, utf8

__all__ = ["ABI", "LIBRARY", "NATIVE", "QUANTUM", "EntryLists", "NativeTextColumn", "count_entries"]

#: Must equal IPU_INTERN_ABI in _intern.c: a library built from older source is not used.
ABI = 10
LIBRARY = Path(__file__).with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
#: Traversal bytes one C call may spend (about a millisecond of hashing), and memory-budget bytes.
QUANTUM = 8 << 20
MEMORY_QUANTUM = 1 << 24
_NOT_FAST, _NO_MEMORY, _OUT_OF_BOUNDS, _NEED_WORK, _NEED_MEMORY = -1, -2, -3, 1, 2
_P, _I = ctypes.c_void_p, ctypes.c_int64


class _Frame(ctypes.Structure):
    """`Frame` in _intern.c: the file's bytes and segment table."""

    _fields_ = (("file", _P), ("words", _I), ("seg_start", _P), ("seg_end", _P), ("segments", _I))


class _Cursor(ctypes.Structure):
    """`Cursor` in _intern.c: what one call may spend, and where it stopped."""

    _fields_ = tuple(
        (name, _I) for name in ("work", "memory", "want", "next", "list", "at", "end", "value_bytes", "byte_cost")
    )

    @classmethod
    def new(cls) -> _Cursor:
        return cls(value_bytes=TEXT_VALUE_BYTES, byte_cost=TEXT_BYTE_COST)


def _load() -> ctypes.CDLL | None:
    if sys.byteorder != "little" or not LIBRARY.is_file():
        return None
    try:
        lib = ctypes.CDLL(str(LIBRARY))
        lib.ipu_intern_abi.restype = _I
        if lib.ipu_intern_abi() != ABI:
            return None
    except (OSError, AttributeError):
        return None
    batch = [_P, _P, _P, _P, _P, _I, _I, _I]  # frame, addr, present, lo, hi, seg_lo, seg_hi, n
    for name, restype, argtypes in (
        ("ipu_table_new", _P, []),
        ("ipu_table_free", None, [_P]),
        ("ipu_table_count", _I, [_P]),
        ("ipu_table_total_length", _I, [_P]),
        ("ipu_table_values", None, [_P, _P, _P]),
        ("ipu_intern_pointers", _I, [_P, *batch, _P, _P]),
        ("ipu_count_entries", _I, [*batch, _P, _P, _P]),
        ("ipu_intern_entries", _I, [_P, _I, *batch, _I, _P, _P]),
        ("ipu_intern_resolved", _I, [_P, _P, _P, _P, _I, _P, _P]),
        ("ipu_remap_codes", _I, [_P, _I, _P, _I]),
        ("ipu_owner_positions", None, [_P, _I, _I, _P, _P]),
        ("ipu_pair_codes", _I, [_P, _P, _I, _P, _P, _P, _P, _P, _P]),
        ("ipu_flag_owners", None, [_P, _P, _I, _P, _P]),
        ("ipu_guard_add", _I, [_P, _I, _I]),
        ("ipu_guard_faults", _I, [_I]),
        ("ipu_guard_remove", None, [_I]),
    ):
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


_LIB = _load()
#: Whether the compiled interner is loaded.
NATIVE = _LIB is not None
#: The C view of each message being decoded (kept while the message lives).
_FRAMES: weakref.WeakKeyDictionary[Message, _Frame] = weakref.WeakKeyDictionary()


def _frame(msg: Message) -> _Frame:
    frame = _FRAMES.get(msg)
    if frame is None:
        frame = _Frame(
            msg.u8.ctypes.data, len(msg.u8) // 8, msg.seg_start.ctypes.data, msg.seg_end.ctypes.data, msg.segment_count
        )
        _FRAMES[msg] = frame
    return frame


def _address(array: np.ndarray | None) -> int | None:
    return None if array is None else array.ctypes.data


@dataclass
class _Pointers:
    """A batch of pointer words as every C entry point takes it."""

    frame: _Frame
    addr: np.ndarray
    present: np.ndarray | None
    lo: np.ndarray | None  # per-pointer segment bounds, for batches straddling segments
    hi: np.ndarray | None
    seg_lo: int
    seg_hi: int

    @classmethod
    def of(cls, msg: Message, addr: np.ndarray, seg: Seg, present: np.ndarray | None) -> _Pointers:
        lo = hi = None
        first = seg
        if not isinstance(seg, int):
            lo, hi, first = msg.seg_start[seg], msg.seg_end[seg], 0
        return cls(
            _frame(msg),
            np.ascontiguousarray(addr, dtype=np.int64),
            None if present is None else np.ascontiguousarray(present, dtype=np.bool_),
            lo,
            hi,
            int(msg.seg_start[first]),
            int(msg.seg_end[first]),
        )

    def args(self) -> tuple[object, ...]:
        return (
            ctypes.byref(self.frame),
            self.addr.ctypes.data,
            _address(self.present),
            _address(self.lo),
            _address(self.hi),
            self.seg_lo,
            self.seg_hi,
            len(self.addr),
        )


@dataclass
class EntryLists:
    """A batch of struct lists the C fast path accepted: their pointers and entry counts."""

    pointers: _Pointers
    counts: np.ndarray
    total: int

    def owner_of(self, row: int) -> tuple[int, int]:
        """(list index, position in that list) of entry `row` (past the last entry: the last list, past its end)."""
        if not len(self.counts):
            return 0, row
        ends = np.cumsum(self.counts)
        j = min(int(np.searchsorted(ends, row, side="right")), len(ends) - 1)
        return j, row - int(ends[j] - self.counts[j])


def count_entries(
    msg: Message,
    addr: np.ndarray,
    seg: Seg,
    present: np.ndarray | None,
    what: str,
    describe: Describe,
    row_bytes: int = ENTRY_BYTES,
) -> EntryLists | None:
    """Entry counts of the struct lists at pointer words `addr`, charged (words, and `row_bytes` a row) before use.

    The charges are those `Message.lists` makes for the same lists; None when some list needs
    that general path.
    """
    assert _LIB is not None
    pointers = _Pointers.of(msg, addr, seg, present)
    counts = np.empty(len(addr), dtype=np.int64)
    words, total = _I(0), _I(0)
    if _LIB.ipu_count_entries(*pointers.args(), counts.ctypes.data, ctypes.byref(words), ctypes.byref(total)):
        return None
    msg.charge(words.value, what)
    msg.charge_memory(total.value * row_bytes, lambda: rows_of(what, counts, describe))
    return EntryLists(pointers, counts, total.value)


class NativeTextColumn:
    """One Text field: batches of pointers interned, in file order, into one C table.

    Codes come out global (first-occurrence order), so nothing is merged or remapped later.
    Where the C fast path declines a pointer (a double-far pointer, or anything it does not
    accept), the rest of the batch is resolved by `Message.texts` (which names the precise
    error) and its resolved texts interned.
    """

    def __init__(self, what: str, msg: Message, capacity: int = 0) -> None:
        """`capacity`: the rows the field will hold, when the file states it (and the budget paid for them)."""
        assert _LIB is not None
        self.what = what
        self.msg = msg
        table = _LIB.ipu_table_new()
        if not table:
            raise MemoryError("allocating a text table")
        self.table = table
        self._free = weakref.finalize(self, _LIB.ipu_table_free, table)
        self.codes = CodeBuffer(capacity)

    def add(self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe) -> int:
        """Resolve and append the Texts at pointer words `addr`; returns the end byte of the last one."""
        assert _LIB is not None
        msg, n = self.msg, len(addr)
        codes = self.codes.reserve(n)
        if n == 0:
            return 0
        pointers = _Pointers.of(msg, addr, seg, present)
        cursor = _Cursor.new()
        found = self._run(
            lambda: _LIB.ipu_intern_pointers(self.table, *pointers.args(), codes.ctypes.data, ctypes.byref(cursor)),
            cursor,
            lambda: f"{self.what}: {describe(cursor.next)}",
        )
        if found == 0:
            return cursor.end
        i = cursor.next
        texts = msg.texts(
            pointers.addr[i:],
            seg if isinstance(seg, int) else seg[i:],
            None if present is None else present[i:],
            self.what,
            lambda j: describe(i + j),
        )
        self._add_resolved(texts, codes[i:], lambda j: describe(i + j))
        return max(cursor.end, text_end(texts))

    def add_entries(self, lists: EntryLists, field: int, describe_row: Describe) -> tuple[int, int]:
        """Append Text pointer `field` of the entries of `lists`: (end byte of the last text, rows appended).

        Fewer rows than `lists.total` when an entry needs the general path: the caller appends the rest.
        """
        assert _LIB is not None
        if lists.total == 0:  # nothing to intern, so nothing to borrow budget for
            return 0, 0
        before = self.codes.size
        codes = self.codes.reserve(lists.total)
        cursor = _Cursor.new()
        found = self._run(
            lambda: _LIB.ipu_intern_entries(
                self.table, field, *lists.pointers.args(), lists.total, codes.ctypes.data, ctypes.byref(cursor)
            ),
            cursor,
            lambda: f"{self.what}: {describe_row(cursor.next)}",
        )
        if found == 0:
            return cursor.end, lists.total
        self.codes.truncate(before + cursor.next)
        return cursor.end, cursor.next

    def _add_resolved(self, texts: Texts, codes: np.ndarray, describe: Describe) -> None:
        """Intern texts the numpy path resolved and charged."""
        assert _LIB is not None
        byte = np.ascontiguousarray(texts.byte, dtype=np.int64)
        length = np.ascontiguousarray(texts.length, dtype=np.int64)
        frame = _frame(self.msg)
        cursor = _Cursor.new()
        found = self._run(
            lambda: _LIB.ipu_intern_resolved(
                self.table,
                ctypes.byref(frame),
                byte.ctypes.data,
                length.ctypes.data,
                len(byte),
                codes.ctypes.data,
                ctypes.byref(cursor),
            ),
            cursor,
            lambda: f"{self.what}: {describe(cursor.next)}",
            prepaid=True,
        )
        if found:  # the numpy path checked these texts: anything else here would be a bug
            raise RuntimeError(f"interning {self.what}: error {found}")

    def _run(self, call: Callable[[], int], cursor: _Cursor, what: Callable[[], str], prepaid: bool = False) -> int:
        """Call `call` until it finishes or declines, lending it budget before each call.

        `prepaid`: the texts' words were charged already; the work allowance only bounds each call.
        """
        msg = self.msg
        need_work, need_memory, stuck_at, retries = 8, 0, (-1, -1, -1), 0
        while True:
            msg.stop_if_cancelled()
            work = memory = 0
            cursor.work = cursor.memory = 0
            try:
                work = max(QUANTUM, need_work) if prepaid else msg.traversal.lend(need_work, QUANTUM, what)
                cursor.work = work
                memory = msg.memory.lend(need_memory, MEMORY_QUANTUM, lambda: f"{what()} (distinct texts)")
                cursor.memory = memory
                found = call()
            finally:
                if not prepaid:  # what a call spent past its allowance (colliding probes) is charged here
                    msg.traversal.settle(work, cursor.work)
                msg.memory.settle(memory, cursor.memory)
            if prepaid and cursor.work < 0:
                msg.traversal.charge(-cursor.work, what)
            where = (cursor.next, cursor.list, cursor.at)
            if where != stuck_at:  # moved on: what the last text needed no longer holds
                need_work, need_memory, stuck_at, retries = 8, 0, where, 0
            elif (retries := retries + 1) > 2:  # it had both it asked for: a bug, not a reason to spin
                raise RuntimeError(f"interning {self.what}: no progress at {where}")
            if found == _NEED_WORK:
                need_work = cursor.want
            elif found == _NEED_MEMORY:
                need_memory = cursor.want
            elif found == _NO_MEMORY:
                raise MemoryError(f"interning {self.what}")
            elif found in (0, _NOT_FAST):
                return found
            else:
                raise RuntimeError(f"interning {self.what}: error {found}")

    def finish(self, where: str, describe_row: Describe) -> Strings:
        """The codes so far and the distinct values, with UTF-8 validated once per value."""
        assert _LIB is not None
        count = _LIB.ipu_table_count(self.table)
        length = np.empty(count, dtype=np.int64)
        data = np.empty(_LIB.ipu_table_total_length(self.table), dtype=np.uint8)
        _LIB.ipu_table_values(self.table, length.ctypes.data, data.ctypes.data)
        self._free()
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(length, out=offsets[1:])
        values = pa.LargeBinaryArray.from_buffers(
            pa.large_binary(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        codes = self.codes.take()
        return Strings(codes, utf8(values.cast(pa.binary()), codes, self.what, where, describe_row))
