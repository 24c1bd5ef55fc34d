"""`ipu-nb profile-query` and `ipu-nb profile-inspect`: the runtime's commands, same bytes out (SPEC §3–§4c)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from . import CliError

__all__ = ["register", "run_inspect", "run_query"]

_GROUP_BYS = ("kind", "kernel", "operation", "phase", "tile", "metadata")
_SORT_BYS = ("phase-cycles", "work-cycles", "maximum-cycles", "samples", "name")
_KINDS = ("compute", "exchange", "synchronization", "idle")


def _unsigned(bits: int, what: str) -> Any:
    top = 2**bits - 1

    def parse(text: str) -> int:
        digits = text[1:] if text.startswith("+") else text  # Rust's integer parsing accepts one leading '+'
        if not digits.isascii() or not digits.isdigit():
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer from 0 to {top}")
        value = int(digits)
        if value > top:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer from 0 to {top}")
        return value

    parse.__name__ = what
    return parse


def _metadata_filter(text: str) -> tuple[str, str | None]:
    from .._query import QueryError, parse_metadata_filter

    try:
        return parse_metadata_filter(text)
    except QueryError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(subparsers: Any) -> None:
    """Add `profile-query` and `profile-inspect` to the `ipu-nb` command line."""
    query = subparsers.add_parser(
        "profile-query",
        help="group and rank a profile's samples, exactly like the runtime's profile-query",
        description=(
            "Filter a cycle profile's samples, aggregate them per group and print the runtime's "
            "text table (or its stable JSON with --json). All filters are combined with AND."
        ),
        allow_abbrev=False,
    )
    query.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")
    filters = query.add_argument_group("filters (all optional, combined with AND)")
    filters.add_argument("--kind", choices=_KINDS, metavar="KIND", help=f"step kind, one of: {', '.join(_KINDS)}")
    filters.add_argument("--kernel", metavar="S", help="exact kernel string")
    filters.add_argument(
        "--operation-contains", metavar="S", dest="operation_contains", help="case-sensitive substring of operation"
    )
    filters.add_argument(
        "--tile",
        type=_unsigned(32, "tile"),
        action="append",
        default=[],
        metavar="N",
        dest="tiles",
        help="physical tile id (repeatable: any of them)",
    )
    filters.add_argument(
        "--phase",
        type=_unsigned(32, "phase"),
        action="append",
        default=[],
        metavar="N",
        dest="phases",
        help="phase number (repeatable: any of them)",
    )
    filters.add_argument(
        "--metadata",
        type=_metadata_filter,
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="some metadata entry has NAME (and VALUE; split at the first '='); repeatable, all must hold",
    )
    filters.add_argument(
        "--at",
        type=_unsigned(64, "offset"),
        metavar="N",
        help="samples running at per-tile offset N: offset <= N < offset + duration",
    )
    shape = query.add_argument_group("grouping and output")
    shape.add_argument(
        "--group-by",
        choices=_GROUP_BYS,
        default="kernel",
        metavar="BY",
        dest="group_by",
        help=f"group samples by one of: {', '.join(_GROUP_BYS)} (default: kernel)",
    )
    shape.add_argument(
        "--metadata-key",
        metavar="NAME",
        dest="metadata_key",
        help="with --group-by metadata: group by the value of the first entry named NAME, or (missing)",
    )
    shape.add_argument(
        "--sort-by",
        choices=_SORT_BYS,
        default="phase-cycles",
        metavar="KEY",
        dest="sort_by",
        help=f"order groups by one of: {', '.join(_SORT_BYS)}, descending except name (default: phase-cycles)",
    )
    shape.add_argument(
        "--limit", type=_unsigned(64, "limit"), default=20, metavar="N", help="at most N groups; 0 = all (default: 20)"
    )
    shape.add_argument(
        "--samples",
        type=_unsigned(64, "sample count"),
        default=0,
        metavar="N",
        help="also list the N longest matching samples (default: 0)",
    )
    shape.add_argument("--json", action="store_true", help="print the stable JSON report instead of text")
    query.set_defaults(func=run_query)

    inspect = subparsers.add_parser(
        "profile-inspect",
        help="per operation: phases, summed and largest per-phase maximum cycles",
        description=(
            "Print one line per distinct operation (byte order): operation=OP phases=N cycles=C "
            "maxPhaseCycles=M, where each distinct (phase, epoch, operation) contributes its longest sample."
        ),
        allow_abbrev=False,
    )
    inspect.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")
    inspect.set_defaults(func=run_inspect)


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # A closed reader (`| head`) is not an error; point stdout at /dev/null so exit stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_query(args: argparse.Namespace) -> int:
    """Run `profile-query`; the output is built in full before any of it is written."""
    from .. import open_profile
    from .._query import Query, QueryError, make_query, query

    try:
        q = make_query(
            Query(),
            group_by=args.group_by,
            sort_by=args.sort_by,
            kind=args.kind,
            kernel=args.kernel,
            operation_contains=args.operation_contains,
            tiles=tuple(args.tiles),
            phases=tuple(args.phases),
            metadata=tuple(args.metadata),
            metadata_key=args.metadata_key,
            at=args.at,
            limit=args.limit,
            samples=args.samples,
        )
        if q.group_by == "metadata" and q.metadata_key is None:
            raise QueryError("--group-by metadata requires --metadata-key NAME", usage=False)
        result = query(open_profile(args.profile), q)
    except QueryError as exc:
        raise CliError(str(exc), 2 if exc.usage else 1) from None
    _write(result.to_json() if args.json else result.to_text())
    return 0


def run_inspect(args: argparse.Namespace) -> int:
    """Run `profile-inspect` (SPEC §4b)."""
    from .. import open_profile
    from .._query import inspect_operations
    from .._query.render import inspect_text

    rows = inspect_operations(open_profile(args.profile))
    _write(
        inspect_text(
            {
                "operation": r["operation"],
                "phases": r["phases"],
                "cycles": r["cycles"],
                "maxPhaseCycles": r["max_phase_cycles"],
            }
            for r in rows.iter_rows(named=True)
        )
    )
    return 0
