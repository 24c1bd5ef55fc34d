"""Text fields interned by the C library (`_intern.c`) through ctypes.

The library is compiled when the package is built (`hatch_build.py`). Without it (no C
compiler at install time, a stale build, a big-endian machine) `NATIVE` is False and the
loader uses `_text.TextColumn`, the numpy path: same frames, slower.
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from ._columns import Strings
from ._message import Describe, Message, Seg
from ._text import CodeBuffer, text_end, utf8

__all__ = ["ABI", "LIBRARY", "NATIVE", "EntryLists", "NativeTextColumn", "count_entries"]

#: Must equal IPU_INTERN_ABI in _intern.c: a library built from older source is not used.
ABI = 6
LIBRARY = Path(__file__).with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
_NOT_FAST, _NO_MEMORY = -1, -2
_P, _I = ctypes.c_void_p, ctypes.c_int64


class _Frame(ctypes.Structure):
    """`Frame` in _intern.c: the file's bytes and segment table."""

    _fields_ = (("file", _P), ("words", _I), ("seg_start", _P), ("seg_end", _P), ("segments", _I))


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
        ("ipu_intern_pointers", _I, [_P, *batch, _P, _P, _P]),
        ("ipu_count_entries", _I, [*batch, _P, _P, _P]),
        ("ipu_intern_entries", _I, [_P, _I, *batch, _I, _P, _P, _P]),
        ("ipu_intern_resolved", _I, [_P, _P, _P, _P, _I, _P]),
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


def count_entries(msg: Message, addr: np.ndarray, seg: Seg, present: np.ndarray | None, what: str) -> EntryLists | None:
    """Entry counts of the struct lists at pointer words `addr`, their words charged to the budget.

    None when some list needs the general path (`Message.struct_lists`).
    """
    assert _LIB is not None
    pointers = _Pointers.of(msg, addr, seg, present)
    counts = np.empty(len(addr), dtype=np.int64)
    words, total = _I(0), _I(0)
    if _LIB.ipu_count_entries(*pointers.args(), counts.ctypes.data, ctypes.byref(words), ctypes.byref(total)):
        return None
    msg.charge(words.value, what)
    return EntryLists(pointers, counts, total.value)


class NativeTextColumn:
    """One Text field: batches of pointers interned, in file order, into one C table.

    Codes come out global (first-occurrence order), so nothing is merged or remapped later.
    A batch the C fast path declines is resolved by `Message.texts` (double-far pointers, or the
    precise error) and its resolved texts interned.
    """

    def __init__(self, what: str, msg: Message) -> None:
        assert _LIB is not None
        self.what = what
        self.msg = msg
        table = _LIB.ipu_table_new()
        if not table:
            raise MemoryError("allocating a text table")
        self.table = table
        self._free = weakref.finalize(self, _LIB.ipu_table_free, table)
        self.codes = CodeBuffer()

    def add(
        self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe, expected_rows: int = 0
    ) -> int:
        """Resolve and append the Texts at pointer words `addr`; returns the end byte of the last one."""
        assert _LIB is not None
        msg, n = self.msg, len(addr)
        codes = self.codes.reserve(n, expected_rows)
        words, end = _I(0), _I(0)
        pointers = _Pointers.of(msg, addr, seg, present)
        found = _LIB.ipu_intern_pointers(
            self.table, *pointers.args(), codes.ctypes.data, ctypes.byref(words), ctypes.byref(end)
        )
        if found == 0:
            msg.charge(words.value, self.what)
            return end.value
        self._check(found)
        texts = msg.texts(pointers.addr, seg, present, self.what, describe)
        byte = np.ascontiguousarray(texts.byte, dtype=np.int64)
        length = np.ascontiguousarray(texts.length, dtype=np.int64)
        found = _LIB.ipu_intern_resolved(
            self.table, ctypes.byref(pointers.frame), byte.ctypes.data, length.ctypes.data, n, codes.ctypes.data
        )
        if found:  # the numpy path checked these texts: out of bounds here would be a bug
            self._check(found)
        return text_end(texts)

    def add_entries(self, lists: EntryLists, field: int, expected_rows: int = 0) -> int | None:
        """Append Text pointer `field` of every entry of `lists`; returns the end byte of the last text.

        None (nothing appended) when the batch needs the general path.
        """
        assert _LIB is not None
        before = self.codes.size
        codes = self.codes.reserve(lists.total, expected_rows)
        words, end = _I(0), _I(0)
        found = _LIB.ipu_intern_entries(
            self.table,
            field,
            *lists.pointers.args(),
            lists.total,
            codes.ctypes.data,
            ctypes.byref(words),
            ctypes.byref(end),
        )
        if found == 0:
            self.msg.charge(words.value, self.what)
            return end.value
        self._check(found)
        self.codes.truncate(before)
        return None

    def _check(self, found: int) -> None:
        """Let a declined batch through (to the general path); raise for anything else."""
        if found == _NO_MEMORY:
            raise MemoryError(f"interning {self.what}")
        if found != _NOT_FAST:
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
