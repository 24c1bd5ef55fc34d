"""`ipu-nb profile-findings`: ranked findings (stragglers, imbalance, idle tiles, exchange, long tails)."""

from __future__ import annotations

import argparse
from typing import Any

from .flags import cli_error, unsigned, write_output

__all__ = ["register", "run_findings"]


def register(subparsers: Any) -> None:
    """Add `profile-findings` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "profile-findings",
        help="ranked findings: where the cycles go and what fixing it would save",
        description=(
            "Print concrete findings about a profile, ranked by the cycles at stake: straggler tiles, "
            "imbalanced kernels and phases, tiles idle while others compute, exchange- and sync-dominated "
            "stretches, kernels with a long tail. Each comes with the profile-query filter flags that show it."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")
    parser.add_argument(
        "--limit",
        type=unsigned(64, "limit"),
        default=20,
        metavar="N",
        help="at most N findings; 0 = all (default: 20)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the text table")
    parser.set_defaults(func=run_findings)


def run_findings(args: argparse.Namespace) -> int:
    """Run `profile-findings`; the output is built in full before any of it is written."""
    from .. import open_profile
    from .._query import QueryError
    from .._supersteps.detectors import findings

    try:
        found = findings(open_profile(args.profile), limit=args.limit)
    except QueryError as exc:
        raise cli_error(exc) from None
    write_output(found.to_json() if args.json else found.to_text())
    return 0
