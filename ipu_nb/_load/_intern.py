"""Text fields interned by the C library (`_intern.c`) through ctypes.

The library is compiled when the package is built (`hatch_build.py`). Without it (no C
compiler at install time, a stale build, a big-endian machine) `NATIVE` is False and the
loader uses `_text.TextColumn`, the numpy path: same frames, slower.
"""

from __future__ import annotations

import ctypes
import sys
import weakref
from pathlib import Path

import numpy as np
import pyarrow as pa

from ._columns import Strings
from ._message import Describe, Message, Seg
from ._text import CodeBuffer, utf8

__all__ = ["ABI", "LIBRARY", "NATIVE", "NativeTextColumn"]

#: Must equal IPU_INTERN_ABI in _intern.c: a library built from older source is not used.
ABI = 3
LIBRARY = Path(__file__).with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
_NOT_FAST, _NO_MEMORY = -1, -2
_P, _I = ctypes.c_void_p, ctypes.c_int64


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
    lib.ipu_table_new.restype = _P
    lib.ipu_table_new.argtypes = []
    lib.ipu_table_free.restype = None
    lib.ipu_table_free.argtypes = [_P]
    lib.ipu_table_count.restype = _I
    lib.ipu_table_count.argtypes = [_P]
    lib.ipu_table_total_length.restype = _I
    lib.ipu_table_total_length.argtypes = [_P]
    lib.ipu_table_values.restype = None
    lib.ipu_table_values.argtypes = [_P, _P, _P]
    lib.ipu_intern_pointers.restype = _I
    lib.ipu_intern_pointers.argtypes = [_P, _P, _I, _P, _P, _P, _P, _I, _I, _I, _P, _P, _P, _P]
    lib.ipu_intern_resolved.restype = _I
    lib.ipu_intern_resolved.argtypes = [_P, _P, _I, _P, _P, _I, _P]
    return lib


_LIB = _load()
#: Whether the compiled interner is loaded.
NATIVE = _LIB is not None


def _address(array: np.ndarray | None) -> int | None:
    return None if array is None else array.ctypes.data


class NativeTextColumn:
    """One Text field: batches of pointers interned, in file order, into one C table.

    Codes come out global (first-occurrence order), so nothing is merged or remapped later.
    A batch the C fast path declines is resolved by `Message.texts` (far pointers, or the
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
        addr = np.ascontiguousarray(addr, dtype=np.int64)
        mask = None if present is None else np.ascontiguousarray(present, dtype=np.bool_)
        lo = hi = None
        first = seg
        if not isinstance(seg, int):  # a batch straddling segments: bounds per text
            lo, hi, first = msg.seg_start[seg], msg.seg_end[seg], 0
        stop, words, end = _I(0), _I(0), _I(0)
        found = _LIB.ipu_intern_pointers(
            self.table,
            msg.u8.ctypes.data,
            len(msg.u8),
            addr.ctypes.data,
            _address(mask),
            _address(lo),
            _address(hi),
            int(msg.seg_start[first]),
            int(msg.seg_end[first]),
            n,
            codes.ctypes.data,
            ctypes.byref(stop),
            ctypes.byref(words),
            ctypes.byref(end),
        )
        if found == 0:
            msg.charge(words.value, self.what)
            return end.value
        if found != _NOT_FAST:
            raise MemoryError(f"interning {self.what}")
        texts = msg.texts(addr, seg, present, self.what, describe)
        byte = np.ascontiguousarray(texts.byte, dtype=np.int64)
        length = np.ascontiguousarray(texts.length, dtype=np.int64)
        file = msg.u8.ctypes.data
        if _LIB.ipu_intern_resolved(
            self.table, file, len(msg.u8), byte.ctypes.data, length.ctypes.data, n, codes.ctypes.data
        ):
            raise MemoryError(f"interning {self.what}")
        return int((byte + length).max()) if n else 0

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
