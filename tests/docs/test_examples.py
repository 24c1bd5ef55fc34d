"""The docs' examples run: every ``python`` and ``sh`` block of the getting-started page and the user guide.

Each page runs top to bottom in a fresh directory holding ``mlp.capnp`` (a 32-tile, 24-phase
slice of the MLP workload) and ``before.capnp``/``after.capnp`` (the same knobs, seeds 0 and
1): its Python blocks share one namespace, its shell lines run ``ipu-nb`` for real and must
succeed with nothing on stderr. ``console`` blocks (installs, the demo's JupyterLab) are
shown, not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import ipu_nb

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = [DOCS / "getting-started.md", *sorted((DOCS / "guide").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def blocks(page: Path) -> list[tuple[str, str]]:
    """The page's fenced blocks as (language, code), in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(page.read_text(encoding="utf-8"))]


@pytest.fixture(scope="module")
def profiles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs-profiles")
    for name, seed in (("mlp", 0), ("before", 0), ("after", 1)):
        ipu_nb.generate_profile(folder / f"{name}.capnp", tiles=32, phases=24, seed=seed, progress=False)
    return folder


def test_every_guide_page_is_checked() -> None:
    names = {p.stem for p in PAGES}
    assert {"getting-started", "profiles", "queries", "widget", "charts", "reports", "cli", "comparing"} <= names
    assert {"supersteps", "trace"} <= names
    for page in PAGES:
        assert any(lang in ("python", "sh") for lang, _ in blocks(page)), f"{page.name} has no example that runs"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_examples_run(page: Path, profiles: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for source in profiles.iterdir():
        (tmp_path / source.name).write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs.{page.stem}"}
    for number, (language, code) in enumerate(blocks(page), 1):
        where = f"{page.name}, block {number}"
        if language == "python":
            exec(compile(code, where, "exec"), namespace)  # the docs' own examples
        elif language == "sh":
            for line in code.splitlines():
                if not line.strip():
                    continue
                argv = shlex.split(line, comments=True)
                assert argv[0] == "ipu-nb", f"{where}: only ipu-nb commands run here: {line}"
                done = subprocess.run(
                    [sys.executable, "-m", "ipu_nb", *argv[1:]],
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=300,
                    env={**os.environ, "COLUMNS": "100"},
                )
                assert done.returncode == 0 and done.stderr == "", f"{where}: {line}\n{done.stderr}"
        else:
            assert language == "console", f"{where}: a {language} block is neither run nor marked console"
