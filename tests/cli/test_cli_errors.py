"""The CLI turns every failure into one line on stderr and a non-zero exit: no traceback a file can cause."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_inputs import overlapping_texts, shared_step_text, void_samples

from ipu_nb import _cli
from ipu_nb._cli import TRACEBACK_ENV, main


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_NB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(TRACEBACK_ENV, raising=False)


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 1) -> str:
    assert main(argv) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


@pytest.mark.parametrize(
    "craft",
    [lambda: shared_step_text(2_000_000), lambda: overlapping_texts(4_000_000), lambda: void_samples(8_000_000)],
)
def test_hostile_files_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], craft) -> None:
    path = tmp_path / "hostile.capnp"
    path.write_bytes(craft())
    for command in ("profile-inspect", "profile-query"):
        err = one_line_error(capsys, [command, str(path)])
        assert err.startswith(f"ipu-nb {command}: error: {path}: ")
        assert "budget exceeded" in err


def _failing(exc: BaseException) -> Callable[[object], int]:
    def run(args: object) -> int:
        raise exc

    return run


def _with_command(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    # Make `profile-inspect` fail with `exc`, as a load deep inside it would.
    original = _cli.build_parser

    def build() -> _cli.ArgumentParser:
        parser = original()
        for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
            action.choices["profile-inspect"].set_defaults(func=_failing(exc))  # type: ignore[index]
        return parser

    monkeypatch.setattr(_cli, "build_parser", build)


def test_memory_error_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    numpy_says = "Unable to allocate 45.9 GiB for an array with shape (12316443648,)"
    _with_command(monkeypatch, MemoryError(numpy_says))
    err = one_line_error(capsys, ["profile-inspect", "x.capnp"])
    assert err == f"ipu-nb profile-inspect: error: out of memory: {numpy_says}\n"
    _with_command(monkeypatch, MemoryError())
    assert one_line_error(capsys, ["profile-inspect", "x.capnp"]) == "ipu-nb profile-inspect: error: out of memory\n"


@pytest.mark.parametrize("exc", [RuntimeError("a bug\nwith two lines"), IndexError(), KeyError("k")])
def test_internal_errors_are_one_line(monkeypatch: pytest.MonkeyPatch, capsys, exc: BaseException) -> None:
    _with_command(monkeypatch, exc)
    err = one_line_error(capsys, ["profile-inspect", "x.capnp"])
    assert err.startswith(f"ipu-nb profile-inspect: internal error: {type(exc).__name__}")
    assert f"set {TRACEBACK_ENV}=1 for the traceback" in err


def test_panics_are_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A Rust panic in polars surfaces as pyo3's PanicException, a BaseException.
    class PanicException(BaseException):
        pass

    _with_command(monkeypatch, PanicException("index out of bounds"))
    err = one_line_error(capsys, ["profile-inspect", "x.capnp"])
    assert err.startswith("ipu-nb profile-inspect: internal error: PanicException: index out of bounds")


def test_traceback_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_command(monkeypatch, RuntimeError("a bug"))
    monkeypatch.setenv(TRACEBACK_ENV, "1")
    with pytest.raises(RuntimeError, match="a bug"):
        main(["profile-inspect", "x.capnp"])


def test_exit_codes_of_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "hostile.capnp"
    path.write_bytes(void_samples(8_000_000))
    env = {**os.environ, "IPU_NB_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "profile-query", str(path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "memory budget exceeded" in done.stderr


def test_a_bad_cache_setting_is_a_user_error_not_an_internal_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.capnp"
    path.write_bytes(b"")
    monkeypatch.setenv("IPU_NB_CACHE_SIZE", "lots")
    err = one_line_error(capsys, ["profile-query", str(path)])
    assert err.startswith("ipu-nb profile-query: error: IPU_NB_CACHE_SIZE: invalid size 'lots'"), err
