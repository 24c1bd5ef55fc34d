"""`ipu-nb cache info|clear`: what the decoded-frame cache holds, and emptying it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from .._terminal import printable
from . import CliError

__all__ = ["register", "run_clear", "run_info"]


def register(subparsers: Any) -> None:
    """Add `cache info` and `cache clear` to the `ipu-nb` command line."""
    cache = subparsers.add_parser(
        "cache",
        help="show or clear the cache of decoded profiles",
        description=(
            "Reopening a profile reads its decoded frames from a cache (under $IPU_NB_CACHE, default "
            "~/.cache/ipu-nb/frames or $XDG_CACHE_HOME/ipu-nb/frames), bounded by $IPU_NB_CACHE_SIZE "
            "(bytes or a size like 2GiB; default 4 GiB), least recently used entries evicted first. "
            "Only your own entries are used; a cache directory others can write keeps yours in a "
            "private subdirectory."
        ),
    )
    actions = cache.add_subparsers(dest="action", metavar="ACTION", parser_class=type(cache))
    actions.required = True
    info = actions.add_parser(
        "info",
        help="print the cache directory, its size cap and every entry",
        description="Print the cache directory, its size cap, and each entry's profile, size and last use.",
    )
    info.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    info.set_defaults(func=run_info)
    clear = actions.add_parser(
        "clear",
        help="remove every entry, or those of the given profiles",
        description="Remove every cache entry, or only the entries of the given profile paths.",
    )
    clear.add_argument("profiles", nargs="*", type=Path, metavar="PROFILE", help="profile whose entries to remove")
    clear.add_argument(
        "--profile",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        dest="profile_options",
        help="the same, as an option (repeatable)",
    )
    clear.set_defaults(func=run_clear)


def run_info(args: argparse.Namespace) -> int:
    from .._load import _cache

    root = _cache.cache_dir()
    try:
        limit = _cache.cache_size_limit()
    except ValueError as exc:
        raise CliError(str(exc)) from None
    entries = _listing(root)
    location = _cache.cache_location(root)
    total = sum(entry.size for entry in entries)
    configured = bool(os.environ.get("IPU_NB_CACHE_SIZE", "").strip())
    if args.json:
        document = {
            "directory": str(location),
            "configured_directory": str(root),
            "limit_bytes": limit,
            "limit_source": "IPU_NB_CACHE_SIZE" if configured else "default",
            "entry_count": len(entries),
            "total_bytes": total,
            "entries": [
                {
                    "key": entry.key,
                    "profile": entry.profile,
                    "bytes": entry.size,
                    "last_used": _when(entry.last_use_ns).isoformat(timespec="seconds"),
                }
                for entry in entries
            ],
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    source = "from IPU_NB_CACHE_SIZE" if configured else "default; set IPU_NB_CACHE_SIZE to change it"
    over = "  (over the cap: the next write evicts the least recently used)" if total > limit else ""
    private = (
        f"  (a private subdirectory: {printable(root)} is writable by others or not yours)" if location != root else ""
    )
    lines = [
        f"directory  {printable(location)}{private}",
        f"size cap   {_cache.format_size(limit)} ({source})",
        f"entries    {len(entries)}, {_cache.format_size(total)} in total{over}",
    ]
    if entries:
        sizes = [_cache.format_size(entry.size) for entry in entries]
        width = max(len("size"), *map(len, sizes))
        lines += ["", f"{'last used':<19}  {'size':>{width}}  profile"]
        for entry, size in zip(entries, sizes, strict=True):
            profile = entry.profile
            shown = printable(profile) if profile is not None else _UNREADABLE
            lines.append(f"{_when(entry.last_use_ns):%Y-%m-%d %H:%M:%S}  {size:>{width}}  {shown}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


_UNREADABLE = "(unreadable: damaged, not yours, or from another ipu-nb version)"


def run_clear(args: argparse.Namespace) -> int:
    from .._load import _cache

    root = _cache.cache_dir()
    _listing(root)  # a cache path that is not a directory is an error, not "nothing removed"
    removed = freed = 0
    try:
        for profile in [*args.profiles, *args.profile_options] or [None]:
            count, size = _cache.clear_cache(root, profile)
            removed += count
            freed += size
    except _cache.CacheClearError as exc:
        raise CliError(printable(exc)) from None
    except OSError as exc:
        raise CliError(_os_failure(root, exc)) from None
    noun = "entry" if removed == 1 else "entries"
    if not args.quiet:
        where = printable(_cache.cache_location(root))
        sys.stdout.write(f"removed {removed} {noun} ({_cache.format_size(freed)}) from {where}\n")
    return 0


def _listing(root: Path) -> list[Any]:
    from .._load import _cache

    if root.exists() and not root.is_dir():
        raise CliError(f"cache directory {printable(root)} is not a directory (check IPU_NB_CACHE)")
    try:
        return _cache.cache_entries(root)
    except OSError as exc:
        raise CliError(_os_failure(root, exc)) from None


def _os_failure(root: Path, exc: OSError) -> str:
    """One line for an OS error on the cache directory `root`, its path escaped for the terminal."""
    return f"cannot read or change cache directory {printable(root)}: {printable(exc.strerror or exc)}"


def _when(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9).astimezone()
