"""The demo notebooks: found in a checkout's ``notebooks/`` or in the installed package, copied to a working folder.

One source: ``notebooks/`` in the repository. A wheel carries a copy as package data
(``ipu_nb/notebooks``, put there by the build). An install copies them to a folder the
user owns on first use (`working_copy`), and never overwrites a copy the user edited: a
small manifest records what was copied, so only untouched copies are updated to a newer
shipped version.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MANIFEST",
    "WORKING_FOLDER_ENV",
    "Copied",
    "checkout_notebooks",
    "default_working_folder",
    "shipped_notebooks",
    "working_copy",
]

#: Where `ipu-nb demo` copies the notebooks of an installed package (default ``~/ipu-nb-demo``).
WORKING_FOLDER_ENV = "IPU_NB_DEMO_DIR"
#: In the working folder: the hash of each notebook as it was copied (to tell an edited copy).
MANIFEST = ".ipu-nb-demo.json"

_PACKAGE = Path(__file__).resolve().parent


def checkout_notebooks() -> Path | None:
    """``notebooks/`` of the repository this package runs from (an editable install), else None."""
    root = _PACKAGE.parent
    folder = root / "notebooks"
    return folder if (root / "pyproject.toml").is_file() and folder.is_dir() else None


def shipped_notebooks() -> Path:
    """The folder holding the notebooks: the checkout's, else the installed package's copy."""
    for folder in (checkout_notebooks(), _PACKAGE / "notebooks"):
        if folder is not None and any(folder.glob("*.ipynb")):
            return folder
    raise FileNotFoundError(f"no demo notebooks in {_PACKAGE / 'notebooks'}: this ipu-nb installation is incomplete")


def default_working_folder() -> Path:
    """``$IPU_NB_DEMO_DIR``, else ``~/ipu-nb-demo``."""
    env = os.environ.get(WORKING_FOLDER_ENV)
    return Path(env).expanduser() if env else Path.home() / "ipu-nb-demo"


@dataclass
class Copied:
    """What `working_copy` did with each notebook, by file name."""

    folder: Path
    copied: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    kept_edited: list[str] = field(default_factory=list)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_manifest(folder: Path) -> dict[str, str]:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items()}


def working_copy(folder: Path, source: Path | None = None) -> Copied:
    """Copy the shipped notebooks into `folder` (created if needed), keeping every copy the user changed.

    A notebook missing from `folder` is copied; one equal to the shipped version is left;
    one still as it was copied (per the manifest) is updated to a newer shipped version;
    any other (the user's edits) is kept as it is.
    """
    source = source or shipped_notebooks()
    folder.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(folder)
    done = Copied(folder)
    for notebook in sorted(source.glob("*.ipynb")):
        target = folder / notebook.name
        shipped = _digest(notebook)
        if target.exists():
            current = _digest(target)
            if current == shipped:
                manifest[notebook.name] = shipped
                continue
            if manifest.get(notebook.name) != current:
                done.kept_edited.append(notebook.name)
                continue
            done.updated.append(notebook.name)
        else:
            done.copied.append(notebook.name)
        shutil.copyfile(notebook, target)
        manifest[notebook.name] = shipped
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return done
