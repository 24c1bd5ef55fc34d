"""Decoded frames cached as Arrow IPC, so reopening a profile is near-instant.

An entry is a directory named by `cache_key` (the profile's identity and a content
sample); it holds one Arrow IPC file per frame and ``profile.json``, a small manifest
with the scalars, every file's size and XXH3-64 checksum, and a checksum of its own.
Entries are untrusted on the way back in: the manifest is size-capped and type-checked,
every byte of every file is read into memory and checked against its checksums before
anything parses it, and any mismatch means "no entry" (the caller decodes the profile
again and replaces it), never a wrong frame or a crash. Nothing stays memory-mapped, so
a cache file truncated or deleted under a live `Profile` cannot hurt it.

Writes happen on a background thread (the first open does not wait for them) into a
temporary directory that is renamed into place, so a reader never sees half an entry;
failing to write (read-only directory, full disk) never fails the load. The cache is
bounded: after each write, least-recently-used entries (a hit touches its entry) are
evicted until the total fits `cache_size_limit` (``$IPU_NB_CACHE_SIZE``, default 4 GiB).
Entries are removed by renaming them out of the way first, so concurrent processes
reading, writing or evicting the same cache only ever see whole entries or none.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import xxhash

from .._model.profile import Profile

__all__ = [
    "CACHE_FORMAT",
    "DEFAULT_CACHE_SIZE",
    "CacheEntry",
    "CacheSettingError",
    "cache_dir",
    "cache_entries",
    "cache_key",
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
CACHE_FORMAT = 2
#: The size cap when ``$IPU_NB_CACHE_SIZE`` is unset: about 15 full-size (1.2M-sample) profiles.
DEFAULT_CACHE_SIZE = 4 << 30
_FRAMES = ("samples", "metadata", "exchange_activities", "tiles")
_MANIFEST = "profile.json"
_MANIFEST_MAX = 64 << 10  # ours are about 3 KB; anything larger is not ours
_CHUNK = 8 << 20  # read size when checksumming a file just written
_BLOCK = 1 << 16
_SAMPLED_BLOCKS = 64
_EDGE = 1 << 20
_STALE_TEMPORARY_NS = 3600 * 10**9  # a writer's temporary directory this old belongs to a dead process


def cache_dir() -> Path:
    """``$IPU_NB_CACHE`` if set, else ``~/.cache/ipu-nb/frames``."""
    configured = os.environ.get("IPU_NB_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "ipu-nb" / "frames"


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
    with open(path, "rb") as handle:
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


def load_cached(path: Path, key: str, root: Path | None = None) -> Profile | None:
    """The cached profile for `key`, or None when absent, stale, damaged or unreadable.

    Every file of the entry is verified against the manifest's checksums before it is
    parsed; a hit marks the entry as recently used.
    """
    entry = (root or cache_dir()) / key
    try:
        manifest = read_manifest(entry)
        if manifest is None or manifest["key"] != key:
            return None
        buffers = {}
        for name in _FRAMES:
            buffer = _read_file(entry / f"{name}.arrow", manifest["frames"][name]["bytes"])
            if buffer is None or _checksum(buffer) != manifest["frames"][name]["xxh3_64"]:
                return None
            buffers[name] = buffer
        frames = {}
        for name in _FRAMES:
            frame = pl.from_arrow(pa.ipc.open_file(pa.BufferReader(buffers[name])).read_all())
            if not isinstance(frame, pl.DataFrame) or _schema_text(frame) != manifest["frames"][name]["schema"]:
                return None
            frames[name] = frame
    except (OSError, ValueError, TypeError, pa.ArrowException, pl.exceptions.PolarsError, MemoryError):
        return None
    except pl.exceptions.PanicException:  # a BaseException: no entry, however damaged, may let one escape
        return None
    _touch(entry)
    return Profile(
        **frames,
        clock_hz=manifest["clock_hz"],
        schema_version=manifest["schema_version"],
        granularity=manifest["granularity"],
        path=path,
    )


def read_manifest(entry: Path) -> dict[str, Any] | None:
    """The entry's manifest if it is ours and intact: size-capped, checksummed, type-checked."""
    try:
        with open(entry / _MANIFEST, "rb") as handle:
            raw = handle.read(_MANIFEST_MAX + 1)
    except OSError:
        return None
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
        body.keys() == {"format", "key", "profile", "clock_hz", "schema_version", "granularity", "frames"}
        and body["format"] == CACHE_FORMAT
        and all(isinstance(body[k], str) for k in ("key", "profile", "granularity"))
        and all(_is_int(body[k]) and body[k] >= 0 for k in ("clock_hz", "schema_version"))
        and isinstance(body["frames"], dict)
        and body["frames"].keys() == set(_FRAMES)
    )
    return scalars_ok and all(_well_formed_frame(body["frames"][name]) for name in _FRAMES)


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


def _read_file(path: Path, size: int) -> pa.Buffer | None:
    """The file's bytes in (Arrow-aligned) memory, or None unless it holds exactly `size` bytes."""
    with open(path, "rb", buffering=0) as handle:
        if os.fstat(handle.fileno()).st_size != size:
            return None  # checked before allocating: never more memory than the file holds
        buffer = pa.allocate_buffer(size)
        view = memoryview(buffer)
        done = 0
        while done < size:
            count = handle.readinto(view[done:])
            if not count:
                return None  # truncated while we read it
            done += count
        return buffer if not handle.read(1) else None


def _file_checksum(path: Path) -> tuple[int, str]:
    """The file's size and checksum, read back from the disk as written."""
    hasher = xxhash.xxh3_64()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
            size += len(chunk)
    return size, hasher.hexdigest()


def _touch(entry: Path) -> None:
    """Mark the entry as used now (its directory's mtime is its last use, for eviction)."""
    with contextlib.suppress(OSError):  # a read-only cache still serves hits; so does a vanished entry
        os.utime(entry)


# --- writing an entry ------------------------------------------------------------------


def store_cached(profile: Profile, key: str, root: Path | None = None, limit: int | None = None) -> bool:
    """Write `profile` under `key` atomically, then evict down to `limit`; False (never an exception) if not stored.

    `limit` defaults to `cache_size_limit`; an entry larger than it is not stored.
    """
    root = root or cache_dir()
    tmp: Path | None = None
    try:
        limit = cache_size_limit() if limit is None else limit
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".tmp-{key}-"))
        frames: dict[str, dict[str, Any]] = {}
        for name in _FRAMES:
            frame: pl.DataFrame = getattr(profile, name)
            file = tmp / f"{name}.arrow"
            frame.write_ipc(file, compression="uncompressed")
            size, checksum = _file_checksum(file)
            frames[name] = {"bytes": size, "xxh3_64": checksum, "schema": _schema_text(frame)}
        body = {
            "format": CACHE_FORMAT,
            "key": key,
            "profile": str(profile.path.resolve()) if profile.path is not None else "",
            "clock_hz": int(profile.clock_hz),
            "schema_version": int(profile.schema_version),
            "granularity": str(profile.granularity),
            "frames": frames,
        }
        manifest = json.dumps({**body, "digest": _digest(body)}).encode()
        if len(manifest) > _MANIFEST_MAX or not _well_formed(body):
            return False  # never write what `read_manifest` would refuse
        (tmp / _MANIFEST).write_bytes(manifest)
        if sum(f["bytes"] for f in frames.values()) + len(manifest) > limit:
            evict(root, limit)
            return False
        entry = root / key
        _remove(entry)  # stale or damaged: replace it
        os.rename(tmp, entry)  # fails if another process has just put its (equal) entry there
        tmp = None
        _touch(entry)
        if profile.path is not None and cache_key(profile.path) != key:
            # The file changed while we decoded or wrote: this entry can never match again.
            _remove(entry)
            return False
        # Entries of earlier versions of the same file can never match again: drop them.
        for old in root.glob(key.split("-", 1)[0] + "-*"):
            if old.name != key:
                _remove(old)
        evict(root, limit, keep=key)
        return True
    except (OSError, ValueError, MemoryError, pl.exceptions.PolarsError):
        return False
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


_writers: list[threading.Thread] = []


def store_in_background(
    profile: Profile, key: str, root: Path | None = None, limit: int | None = None
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
    """Every entry in the cache, most recently used first (entries vanishing meanwhile are skipped)."""
    root = root or cache_dir()
    entries = []
    for directory in _children(root):
        if directory.name.startswith("."):
            continue
        try:
            last_use = directory.stat().st_mtime_ns
            size = sum(file.stat().st_size for file in os.scandir(directory) if file.is_file(follow_symlinks=False))
        except OSError:
            continue
        entries.append(CacheEntry(directory.name, directory, size, last_use))
    return sorted(entries, key=lambda e: e.last_use_ns, reverse=True)


def evict(root: Path, limit: int, keep: str | None = None) -> int:
    """Remove least-recently-used entries until the rest fit in `limit` bytes; returns how many.

    `keep` (the entry just written) is never evicted; temporary directories left by dead
    writers are removed too.
    """
    _remove_stale_temporaries(root)
    removed = 0
    total = 0
    for entry in cache_entries(root):
        total += entry.size
        if total > limit and entry.key != keep:
            if _remove(entry.directory):
                removed += 1
            total -= entry.size
    return removed


def clear_cache(root: Path | None = None, profile: Path | None = None) -> tuple[int, int]:
    """Remove every entry, or only those of `profile` (by its resolved path); returns (entries, bytes)."""
    root = root or cache_dir()
    prefix = path_tag(profile) + "-" if profile is not None else ""
    removed = freed = 0
    for entry in cache_entries(root):
        if entry.key.startswith(prefix) and _remove(entry.directory):
            removed += 1
            freed += entry.size
    if profile is None:
        _remove_stale_temporaries(root)
    return removed, freed


def _children(root: Path) -> Iterator[Path]:
    try:
        yield from (Path(child.path) for child in os.scandir(root) if child.is_dir(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return


def _remove_stale_temporaries(root: Path) -> None:
    """Remove writers' temporary and half-removed directories (dot-names) older than an hour."""
    now = time.time_ns()
    for child in _children(root):
        if child.name.startswith("."):
            try:
                if now - child.stat().st_mtime_ns >= _STALE_TEMPORARY_NS:
                    shutil.rmtree(child, ignore_errors=True)
            except OSError:
                continue


def _remove(directory: Path) -> bool:
    """Delete an entry by renaming it out of the way first: readers see all of it or none."""
    trash = directory.with_name(f".trash-{directory.name}-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.rename(directory, trash)
    except OSError:
        return False  # gone already (another process evicted it), or not ours to remove
    if trash.is_dir() and not trash.is_symlink():
        shutil.rmtree(trash, ignore_errors=True)
    else:  # something that is not an entry sat where one belongs
        with contextlib.suppress(OSError):
            trash.unlink()
    return True
