"""Glob patterns matched by walking the tree: ``glob``'s rules, but never through a directory symlink under ``**``.

``glob.glob(recursive=True)`` follows directory symlinks, so one link to ``..`` makes
``**`` walk forever. Here ``**`` (a whole component) stands for any depth of real
directories; ``*``, ``?`` and ``[...]`` match within one component (`fnmatch`), and a
directory a single-component wildcard or a literal component names is entered even
through a symlink (that goes only as deep as the pattern). As in `glob`, a name starting
with ``.`` is matched only by a component that starts with ``.``, and ``**`` does not
enter such directories. The walk visits at most `MAX_ENTRIES` directory entries.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence

from .errors import FleetError

__all__ = ["MAX_ENTRIES", "has_magic", "match_pattern", "match_under"]

#: The most directory entries one source may make a fleet look at (a bound on time and memory, not a likely size).
MAX_ENTRIES = 1_000_000
_MAGIC = frozenset("*?[")


def has_magic(text: str) -> bool:
    """Whether `text` holds a glob character (``*``, ``?``, ``[``)."""
    return not _MAGIC.isdisjoint(text)


class _Budget:
    """Counts the entries a walk has looked at; past the limit, a `FleetError` naming the source."""

    def __init__(self, source: str, limit: int) -> None:
        self.source, self.limit, self.seen = source, limit, 0

    def entries(self, directory: str) -> Iterator[os.DirEntry[str]]:
        """`directory`'s entries, each counted; an unreadable directory has none (as in `glob`)."""
        try:
            with os.scandir(directory or os.curdir) as listing:
                for entry in listing:
                    self.seen += 1
                    if self.seen > self.limit:
                        raise FleetError(
                            f"{self.source}: more than {self.limit:,} directory entries to look at; "
                            "name a narrower pattern or folder"
                        )
                    yield entry
        except OSError:
            return


def _join(directory: str, name: str) -> str:
    return os.path.join(directory, name) if directory else name


def _visible(name: str, part: str) -> bool:
    """`glob`'s rule: a hidden name is matched only by a component that is hidden too."""
    return not name.startswith(".") or part.startswith(".")


def _is_directory(entry: os.DirEntry[str], *, follow: bool) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def _beneath(directory: str, budget: _Budget) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry below `directory` whose name does not start with ``.``, entering real directories only."""
    pending = [directory]
    while pending:
        current = pending.pop()
        for entry in budget.entries(current):
            if entry.name.startswith("."):
                continue
            path = _join(current, entry.name)
            yield path, entry
            if _is_directory(entry, follow=False):
                pending.append(path)


def _walk(base: str, parts: Sequence[str], budget: _Budget) -> set[str]:
    """Every path below `base` that `parts` (pattern components, ``**`` for any depth) matches."""
    found: set[str] = set()
    pending = [(base, 0)]
    while pending:
        directory, index = pending.pop()
        part, last = parts[index], index == len(parts) - 1
        if part == "**":
            below = list(_beneath(directory, budget))
            if last:
                found.update(path for path, _ in below)
            else:
                pending.append((directory, index + 1))
                pending += [(path, index + 1) for path, entry in below if _is_directory(entry, follow=False)]
        elif not has_magic(part):
            path = _join(directory, part)
            if last:
                if os.path.lexists(path):
                    found.add(path)
            elif os.path.isdir(path):
                pending.append((path, index + 1))
        else:
            for entry in budget.entries(directory):
                if not _visible(entry.name, part) or not fnmatch.fnmatch(entry.name, part):
                    continue
                path = _join(directory, entry.name)
                if last:
                    found.add(path)
                elif _is_directory(entry, follow=True):
                    pending.append((path, index + 1))
    return found


def _components(parts: Sequence[str]) -> list[str]:
    """The pattern's components without empty ones and with runs of ``**`` made one (they match alike)."""
    kept: list[str] = []
    for part in parts:
        if part and not (part == "**" and kept and kept[-1] == "**"):
            kept.append(part)
    return kept


def _not_directories(paths: set[str]) -> list[str]:
    """The matches that are not directories (symlinks followed), sorted: what a fleet takes for profiles."""
    return sorted(path for path in paths if not os.path.isdir(path))


def match_under(root: str, parts: Sequence[str], *, limit: int | None = None) -> list[str]:
    """The paths below the directory `root` (taken literally) that the components `parts` match, no directories.

    >>> match_under("/no/such/folder", ["**", "*.capnp"])
    []
    """
    budget = _Budget(root, MAX_ENTRIES if limit is None else limit)
    return _not_directories(_walk(root, _components(parts), budget))


def match_pattern(pattern: str, *, limit: int | None = None) -> list[str]:
    """The paths `pattern` matches (``glob``'s rules; ``**`` through real directories only), no directories, sorted.

    A pattern ending in ``/`` matches directories only, so nothing here.
    """
    if pattern.endswith("/"):
        return []
    root = os.sep if os.path.isabs(pattern) else ""
    parts = _components(pattern.split(os.sep))
    budget = _Budget(pattern, MAX_ENTRIES if limit is None else limit)
    return _not_directories(_walk(root, parts, budget)) if parts else []
