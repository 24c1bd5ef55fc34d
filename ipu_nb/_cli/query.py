"""`ipu-nb profile-query` and `ipu-nb profile-inspect`: the runtime's commands, same bytes out.

What they compute and print: docs/reference/query.md.
"""

from __future__ import annotations

import argparse
from typing import Any

from .flags import add_profile_argument, add_query_flags, cli_query, query_errors, write_output
from .head import add_inspect_semantics, route_semantics, run_head_inspect

__all__ = ["register", "run_inspect", "run_query"]


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
    add_profile_argument(query)
    add_query_flags(query)
    query.set_defaults(func=run_query)
    route_semantics(query)

    inspect = subparsers.add_parser(
        "profile-inspect",
        help="per operation: phases, summed and largest per-phase maximum cycles",
        description=(
            "Print one line per distinct operation (byte order): operation=OP phases=N cycles=C "
            "maxPhaseCycles=M, where each distinct (phase, epoch, operation) contributes its longest sample."
        ),
        allow_abbrev=False,
    )
    add_profile_argument(inspect)
    add_inspect_semantics(inspect)
    inspect.set_defaults(func=run_inspect)


def run_query(args: argparse.Namespace) -> int:
    """Run `profile-query`; the output is built in full before any of it is written."""
    from .._profile import open_profile
    from .._query import query

    with query_errors():
        q = cli_query(args)  # before the profile is read, as the runtime checks its flags first
        result = query(open_profile(args.profile), q)
    write_output(result.to_json() if args.json else result.to_text())
    return 0


def run_inspect(args: argparse.Namespace) -> int:
    """Run `profile-inspect` (docs/reference/query.md#profile-inspect; with --semantics head, `run_head_inspect`)."""
    if args.semantics == "head":
        return run_head_inspect(args)
    from .._profile import open_profile
    from .._query import inspect_operations
    from .._query.render import inspect_text

    rows = inspect_operations(open_profile(args.profile))
    write_output(
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
