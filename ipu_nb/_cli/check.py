"""`ipu-nb profile-check AFTER --baseline BEFORE --max-regression 3%`: a CI gate (docs/reference/fleet.md).

Every AFTER profile is compared with BEFORE by `ipu_nb.compare` (through `Fleet.compare`);
the rule of `ipu_nb._fleet.gate` decides which groups regressed. Exit 0: none did;
exit 1: some did (they are listed); exit 2: a usage error, or a profile that could not be
read or compared (trouble, as for cmp and diff: the check is not complete).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .._terminal import printable
from . import CliError
from .batch import add_fleet_flags, dask_client, failure_lines, open_fleet
from .flags import add_filter_flags, cli_error, query_filters, refuse_clip, unsigned, write_output

if TYPE_CHECKING:
    import polars as pl

__all__ = ["register", "run"]


def _threshold(text: str) -> Fraction:
    from .._fleet.gate import parse_threshold

    try:
        return parse_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(subparsers: Any) -> None:
    """Add `profile-check` to the `ipu-nb` command line."""
    from .._model.vocabulary import GROUP_BYS

    parser = subparsers.add_parser(
        "profile-check",
        help="CI gate: exit 1 listing the groups whose phase cycles regressed beyond a threshold",
        description=(
            "Compare each AFTER profile with the --baseline profile group by group (as profile-diff) and "
            "list the groups whose phase cycles grew by more than --max-regression: after > before x "
            "(1 + threshold), exactly; a group the baseline lacks counts as 0 before. Exit 0 when none "
            "did, 1 when some did, 2 on a usage error or a profile that cannot be read or compared."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("after", nargs="+", metavar="AFTER", help="the profile(s) to check (files, dirs, globs)")
    parser.add_argument("--baseline", required=True, metavar="BEFORE", help="the reference profile (.capnp)")
    add_filter_flags(parser, "filters (applied to both sides, combined with AND)")
    refuse_clip(parser)
    gate = parser.add_argument_group("the gate")
    gate.add_argument(
        "--group-by",
        choices=GROUP_BYS,
        default="kernel",
        metavar="BY",
        dest="group_by",
        help=f"compare groups of one of: {', '.join(GROUP_BYS)} (default: kernel)",
    )
    gate.add_argument("--metadata-key", metavar="NAME", dest="metadata_key", help="with --group-by metadata")
    gate.add_argument(
        "--max-regression",
        type=_threshold,
        required=True,
        metavar="T",
        dest="threshold",
        help="largest allowed growth of a group's phase cycles: a percentage (3%%) or a fraction below 1 (0.03)",
    )
    gate.add_argument(
        "--min-cycles",
        type=unsigned(63, "cycle count"),
        default=0,
        metavar="N",
        dest="min_cycles",
        help="ignore groups with fewer than N phase cycles after (noise in tiny groups; default 0)",
    )
    gate.add_argument(
        "--ignore-added",
        action="store_true",
        dest="ignore_added",
        help="groups the baseline lacks do not count (by default any with phase cycles is a regression)",
    )
    gate.add_argument("--json", action="store_true", help="print the verdict as JSON")
    add_fleet_flags(parser)
    parser.set_defaults(func=run)


def _change(before: int | None, after: int) -> str:
    if not before:
        return "new" if before is None else "from 0"
    return f"{(after - before) * 100 / before:+.2f}%"


def _text(rows: pl.DataFrame, header: str) -> str:
    lines = [printable(header)]
    if rows.height:
        lines.append("\t".join(("path", "name", "status", "phaseCyclesBefore", "phaseCyclesAfter", "change")))
        for r in rows.iter_rows(named=True):
            before = r["phase_cycles_before"]
            lines.append(
                "\t".join(
                    (
                        printable(r["path"]),
                        printable(r["name"]),
                        str(r["status"]),
                        "-" if before is None else str(before),
                        str(r["phase_cycles_after"]),
                        _change(before, r["phase_cycles_after"]),
                    )
                )
            )
    return "\n".join(lines) + "\n"


def _json(args: argparse.Namespace, baseline: str, checked: int, profiles: int, rows: pl.DataFrame, errors: Any) -> str:
    from .._fleet.gate import format_threshold
    from .._query.render import pretty_json

    report = {
        "baseline": baseline,
        "by": args.group_by,
        "metadataKey": args.metadata_key,
        "maxRegression": format_threshold(args.threshold),
        "minCycles": args.min_cycles,
        "ignoreAdded": args.ignore_added,
        "profiles": profiles,
        "checkedGroups": checked,
        "regressions": [
            {
                "path": r["path"],
                "name": r["name"],
                "status": str(r["status"]),
                "phaseCyclesBefore": r["phase_cycles_before"],
                "phaseCyclesAfter": r["phase_cycles_after"],
                "phaseCyclesRatio": None if r["phase_cycles_ratio"] is None else float(r["phase_cycles_ratio"]),
            }
            for r in rows.iter_rows(named=True)
        ],
        "errors": [dict(zip(("path", "error", "reason"), row, strict=True)) for row in errors.iter_rows()],
    }
    return pretty_json(report)


def run(args: argparse.Namespace) -> int:
    """Compare, apply the gate, print the verdict; 0 pass, 1 regressed, 2 trouble."""
    import polars as pl

    from .._fleet.errors import FleetError
    from .._fleet.gate import format_threshold, regressed
    from .._load import ProfileFormatError
    from .._one_line import one_line
    from .._query import QueryError

    fleet = open_fleet(args, args.after, exit_code=2)
    try:
        with fleet, dask_client(args.dask) as client:
            result = fleet.compare(
                args.baseline, by=args.group_by, metadata_key=args.metadata_key, client=client, **query_filters(args)
            )
    except QueryError as exc:
        raise cli_error(exc) from None
    except FleetError as exc:
        raise CliError(str(exc), 2) from None
    except (ProfileFormatError, OSError) as exc:  # the baseline itself
        raise CliError(f"baseline: {one_line(exc)}", 2) from None
    groups = result.groups
    flags = regressed(groups, args.threshold, min_cycles=args.min_cycles, count_added=not args.ignore_added)
    rows = groups.filter(flags)
    compared = result.summary.height
    threshold = format_threshold(args.threshold)
    header = (
        f"checked {compared} profile{'s' if compared != 1 else ''} against {args.baseline} by {args.group_by}: "
        f"{groups.height} groups compared, {rows.height} regressed beyond {threshold}"
    )
    if args.json:
        write_output(_json(args, args.baseline, groups.height, compared, rows, fleet.errors))
    else:
        write_output(_text(rows.select("path", "name", "status", pl.col("^phase_cycles_(before|after)$")), header))
    for line in failure_lines(fleet.errors):
        sys.stderr.write(f"ipu-nb profile-check: error: {line}\n")
    if fleet.errors.height:
        return 2
    return 1 if rows.height else 0
