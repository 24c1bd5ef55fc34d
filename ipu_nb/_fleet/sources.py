"""Which files a fleet holds: paths, directories and glob patterns expanded into one ordered list.

Nothing is opened here (profiles load lazily, in the workers); a listed path that does not
exist stays in the fleet and becomes a row of `Fleet.errors` when it is run, and so does
a path that names no regular file (a FIFO, a device, a dangling symlink, a symlink loop):
every such entry of a directory or a pattern is listed, never dropped. Directory symlinks
are not followed below a directory or under ``**`` (`walk`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .errors import FleetError
from .files import file_identity
from .walk import has_magic, match_pattern, match_under

__all__ = ["PROFILE_SUFFIX", "Source", "expand_sources"]

#: The suffix a directory's profiles have (the runtime writes ``.capnp``).
PROFILE_SUFFIX = ".capnp"

Source = str | os.PathLike[str]


def _directory(root: Path) -> list[Path]:
    """Every ``*.capnp`` entry beneath `root` but directories (recursively, hidden entries skipped), sorted by path.

    The same walk as the pattern ``root/**/*.capnp``, with `root` taken literally.
    """
    return [Path(p) for p in match_under(str(root), ["**", f"*{PROFILE_SUFFIX}"])]


def _expand(source: Source) -> list[Path]:
    if not isinstance(source, (str, os.PathLike)):
        raise FleetError(f"a fleet's profiles are paths, directories or glob patterns, got {type(source).__name__}")
    text = os.fspath(source)
    if not isinstance(text, str):
        raise FleetError(f"a fleet's profiles are paths as text, got {type(text).__name__}")
    if not text:
        raise FleetError("an empty string is not a profile path")
    path = Path(text)
    if path.is_dir():
        files = _directory(path)
        if not files:
            raise FleetError(f"{path}: directory holds no {PROFILE_SUFFIX} files")
        return files
    if not os.path.lexists(text) and has_magic(text):
        matches = [Path(m) for m in match_pattern(text)]
        if not matches:
            raise FleetError(f"{text}: pattern matches no file")
        return matches
    return [path]  # a file, or something else that will be that profile's row of errors when run


def expand_sources(sources: Source | Iterable[Source]) -> list[Path]:
    """The fleet's files in order: each source expanded, the same file (by resolved path) kept once.

    A directory gives every ``*.capnp`` file beneath it, sorted; a pattern (``*``, ``?``,
    ``[…]``, ``**`` for any depth) the files it matches, sorted; any other path itself.
    Neither follows a directory symlink below the directory or under ``**``.

    Raises
    ------
    FleetError
        No profiles at all, a directory without profiles, a pattern matching nothing, a
        directory or pattern with more than `walk.MAX_ENTRIES` entries to look at, or a
        source that is not a path.
    """
    items = [sources] if isinstance(sources, (str, os.PathLike)) else sources
    if not isinstance(items, Iterable):
        raise FleetError(f"a fleet's profiles are paths, directories or glob patterns, got {type(items).__name__}")
    seen: set[str] = set()
    paths: list[Path] = []
    for source in items:
        for path in _expand(source):
            identity = file_identity(path)
            if identity not in seen:
                seen.add(identity)
                paths.append(path)
    if not paths:
        raise FleetError("a fleet needs at least one profile")
    return paths
