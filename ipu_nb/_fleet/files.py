"""What a fleet's path is, told without opening it; its identity; its text; bounded reads of regular files only.

Opening a FIFO for reading blocks until something writes to it, and a device may never
end: a fleet looks (``stat``) before it reads a sidecar or hands a profile to a worker,
and a file it does read is opened without blocking and looked at again once open, so a
FIFO swapped in between is refused too. A path that names nothing at all is left to
the reader, which says "not found" in its own words.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import NotARegularFileError

__all__ = ["check_regular", "file_identity", "not_regular", "read_regular"]

_KINDS = (
    (stat.S_ISDIR, "directory"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
)


def _kind(mode: int) -> str | None:
    """None for a regular file, else what the mode says it is instead."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "special file")


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """What makes `path` no regular file (symlinks followed), or None: a regular file, or nothing there at all.

    >>> not_regular("/dev/null")
    'not a regular file (character device)'
    >>> not_regular("/no/such/file") is None
    True
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        try:
            dangling = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            dangling = False
        return "dangling symlink (its target does not exist)" if dangling else None
    except OSError as exc:
        return "symlink loop" if exc.errno == errno.ELOOP else None  # other errors: the reader reports them
    kind = _kind(mode)
    return None if kind is None else f"not a regular file ({kind})"


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise `NotARegularFileError` (``path: what it is``) unless `path` is a regular file or names nothing."""
    problem = not_regular(path)
    if problem is not None:
        raise NotARegularFileError(os.fspath(path), problem)


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first ``limit + 1`` bytes of the regular file `path` (one more than allowed, so the caller sees too much).

    Raises `NotARegularFileError` for anything else (before opening it, and again from the
    open file), `FileNotFoundError` when nothing is there, and other `OSError` as the
    system gives them.
    """
    check_regular(path)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as handle:
        kind = _kind(os.fstat(descriptor).st_mode)
        if kind is not None:
            raise NotARegularFileError(os.fspath(path), f"not a regular file ({kind})")
        return handle.read(limit + 1)


def file_identity(path: str | os.PathLike[str]) -> str:
    """Which file `path` names, for telling two spellings of one file apart: its real path.

    A path that names no existing file (missing, a dangling symlink, a symlink loop) is
    only itself, made absolute: two dangling links to one missing target stay two entries.
    """
    return os.path.realpath(path) if os.path.exists(path) else os.path.abspath(path)
