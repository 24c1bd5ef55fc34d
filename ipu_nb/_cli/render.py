"""`ipu-nb profile-render`: a standalone offline HTML report of one profile."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from . import CliError, positive_int

if TYPE_CHECKING:
    from .._profile import Profile

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "profile-render",
        help="write a self-contained HTML report (summary, key charts, longest samples)",
        description=(
            "Write one offline HTML file: the profile summary, its ranked findings (straggler tiles, imbalanced "
            "phases and kernels, long tails...: ipu-nb profile-findings), time by kernel and by kind, active tiles "
            "over time, the phase waterfall, busy share per physical tile, recoverable cycles per superstep, "
            "critical tiles, duration distributions and the longest samples. With --baseline, also the "
            "comparison with that profile (ipu-nb profile-diff). No external URL: Vega is inlined."
        ),
    )
    parser.add_argument("profile", type=Path, metavar="PROFILE", help="the profile file (.capnp)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="REPORT", help="the .html file to write")
    parser.add_argument("--title", help="report title (default: the profile's file name)")
    parser.add_argument("--top", type=positive_int, default=20, metavar="N", help="groups per chart/table (default 20)")
    parser.add_argument(
        "--samples", type=positive_int, default=25, metavar="N", help="longest samples listed (default 25)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="BEFORE",
        help="also compare with this profile (before -> PROFILE): the groups by kernel, the delta waterfall and "
        "the delta per tile",
    )
    parser.add_argument("--static", action="store_true", help="inline SVG images instead of interactive charts")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output.suffix.lower() not in (".html", ".htm"):
        raise CliError(f"the report is HTML: -o must end in .html, got {args.output}", exit_code=2)
    from .. import charts
    from .._profile import open_profile
    from .._query import Query, query
    from .._report.report import save_report
    from .._supersteps import findings

    profile = open_profile(args.profile)
    baseline = open_profile(args.baseline) if args.baseline is not None else None
    # Its HTML shows the header, the kernel table and the longest samples with their metadata.
    by_kernel = query(profile, Query(group_by="kernel", limit=args.top, samples=args.samples))
    items: list[object] = [profile]
    if profile.sample_count:
        items += ["Findings, ranked by the cycles at stake (ipu-nb profile-findings):", findings(profile)]
    if baseline is not None:
        items += _comparison_items(baseline, profile, args)
    items += [by_kernel, charts.breakdown(by_kernel, top=args.top)]
    items.append(charts.breakdown(profile, by="kind", measure="workCycles", top=args.top))
    if profile.sample_count:
        items += [
            charts.active_tiles(profile),
            charts.phase_waterfall(profile),
            charts.tile_heatmap(profile, "busy_share"),
            charts.recoverable_cycles(profile),
            charts.critical_tiles(profile),
            charts.duration_distribution(profile, "kind"),
        ]
    title = args.title or f"ipu-nb report: {args.profile.name}"
    save_report(args.output, *items, title=title, description=str(args.profile), static=args.static)
    if not args.quiet:
        print(args.output)
    return 0


def _comparison_items(before: Profile, after: Profile, args: argparse.Namespace) -> list[object]:
    """The report's comparison section: the groups by kernel, their delta waterfall, the delta per tile."""
    from .. import charts
    from .._compare import ComparisonError, compare

    try:
        by_kernel = compare(before, after, by="kernel")
        by_tile = compare(before, after, by="tile")
    except ComparisonError as exc:
        raise CliError(f"--baseline {args.baseline}: {exc}") from None
    return [
        f"Compared with {args.baseline} (before) -> {args.profile} (after):",
        by_kernel,
        charts.delta_waterfall(by_kernel, limit=args.top),
        charts.delta_heatmap(by_tile),
    ]
