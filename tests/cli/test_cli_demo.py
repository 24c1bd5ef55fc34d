"""`ipu-nb demo`: the headless table equals profile-query's; the JupyterLab command is launchable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp

from ipu_nb._cli import main

TILES = [
    T(3, [S(10, 110, "compute", "matmul <b>", "gemm"), S(110, 150, "idle", "idle during gemm", "")]),
    T(5, [S(2**32 - 20, 80, "compute", "matmul <b>", "gemm")]),
]


@pytest.fixture
def profile_path(tmp_path: Path) -> Path:
    return write_with_pycapnp(columns_from_tiles(TILES), tmp_path / "p.capnp")


def test_headless_prints_the_default_query_table(capsys: pytest.CaptureFixture[str], profile_path: Path) -> None:
    assert main(["profile-query", str(profile_path)]) == 0
    expected = capsys.readouterr().out
    assert main(["demo", "--headless", "--profile", str(profile_path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected
    assert "gemm\t" in captured.out
    assert "loaded in" in captured.err


def test_missing_profile_is_one_line_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["demo", "--headless", "--profile", str(tmp_path / "nope.capnp")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "nope.capnp" in captured.err


def test_bad_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--size", "huge"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_jupyterlab_is_started_in_the_notebook_folder(monkeypatch: pytest.MonkeyPatch, profile_path: Path) -> None:
    calls: list[tuple[list[str], dict[str, object]]] = []

    def fake_call(command: list[str], **kwargs: object) -> int:
        calls.append((command, kwargs))
        return 0

    monkeypatch.setattr(subprocess, "call", fake_call)
    assert main(["demo", "--profile", str(profile_path), "--port", "9999"]) == 0
    [(command, kwargs)] = calls
    cwd = Path(str(kwargs["cwd"]))
    # The notebook argument is resolved against the working directory, so it must exist there.
    [notebook] = [arg for arg in command if arg.endswith(".ipynb")]
    assert (cwd / notebook).is_file()
    assert "--ServerApp.port=9999" in command
    env = kwargs["env"]
    assert isinstance(env, dict) and env["IPU_NB_PROFILE"] == str(profile_path)
    assert ("--allow-root" in command) == (os.geteuid() == 0)


def test_an_install_opens_a_working_copy(
    monkeypatch: pytest.MonkeyPatch, profile_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """From a wheel (no checkout): the notebooks are copied to the working folder and JupyterLab opens there."""
    from ipu_nb import _notebooks

    package = tmp_path / "site-packages" / "ipu_nb"
    shutil.copytree(Path(__file__).resolve().parents[2] / "notebooks", package / "notebooks")
    monkeypatch.setattr(_notebooks, "_PACKAGE", package)
    monkeypatch.setenv(_notebooks.WORKING_FOLDER_ENV, str(tmp_path / "work"))
    calls: list[tuple[list[str], dict[str, object]]] = []

    def call(command: list[str], **kwargs: object) -> int:
        calls.append((command, kwargs))
        return 0

    monkeypatch.setattr(subprocess, "call", call)
    assert main(["demo", "--profile", str(profile_path)]) == 0
    [(_command, kwargs)] = calls
    assert Path(str(kwargs["cwd"])) == tmp_path / "work"
    assert (tmp_path / "work" / "quickstart.ipynb").read_bytes() == (
        package / "notebooks" / "quickstart.ipynb"
    ).read_bytes()
    shipped = sorted(p.name for p in (package / "notebooks").glob("*.ipynb"))
    assert len(shipped) > 1 and all((tmp_path / "work" / name).is_file() for name in shipped)
    err = capsys.readouterr().err
    assert f"copied {', '.join(shipped)} to {tmp_path / 'work'}" in err
    (tmp_path / "work" / "quickstart.ipynb").write_text("my edits")
    assert main(["demo", "--profile", str(profile_path)]) == 0
    assert (tmp_path / "work" / "quickstart.ipynb").read_text() == "my edits"
    assert "kept your edited quickstart.ipynb" in capsys.readouterr().err


def test_without_jupyterlab_one_line_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, profile_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jupyterlab" else real(name, *a))
    monkeypatch.setenv("IPU_NB_DEMO_DIR", str(tmp_path / "work"))
    assert main(["demo", "--profile", str(profile_path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        'ipu-nb demo: error: JupyterLab is not installed: pip install "ipu-nb[lab]" (or run `ipu-nb demo --headless`)\n'
    )
    assert not (tmp_path / "work").exists()  # nothing done before the refusal
    assert main(["demo", "--headless", "--profile", str(profile_path)]) == 0  # headless needs no JupyterLab


def test_the_readme_demo_command_keeps_stdout_for_the_table(profile_path: Path) -> None:
    """`bash scripts/demo --headless` from the checkout: set-up talk (pip, npm, esbuild) goes to stderr only."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        ["bash", str(root / "scripts" / "demo"), "--headless", "--profile", str(profile_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    expected = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "profile-query", str(profile_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout == expected.stdout
