"""`ipu-nb profile-findings`: ranked findings (stragglers, imbalance, idle tiles, exchange, long tails)."""

from __future__ import annotations

import argparse
from typing import Any

from .flags import add_limit_flag, add_profile_argument, query_errors, write_output

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
    add_profile_argument(parser)
    add_limit_flag(parser, "findings")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the text table")
    parser.set_defaults(func=run_findings)


def run_findings(args: argparse.Namespace) -> int:
    """Run `profile-findings`; the output is built in full before any of it is written."""
    from .._profile import open_profile
    from .._supersteps.detectors import findings

    with query_errors():
        found = findings(open_profile(args.profile), limit=args.limit)
    write_output(found.to_json() if args.json else found.to_text())
    return 0
