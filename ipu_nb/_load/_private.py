"""The frame cache's trust: its directories and files are used only if they are the current user's own.

A cache entry is served as if this process had just decoded the profile, so one planted by
another user, or a symbolic link to someone else's files, must never be. The cache opens
everything through here, by name inside a directory it has already opened and checked,
without following a symbolic link (``O_NOFOLLOW``), and checks what it opened through the
descriptor (``fstat``: nothing swapped in after the check is used). Each must be of the
expected type, owned by ``os.getuid()`` and not writable by group or others. A configured
cache directory that fails this (a shared ``/tmp``-style 1777 folder, another user's) is not
used itself: a private ``user-<uid>`` subdirectory of it (mode 0700) is. Anything refused is
ignored and warned about (`CacheWarning`) once per cause and process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from .._terminal import printable

__all__ = [
    "DIRECTORY_FLAGS",
    "TRASH_PREFIX",
    "CacheDir",
    "CacheWarning",
    "Untrusted",
    "check",
    "create_file",
    "discard",
    "effective_dir",
    "make_dir",
    "open_cache_dir",
    "open_dir",
    "open_file",
    "remove_tree",
    "warn_once",
]

#: Names of what `discard` has moved out of the way but not yet deleted.
TRASH_PREFIX = ".trash-"
#: `os.open` flags for a directory, never through a symbolic link (it fails with ENOTDIR on one).
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO planted where a file belongs returns at once (and is then refused).
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_SHARED = stat.S_IWGRP | stat.S_IWOTH


class CacheWarning(UserWarning):
    """Part of the frame cache is not trusted (another user's, a symbolic link, writable by others): it is ignored."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.cli_message = message


class Untrusted(Exception):
    """Why a directory or file of the cache is not ours to use: `cause` names the kind of reason.

    >>> str(Untrusted("symlink", "is a symbolic link", "samples.arrow"))
    'samples.arrow is a symbolic link'
    """

    def __init__(self, cause: str, reason: str, name: str = "it") -> None:
        super().__init__(f"{name} {reason}")
        self.cause = cause


def check(st: os.stat_result, kind: int, name: str = "it") -> None:
    """Raise `Untrusted` unless `st` is of file type `kind` (``stat.S_IFDIR``/``S_IFREG``), ours, and private.

    >>> check(os.stat("."), stat.S_IFREG, "here")
    Traceback (most recent call last):
    ...
    ipu_nb._load._private.Untrusted: here is not a regular file
    """
    if stat.S_ISLNK(st.st_mode):
        raise Untrusted("symlink", "is a symbolic link", name)
    if stat.S_IFMT(st.st_mode) != kind:
        raise Untrusted("type", "is not a directory" if kind == stat.S_IFDIR else "is not a regular file", name)
    if st.st_uid != os.getuid():
        raise Untrusted("owner", f"is owned by another user (uid {st.st_uid})", name)
    if st.st_mode & _SHARED:
        raise Untrusted("writable", "is writable by other users", name)


def open_dir(name: str | Path, dir_fd: int | None = None) -> int:
    """A descriptor of directory `name` (in `dir_fd`) if it is ours: else `Untrusted` ("it ..."), OSError if absent."""
    try:
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        check(os.stat(name, dir_fd=dir_fd, follow_symlinks=False), stat.S_IFDIR)
        raise Untrusted("type", "is not a directory") from None  # replaced meanwhile
    return _checked(fd, stat.S_IFDIR, "it")


def open_file(name: str, dir_fd: int) -> int:
    """A read-only descriptor of the regular file `name` in `dir_fd` if it is ours: `Untrusted` if not."""
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise Untrusted("symlink", "is a symbolic link", name) from None
    return _checked(fd, stat.S_IFREG, name)


def _checked(fd: int, kind: int, name: str) -> int:
    try:
        check(os.fstat(fd), kind, name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_file(name: str, dir_fd: int) -> int:
    """A read-write descriptor of a new file `name` in `dir_fd`, mode 0600; FileExistsError if anything is there."""
    return os.open(name, _CREATE, 0o600, dir_fd=dir_fd)


def make_dir(name: str, dir_fd: int) -> None:
    """Create the directory `name` in `dir_fd`, mode 0700; FileExistsError if anything is there."""
    os.mkdir(name, 0o700, dir_fd=dir_fd)


def remove_tree(name: str, dir_fd: int) -> None:
    """Delete `name` in `dir_fd` and, if it is a directory (not a link to one), all it holds; OSError if it cannot.

    What vanishes meanwhile (another process cleaning up the same remains) counts as deleted.
    """
    try:
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)
        return
    try:
        with os.scandir(fd) as children:
            found = [(child.name, child.is_dir(follow_symlinks=False)) for child in children]
        for child, is_dir in found:
            if is_dir:
                remove_tree(child, fd)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    with contextlib.suppress(FileNotFoundError):
        os.rmdir(name, dir_fd=dir_fd)


def discard(name: str, dir_fd: int, *, strict: bool = False) -> bool:
    """Rename `name` out of the way, then delete it: readers see all of it or none. False if it was gone already.

    Any other failure raises OSError when `strict`; otherwise a failed rename returns False and
    a failed deletion leaves the renamed remains to a later clean-up.
    """
    trash = f"{TRASH_PREFIX}{name}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.rename(name, trash, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    except OSError:
        if strict:
            raise
        return False
    try:
        remove_tree(trash, dir_fd)
    except OSError:
        if strict:
            raise
    return True


@dataclass
class CacheDir:
    """An opened, checked cache directory: `fd` for every operation in it, `path` to name things in it."""

    fd: int
    path: Path

    def __enter__(self) -> CacheDir:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _subdirectory() -> str:
    return f"user-{os.getuid()}"


def effective_dir(configured: Path) -> Path:
    """Where `open_cache_dir` keeps entries for `configured` (without creating or opening anything)."""
    try:
        check(os.stat(configured), stat.S_IFDIR)
    except Untrusted:
        return configured / _subdirectory()
    except OSError:
        pass  # created private when first written
    return configured


def open_cache_dir(configured: Path, *, create: bool) -> CacheDir | None:
    """The directory entries live in, opened and checked; None if there is none yet, or none to trust.

    That is `configured` when it is ours and private (created with mode 0700 if missing and
    `create`), else its private ``user-<uid>`` subdirectory (created, or replaced if it is not
    ours, when `create`). A symbolic link at `configured` is followed only if it is ours or
    root's. OSError when `configured` cannot be read, or (with `create`) created or is not a directory.
    """
    if create:
        os.makedirs(configured, mode=0o700, exist_ok=True)
    try:
        link = os.lstat(configured)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (os.getuid(), 0):
        warn_once(
            "directory-link",
            f"not using the frame cache {printable(configured)}: it is a symbolic link owned by another user "
            f"(uid {link.st_uid})",
        )
        return None
    try:
        fd = os.open(configured, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        if create:
            raise
        return None  # no cache there: nothing cached
    try:
        check(os.fstat(fd), stat.S_IFDIR)
    except Untrusted:
        try:
            return _private_subdirectory(fd, configured, create)
        finally:
            os.close(fd)
    except BaseException:
        os.close(fd)
        raise
    return CacheDir(fd, configured)


def _private_subdirectory(parent: int, configured: Path, create: bool) -> CacheDir | None:
    name = _subdirectory()
    for attempt in range(2):
        if create:
            with contextlib.suppress(FileExistsError):
                make_dir(name, parent)
        try:
            return CacheDir(open_dir(name, parent), configured / name)
        except FileNotFoundError:
            return None
        except Untrusted as exc:
            replaced = create and attempt == 0 and discard(name, parent)
            action = "replacing" if replaced else "not using"
            warn_once(
                f"directory-{exc.cause}", f"{action} the frame cache directory {printable(configured / name)}: {exc}"
            )
            if not replaced:
                return None
    return None


_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(cause: str, message: str) -> None:
    """Warn `message` (a `CacheWarning`) unless this process has already warned of this `cause`."""
    with _warned_lock:
        if cause in _warned:
            return
        _warned.add(cause)
    warnings.warn(CacheWarning(message), stacklevel=3)
