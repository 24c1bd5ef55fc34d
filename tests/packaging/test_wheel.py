"""The source archive and a wheel built from it with no npm and no C compiler: contents, install and a real run.

Builds without isolation (hatchling and build come with the dev extra), with PATH holding
nothing but an empty folder, so neither npm nor cc can be found; installs the wheel into a
fresh virtualenv that borrows this one's dependencies (never its editable ipu-nb), and runs
the installed ``ipu-nb`` there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = "0.1.0"


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600, **kwargs)  # type: ignore[call-overload]


def _bare_env(tmp: Path) -> dict[str, str]:
    """An environment whose PATH finds no tool at all (no npm, node, cc or gcc)."""
    empty = tmp / "empty-bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CC", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = str(empty)
    return env


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    done = _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out), str(ROOT)])
    assert done.returncode == 0, done.stderr[-2000:]
    return out / f"ipu_nb-{VERSION}.tar.gz"


@pytest.fixture(scope="module")
def unpacked(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as archive:
        archive.extractall(where, filter="data")
    return where / f"ipu_nb-{VERSION}"


@pytest.fixture(scope="module")
def wheel_build(unpacked: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("wheel")
    env = _bare_env(out)
    env.pop("IPU_NB_STRICT_BUILD", None)  # a user's install: no compiler is a warning, not an error
    done = _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), "."], cwd=unpacked, env=env
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out / f"ipu_nb-{VERSION}-py3-none-any.whl", done.stdout + done.stderr


def test_the_sdist_ships_the_bundle_license_and_notebooks(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"LICENSE", "ipu_nb/static/widget.js", "ipu_nb/static/widget.css", "notebooks/quickstart.ipynb"} <= names
    assert {"js/widget.ts", "hatch_build.py", "package-lock.json", "ipu_nb/_load/_intern.c"} <= names
    assert not [n for n in names if "libipu_intern" in n or "node_modules" in n or n.startswith("tests/")]


def test_the_wheel_builds_without_npm_or_a_compiler(wheel_build: tuple[Path, str]) -> None:
    wheel, log = wheel_build
    warnings = [line for line in log.splitlines() if line.startswith("ipu-nb build:")]
    assert len(warnings) == 1 and "warning: no C compiler" in warnings[0] and "numpy path" in warnings[0], log
    assert "npm" not in log.lower()
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        license_text = archive.read(f"ipu_nb-{VERSION}.dist-info/licenses/LICENSE").decode()
        metadata = archive.read(f"ipu_nb-{VERSION}.dist-info/METADATA").decode()
    assert {"ipu_nb/static/widget.js", "ipu_nb/static/widget.css", "ipu_nb/notebooks/quickstart.ipynb"} <= names
    assert "ipu_nb/profile.capnp" in names and not [n for n in names if "libipu_intern" in n]
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "License-Expression: Apache-2.0" in metadata and "Classifier: Framework :: Jupyter" in metadata
    assert "Provides-Extra: lab" in metadata and "Provides-Extra: docs" in metadata


def test_no_bundle_and_no_npm_is_one_line(unpacked: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    subprocess.run(["cp", "-a", str(unpacked), str(tree)], check=True)
    for built in (tree / "ipu_nb" / "static").iterdir():
        built.unlink()
    done = _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), "."],
        cwd=tree,
        env=_bare_env(tmp_path),
    )
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("ipu-nb build:")]
    assert lines == [
        "ipu-nb build: error: the widget bundle (ipu_nb/static/widget.js) is not built and npm is not installed: "
        "install Node.js and npm, or build from the source archive (sdist), which ships the bundle"
    ]
    assert "Traceback" not in done.stdout + done.stderr


def test_the_installed_wheel_generates_and_queries(wheel_build: tuple[Path, str], tmp_path: Path) -> None:
    wheel, _ = wheel_build
    fresh = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(fresh)]).returncode == 0
    [site] = fresh.glob("lib/python*/site-packages")
    borrowed = [p for p in sys.path if p.endswith("site-packages")]
    (site / "borrowed-dependencies.pth").write_text("\n".join(borrowed) + "\n")
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(fresh / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ]
    )
    assert done.returncode == 0, done.stderr[-2000:]
    env = {**_bare_env(tmp_path), "IPU_NB_DATA": str(tmp_path / "data"), "HOME": str(tmp_path)}
    run = {"env": env, "cwd": tmp_path}  # not the checkout: `python -c` would import ./ipu_nb
    where = _run(
        [
            str(fresh / "bin" / "python"),
            "-c",
            "import ipu_nb, ipu_nb._load._intern as i; print(ipu_nb.__file__, i.NATIVE)",
        ],
        **run,
    )
    assert where.stdout.split() == [str(site / "ipu_nb" / "__init__.py"), "False"], where.stderr
    made = _run([str(fresh / "bin" / "ipu-nb"), "generate", "--size", "small"], **run)
    assert made.returncode == 0, made.stderr
    path = Path(made.stdout.strip())
    assert path.parent == tmp_path / "data" and path.is_file()
    asked = _run([str(fresh / "bin" / "ipu-nb"), "profile-query", str(path), "--limit", "3"], **run)
    assert asked.returncode == 0 and asked.stderr == "", asked.stderr
    expected = _run([sys.executable, "-m", "ipu_nb", "profile-query", str(path), "--limit", "3"])
    assert asked.stdout == expected.stdout and asked.stdout.startswith("tiles=64 samples=64320/64320 ")
