"""The Arrow IPC frame cache: keyed by file identity and content, atomic, and never fatal."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles

import ipu_nb._load as load
from ipu_nb._load import _cache, open_profile
from ipu_nb._load._cache import cache_key, load_cached, store_cached, wait_for_writes
from ipu_nb._profile import Profile
from ipu_nb._write import write_columns

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


def write(path: Path, operation: str = "op", tiles: int = 3) -> Path:
    columns = columns_from_tiles(
        [
            T(t, [S(i, i + t, "compute", operation, "k", metadata=[("active", "false")]) for i in range(5)])
            for t in range(tiles)
        ]
        + [T(99, [S(1, 2, "idle", activities=[("send", 1, 2)])])],
        schema_version=4,
    )
    return write_columns(columns, path)


def assert_same(a: Profile, b: Profile) -> None:
    for name in FRAMES:
        assert getattr(a, name).schema == getattr(b, name).schema, name
        assert getattr(a, name).equals(getattr(b, name)), name
    assert (a.clock_hz, a.schema_version, a.granularity, a.path) == (
        b.clock_hz,
        b.schema_version,
        b.granularity,
        b.path,
    )


@pytest.fixture(autouse=True)
def join_writers() -> Iterator[None]:
    yield
    wait_for_writes()


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("IPU_NB_CACHE", str(root))
    return root


def entries(root: Path) -> list[Path]:
    wait_for_writes()
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.exists() else []


def forbid_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> Profile:
        raise AssertionError("decoded although a cache entry should have been used")

    monkeypatch.setattr(load, "_decode", refuse)


def test_cache_dir_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("IPU_NB_CACHE", raising=False)
    assert _cache.cache_dir() == Path.home() / ".cache" / "ipu-nb" / "frames"
    monkeypatch.setenv("IPU_NB_CACHE", str(tmp_path))
    assert _cache.cache_dir() == tmp_path


def test_reopen_uses_the_cache_and_gives_identical_frames(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    first = open_profile(path)
    assert len(entries(cache_root)) == 1
    assert not [p for p in cache_root.iterdir() if p.name.startswith(".")], "no temporary directory left behind"
    forbid_decoding(monkeypatch)
    again = open_profile(path)
    assert_same(first, again)
    assert again.samples.get_column("inactive").sum() == 15  # the idle sample is not a compute sample
    assert again.exchange_activities.height == 1
    assert_same(again, open_profile(str(path)))


def test_cache_false_bypasses_reading_and_writing(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    open_profile(path, cache=False)
    assert entries(cache_root) == []
    open_profile(path)
    monkeypatch.setattr(_cache, "load_cached", lambda *a, **k: pytest.fail("cache read with cache=False"))
    assert open_profile(path, cache=False).sample_count == 16


def test_key_tracks_size_mtime_and_content(tmp_path: Path) -> None:
    path = write(tmp_path / "p.capnp")
    key = cache_key(path)
    assert cache_key(path) == key
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(path) != key
    key = cache_key(path)
    data = bytearray(path.read_bytes())
    data[-10] ^= 1  # same size; mtime restored: only the content hash can see it
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(path) != key
    copy = tmp_path / "copy.capnp"
    copy.write_bytes(path.read_bytes())
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(copy) != cache_key(path), "the path is part of the key"


def test_key_samples_large_files(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    size = 3 * (1 << 20) + 64 * (1 << 16) + 12345
    path.write_bytes(bytes(size))
    stat = path.stat()
    key = cache_key(path)
    with open(path, "r+b") as handle:  # inside the first MiB: sampled
        handle.seek(100)
        handle.write(b"x")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache_key(path) != key


def test_modified_file_is_decoded_again(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp", operation="before")
    assert open_profile(path).samples.get_column("operation")[0] == "before"
    stat = path.stat()
    write(path, operation="after!")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert open_profile(path).samples.get_column("operation")[0] == "after!"
    assert [e.name for e in entries(cache_root)] == [cache_key(path)], "the stale entry was dropped"
    other = write(tmp_path / "other.capnp")
    open_profile(other)
    assert len(entries(cache_root)) == 2, "another file's entry is kept"


@pytest.mark.parametrize("damage", ["truncate-arrow", "garbage-json", "missing-frame", "wrong-schema", "old-format"])
def test_corrupt_entry_is_ignored_and_rewritten(tmp_path: Path, cache_root: Path, damage: str) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    open_profile(path)
    (entry,) = entries(cache_root)
    if damage == "truncate-arrow":
        arrow = entry / "metadata.arrow"
        arrow.write_bytes(arrow.read_bytes()[:100])
    elif damage == "garbage-json":
        (entry / "profile.json").write_text("{not json")
    elif damage == "missing-frame":
        (entry / "tiles.arrow").unlink()
    elif damage == "wrong-schema":
        scalars = json.loads((entry / "profile.json").read_text())
        scalars["schemas"]["samples"][0][1] = "Int8"
        (entry / "profile.json").write_text(json.dumps(scalars))
    else:
        scalars = json.loads((entry / "profile.json").read_text())
        scalars["format"] = -1
        (entry / "profile.json").write_text(json.dumps(scalars))
    assert load_cached(path, entry.name, cache_root) is None
    assert_same(open_profile(path), fresh)
    wait_for_writes()
    cached = load_cached(path, entry.name, cache_root)
    assert cached is not None, "the entry was rewritten"
    assert_same(cached, fresh)


def test_unwritable_cache_never_fails_the_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "p.capnp")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("IPU_NB_CACHE", str(blocker / "cache"))  # mkdir fails: parent is a file
    assert open_profile(path).sample_count == 16
    assert store_cached(open_profile(path, cache=False), "k", blocker / "cache") is False


def test_write_failure_midway_leaves_nothing(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    import polars as pl

    def full_disk(self: pl.DataFrame, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_ipc", full_disk)
    assert open_profile(path).sample_count == 16
    wait_for_writes()
    assert list(cache_root.iterdir()) == []


def test_a_late_write_of_an_old_version_keeps_the_new_entry(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp", operation="before")
    old = open_profile(path, cache=False)
    old_key = cache_key(path)
    stat = path.stat()
    write(path, operation="after!")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    open_profile(path)
    wait_for_writes()
    new_key = cache_key(path)
    assert store_cached(old, old_key) is False, "an entry for a version the file no longer has"
    assert [e.name for e in entries(cache_root)] == [new_key]
