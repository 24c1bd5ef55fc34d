"""The Arrow IPC frame cache: keyed by file identity and content, verified, bounded, atomic, never fatal.

Every damaged entry here is made by the test from a real one (no committed blobs); the
reference is always a fresh decode of the profile with ``cache=False``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import S, T, columns_from_tiles

import ipu_nb._load as load
from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _cache, _private, open_profile
from ipu_nb._load._cache import (
    cache_entries,
    cache_key,
    cache_size_limit,
    load_cached,
    parse_manifest,
    parse_size,
    read_manifest,
    sampled_ranges,
    store_cached,
    wait_for_writes,
)
from ipu_nb._model.profile import ProfileData

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")
FILES = (*(f"{name}.arrow" for name in FRAMES), "categories.arrow", "profile.json")
FUZZ_CASES = int(os.environ.get("IPU_NB_CACHE_FUZZ_CASES", "300"))


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


def write_large(path: Path, tiles: int = 20, pad: int = 4096) -> Path:
    """A profile over 6 MiB (so its key samples the content), nearly all of it operation text."""
    columns = columns_from_tiles(
        [T(t, [S(i, i + 1, operation=f"op{t:03d}.{i:03d}" + "x" * pad) for i in range(100)]) for t in range(tiles)]
    )
    write_columns(columns, path)
    assert path.stat().st_size > 7 << 20
    return path


def assert_same(a: ProfileData, b: ProfileData) -> None:
    for name in FRAMES:
        assert getattr(a, name).schema == getattr(b, name).schema, name
        assert getattr(a, name).equals(getattr(b, name)), name
    assert (a.clock_hz, a.schema_version, a.granularity, a.path) == (
        b.clock_hz,
        b.schema_version,
        b.granularity,
        b.path,
    )


def later() -> None:
    """Let the file system's timestamp clock tick (coarse on kernels before 6.13)."""
    time.sleep(0.02)


@pytest.fixture(autouse=True)
def join_writers() -> Iterator[None]:
    yield
    wait_for_writes()


def entries(root: Path) -> list[Path]:
    wait_for_writes()
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.exists() else []


def cached_entry(path: Path, root: Path) -> Path:
    """Open `path` so that its entry is written; returns the entry directory."""
    open_profile(path)
    wait_for_writes()
    entry = root / cache_key(path)
    assert entry.is_dir()
    return entry


def forbid_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> ProfileData:
        raise AssertionError("decoded although a cache entry should have been used")

    monkeypatch.setattr(load, "_decode", refuse)


def rewrite_manifest(entry: Path, change: Callable[[dict[str, Any]], object]) -> None:
    """Apply `change` to the manifest's body, stored with a correct checksum: only the type checks can refuse it."""
    body = json.loads((entry / "profile.json").read_text())
    del body["digest"]
    change(body)
    (entry / "profile.json").write_text(json.dumps({**body, "digest": _cache._digest(body)}))


def flip(file: Path, position: int, mask: int = 0x5A) -> None:
    data = bytearray(file.read_bytes())
    data[position] ^= mask
    file.write_bytes(bytes(data))


def assert_replaced(path: Path, entry: Path, fresh: ProfileData) -> None:
    """The damaged entry has been rewritten and now serves the fresh frames."""
    wait_for_writes()
    cached = load_cached(path, entry.name, entry.parent)
    assert cached is not None, "the damaged entry was replaced"
    assert_same(cached, fresh)


# --- the basics --------------------------------------------------------------------------


def test_cache_dir_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("IPU_NB_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert _cache.cache_dir() == Path.home() / ".cache" / "ipu-nb" / "frames"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _cache.cache_dir() == tmp_path / "xdg" / "ipu-nb" / "frames", "the XDG base directory is honoured"
    monkeypatch.setenv("IPU_NB_CACHE", str(tmp_path))
    assert _cache.cache_dir() == tmp_path


def test_the_suite_never_uses_the_users_cache(private_frame_cache: Path) -> None:
    """tests/conftest.py points the whole run at a temporary cache (test_cli_cache checks subprocesses)."""
    assert _cache.cache_dir() == private_frame_cache != Path.home() / ".cache" / "ipu-nb" / "frames"


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


def test_a_file_name_that_is_not_utf8_is_cached_and_reopened(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / os.fsdecode(b"pro\xfffile.capnp"))
    first = open_profile(path)
    assert len(entries(cache_root)) == 1
    forbid_decoding(monkeypatch)
    assert_same(first, open_profile(path))


def test_cache_false_bypasses_reading_and_writing(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    open_profile(path, cache=False)
    assert entries(cache_root) == []
    open_profile(path)
    monkeypatch.setattr(_cache, "load_cached", lambda *a, **k: pytest.fail("cache read with cache=False"))
    assert open_profile(path, cache=False).sample_count == 16


def test_the_manifest_describes_every_file(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    entry = cached_entry(path, cache_root)
    manifest = read_manifest(entry)
    assert manifest is not None
    assert manifest["profile"] == str(path.resolve())
    assert sorted(p.name for p in entry.iterdir()) == sorted(FILES)
    for name in FRAMES:
        data = (entry / f"{name}.arrow").read_bytes()
        assert manifest["frames"][name]["bytes"] == len(data)
        assert manifest["frames"][name]["xxh3_64"] == _cache._checksum(data)


# --- the key ---------------------------------------------------------------------------


def test_key_tracks_size_mtime_and_content(tmp_path: Path) -> None:
    path = write(tmp_path / "p.capnp")
    key = cache_key(path)
    assert cache_key(path) == key
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(path) != key
    key = cache_key(path)
    data = bytearray(path.read_bytes())
    data[-10] ^= 1  # same size; mtime restored
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(path) != key
    copy = tmp_path / "copy.capnp"
    copy.write_bytes(path.read_bytes())
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert cache_key(copy) != cache_key(path), "the path is part of the key"


def test_key_sees_what_utime_cannot_restore(tmp_path: Path) -> None:
    path = write_large(tmp_path / "big.capnp")
    stat = path.stat()
    key = cache_key(path)
    later()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # a metadata change: a new st_ctime
    assert path.stat().st_mtime_ns == stat.st_mtime_ns
    assert cache_key(path) != key
    key = cache_key(path)
    replacement = tmp_path / "replacement"
    shutil.copyfile(path, replacement)
    os.utime(replacement, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(replacement, path)  # same path, bytes, size and mtime; another inode
    assert cache_key(path) != key


def test_key_samples_large_files(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    size = 3 * (1 << 20) + 64 * (1 << 16) + 12345
    path.write_bytes(bytes(size))
    ranges = sampled_ranges(size)
    assert ranges[0] == (0, 1 << 20) and ranges[-1] == (size - (1 << 20), 1 << 20) and len(ranges) == 66
    assert sum(length for _, length in ranges) < size, "large files are sampled, not read whole"
    assert sampled_ranges(6 << 20) == [(0, 6 << 20)], "files up to 6 MiB are hashed whole"
    stat = path.stat()
    key = cache_key(path)
    with open(path, "r+b") as handle:  # inside the first MiB: sampled
        handle.seek(100)
        handle.write(b"x")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache_key(path) != key


def test_in_place_edit_with_mtime_restored_is_never_stale(tmp_path: Path, cache_root: Path, decodes) -> None:
    path = write_large(tmp_path / "big.capnp")
    stat = path.stat()
    before = open_profile(path)
    wait_for_writes()
    data = bytearray(path.read_bytes())
    # An operation text byte outside every block the key samples: only st_ctime can tell.
    sampled = [range(offset, offset + length) for offset, length in sampled_ranges(len(data))]
    position = next(
        i for i in range((1 << 20) + (1 << 16), len(data)) if data[i] == ord("x") and not any(i in r for r in sampled)
    )
    data[position] = ord("y")
    later()
    with open(path, "r+b") as handle:
        handle.write(data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    after = open_profile(path)
    assert len(decodes) == 2, "the edited file was decoded again"
    assert_same(after, open_profile(path, cache=False))
    assert not after.samples.equals(before.samples)
    changed = after.samples.get_column("operation").cast(str)
    assert changed.str.contains("y").sum() == 1


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


# --- verified on open ------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("file", FILES)
def test_one_flipped_byte_is_caught_and_the_entry_replaced(
    tmp_path: Path, cache_root: Path, decodes, file: str, where: str
) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    size = (entry / file).stat().st_size
    flip(entry / file, {"first": 0, "middle": size // 2, "last": size - 1}[where])
    assert load_cached(path, entry.name, cache_root) is None
    decodes.clear()
    assert_same(open_profile(path), fresh)
    assert decodes == [path], "a damaged entry means decoding the profile again"
    assert_replaced(path, entry, fresh)


def test_every_single_byte_of_the_manifest_is_checked(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    entry = cached_entry(path, cache_root)
    pristine = (entry / "profile.json").read_bytes()
    body = read_manifest(entry)
    assert body is not None and parse_manifest(pristine) == body
    rng = random.Random(10)
    for position in range(len(pristine)):
        for mask in (1 << rng.randrange(8), rng.randrange(1, 256)):  # one bit, one random byte
            damaged = bytearray(pristine)
            damaged[position] ^= mask
            # Refused, or (a byte JSON ignores, such as one blank for another) read as the same values.
            assert parse_manifest(bytes(damaged)) in (None, body), (position, mask)


@pytest.mark.parametrize(
    "damage",
    ["truncate-arrow", "extend-arrow", "empty-arrow", "garbage-json", "missing-frame", "missing-json", "old-format"],
)
def test_damaged_entry_is_ignored_and_rewritten(tmp_path: Path, cache_root: Path, damage: str) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    arrow = entry / "metadata.arrow"
    if damage == "truncate-arrow":
        arrow.write_bytes(arrow.read_bytes()[:100])
    elif damage == "extend-arrow":
        arrow.write_bytes(arrow.read_bytes() + b"\0" * 8)
    elif damage == "empty-arrow":
        arrow.write_bytes(b"")
    elif damage == "garbage-json":
        (entry / "profile.json").write_text("{not json")
    elif damage == "missing-frame":
        (entry / "tiles.arrow").unlink()
    elif damage == "missing-json":
        (entry / "profile.json").unlink()
    else:
        rewrite_manifest(entry, lambda body: body.update(format=1))
    assert load_cached(path, entry.name, cache_root) is None
    assert_same(open_profile(path), fresh)
    assert_replaced(path, entry, fresh)


@pytest.mark.parametrize("document", ["[]", "[1, 2]", "1", "-0.5", '"profile"', "null", "true", "{}", '{"digest": 1}'])
def test_manifest_that_is_not_an_object_of_ours_is_replaced(
    tmp_path: Path, cache_root: Path, decodes, document: str
) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    (entry / "profile.json").write_text(document)
    decodes.clear()
    assert_same(open_profile(path), fresh)
    assert decodes == [path]
    assert_replaced(path, entry, fresh)
    assert_same(open_profile(path), fresh)
    assert decodes == [path], "replaced once, then used: not refused on every open"


def _set(*keys: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        target = body
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return change


def _drop(*keys: str) -> Callable[[dict[str, Any]], None]:
    def change(body: dict[str, Any]) -> None:
        target = body
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return change


WRONG_FIELDS: dict[str, Callable[[dict[str, Any]], object]] = {
    "clock_hz-str": _set("clock_hz", value="1500000000"),
    "clock_hz-float": _set("clock_hz", value=1.5e9),
    "clock_hz-bool": _set("clock_hz", value=True),
    "clock_hz-negative": _set("clock_hz", value=-1),
    "schema_version-null": _set("schema_version", value=None),
    "granularity-int": _set("granularity", value=3),
    "profile-list": _set("profile", value=["p"]),
    "key-other": _set("key", value="0000000000000000-00"),
    "format-str": _set("format", value="2"),
    "frames-list": _set("frames", value=[]),
    "frame-missing": _drop("frames", "tiles"),
    "frame-extra": _set("frames", "extra", value={"bytes": 0, "xxh3_64": "0", "schema": []}),
    "bytes-str": _set("frames", "samples", "bytes", value="10"),
    "bytes-negative": _set("frames", "samples", "bytes", value=-8),
    "bytes-huge": _set("frames", "samples", "bytes", value=1 << 60),
    "bytes-wrong": _set("frames", "metadata", "bytes", value=8),
    "checksum-int": _set("frames", "samples", "xxh3_64", value=5),
    "checksum-wrong": _set("frames", "samples", "xxh3_64", value="0123456789abcdef"),
    "schema-str": _set("frames", "tiles", "schema", value="tile_index: u32"),
    "schema-short": _set("frames", "tiles", "schema", value=[["tile_index"]]),
    "schema-other": _set("frames", "samples", "schema", value=[["sample", "Int8"]]),
    "extra-field": _set("extra", value=1),
    "missing-field": _drop("granularity"),
}


@pytest.mark.parametrize("damage", sorted(WRONG_FIELDS))
def test_every_manifest_field_is_type_checked(tmp_path: Path, cache_root: Path, damage: str) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    rewrite_manifest(entry, WRONG_FIELDS[damage])
    assert load_cached(path, entry.name, cache_root) is None
    assert_same(open_profile(path), fresh)
    assert_replaced(path, entry, fresh)


def test_oversized_manifest_is_never_read_whole(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    manifest = entry / "profile.json"
    valid = manifest.read_bytes()
    manifest.write_bytes(valid + b" " * (1 << 20))  # still valid JSON with the right checksum: only the cap refuses it
    assert json.loads(manifest.read_bytes()) == json.loads(valid)
    assert load_cached(path, entry.name, cache_root) is None
    with open(manifest, "wb") as handle:  # 64 GiB, sparse: reading it whole would exhaust the machine
        handle.write(valid)
        handle.truncate(64 << 30)
    began = time.perf_counter()
    assert load_cached(path, entry.name, cache_root) is None
    assert time.perf_counter() - began < 5
    assert_same(open_profile(path), fresh)
    assert_replaced(path, entry, fresh)


def test_deeply_nested_manifest_is_refused(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    entry = cached_entry(path, cache_root)
    (entry / "profile.json").write_text("[" * 30_000 + "]" * 30_000)
    assert load_cached(path, entry.name, cache_root) is None


def test_cache_flip_fuzz_always_gives_the_fresh_frames(tmp_path: Path, cache_root: Path, decodes) -> None:
    """Fixed-seed damage (flipped bytes, truncation, extension) of a real entry, FUZZ_CASES times."""
    path = write(tmp_path / "p.capnp", tiles=6)
    fresh = open_profile(path, cache=False)
    entry = cached_entry(path, cache_root)
    pristine = {name: (entry / name).read_bytes() for name in FILES}
    rng = random.Random(20261201)
    caught = 0
    for case in range(FUZZ_CASES):
        wait_for_writes()
        shutil.rmtree(entry, ignore_errors=True)
        entry.mkdir()
        for name, data in pristine.items():
            (entry / name).write_bytes(data)
        name = rng.choice(FILES)
        damaged = bytearray(pristine[name])
        action = rng.random()
        if action < 0.8:
            for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
                damaged[rng.randrange(len(damaged))] ^= rng.randrange(1, 256)
        elif action < 0.9:
            del damaged[rng.randrange(len(damaged)) :]
        else:
            damaged += bytes(rng.randrange(1, 64))
        (entry / name).write_bytes(bytes(damaged))
        decodes.clear()
        reopened = open_profile(path)
        assert_same(reopened, fresh)
        caught += len(decodes)
        if name != "profile.json":
            assert decodes == [path], f"case {case}: damage to {name} went unnoticed"
    assert caught >= FUZZ_CASES * 0.9


# --- a live profile's mapped files outlive the cache's own removals ------------------------

_USE_AFTER_REMOVAL = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import ipu_nb._load as load
    from ipu_nb._load import open_profile, _cache
    from ipu_nb._load._cache import cache_key

    path, action, root = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    fresh = open_profile(path, cache=False)
    load._decode = None  # this open must be a cache hit
    profile = open_profile(path)
    entry = root / cache_key(path)
    if action == "delete":
        for arrow in entry.glob("*.arrow"):
            arrow.unlink()
    elif action == "clear":
        _cache.clear_cache(root)
    elif action == "evict":
        _cache.evict(root, 0)
    else:  # another process writes the same entry again: the old one is replaced by rename
        assert _cache.store_cached(fresh, cache_key(path), root)
    assert action in ("delete", "replace") or not entry.exists()
    for name in ("samples", "metadata", "exchange_activities", "tiles"):
        frame = getattr(profile, name)
        assert frame.equals(getattr(fresh, name)), name
        frame.hash_rows().sum()  # touches every value of every column
        frame.to_arrow()
        frame.write_ipc(None)
    print("used every frame")
    """
)


@pytest.mark.parametrize("action", ["delete", "clear", "evict", "replace"])
def test_cache_entry_removed_under_a_live_profile(tmp_path: Path, cache_root: Path, action: str) -> None:
    # A reopened profile's frames are the mapped cache files: removing or replacing the entry
    # (all the package ever does to one) unlinks them, and a mapped inode keeps its bytes.
    path = write_large(tmp_path / "big.capnp")
    cached_entry(path, cache_root)
    run = subprocess.run(
        [sys.executable, "-c", _USE_AFTER_REMOVAL, str(path), action, str(cache_root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"exit {run.returncode} (SIGBUS is -7): {run.stderr[-2000:]}"
    assert run.stdout.strip() == "used every frame"


def test_entry_vanishing_while_read_is_a_miss(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    entry = cached_entry(path, cache_root)
    real = _cache._map_file

    def evicted_meanwhile(directory: int, name: str, size: int) -> object:
        if entry.exists():
            _cache.clear_cache(cache_root)  # another process evicts it between the manifest and the frames
        return real(directory, name, size)

    monkeypatch.setattr(_cache, "_map_file", evicted_meanwhile)
    assert load_cached(path, entry.name, cache_root) is None
    assert not entry.exists()


# --- bounded -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        ("1024", 1024),
        (" 4096 ", 4096),
        ("10b", 10),
        ("2GiB", 2 << 30),
        ("2gib", 2 << 30),
        ("2G", 2 << 30),
        ("2 GiB", 2 << 30),
        ("2GB", 2_000_000_000),
        ("1.5GiB", 3 << 29),
        ("500k", 500 << 10),
        ("500KB", 500_000),
        ("3 MiB", 3 << 20),
        ("1T", 1 << 40),
        ("0.5MB", 500_000),
    ],
)
def test_parse_size_accepts(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(
    "text", ["", " ", "lots", "-1", "2 GiBs", "1e9", "GiB", "1.2.3", "2PiB", "0x10", "1,000", "∞", "٣GiB", "2\u212aiB"]
)
def test_parse_size_refuses_with_one_line(text: str) -> None:
    with pytest.raises(ValueError, match="invalid size") as info:
        parse_size(text)
    assert "\n" not in str(info.value) and "2GiB" in str(info.value)


def test_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("IPU_NB_CACHE_SIZE", raising=False)
    assert cache_size_limit() == _cache.DEFAULT_CACHE_SIZE == 4 << 30
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "2GiB")
    assert cache_size_limit() == 2 << 30
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "plenty")
    with pytest.raises(ValueError, match=r"^IPU_NB_CACHE_SIZE: invalid size 'plenty'") as info:
        cache_size_limit()
    assert "\n" not in str(info.value)
    path = write(tmp_path / "p.capnp")
    with pytest.raises(ValueError, match="IPU_NB_CACHE_SIZE"):
        open_profile(path)  # reported to the caller, not lost in the writer thread
    assert open_profile(path, cache=False).sample_count == 16, "without the cache the cap does not matter"


def _open_in_order(paths: list[Path]) -> None:
    for path in paths:
        open_profile(path)
        wait_for_writes()
        later()


def test_least_recently_used_entries_are_evicted_first(
    tmp_path: Path, cache_root: Path, monkeypatch: pytest.MonkeyPatch, decodes
) -> None:
    a, b, c, d = (write(tmp_path / f"{name}.capnp", operation=name * 3) for name in "abcd")
    _open_in_order([a, b, c])
    sizes = {entry.key: entry.size for entry in cache_entries(cache_root)}
    assert len(sizes) == 3
    _open_in_order([a])  # a hit: now the most recently used
    assert decodes == [a, b, c]
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", str(3 * max(sizes.values()) + 10))
    _open_in_order([d])
    kept = [entry.key for entry in cache_entries(cache_root)]
    assert kept == [cache_key(p) for p in (d, a, c)], "b, the least recently used, went"
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", str(2 * max(sizes.values()) + 10))
    _open_in_order([b])
    assert [entry.key for entry in cache_entries(cache_root)] == [cache_key(p) for p in (b, d)]
    assert sum(entry.size for entry in cache_entries(cache_root)) <= cache_size_limit()
    decodes.clear()
    _open_in_order([b, d, a])
    assert decodes == [a], "kept entries still serve hits; the evicted one is decoded again"


def test_entry_larger_than_the_cap_is_not_stored(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    small = write(tmp_path / "small.capnp", tiles=1)
    large = write(tmp_path / "large.capnp", tiles=40)
    _open_in_order([small])
    (entry,) = cache_entries(cache_root)
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", str(entry.size + 100))
    _open_in_order([large])
    assert [e.key for e in cache_entries(cache_root)] == [entry.key], "too large for the cap: not written"
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "0")
    _open_in_order([large])
    assert cache_entries(cache_root) == [], "a zero cap keeps nothing"
    assert not [p for p in cache_root.iterdir()], "nor any temporary directory"


def test_stale_temporaries_are_cleaned_up(tmp_path: Path, cache_root: Path) -> None:
    cache_root.mkdir()
    old = cache_root / ".tmp-deadbeef-abc"
    live = cache_root / ".tmp-cafe-def"
    for directory in (old, live):
        directory.mkdir()
        (directory / "samples.arrow").write_bytes(b"x" * 100)
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    cached_entry(write(tmp_path / "p.capnp"), cache_root)
    assert not old.exists(), "a dead writer's leftovers are removed"
    assert live.exists(), "a live writer's directory is left alone"


_CONCURRENT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ipu_nb._load import open_profile
    from ipu_nb._load._cache import wait_for_writes

    paths = [Path(p) for p in sys.argv[2:]]
    fresh = {p: open_profile(p, cache=False) for p in paths}
    order = paths[int(sys.argv[1]) % len(paths):] + paths
    for round in range(4):
        for p in order:
            profile = open_profile(p)
            for name in ("samples", "metadata", "exchange_activities", "tiles"):
                assert getattr(profile, name).equals(getattr(fresh[p], name)), (p, name)
    wait_for_writes()
    print("ok")
    """
)


def test_concurrent_processes_writing_and_evicting(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    paths = [write(tmp_path / f"p{i}.capnp", operation=f"op{i}", tiles=4 + i) for i in range(5)]
    _open_in_order(paths[:1])
    (entry,) = cache_entries(cache_root)
    env = {**os.environ, "IPU_NB_CACHE": str(cache_root), "IPU_NB_CACHE_SIZE": str(int(entry.size * 2.5))}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _CONCURRENT, str(i), *map(str, paths)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err[-2000:]
        assert out.strip() == "ok"
    left = cache_entries(cache_root)
    assert 1 <= len(left) <= 3 and sum(e.size for e in left) <= int(entry.size * 2.5) + entry.size
    for e in left:
        manifest = read_manifest(e.directory)
        assert manifest is not None, "every entry left is whole"
        (path,) = [p for p in paths if str(p.resolve()) == manifest["profile"]]
        cached = load_cached(path, e.key, cache_root)
        assert cached is not None
        assert_same(cached, open_profile(path, cache=False))


# --- never fatal -------------------------------------------------------------------------


def test_unwritable_cache_never_fails_the_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path / "p.capnp")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("IPU_NB_CACHE", str(blocker / "cache"))  # mkdir fails: parent is a file
    assert open_profile(path).sample_count == 16
    assert store_cached(open_profile(path, cache=False), "k", blocker / "cache") is False


def test_a_file_where_an_entry_belongs_is_replaced(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    fresh = open_profile(path, cache=False)
    cache_root.mkdir()
    squatter = cache_root / cache_key(path)
    squatter.write_text("not an entry")
    monkeypatch.setattr(_private, "_warned", set())  # as in a new process
    with pytest.warns(_cache.CacheWarning, match="it is not a directory"):
        assert load_cached(path, squatter.name, cache_root) is None
    assert_same(open_profile(path), fresh)
    assert_replaced(path, squatter, fresh)
    assert [p.name for p in cache_root.iterdir()] == [squatter.name], "nothing left over"


def test_read_only_cache_still_serves_hits(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    cached_entry(path, cache_root)

    def read_only(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(os, "utime", read_only)
    forbid_decoding(monkeypatch)
    assert open_profile(path).sample_count == 16


def test_write_failure_midway_leaves_nothing(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_cache, "_write_arrow", full_disk)
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
