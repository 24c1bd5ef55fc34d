"""Decoded frames cached as Arrow IPC, so reopening a profile maps files instead of decoding it again.

An entry is a directory of Arrow IPC files (text columns and metadata as integer codes) and a checksummed
manifest; a reopen verifies every mapped byte before use and treats any mismatch as no entry. Entries are
written on a background thread, bounded in total size, and only the current user's own are served; why
each rule is needed is in docs/reference/loader.md#the-cache-_cachepy.
"""

from __future__ import annotations

import contextlib
import functools
import json
import mmap
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO

import platformdirs
import polars as pl
import pyarrow as pa
import xxhash

from .._model.profile import ProfileData
from .._terminal import printable
from ._columns import Unencodable, decode_frames, encode_frames
from ._mapped import open_regular
from ._private import (
    DIRECTORY_FLAGS,
    TRASH_PREFIX,
    CacheDir,
    CacheWarning,
    Untrusted,
    create_file,
    discard,
    effective_dir,
    make_dir,
    open_cache_dir,
    open_dir,
    open_file,
    remove_tree,
    warn_once,
)
from ._stored import PAIRS_FRAME, assemble, embed_pairs, split_pairs, stored_frames

__all__ = [
    "CACHE_FORMAT",
    "DEFAULT_CACHE_SIZE",
    "CacheClearError",
    "CacheEntry",
    "CacheSettingError",
    "CacheWarning",
    "cache_dir",
    "cache_entries",
    "cache_key",
    "cache_location",
    "cache_size_limit",
    "clear_cache",
    "evict",
    "format_size",
    "load_cached",
    "parse_manifest",
    "parse_size",
    "path_tag",
    "read_manifest",
    "sampled_ranges",
    "store_cached",
    "store_in_background",
    "wait_for_writes",
]

#: Bump when the entry layout or the decoder's output changes: old entries stop matching.
CACHE_FORMAT = 4
#: The size cap when ``$IPU_NB_CACHE_SIZE`` is unset: about 15 full-size (1.2M-sample) profiles.
DEFAULT_CACHE_SIZE = 4 << 30
_FRAMES = ("samples", "metadata", "exchange_activities", "tiles")
_CATEGORIES = "categories"
_FILES = (*_FRAMES, _CATEGORIES)
_MANIFEST = "profile.json"
_MANIFEST_MAX = 64 << 10  # ours are about 3 KB; anything larger is not ours
_CHUNK = 8 << 20  # read size when checksumming a file just written
_BLOCK = 1 << 16
_SAMPLED_BLOCKS = 64
_EDGE = 1 << 20
_STALE_TEMPORARY_NS = 3600 * 10**9  # a writer's temporary directory this old belongs to a dead process
_TEMPORARY_PREFIX = ".tmp-"
#: The shape of an entry's name, `cache_key`'s: `path_tag` (XXH3-64) and XXH3-128, in hex.
_ENTRY_NAME = re.compile(r"[0-9a-f]{16}-[0-9a-f]{32}")


def cache_dir() -> Path:
    """The configured cache directory: ``$IPU_NB_CACHE`` if set, else ``frames`` in the user's cache directory.

    That is ``~/.cache/ipu-nb/frames`` on Linux (``$XDG_CACHE_HOME/ipu-nb/frames`` when that
    is set). Entries live in it if it is the user's own and private, else in a private
    subdirectory of it (`cache_location`).
    """
    configured = os.environ.get("IPU_NB_CACHE")
    if configured:
        return Path(configured)
    return Path(platformdirs.user_cache_dir("ipu-nb", appauthor=False)) / "frames"


def cache_location(root: Path | None = None) -> Path:
    """The directory the entries of cache `root` (default `cache_dir`) live in: it, or its ``user-<uid>`` subdirectory.

    A directory that others can write (a shared ``/tmp``-style folder) or that another user
    owns holds the current user's entries in a private subdirectory of its own.
    """
    return effective_dir(root or cache_dir())


# --- the key ---------------------------------------------------------------------------


def cache_key(path: Path) -> str:
    """Key of a profile file: its resolved path, identity, size, times and a content sample.

    The key covers the resolved path, ``st_dev``, ``st_ino``, ``st_size``,
    ``st_mtime_ns`` and ``st_ctime_ns``, plus XXH3-128 over the whole file up to 6 MiB,
    or over its first and last MiB and 64 evenly spaced 64 KiB blocks beyond that
    (about 6 MB read, a few ms, whatever the file size).

    What it guarantees: any write to the file through the operating system (``write``,
    ``truncate``, ``mmap``), a replacement (a rename over it, a copy, an extraction) or
    a metadata change (``chmod``, ``os.utime``) selects a new entry, because the kernel
    sets ``st_ctime`` to the current time on each of them and, unlike ``st_mtime``, no
    call can set it back; a replacement also has a new inode, and another path is
    another key. A file of up to 6 MiB is keyed by its whole content as well. What it does not see: a same-size
    change outside the sampled blocks that leaves all of these fields as they were,
    which takes writing to the block device directly, setting the system clock back,
    a file system that does not keep ``st_ctime`` (some network mounts), or two writes
    within one tick of the file system's timestamp clock with this key computed between
    them (a few ms on Linux before 6.13; never since, as a change after a ``stat`` gets
    a fine-grained ``st_ctime``). Pass ``cache=False`` to bypass the cache.
    """
    stat = path.stat()
    digest = xxhash.xxh3_128()
    fields = (CACHE_FORMAT, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    digest.update(os.fsencode(path.resolve()) + b"\0" + "\0".join(map(str, fields)).encode())
    with os.fdopen(open_regular(path), "rb") as handle:
        for offset, length in sampled_ranges(stat.st_size):
            handle.seek(offset)
            digest.update(handle.read(length))
    return f"{path_tag(path)}-{digest.hexdigest()}"


def sampled_ranges(size: int) -> list[tuple[int, int]]:
    """The (offset, length) ranges of a `size`-byte file that `cache_key` hashes."""
    if size <= 2 * _EDGE + _SAMPLED_BLOCKS * _BLOCK:
        return [(0, size)]
    stride = (size - 2 * _EDGE) // _SAMPLED_BLOCKS
    return [(0, _EDGE), *((_EDGE + i * stride, _BLOCK) for i in range(_SAMPLED_BLOCKS)), (size - _EDGE, _EDGE)]


def path_tag(path: Path) -> str:
    """Key prefix shared by every entry of one file path (older entries of a rewritten file)."""
    return xxhash.xxh3_64_hexdigest(os.fsencode(path.resolve()))


# --- reading an entry ------------------------------------------------------------------


def load_cached(path: Path, key: str, root: Path | None = None) -> ProfileData | None:
    """The cached profile for `key`, or None when absent, stale, damaged, unreadable or not the user's own.

    Every file of the entry is checked to be ours (`_private`) and verified against the
    manifest's checksums before it is parsed; a hit marks the entry as recently used. An
    entry that is not ours warns once (`CacheWarning`); the caller's rewrite replaces it.
    """
    if not _ENTRY_NAME.fullmatch(key):
        return None
    try:
        cache = open_cache_dir(root or cache_dir(), create=False)
        if cache is None:
            return None
        with cache:
            try:
                entry = open_dir(key, cache.fd)
                try:
                    return _load_entry(entry, path, key)
                finally:
                    os.close(entry)
            except Untrusted as exc:
                warn_once(
                    f"entry-{exc.cause}",
                    f"ignoring the frame cache entry {printable(cache.path / key)}: {exc}; "
                    "the profile is decoded again and the entry replaced",
                )
                return None
    except (OSError, ValueError, TypeError, pa.ArrowException, pl.exceptions.PolarsError, MemoryError):
        return None
    except pl.exceptions.PanicException:  # a BaseException: no entry, however damaged, may let one escape
        return None


def _load_entry(entry: int, path: Path, key: str) -> ProfileData | None:
    manifest = _manifest_in(entry)
    if manifest is None or manifest["key"] != key:
        return None
    files = {**manifest["frames"], _CATEGORIES: manifest[_CATEGORIES]}
    mapped = {}
    for name in _FILES:
        buffer = _map_file(entry, f"{name}.arrow", files[name]["bytes"])
        if buffer is None:
            return None
        mapped[name] = buffer
    # Verified before anything parses them, two files at a time (xxhash releases the GIL).
    largest_first = sorted(_FILES, key=lambda name: -files[name]["bytes"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        sums = dict(zip(largest_first, pool.map(lambda name: _checksum(mapped[name]), largest_first), strict=True))
    if any(sums[name] != files[name]["xxh3_64"] for name in _FILES):
        return None
    texts = _read_arrow(mapped[_CATEGORIES])
    if texts.schema.names != ["value"] or texts.schema.types != [pa.string()]:
        return None
    tables = {name: _read_arrow(mapped[name]) for name in _FRAMES}
    tables["metadata"], pairs = split_pairs(tables["metadata"])
    if pairs is not None:
        tables[PAIRS_FRAME] = pairs
    frames = decode_frames(tables, texts.column(0).combine_chunks())
    if frames is None or any(_schema_text(frames[name]) != manifest["frames"][name]["schema"] for name in _FRAMES):
        return None
    profile_frames = assemble(frames)
    if profile_frames is None:
        return None
    _touch(entry)
    return ProfileData(
        **profile_frames,  # type: ignore[arg-type]
        clock_hz=manifest["clock_hz"],
        schema_version=manifest["schema_version"],
        granularity=manifest["granularity"],
        path=path,
    )


def _read_arrow(buffer: pa.Buffer) -> pa.Table:
    """The Arrow IPC file in `buffer`, its columns slices of it (no copy)."""
    return pa.ipc.open_file(pa.BufferReader(buffer)).read_all()


def read_manifest(entry: Path) -> dict[str, Any] | None:
    """The entry's manifest if it is ours and intact: owned by us, size-capped, checksummed, type-checked."""
    try:
        fd = open_dir(entry)
        try:
            return _manifest_in(fd)
        finally:
            os.close(fd)
    except (OSError, Untrusted):
        return None


def _manifest_in(entry: int) -> dict[str, Any] | None:
    """The manifest of the entry open as `entry` (see `read_manifest`); `Untrusted` if it is not ours."""
    try:
        fd = open_file(_MANIFEST, entry)
    except FileNotFoundError:
        return None
    with open(fd, "rb") as handle:
        raw = handle.read(_MANIFEST_MAX + 1)
    return parse_manifest(raw)


def parse_manifest(raw: bytes) -> dict[str, Any] | None:
    """The body of a manifest file's bytes if they are ours and intact (see `read_manifest`)."""
    if len(raw) > _MANIFEST_MAX:
        return None
    try:
        manifest = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("digest"), str):
        return None
    body = {k: v for k, v in manifest.items() if k != "digest"}
    if manifest["digest"] != _digest(body) or not _well_formed(body):
        return None
    return body


def _well_formed(body: dict[str, Any]) -> bool:
    scalars_ok = (
        body.keys() == {"format", "key", "profile", "clock_hz", "schema_version", "granularity", "frames", _CATEGORIES}
        and body["format"] == CACHE_FORMAT
        and all(isinstance(body[k], str) for k in ("key", "profile", "granularity"))
        and all(_is_int(body[k]) and body[k] >= 0 for k in ("clock_hz", "schema_version"))
        and isinstance(body["frames"], dict)
        and body["frames"].keys() == set(_FRAMES)
    )
    return (
        scalars_ok
        and all(_well_formed_frame(body["frames"][name]) for name in _FRAMES)
        and _well_formed_file(body[_CATEGORIES])
    )


def _well_formed_file(file: Any) -> bool:
    return (
        isinstance(file, dict)
        and file.keys() == {"bytes", "xxh3_64"}
        and _is_int(file["bytes"])
        and file["bytes"] >= 0
        and isinstance(file["xxh3_64"], str)
    )


def _well_formed_frame(frame: Any) -> bool:
    if not isinstance(frame, dict) or frame.keys() != {"bytes", "xxh3_64", "schema"}:
        return False
    schema = frame["schema"]
    return (
        _is_int(frame["bytes"])
        and frame["bytes"] >= 0
        and isinstance(frame["xxh3_64"], str)
        and isinstance(schema, list)
        and all(isinstance(c, list) and len(c) == 2 and all(isinstance(s, str) for s in c) for c in schema)
    )


def _is_int(value: object) -> bool:
    return type(value) is int  # not bool


def _digest(body: dict[str, Any]) -> str:
    """Checksum of the manifest's canonical JSON: any change to a value it holds changes it."""
    return _checksum(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def _checksum(data: pa.Buffer | bytes) -> str:
    """XXH3-64 of `data` as 16 hex digits: about 30 GB/s, so verifying a 268 MB entry costs ~10 ms."""
    return xxhash.xxh3_64_hexdigest(memoryview(data))


def _map_file(entry: int, name: str, size: int) -> pa.Buffer | None:
    """File `name` of the entry, mapped read-only, or None unless it holds exactly `size` bytes.

    The mapping is of the descriptor `open_file` checked (never reopened by name), and it
    outlives the descriptor: the frames parsed from it keep it alive.
    """
    fd = open_file(name, entry)
    try:
        if os.fstat(fd).st_size != size:
            return None
        if size == 0:
            return pa.py_buffer(b"")
        return pa.py_buffer(mmap.mmap(fd, size, access=mmap.ACCESS_READ))
    finally:
        os.close(fd)


def _write_checksummed(directory: int, name: str, write: Callable[[BinaryIO], object]) -> tuple[int, str]:
    """Create file `name` (mode 0600, never over anything) in `directory`, `write(handle)` it, then return
    its size and checksum as read back from the disk."""
    hasher = xxhash.xxh3_64()
    size = 0
    with open(create_file(name, directory), "w+b") as handle:
        write(handle)
        handle.flush()
        handle.seek(0)
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
            size += len(chunk)
    return size, hasher.hexdigest()


def _touch(entry: int) -> None:
    """Mark the entry open as `entry` as used now (its directory's mtime is its last use, for eviction)."""
    with contextlib.suppress(OSError):  # a read-only cache still serves hits; so does a vanished entry
        os.utime(entry)


# --- writing an entry ------------------------------------------------------------------


def store_cached(profile: ProfileData, key: str, root: Path | None = None, limit: int | None = None) -> bool:
    """Write `profile` under `key` atomically, then evict down to `limit`; False (never an exception) if not stored.

    `limit` defaults to `cache_size_limit`; an entry larger than it is not stored. Whatever
    sits at `key` already (a stale, damaged or untrusted entry) is replaced.
    """
    if not _ENTRY_NAME.fullmatch(key):
        return False  # not a name `cache_key` makes: nothing else is an entry
    try:
        limit = cache_size_limit() if limit is None else limit
        cache = open_cache_dir(root or cache_dir(), create=True)
        if cache is None:
            return False
        with cache:
            return _store_in(cache, profile, key, limit)
    except (OSError, Untrusted, Unencodable, ValueError, MemoryError, pl.exceptions.PolarsError, pa.ArrowException):
        return False


def _write_arrow(table: pa.Table, handle: BinaryIO) -> None:
    with pa.ipc.new_file(handle, table.schema) as writer:
        writer.write_table(table)


def _store_in(cache: CacheDir, profile: ProfileData, key: str, limit: int) -> bool:
    tmp = _make_temporary(cache, key)
    renamed = False
    tmp_fd = -1
    try:
        tmp_fd = open_dir(tmp, cache.fd)
        frames: dict[str, dict[str, Any]] = {}
        stored, pairs = stored_frames(profile)
        tables, texts = encode_frames(stored if pairs is None else {**stored, PAIRS_FRAME: pairs})
        if pairs is not None:
            tables["metadata"] = embed_pairs(tables["metadata"], tables.pop(PAIRS_FRAME))
        for name in _FRAMES:
            size, checksum = _write_checksummed(tmp_fd, f"{name}.arrow", functools.partial(_write_arrow, tables[name]))
            frames[name] = {"bytes": size, "xxh3_64": checksum, "schema": _schema_text(stored[name])}
        del tables, stored
        size, checksum = _write_checksummed(
            tmp_fd, f"{_CATEGORIES}.arrow", functools.partial(_write_arrow, pa.table({"value": texts}))
        )
        body = {
            "format": CACHE_FORMAT,
            "key": key,
            "profile": str(profile.path.resolve()) if profile.path is not None else "",
            "clock_hz": int(profile.clock_hz),
            "schema_version": int(profile.schema_version),
            "granularity": str(profile.granularity),
            "frames": frames,
            _CATEGORIES: {"bytes": size, "xxh3_64": checksum},
        }
        manifest = json.dumps({**body, "digest": _digest(body)}).encode()
        if len(manifest) > _MANIFEST_MAX or not _well_formed(body):
            return False  # never write what `read_manifest` would refuse
        _write_checksummed(tmp_fd, _MANIFEST, lambda handle: handle.write(manifest))
        if sum(f["bytes"] for f in frames.values()) + size + len(manifest) > limit:
            _evict(cache, limit)
            return False
        _remove(cache, key)  # stale, damaged or not ours: replace it
        # Fails if another process has just put its (equal) entry there.
        os.rename(tmp, key, src_dir_fd=cache.fd, dst_dir_fd=cache.fd)
        renamed = True
        _touch(tmp_fd)
    finally:
        if tmp_fd >= 0:
            os.close(tmp_fd)
        if not renamed:
            with contextlib.suppress(OSError):
                remove_tree(tmp, cache.fd)
    if profile.path is not None and cache_key(profile.path) != key:
        # The file changed while we decoded or wrote: this entry can never match again.
        _remove(cache, key)
        return False
    # Entries of earlier versions of the same file can never match again: drop them.
    prefix = key.split("-", 1)[0] + "-"
    for name in _names(cache):
        if name.startswith(prefix) and name != key and _ENTRY_NAME.fullmatch(name):
            _remove(cache, name)
    _evict(cache, limit, keep=key)
    return True


def _make_temporary(cache: CacheDir, key: str) -> str:
    """A new private (0700) directory in the cache to write an entry into; returns its name."""
    while True:
        name = f"{_TEMPORARY_PREFIX}{key}-{secrets.token_hex(4)}"
        try:
            make_dir(name, cache.fd)
            return name
        except FileExistsError:
            continue


_writers: list[threading.Thread] = []


def store_in_background(
    profile: ProfileData, key: str, root: Path | None = None, limit: int | None = None
) -> threading.Thread:
    """Write the entry on a (non-daemon) thread: the caller gets its profile without waiting.

    Frames are immutable, so writing them while the caller uses them is safe; the
    interpreter waits for the write before exiting. `wait_for_writes` joins pending ones.
    """
    root = root or cache_dir()
    thread = threading.Thread(target=store_cached, args=(profile, key, root, limit), name="ipu-nb-cache-write")
    _writers[:] = [t for t in _writers if t.is_alive()]
    _writers.append(thread)
    thread.start()
    return thread


def wait_for_writes() -> None:
    """Block until every background cache write has finished (tests, benchmarks)."""
    while _writers:
        _writers.pop().join()


def _schema_text(frame: pl.DataFrame) -> list[list[str]]:
    return [[name, str(dtype)] for name, dtype in frame.schema.items()]


# --- bounding the cache ----------------------------------------------------------------

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*", re.IGNORECASE | re.ASCII)
_UNITS = {"": 1, "b": 1} | {
    unit: scale
    for power, letter in enumerate("kmgt", start=1)
    for unit, scale in ((letter, 1 << 10 * power), (f"{letter}ib", 1 << 10 * power), (f"{letter}b", 1000**power))
}


def parse_size(text: str) -> int:
    """Bytes in `text`: a plain number of bytes, or a size like ``2GiB``, ``500M``, ``1.5GB``.

    ``K``/``KiB``, ``M``/``MiB``, ``G``/``GiB`` and ``T``/``TiB`` are powers of 1024;
    ``KB``, ``MB``, ``GB`` and ``TB`` powers of 1000; case is ignored. Raises ValueError
    (one line) for anything else.
    """
    match = _SIZE.fullmatch(text)
    if match is None or match.group(2).lower() not in _UNITS:
        raise ValueError(f"invalid size {text!r}: expected a number of bytes or a size like 2GiB, 500MiB or 1.5GB")
    return int(Decimal(match.group(1)) * _UNITS[match.group(2).lower()])


class CacheSettingError(ValueError):
    """An environment setting of the cache (``$IPU_NB_CACHE_SIZE``) that cannot be used: a user error."""


def cache_size_limit() -> int:
    """The cache's size cap in bytes: ``$IPU_NB_CACHE_SIZE`` if set, else `DEFAULT_CACHE_SIZE`.

    Raises CacheSettingError (one line, naming the variable) when the variable is not a size.
    """
    configured = os.environ.get("IPU_NB_CACHE_SIZE")
    if configured is None or not configured.strip():
        return DEFAULT_CACHE_SIZE
    try:
        return parse_size(configured)
    except ValueError as exc:
        raise CacheSettingError(f"IPU_NB_CACHE_SIZE: {exc}") from None


def format_size(size: int) -> str:
    """`size` bytes for people: ``268.4 MiB``, ``4 GiB``, ``812 B``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class CacheEntry:
    """One entry on disk: its key, directory, total bytes and last use (ns since the epoch)."""

    key: str
    directory: Path
    size: int
    last_use_ns: int

    @property
    def profile(self) -> str | None:
        """The resolved profile path it was decoded from; None if the manifest is not intact."""
        manifest = read_manifest(self.directory)
        return manifest["profile"] if manifest is not None else None


def cache_entries(root: Path | None = None) -> list[CacheEntry]:
    """Every entry in the cache, most recently used first (entries vanishing meanwhile are skipped).

    OSError if the cache directory exists but cannot be read.
    """
    cache = open_cache_dir(root or cache_dir(), create=False)
    if cache is None:
        return []
    with cache:
        return _entries(cache)


def _entries(cache: CacheDir) -> list[CacheEntry]:
    entries = []
    for name in _names(cache):
        if not _ENTRY_NAME.fullmatch(name):
            continue
        try:
            last_use = os.stat(name, dir_fd=cache.fd, follow_symlinks=False)
            if not stat.S_ISDIR(last_use.st_mode):
                continue
            entry = os.open(name, DIRECTORY_FLAGS, dir_fd=cache.fd)  # listed even if not ours: eviction removes it
            try:
                with os.scandir(entry) as files:
                    size = sum(f.stat(follow_symlinks=False).st_size for f in files if f.is_file(follow_symlinks=False))
            finally:
                os.close(entry)
        except OSError:
            continue
        entries.append(CacheEntry(name, cache.path / name, size, last_use.st_mtime_ns))
    return sorted(entries, key=lambda e: e.last_use_ns, reverse=True)


def evict(root: Path, limit: int, keep: str | None = None) -> int:
    """Remove least-recently-used entries until the rest fit in `limit` bytes; returns how many.

    `keep` (the entry just written) is never evicted; temporary directories left by dead
    writers are removed too.
    """
    cache = open_cache_dir(root, create=False)
    if cache is None:
        return 0
    with cache:
        return _evict(cache, limit, keep)


def _evict(cache: CacheDir, limit: int, keep: str | None = None) -> int:
    _remove_stale_temporaries(cache)
    removed = 0
    total = 0
    for entry in _entries(cache):
        total += entry.size
        if total > limit and entry.key != keep:
            if _remove(cache, entry.key):
                removed += 1
            total -= entry.size
    return removed


class CacheClearError(Exception):
    """Some entries could not be removed (a read-only cache): how many were, and the first failure, in one line."""

    def __init__(self, removed: int, freed: int, failed: int, path: Path, reason: str) -> None:
        noun = "entry" if failed == 1 else "entries"
        super().__init__(
            f"could not remove {failed} cache {noun} ({path}: {reason}); removed {removed} ({format_size(freed)})"
        )
        self.removed, self.freed, self.failed, self.path = removed, freed, failed, path


def clear_cache(root: Path | None = None, profile: Path | None = None) -> tuple[int, int]:
    """Remove every entry, or only those of `profile` (by its resolved path); returns (entries, bytes).

    Raises CacheClearError if any entry could not be removed, after trying every one.
    """
    cache = open_cache_dir(root or cache_dir(), create=False)
    if cache is None:
        return 0, 0
    prefix = path_tag(profile) + "-" if profile is not None else ""
    removed = freed = failed = 0
    failure: tuple[Path, str] | None = None
    with cache:
        for entry in _entries(cache):
            if not entry.key.startswith(prefix):
                continue
            try:
                if _remove(cache, entry.key, strict=True):
                    removed += 1
                    freed += entry.size
            except OSError as exc:
                failed += 1
                failure = failure or (entry.directory, exc.strerror or str(exc))
        if profile is None:
            _remove_stale_temporaries(cache)
    if failure is not None:
        raise CacheClearError(removed, freed, failed, *failure)
    return removed, freed


def _names(cache: CacheDir) -> list[str]:
    with os.scandir(cache.fd) as children:
        return [child.name for child in children]


def _remove_stale_temporaries(cache: CacheDir) -> None:
    """Remove writers' temporary and half-removed directories (dot-names) older than an hour."""
    now = time.time_ns()
    for name in _names(cache):
        if name.startswith((_TEMPORARY_PREFIX, TRASH_PREFIX)):
            try:
                if now - os.stat(name, dir_fd=cache.fd, follow_symlinks=False).st_mtime_ns >= _STALE_TEMPORARY_NS:
                    remove_tree(name, cache.fd)
            except OSError:
                continue


def _remove(cache: CacheDir, name: str, *, strict: bool = False) -> bool:
    """Delete entry `name` by renaming it out of the way first: readers see all of it or none (`discard`)."""
    return discard(name, cache.fd, strict=strict)
