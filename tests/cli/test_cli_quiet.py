"""`-q/--quiet` on every subcommand; progress bars only where someone watches stderr."""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from cli_run import run_cli

from ipu_nb import _progress
from ipu_nb._cli import build_parser


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    branches = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not branches:
        return [(prefix, parser)]
    return [leaf for b in branches for name, child in b.choices.items() for leaf in _leaves(child, (*prefix, name))]


def test_every_subcommand_takes_quiet() -> None:
    leaves = _leaves(build_parser())
    names = {" ".join(name) for name, _ in leaves}
    assert {"generate", "profile-query", "demo", "cache info", "cache clear", "profile-render"} <= names
    for name, parser in leaves:
        options = {o for action in parser._actions for o in action.option_strings}  # type: ignore[attr-defined]
        assert {"-q", "--quiet"} <= options, name


@pytest.fixture
def profile_path(tmp_path: Path) -> Path:
    tiles = [T(3, [S(10, 110, "compute", "op", "gemm")]), T(5, [S(0, 80, "exchange", "x", "")])]
    return write_with_pycapnp(columns_from_tiles(tiles), tmp_path / "p.capnp")


def test_quiet_keeps_results_and_drops_status(
    capsys: pytest.CaptureFixture[str], profile_path: Path, tmp_path: Path
) -> None:
    loud = run_cli(capsys, "profile-query", str(profile_path))
    quiet = run_cli(capsys, "profile-query", "-q", str(profile_path))
    assert loud == quiet and quiet[1].startswith("tiles=2 ")
    code, out, err = run_cli(capsys, "demo", "--headless", "--profile", str(profile_path), "-q")
    assert (code, err) == (0, "") and out == loud[1]
    assert "loaded in" in run_cli(capsys, "demo", "--headless", "--profile", str(profile_path))[2]
    report = tmp_path / "r.html"
    assert run_cli(capsys, "profile-render", str(profile_path), "-o", str(report), "-q") == (0, "", "")
    assert report.stat().st_size > 0


# `ipu-nb generate` in a fresh process, with every profile counted as large work (so a bar is due).
_GENERATE = """
import sys
from ipu_nb import _progress
from ipu_nb._cli import main
_progress.AUTO_PROGRESS_SAMPLES = 0
sys.exit(main(["generate", "-o", sys.argv[1], "--tiles", "8", "--phases", "20"]))
"""


def _generate(target: Path, stderr: int) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", _GENERATE, str(target)]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=stderr, text=True, check=False, timeout=300)


def test_large_work_shows_a_bar_on_a_terminal_only(tmp_path: Path) -> None:
    """Real processes: stderr to a pipe gets no bar (no \r frames); stderr on a terminal (a pty) gets one."""
    piped = _generate(tmp_path / "a.capnp", subprocess.PIPE)
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr == ""
    assert piped.stdout.startswith(f"wrote {tmp_path / 'a.capnp'}: ")

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a new pty is 0x0: no room for a bar
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower closed: the process is done
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        on_tty = _generate(tmp_path / "b.capnp", follower)
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    assert on_tty.returncode == 0
    shown = b"".join(chunks).decode(errors="replace")
    assert "generating" in shown and "writing b.capnp" in shown


def test_bars_follow_the_watcher(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def work(show: bool | None) -> str:
        with _progress.progress_bar(show, "working", large=True) as report:
            if report is not None:
                report(1, 2)
        return capsys.readouterr().err

    assert work(None) == ""  # capsys' stderr is no terminal
    assert "working" in work(True)  # asked for explicitly
    monkeypatch.setattr(_progress, "watched", lambda: True)
    assert "working" in work(None)
    with _progress.silenced():
        assert work(None) == "" and work(True) == ""
    with _progress.silenced(False):
        assert "working" in work(None)


def test_a_terminal_counts_as_watched(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stderr", Tty())
    assert _progress.watched()
    monkeypatch.setattr(sys, "stderr", None)
    assert not _progress.watched()
