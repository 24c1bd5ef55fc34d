"""`ipu_nb._notebooks`: the shipped notebooks are found, copied once, and a user's edited copy is never overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipu_nb import _notebooks
from ipu_nb._notebooks import MANIFEST, shipped_notebooks, working_copy

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "shipped"
    folder.mkdir()
    (folder / "quickstart.ipynb").write_text('{"v": 1}')
    (folder / "compare.ipynb").write_text('{"c": 1}')
    return folder


def test_a_checkout_uses_its_own_notebooks() -> None:
    assert shipped_notebooks() == ROOT / "notebooks"


def test_an_install_uses_the_package_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "ipu_nb"
    (package / "notebooks").mkdir(parents=True)
    (package / "notebooks" / "quickstart.ipynb").write_text("{}")
    monkeypatch.setattr(_notebooks, "_PACKAGE", package)  # site-packages: no pyproject.toml beside it
    assert _notebooks.checkout_notebooks() is None
    assert shipped_notebooks() == package / "notebooks"
    (package / "notebooks" / "quickstart.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match="installation is incomplete"):
        shipped_notebooks()


def test_first_run_copies_everything(tmp_path: Path, source: Path) -> None:
    done = working_copy(tmp_path / "work", source)
    assert sorted(done.copied) == ["compare.ipynb", "quickstart.ipynb"] and not done.updated and not done.kept_edited
    assert (tmp_path / "work" / "quickstart.ipynb").read_text() == '{"v": 1}'
    again = working_copy(tmp_path / "work", source)
    assert not again.copied and not again.updated and not again.kept_edited


def test_edited_copies_are_kept_and_untouched_ones_updated(tmp_path: Path, source: Path) -> None:
    work = tmp_path / "work"
    working_copy(work, source)
    (work / "quickstart.ipynb").write_text('{"mine": true}')  # the user's edit
    (source / "quickstart.ipynb").write_text('{"v": 2}')  # a new ipu-nb version ships both anew
    (source / "compare.ipynb").write_text('{"c": 2}')
    done = working_copy(work, source)
    assert done.kept_edited == ["quickstart.ipynb"] and done.updated == ["compare.ipynb"]
    assert (work / "quickstart.ipynb").read_text() == '{"mine": true}'
    assert (work / "compare.ipynb").read_text() == '{"c": 2}'
    assert working_copy(work, source).kept_edited == ["quickstart.ipynb"]  # still theirs: still kept


def test_a_file_the_user_put_there_first_is_theirs(tmp_path: Path, source: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "quickstart.ipynb").write_text("their own notebook")
    (work / MANIFEST).write_text("not json")  # a damaged manifest records nothing
    done = working_copy(work, source)
    assert done.kept_edited == ["quickstart.ipynb"] and done.copied == ["compare.ipynb"]
    assert (work / "quickstart.ipynb").read_text() == "their own notebook"
    assert set(json.loads((work / MANIFEST).read_text())) == {"compare.ipynb"}
