"""Output files respect the umask (like every other tool) and are replaced atomically."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from cli_run import run_cli

import ipu_nb
from ipu_nb._files import atomic_output


@pytest.fixture(params=[0o022, 0o077, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    before = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_atomic_output_respects_the_umask_and_leaves_no_scratch(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "out.bin"
    with atomic_output(target) as out:
        out.write(b"new")
    assert target.read_bytes() == b"new"
    assert mode(target) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_every_command_output_respects_the_umask(
    tmp_path: Path, umask: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = 0o666 & ~umask
    generated = tmp_path / "g.capnp"
    assert run_cli(capsys, "generate", "-q", "-o", str(generated), "--tiles", "4", "--phases", "2")[0] == 0
    assert mode(generated) == expected
    written = ipu_nb.write_columns(columns_from_tiles([T(1, [S(0, 5, "compute", "a", "k")])]), tmp_path / "w.capnp")
    assert mode(written) == expected
    profile = write_with_pycapnp(columns_from_tiles([T(1, [S(0, 5, "compute", "a", "k")])]), tmp_path / "p.capnp")
    report = tmp_path / "r.html"
    assert run_cli(capsys, "profile-render", "-q", str(profile), "-o", str(report), "--static")[0] == 0
    assert mode(report) == expected
    trace = tmp_path / "t.json"
    assert run_cli(capsys, "export-trace", "-q", str(profile), "-o", str(trace))[0] == 0
    assert mode(trace) == expected
    demo = ipu_nb.demo_profile_path("small", directory=tmp_path / "data", progress=False)
    assert mode(demo) == expected
