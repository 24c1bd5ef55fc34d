"""`ipu-nb profile-supersteps`: one row per superstep, its critical tile and recoverable cycles."""

from __future__ import annotations

import argparse
from typing import Any

from .flags import (
    add_filter_flags,
    add_limit_flag,
    add_profile_argument,
    query_errors,
    query_filters,
    refuse_clip,
    write_output,
)

__all__ = ["register", "run_supersteps"]

SORT_KEYS = {
    "execution": None,
    "span-cycles": "span_cycles",
    "recoverable-cycles": "recoverable_cycles",
    "critical-cycles": "critical_cycles",
    "imbalance": "imbalance",
}


def register(subparsers: Any) -> None:
    """Add `profile-supersteps` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "profile-supersteps",
        help="per superstep (phase/epoch): span, critical tile, recoverable cycles",
        description=(
            "Print one row per superstep (phase, epoch) with a matching sample, in execution order: its span "
            "(the phaseCycles of profile-query --group-by phase), its critical tile (largest summed duration), "
            "the mean over its tiles and what balancing them would recover. Filters as in profile-query."
        ),
        allow_abbrev=False,
    )
    add_profile_argument(parser)
    add_filter_flags(parser)
    shape = parser.add_argument_group("output")
    shape.add_argument(
        "--sort-by",
        choices=tuple(SORT_KEYS),
        default="execution",
        metavar="KEY",
        dest="sort_by",
        help=f"row order, one of: {', '.join(SORT_KEYS)}; descending except execution, ties in execution "
        "order (default: execution)",
    )
    add_limit_flag(shape, "rows", "; the header's totals cover every superstep")
    shape.add_argument("--json", action="store_true", help="print JSON instead of the text table")
    refuse_clip(parser)
    parser.set_defaults(func=run_supersteps)


def run_supersteps(args: argparse.Namespace) -> int:
    """Run `profile-supersteps`; the output is built in full before any of it is written."""
    from .._profile import open_profile
    from .._supersteps.output import StepsReport, steps_json, steps_text
    from .._supersteps.source import filter_query
    from .._supersteps.structure import measure

    with query_errors():
        q = filter_query(**query_filters(args))
        profile = open_profile(args.profile)
        measured = measure(profile, q)
    steps = measured.steps.drop("_step")
    shown = steps
    key = SORT_KEYS[args.sort_by]
    if key is not None:
        shown = shown.sort(key, descending=True, maintain_order=True)
    if args.limit:
        shown = shown.head(min(args.limit, max(shown.height, 1)))
    report = StepsReport(
        clock_hz=profile.clock_hz,
        tile_count=profile.tile_count,
        sample_count=profile.sample_count,
        matched_sample_count=measured.samples.height,
        profile_span_cycles=profile.span_cycles,
        at_offset=q.at,
        steps=steps,
        shown=shown,
    )
    write_output(steps_json(report) if args.json else steps_text(report))
    return 0
