"""Which files a fleet holds: paths, directories and glob patterns expanded into one ordered list.

Nothing is opened here (profiles load lazily, in the workers); a listed path that does not
exist stays in the fleet and becomes a row of `Fleet.errors` when it is run.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path

from .errors import FleetError

__all__ = ["PROFILE_SUFFIX", "Source", "expand_sources"]

#: The suffix a directory's profiles have (the runtime writes ``.capnp``).
PROFILE_SUFFIX = ".capnp"
_GLOB_CHARACTERS = frozenset("*?[")

Source = str | os.PathLike[str]


def _is_hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _directory(root: Path) -> list[Path]:
    """Every ``*.capnp`` file beneath `root` (recursively, hidden entries skipped), sorted by path."""
    found = (p for p in root.rglob(f"*{PROFILE_SUFFIX}") if p.is_file() and not _is_hidden(p, root))
    return sorted(found)


def _expand(source: Source) -> list[Path]:
    if not isinstance(source, (str, os.PathLike)):
        raise FleetError(f"a fleet's profiles are paths, directories or glob patterns, got {type(source).__name__}")
    text = os.fspath(source)
    if not text:
        raise FleetError("an empty string is not a profile path")
    path = Path(text)
    if path.is_dir():
        files = _directory(path)
        if not files:
            raise FleetError(f"{path}: directory holds no {PROFILE_SUFFIX} files")
        return files
    if not path.exists() and _GLOB_CHARACTERS & set(text):
        matches = sorted(Path(m) for m in glob.glob(text, recursive=True) if os.path.isfile(m))
        if not matches:
            raise FleetError(f"{text}: pattern matches no file")
        return matches
    return [path]  # a file, or a path that does not exist (reported in Fleet.errors when run)


def expand_sources(sources: Source | Iterable[Source]) -> list[Path]:
    """The fleet's files in order: each source expanded, the same file (by resolved path) kept once.

    A directory gives every ``*.capnp`` file beneath it, sorted; a pattern (``*``, ``?``,
    ``[…]``, ``**`` for any depth) the files it matches, sorted; any other path itself.

    Raises
    ------
    FleetError
        No profiles at all, a directory without profiles, a pattern matching nothing, or a
        source that is not a path.
    """
    items = [sources] if isinstance(sources, (str, os.PathLike)) else sources
    if not isinstance(items, Iterable):
        raise FleetError(f"a fleet's profiles are paths, directories or glob patterns, got {type(items).__name__}")
    seen: set[Path] = set()
    paths: list[Path] = []
    for source in items:
        for path in _expand(source):
            identity = path.resolve()
            if identity not in seen:
                seen.add(identity)
                paths.append(path)
    if not paths:
        raise FleetError("a fleet needs at least one profile")
    return paths
