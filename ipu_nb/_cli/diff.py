"""`ipu-nb profile-diff BEFORE AFTER`: two profiles compared group by group (docs/reference/compare.md).

The filter, grouping, sort, limit and JSON flags are `profile-query`'s own
(`ipu_nb._cli.flags.add_query_flags`), so the two commands accept the same spellings and
reject the same values.
"""

from __future__ import annotations

import argparse
from typing import Any

from . import CliError
from .flags import add_query_flags, query_errors, query_filters, write_output

__all__ = ["register", "run"]

_SORT_HELP = (
    "order groups by the size of their change: phase-cycles (default), work-cycles, maximum-cycles or "
    "samples rank by |after - before| of that field, largest first, then name; name sorts by name"
)


def _rename(text: str) -> tuple[str, str]:
    old, eq, new = text.partition("=")
    if not eq:
        raise argparse.ArgumentTypeError(f"--rename needs OLD=NEW (split at the first '='), got {text!r}")
    return old, new


def register(subparsers: Any) -> None:
    """Add `profile-diff` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "profile-diff",
        help="compare two profiles group by group: deltas, added and removed groups, an exact attribution",
        description=(
            "Run the same profile-query on BEFORE and AFTER, align their groups by name (phases and tiles "
            "by number), and print each group's numbers on both sides, the deltas and the attribution of "
            "the total phase-cycle change (text table, or JSON with --json)."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("before", metavar="BEFORE", help="the baseline cycle profile (.capnp)")
    parser.add_argument("after", metavar="AFTER", help="the profile to compare with it (.capnp)")
    shape = add_query_flags(
        parser,
        filters_title="filters (applied to both profiles, combined with AND)",
        sort_help=_SORT_HELP,
        samples=False,
        clip=False,
    )
    shape.add_argument(
        "--rename",
        type=_rename,
        action="append",
        default=[],
        metavar="OLD=NEW",
        dest="renames",
        help="align BEFORE's group OLD with AFTER's group NEW (split at the first '='; repeatable)",
    )
    shape.add_argument(
        "--allow-clock-mismatch",
        action="store_true",
        dest="allow_clock_mismatch",
        help="compare profiles with different clockHz: cycles as cycles, ms at each profile's clock",
    )
    parser.set_defaults(func=run)


def _renames(pairs: list[tuple[str, str]]) -> dict[str, str]:
    renames: dict[str, str] = {}
    for old, new in pairs:
        if renames.get(old, new) != new:
            raise CliError(f"--rename {old}: given twice, as {renames[old]!r} and {new!r}", exit_code=2)
        renames[old] = new
    return renames


def run(args: argparse.Namespace) -> int:
    """Compare the two profiles; the output is built in full before any of it is written."""
    from .._compare import compare

    renames = _renames(args.renames)
    with query_errors():
        comparison = compare(
            args.before,
            args.after,
            by=args.group_by,
            metadata_key=args.metadata_key,
            renames=renames,
            allow_clock_mismatch=args.allow_clock_mismatch,
            **query_filters(args),
        )
        render = comparison.to_json if args.json else comparison.to_text
        text = render(limit=args.limit, sort_by=args.sort_by)
    write_output(text)
    return 0
