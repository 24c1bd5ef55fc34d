"""`ipu-nb cache info|clear`: what the frame cache holds, emptying it, one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles

from ipu_nb._cli import main
from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _cache, open_profile
from ipu_nb._load._cache import cache_entries, cache_key, wait_for_writes


def write(path: Path, tiles: int) -> Path:
    return write_columns(columns_from_tiles([T(t, [S(i, i + 1) for i in range(4)]) for t in range(tiles)]), path)


@pytest.fixture
def two_cached(tmp_path: Path, cache_root: Path) -> list[Path]:
    """Two profiles with cache entries; the second one used last."""
    paths = [write(tmp_path / "first.capnp", 2), write(tmp_path / "second.capnp", 5)]
    for path in paths:
        open_profile(path)
        wait_for_writes()
        time.sleep(0.02)
    return paths


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["cache", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_info_on_an_empty_cache(capsys: pytest.CaptureFixture[str], cache_root: Path) -> None:
    code, out, err = run(capsys, "info")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"directory  {cache_root}",
        "size cap   4 GiB (default; set IPU_NB_CACHE_SIZE to change it)",
        "entries    0, 0 B in total",
    ]


def test_info_lists_every_entry_most_recent_first(
    capsys: pytest.CaptureFixture[str], cache_root: Path, two_cached: list[Path], monkeypatch
) -> None:
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "2GiB")
    code, out, err = run(capsys, "info", "--json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    entries = cache_entries(cache_root)
    assert document["directory"] == str(cache_root)
    assert (document["limit_bytes"], document["limit_source"]) == (2 << 30, "IPU_NB_CACHE_SIZE")
    assert document["entry_count"] == 2
    assert [e["profile"] for e in document["entries"]] == [str(p.resolve()) for p in reversed(two_cached)]
    assert [e["key"] for e in document["entries"]] == [cache_key(p) for p in reversed(two_cached)]
    sizes = [sum(f.stat().st_size for f in (cache_root / e["key"]).iterdir()) for e in document["entries"]]
    assert [e["bytes"] for e in document["entries"]] == sizes
    assert document["total_bytes"] == sum(sizes) == sum(e.size for e in entries)
    assert all(e["last_used"][:4].isdigit() and "T" in e["last_used"] for e in document["entries"])

    code, out, err = run(capsys, "info")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[1] == "size cap   2 GiB (from IPU_NB_CACHE_SIZE)"
    assert lines[2].startswith("entries    2, ") and "KiB in total" in lines[2]
    assert lines[4].split() == ["last", "used", "size", "profile"]
    assert [line.split()[-1] for line in lines[5:]] == [str(p.resolve()) for p in reversed(two_cached)]


def test_a_hit_moves_an_entry_to_the_front(capsys, cache_root: Path, two_cached: list[Path]) -> None:
    open_profile(two_cached[0])
    _, out, _ = run(capsys, "info", "--json")
    assert [e["profile"] for e in json.loads(out)["entries"]] == [str(p.resolve()) for p in two_cached]


def test_info_flags_a_cache_over_its_cap(capsys, cache_root: Path, two_cached: list[Path], monkeypatch) -> None:
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "1KiB")
    _, out, _ = run(capsys, "info")
    assert "over the cap" in out.splitlines()[2]


def test_info_shows_a_damaged_entry(capsys, cache_root: Path, two_cached: list[Path]) -> None:
    (cache_root / cache_key(two_cached[0]) / "profile.json").write_text("[]")
    code, out, _ = run(capsys, "info")
    assert code == 0 and out.splitlines()[-1].endswith(
        "(unreadable: damaged, not yours, or from another ipu-nb version)"
    )
    _, out, _ = run(capsys, "info", "--json")
    assert json.loads(out)["entries"][-1]["profile"] is None


def test_clear_everything(capsys, cache_root: Path, two_cached: list[Path]) -> None:
    size = sum(e.size for e in cache_entries(cache_root))
    code, out, err = run(capsys, "clear")
    assert (code, err) == (0, "")
    assert out.startswith(f"removed 2 entries ({size / 1024:.1f} KiB) from {cache_root}".replace(".0 KiB", " KiB"))
    assert cache_entries(cache_root) == []
    assert run(capsys, "clear")[1] == f"removed 0 entries (0 B) from {cache_root}\n"


HOSTILE = "\x1b]0;owned\x07\x1b[2J\r\n\u202e"  # retitles the window, clears the screen, breaks the line
HOSTILE_ESCAPED = "\\x1b]0;owned\\x07\\x1b[2J\\r\\n\\u202e"


def test_info_and_clear_escape_control_characters_in_paths(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / f"cache{HOSTILE}"
    monkeypatch.setenv("IPU_NB_CACHE", str(root))
    path = write(tmp_path / "p.capnp", 2)
    open_profile(path)
    wait_for_writes()
    manifest = root / cache_key(path) / "profile.json"
    body = json.loads(manifest.read_text())
    del body["digest"]
    body["profile"] = f"/data/run{HOSTILE}.capnp"  # a manifest of ours, but of a file named by someone else
    manifest.write_text(json.dumps({**body, "digest": _cache._digest(body)}))

    code, out, err = run(capsys, "info")
    assert (code, err) == (0, "")
    assert all(char == "\n" or char.isprintable() for char in out), repr(out)
    lines = out.splitlines()
    assert len(lines) == 6
    assert lines[0] == f"directory  {tmp_path}/cache{HOSTILE_ESCAPED}"
    assert lines[5].endswith(f"  /data/run{HOSTILE_ESCAPED}.capnp")

    code, out, err = run(capsys, "info", "--json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["directory"] == str(root), "the JSON output stays exact"
    assert document["entries"][0]["profile"] == f"/data/run{HOSTILE}.capnp"

    code, out, err = run(capsys, "clear")
    assert (code, err) == (0, "")
    assert out.startswith("removed 1 entry (") and out.endswith(f" from {tmp_path}/cache{HOSTILE_ESCAPED}\n")


def test_a_shared_cache_directory_is_shown_with_its_private_subdirectory(
    capsys: pytest.CaptureFixture[str], cache_root: Path, tmp_path: Path
) -> None:
    cache_root.mkdir()
    cache_root.chmod(0o1777)
    path = write(tmp_path / "p.capnp", 2)
    open_profile(path)
    wait_for_writes()
    private = cache_root / f"user-{os.getuid()}"
    _, out, _ = run(capsys, "info")
    assert out.splitlines()[0] == (
        f"directory  {private}  (a private subdirectory: {cache_root} is writable by others or not yours)"
    )
    _, out, _ = run(capsys, "info", "--json")
    document = json.loads(out)
    assert (document["directory"], document["configured_directory"]) == (str(private), str(cache_root))
    assert [e["key"] for e in document["entries"]] == [cache_key(path)]
    _, out, _ = run(capsys, "clear")
    assert out.startswith("removed 1 entry (") and out.endswith(f" from {private}\n")


def _unprivileged(command: list[str]) -> list[str]:
    """`command` run so that file permissions bind it: as is, or for root in a user namespace of its own.

    Root ignores permission bits. In a new user namespace with no user mapped, it is the
    overflow user (65534) to itself and to its own files, and the kernel grants it no
    privilege over them: a directory without write permission really refuses a rename.
    """
    if os.geteuid() != 0:
        return command
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "--user", "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root and no user namespace (unshare --user) to run unprivileged in")
    return [unshare, "--user", *command]


def test_clear_on_a_read_only_cache_fails_with_one_line(cache_root: Path, two_cached: list[Path]) -> None:
    before = cache_entries(cache_root)
    command = _unprivileged([sys.executable, "-m", "ipu_nb", "cache", "clear"])
    cache_root.chmod(0o500)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    finally:
        cache_root.chmod(0o700)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr == (
        f"ipu-nb cache: error: could not remove 2 cache entries ({before[0].directory}: Permission denied); "
        "removed 0 (0 B)\n"
    )
    assert cache_entries(cache_root) == before, "nothing was removed"


def test_clear_one_profile(capsys, cache_root: Path, two_cached: list[Path], monkeypatch) -> None:
    first, second = two_cached
    monkeypatch.chdir(first.parent)
    code, out, _ = run(capsys, "clear", first.name)  # a relative path names the same profile
    assert code == 0 and out.startswith("removed 1 entry (")
    assert [e.key for e in cache_entries(cache_root)] == [cache_key(second)]
    first.unlink()
    code, out, _ = run(capsys, "clear", str(first), "--profile", str(second))  # a deleted profile's too
    assert code == 0 and out.startswith("removed 1 entry (")
    assert cache_entries(cache_root) == []


def test_bad_size_variable_is_one_line_exit_1(capsys, cache_root: Path, monkeypatch) -> None:
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "a lot")
    code, out, err = run(capsys, "info")
    assert (code, out) == (1, "")
    assert err == (
        "ipu-nb cache: error: IPU_NB_CACHE_SIZE: invalid size 'a lot': "
        "expected a number of bytes or a size like 2GiB, 500MiB or 1.5GB\n"
    )


def test_cache_path_that_is_a_file_is_one_line_exit_1(capsys, tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("IPU_NB_CACHE", str(blocker))
    for action in ("info", "clear"):
        code, out, err = run(capsys, action)
        assert (code, out) == (1, "")
        assert err.count("\n") == 1 and "is not a directory" in err and str(blocker) in err


@pytest.mark.parametrize("argv", [[], ["purge"], ["info", "--bogus"], ["info", "extra"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cache", *argv])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


def test_the_command_runs_for_real(two_cached: list[Path], cache_root: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "cache", "info", "--json"], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout)["directory"] == str(cache_root)
    assert json.loads(out.stdout)["entry_count"] == 2


def test_subprocesses_inherit_the_suites_temporary_cache(private_frame_cache: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "cache", "info", "--json"], capture_output=True, text=True, check=True
    )
    directory = Path(json.loads(out.stdout)["directory"])
    assert directory == private_frame_cache
    assert directory != Path.home() / ".cache" / "ipu-nb" / "frames"
