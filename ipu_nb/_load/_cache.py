"""Decoded frames cached as Arrow IPC, so reopening a profile is near-instant.

An entry is a directory named by a key over the file's identity and a content
fingerprint (see `cache_key`); it holds one Arrow IPC file per frame plus a small
JSON of scalars, written (on a background thread, so the first open does not wait for
it) into a temporary directory and renamed into place, so a reader never sees half an
entry. A stale, corrupt or unreadable entry is ignored
(and rewritten); failing to write one (read-only directory, full disk) never fails
the load.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

import polars as pl
import pyarrow as pa

from .._profile import Profile

__all__ = [
    "CACHE_FORMAT",
    "cache_dir",
    "cache_key",
    "load_cached",
    "store_cached",
    "store_in_background",
    "wait_for_writes",
]

#: Bump when the frames' layout or the decoder's output changes: old entries stop matching.
CACHE_FORMAT = 1
_FRAMES = ("samples", "metadata", "exchange_activities", "tiles")
_BLOCK = 1 << 16
_SAMPLED_BLOCKS = 64
_EDGE = 1 << 20


def cache_dir() -> Path:
    """``$IPU_NB_CACHE`` if set, else ``~/.cache/ipu-nb/frames``."""
    configured = os.environ.get("IPU_NB_CACHE")
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "ipu-nb" / "frames"


def cache_key(path: Path) -> str:
    """Key of a profile file: its resolved path, size, mtime and a sampled content hash.

    The content hash is BLAKE2b over the first and last MiB and 64 evenly spaced 64 KiB
    blocks (about 6 MB read, a few ms, whatever the file size). What the key guarantees:
    any change of size or mtime, and any change inside a sampled block, selects a new
    entry. What it does not: a same-size edit outside the sampled blocks whose mtime was
    deliberately restored. Profiles are written once by the runtime, so that is the
    trade made for a near-instant reopen; pass ``cache=False`` to bypass it.
    """
    stat = path.stat()
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{CACHE_FORMAT}\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    size = stat.st_size
    with open(path, "rb") as handle:
        if size <= 2 * _EDGE + _SAMPLED_BLOCKS * _BLOCK:
            digest.update(handle.read(size))
        else:
            offsets = [0, size - _EDGE]
            stride = (size - 2 * _EDGE) // _SAMPLED_BLOCKS
            offsets += [_EDGE + i * stride for i in range(_SAMPLED_BLOCKS)]
            for offset in offsets:
                handle.seek(offset)
                digest.update(handle.read(_EDGE if offset in (0, size - _EDGE) else _BLOCK))
    return f"{_path_tag(path)}-{digest.hexdigest()}"


def _path_tag(path: Path) -> str:
    """Key prefix shared by every entry of one file path (older entries of a rewritten file)."""
    return hashlib.blake2b(str(path.resolve()).encode(), digest_size=8).hexdigest()


def load_cached(path: Path, key: str, root: Path | None = None) -> Profile | None:
    """The cached profile for `key`, or None when absent, stale or unreadable."""
    entry = (root or cache_dir()) / key
    if not entry.is_dir():
        return None
    try:
        scalars = json.loads((entry / "profile.json").read_text())
        if scalars.get("format") != CACHE_FORMAT or scalars.get("key") != key:
            return None
        frames = {}
        for name in _FRAMES:
            table = pa.ipc.open_file(pa.memory_map(str(entry / f"{name}.arrow"))).read_all()
            frame = pl.from_arrow(table)
            if not isinstance(frame, pl.DataFrame) or _schema_text(frame) != scalars["schemas"][name]:
                return None
            frames[name] = frame
        return Profile(
            **frames,
            clock_hz=int(scalars["clock_hz"]),
            schema_version=int(scalars["schema_version"]),
            granularity=str(scalars["granularity"]),
            path=path,
        )
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException, pl.exceptions.PolarsError):
        return None


def store_cached(profile: Profile, key: str, root: Path | None = None) -> bool:
    """Write `profile` under `key` atomically; False (never an exception) if that fails."""
    root = root or cache_dir()
    tmp: str | None = None
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=root, prefix=f".{key}.")
        schemas = {}
        for name in _FRAMES:
            frame: pl.DataFrame = getattr(profile, name)
            frame.write_ipc(Path(tmp) / f"{name}.arrow", compression="uncompressed")
            schemas[name] = _schema_text(frame)
        scalars = {
            "format": CACHE_FORMAT,
            "key": key,
            "clock_hz": profile.clock_hz,
            "schema_version": profile.schema_version,
            "granularity": profile.granularity,
            "schemas": schemas,
        }
        (Path(tmp) / "profile.json").write_text(json.dumps(scalars))
        entry = root / key
        if entry.exists():  # stale or corrupt: replace it
            shutil.rmtree(entry, ignore_errors=True)
        os.rename(tmp, entry)
        tmp = None
        if profile.path is not None and cache_key(profile.path) != key:
            # The file changed while we decoded or wrote: this entry can never match again.
            shutil.rmtree(entry, ignore_errors=True)
            return False
        # Entries of earlier versions of the same file can never match again: drop them.
        prefix = key.split("-", 1)[0] + "-"
        for old in root.glob(prefix + "*"):
            if old.name != key:
                shutil.rmtree(old, ignore_errors=True)
        return True
    except (OSError, pl.exceptions.PolarsError):
        return False
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


_writers: list[threading.Thread] = []


def store_in_background(profile: Profile, key: str, root: Path | None = None) -> threading.Thread:
    """Write the entry on a (non-daemon) thread: the caller gets its profile without waiting.

    Frames are immutable, so writing them while the caller uses them is safe; the
    interpreter waits for the write before exiting. `wait_for_writes` joins pending ones.
    """
    root = root or cache_dir()
    thread = threading.Thread(target=store_cached, args=(profile, key, root), name="ipu-nb-cache-write")
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
