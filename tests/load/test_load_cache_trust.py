"""The frame cache serves only the user's own entries: never another user's, a symbolic link, or a shared folder's.

Each hostile entry is a forgery made in the test: a whole, correctly checksummed entry for
the profile whose durations are ten times the truth (valid where it was written, so serving
it would be a silent wrong answer), then planted another user's way. The reference is a
fresh decode with ``cache=False``. Tests that give a file to another user run only as root.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from builders import S, T, columns_from_tiles

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _private, open_profile
from ipu_nb._load._cache import (
    CacheWarning,
    cache_entries,
    cache_key,
    cache_location,
    clear_cache,
    load_cached,
    store_cached,
    wait_for_writes,
)
from ipu_nb._model.profile import ProfileData

FILES = (
    "samples.arrow",
    "metadata.arrow",
    "exchange_activities.arrow",
    "tiles.arrow",
    "categories.arrow",
    "profile.json",
)
NOBODY = 65534
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="giving a file to another user (chown) takes root; run the suite as root to cover it"
)


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts as a new process would: no cause warned about yet."""
    monkeypatch.setattr(_private, "_warned", set())
    yield
    wait_for_writes()


def write(path: Path, tiles: int = 3) -> Path:
    return write_columns(columns_from_tiles([T(t, [S(i, i + 1 + t) for i in range(4)]) for t in range(tiles)]), path)


def durations(profile: ProfileData) -> list[int]:
    return profile.samples.get_column("duration").to_list()


def forge(path: Path, elsewhere: Path) -> Path:
    """A valid entry for `path` under `elsewhere` whose durations are ten times the file's; returns its directory."""
    fresh = open_profile(path, cache=False)
    forged = dataclasses.replace(fresh, samples=fresh.samples.with_columns(pl.col("duration") * 10))
    key = cache_key(path)
    assert store_cached(forged, key, elsewhere)
    served = load_cached(path, key, elsewhere)
    assert served is not None and durations(served) == [10 * d for d in durations(fresh)], "a working forgery"
    return elsewhere / key


def assert_mine(entry: Path) -> None:
    """`entry` is a real directory of ours (0700) holding only regular files of ours (0600)."""
    for item in (entry, *(entry / name for name in FILES)):
        st = item.lstat()
        assert st.st_uid == os.getuid(), item
        assert not stat.S_ISLNK(st.st_mode), item
    assert stat.S_IMODE(entry.lstat().st_mode) == 0o700
    assert {stat.S_IMODE((entry / name).lstat().st_mode) for name in FILES} == {0o600}


def assert_refused_then_replaced(path: Path, root: Path, decodes: list[Path], match: str) -> None:
    """Opening `path` decodes it (one warning matching `match`), and the rewrite serves the truth after."""
    truth = durations(open_profile(path, cache=False))
    decodes.clear()
    with pytest.warns(CacheWarning, match=match):
        assert durations(open_profile(path)) == truth
    assert decodes == [path], "the planted entry was not used"
    wait_for_writes()
    entry = cache_location(root) / cache_key(path)
    assert_mine(entry)
    assert durations(open_profile(path)) == truth
    assert decodes == [path], "the replacement is a hit"


def chown_tree(top: Path, uid: int) -> None:
    for directory, _, files in os.walk(top):
        os.chown(directory, uid, uid)
        for name in files:
            os.chown(os.path.join(directory, name), uid, uid)


# --- entries ---------------------------------------------------------------------------


@needs_root
@pytest.mark.parametrize("owned", ["entry", *FILES])
def test_another_users_entry_or_file_is_ignored_and_replaced(
    tmp_path: Path, cache_root: Path, decodes: list[Path], owned: str
) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")
    cache_root.mkdir(mode=0o700)
    planted = cache_root / forged.name
    shutil.copytree(forged, planted)
    if owned == "entry":
        chown_tree(planted, NOBODY)
    else:
        os.chown(planted / owned, NOBODY, NOBODY)
    who = "it" if owned == "entry" else owned
    assert_refused_then_replaced(path, cache_root, decodes, rf"{who} is owned by another user \(uid {NOBODY}\)")


@pytest.mark.parametrize("linked", ["entry", *FILES])
def test_a_symbolic_link_for_an_entry_or_file_is_ignored_and_replaced(
    tmp_path: Path, cache_root: Path, decodes: list[Path], linked: str
) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")
    cache_root.mkdir(mode=0o700)
    entry = cache_root / forged.name
    if linked == "entry":
        entry.symlink_to(forged, target_is_directory=True)
    else:
        shutil.copytree(forged, entry)
        (entry / linked).unlink()
        (entry / linked).symlink_to(forged / linked)
    who = "it" if linked == "entry" else linked
    assert_refused_then_replaced(path, cache_root, decodes, f"{who} is a symbolic link")
    assert load_cached(path, forged.name, forged.parent) is not None, "the link's target is left alone"


@pytest.mark.parametrize("file", ["samples.arrow", "profile.json"])
def test_a_fifo_where_a_file_belongs_is_refused_without_hanging(
    tmp_path: Path, cache_root: Path, decodes: list[Path], file: str
) -> None:
    path = write(tmp_path / "p.capnp")
    open_profile(path)
    wait_for_writes()
    entry = cache_root / cache_key(path)
    (entry / file).unlink()
    os.mkfifo(entry / file)  # opening it for reading would wait for a writer forever
    assert_refused_then_replaced(path, cache_root, decodes, f"{file} is not a regular file")


@pytest.mark.parametrize(
    ("item", "mode"), [("entry", 0o777), ("entry", 0o720), ("samples.arrow", 0o666)], ids=["777", "720", "file-666"]
)
def test_an_entry_others_can_write_is_refused(
    tmp_path: Path, cache_root: Path, decodes: list[Path], item: str, mode: int
) -> None:
    path = write(tmp_path / "p.capnp")
    open_profile(path)
    wait_for_writes()
    entry = cache_root / cache_key(path)
    (entry if item == "entry" else entry / item).chmod(mode)
    who = "it" if item == "entry" else item
    assert_refused_then_replaced(path, cache_root, decodes, f"{who} is writable by other users")


def test_each_cause_warns_once_per_process(tmp_path: Path, cache_root: Path, recwarn: pytest.WarningsRecorder) -> None:
    paths = [write(tmp_path / f"p{i}.capnp", tiles=2 + i) for i in range(3)]
    cache_root.mkdir(mode=0o700)
    for path in paths[:2]:
        (cache_root / cache_key(path)).symlink_to(forge(path, tmp_path / f"elsewhere-{path.stem}"))
    open_profile(paths[2])
    wait_for_writes()
    (cache_root / cache_key(paths[2])).chmod(0o777)
    for path in paths:
        open_profile(path)
    messages = [str(w.message) for w in recwarn if issubclass(w.category, CacheWarning)]
    assert len(messages) == 2, messages
    assert "is a symbolic link" in messages[0] and "is writable by other users" in messages[1]
    assert str(cache_root / cache_key(paths[0])) in messages[0]


def test_new_entries_and_the_directory_are_private(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    open_profile(path)
    wait_for_writes()
    assert stat.S_IMODE(cache_root.stat().st_mode) == 0o700, "created for the user alone"
    assert_mine(cache_root / cache_key(path))
    assert [p.name for p in cache_root.iterdir()] == [cache_key(path)], "no temporary left behind"


def test_only_names_of_the_keys_shape_are_entries(tmp_path: Path, cache_root: Path, monkeypatch) -> None:
    path = write(tmp_path / "p.capnp")
    cache_root.mkdir(mode=0o700)
    notes = cache_root / "notes"
    notes.mkdir()
    (notes / "keep.txt").write_text("mine")
    (cache_root / "readme.txt").write_text("mine")
    open_profile(path)
    wait_for_writes()
    assert [e.key for e in cache_entries(cache_root)] == [cache_key(path)]
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "0")
    open_profile(write(tmp_path / "q.capnp"))  # a write evicts everything it may
    wait_for_writes()
    assert clear_cache(cache_root) == (0, 0)
    assert sorted(p.name for p in cache_root.iterdir()) == ["notes", "readme.txt"]
    assert (notes / "keep.txt").read_text() == "mine"
    assert load_cached(path, "../p", cache_root) is None
    assert store_cached(open_profile(path, cache=False), "../escape", cache_root) is False
    assert not (tmp_path / "escape").exists()


# --- the cache directory ---------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o1777, 0o777, 0o770], ids=oct)
def test_a_shared_directory_keeps_our_entries_in_a_private_subdirectory(
    tmp_path: Path, cache_root: Path, decodes: list[Path], mode: int
) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")
    cache_root.mkdir()
    cache_root.chmod(mode)
    shutil.copytree(forged, cache_root / forged.name)  # what anyone could put there
    truth = durations(open_profile(path, cache=False))
    decodes.clear()
    assert durations(open_profile(path)) == truth
    wait_for_writes()
    private = cache_root / f"user-{os.getuid()}"
    assert cache_location(cache_root) == private
    assert stat.S_IMODE(private.lstat().st_mode) == 0o700 and private.lstat().st_uid == os.getuid()
    assert_mine(private / cache_key(path))
    assert [e.directory for e in cache_entries(cache_root)] == [private / cache_key(path)]
    assert durations(open_profile(path)) == truth
    assert decodes == [path], "decoded once, then served from the private subdirectory"
    assert (cache_root / forged.name).is_dir(), "what others put in the shared folder is not ours to remove"


@pytest.mark.parametrize("planted", ["symlink", "writable", "file"])
def test_a_bad_private_subdirectory_is_replaced(
    tmp_path: Path, cache_root: Path, decodes: list[Path], planted: str
) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")
    cache_root.mkdir()
    cache_root.chmod(0o1777)
    private = cache_root / f"user-{os.getuid()}"
    if planted == "symlink":
        private.symlink_to(forged.parent, target_is_directory=True)
    elif planted == "writable":
        shutil.copytree(forged.parent, private)
        private.chmod(0o777)
    else:
        private.write_text("")
    reason = {"symlink": "is a symbolic link", "writable": "is writable by other users", "file": "is not a directory"}
    truth = durations(open_profile(path, cache=False))
    with pytest.warns(CacheWarning, match=f"the frame cache directory .*user-{os.getuid()}: it {reason[planted]}"):
        assert durations(open_profile(path)) == truth
    wait_for_writes()
    assert not private.is_symlink() and stat.S_IMODE(private.stat().st_mode) == 0o700
    assert_mine(private / cache_key(path))
    decodes.clear()
    assert durations(open_profile(path)) == truth and decodes == []
    assert load_cached(path, forged.name, forged.parent) is not None, "a link's target is left alone"


@needs_root
def test_another_users_private_subdirectory_is_replaced(tmp_path: Path, cache_root: Path) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")
    cache_root.mkdir()
    cache_root.chmod(0o1777)
    private = cache_root / f"user-{os.getuid()}"
    shutil.copytree(forged.parent, private)
    chown_tree(private, NOBODY)
    truth = durations(open_profile(path, cache=False))
    with pytest.warns(CacheWarning, match=rf"it is owned by another user \(uid {NOBODY}\)"):
        assert durations(open_profile(path)) == truth
    wait_for_writes()
    assert_mine(private / cache_key(path))


def test_a_link_of_ours_to_a_private_directory_is_followed(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "real-cache"
    target.mkdir(mode=0o700)
    link = tmp_path / "cache-link"
    link.symlink_to(target, target_is_directory=True)
    monkeypatch.setenv("IPU_NB_CACHE", str(link))
    path = write(tmp_path / "p.capnp")
    open_profile(path)
    wait_for_writes()
    assert_mine(target / cache_key(path))
    assert cache_location(link) == link


@needs_root
def test_a_cache_directory_link_of_another_user_is_not_followed(
    tmp_path: Path, monkeypatch, decodes: list[Path]
) -> None:
    path = write(tmp_path / "p.capnp")
    forged = forge(path, tmp_path / "elsewhere")  # ours and private: trusted if the link were followed
    link = tmp_path / "cache-link"
    link.symlink_to(forged.parent, target_is_directory=True)
    os.lchown(link, NOBODY, NOBODY)
    monkeypatch.setenv("IPU_NB_CACHE", str(link))
    truth = durations(open_profile(path, cache=False))
    decodes.clear()
    with pytest.warns(CacheWarning, match=rf"symbolic link owned by another user \(uid {NOBODY}\)"):
        assert durations(open_profile(path)) == truth
    wait_for_writes()
    assert durations(open_profile(path)) == truth
    assert len(decodes) == 2, "never served from, nor written to, the link's target"
    assert sorted(p.name for p in forged.parent.iterdir()) == [forged.name]
