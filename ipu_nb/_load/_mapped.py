"""A profile file's bytes for the decoder: memory-mapped and guarded, or read into memory.

Mapping keeps a load's memory near the size of its output (decoded pages are dropped as
the decode moves on), but a file truncated while it is mapped would kill the process
with SIGBUS on the next page read. With the C library loaded, mappings are guarded
(`_guard.c`): such a read sees zeros instead, and `FileBytes.check` reports the file as
changed. Without the library the file is read into memory. Either way `check` also
compares the file's size and modification time with what they were when it was opened,
so a file rewritten in place during the load is an error too, never a silent mix.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ._errors import ProfileFormatError
from ._intern import _LIB

__all__ = ["GUARDED", "FileBytes", "open_bytes"]

#: Whether mapped files are guarded (else files are read into memory).
GUARDED = _LIB is not None
_PAGE = mmap.PAGESIZE


class FileBytes:
    """An open profile file's bytes (`buffer`) and the means to notice it changing."""

    def __init__(self, path: Path, handle: int, buffer: object, slot: int | None) -> None:
        self.path = path
        self.handle = handle
        self.buffer = buffer
        self.slot = slot
        self.stat = os.fstat(handle)

    def check(self) -> None:
        """Raise `ProfileFormatError` if the file changed (was truncated, extended or rewritten) since it was opened."""
        faulted = self.slot is not None and _LIB is not None and _LIB.ipu_guard_faults(self.slot) > 0
        now = os.fstat(self.handle)
        if faulted or (now.st_size, now.st_mtime_ns) != (self.stat.st_size, self.stat.st_mtime_ns):
            raise ProfileFormatError(
                f"{self.path}: file changed while reading (now {now.st_size} bytes, was {self.stat.st_size}): "
                "it was truncated or rewritten during the load; open it again once it is complete"
            )

    def release(self, lo: int, hi: int) -> None:
        """Drop the mapped pages of bytes [lo, hi) from our resident set (they stay in the page cache).

        Pages still needed fault back in transparently; this only bounds peak memory.
        """
        if isinstance(self.buffer, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            lo = lo // _PAGE * _PAGE
            hi = hi // _PAGE * _PAGE
            if hi > lo:
                self.buffer.madvise(mmap.MADV_DONTNEED, lo, hi - lo)


def open_regular(path: Path) -> int:
    """A read-only descriptor of `path`, refused (`ProfileFormatError`) unless it is a regular file.

    Opened without blocking, then checked through the descriptor: a FIFO put in a
    profile's place (even after a check by name) can neither hang the open nor be read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
    except OSError as exc:
        raise ProfileFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise ProfileFormatError(f"{path}: not a regular file (a device, pipe or socket is not a profile)")
    return handle


@contextlib.contextmanager
def open_bytes(path: Path, guarded: bool = GUARDED) -> Iterator[FileBytes]:
    """The bytes of the file at `path`, mapped (and guarded) when `guarded`, else read into memory."""
    handle = open_regular(path)
    try:
        size = os.fstat(handle).st_size
        if size == 0:
            raise ProfileFormatError(f"{path}: empty file (not a Cap'n Proto message)")
        if guarded:
            with _guarded_map(path, handle, size) as file:
                yield file
        else:
            yield FileBytes(path, handle, _read(path, handle, size), None)
    finally:
        os.close(handle)


@contextlib.contextmanager
def _guarded_map(path: Path, handle: int, size: int) -> Iterator[FileBytes]:
    assert _LIB is not None
    try:
        mapped = mmap.mmap(handle, size, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        raise ProfileFormatError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    address = np.frombuffer(mapped, dtype=np.uint8).ctypes.data
    slot = _LIB.ipu_guard_add(address, size, handle)
    try:
        if slot < 0:  # no guard to be had: do not touch an unguarded mapping
            mapped.close()
            yield FileBytes(path, handle, _read(path, handle, size), None)
        else:
            yield FileBytes(path, handle, mapped, slot)
    finally:
        if slot >= 0:
            _LIB.ipu_guard_remove(slot)
        with contextlib.suppress(BufferError):  # a view still alive: the GC unmaps it later
            mapped.close()


def _read(path: Path, handle: int, size: int) -> bytearray:
    """The file's `size` bytes, read whole (a short read means it shrank meanwhile)."""
    data = bytearray(size)
    view = memoryview(data)
    done = 0
    try:
        while done < size:
            n = os.preadv(handle, [view[done:]], done) if hasattr(os, "preadv") else os.readv(handle, [view[done:]])
            if n == 0:
                break
            done += n
    except OSError as exc:
        raise ProfileFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if done < size:
        raise ProfileFormatError(
            f"{path}: file changed while reading (read {done} of {size} bytes): it was truncated during the load"
        )
    return data
