"""`ipu-nb export-trace PROFILE -o trace.json`: the profile as a Chrome/Perfetto trace (`ipu_nb._io.trace`)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from . import output_path
from .flags import add_filter_flags, query_errors, query_filters

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add `export-trace` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "export-trace",
        help="write the profile as a Chrome/Perfetto JSON trace (ui.perfetto.dev, chrome://tracing)",
        description=(
            "Write the samples as a Chrome/Perfetto JSON trace: one track per tile, grouped by IPU column; "
            "one slice per sample named by its operation, with kind, kernel, phase, epoch, cycles, offset and "
            "metadata as args; time in microseconds at the profile's clock. Filters as in profile-query. "
            "Streamed to the file, gzip-compressed when its name ends in .gz."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")
    parser.add_argument(
        "-o", "--output", required=True, metavar="TRACE", help="the trace file to write (.json, or .json.gz)"
    )
    add_filter_flags(parser, "filters: export only the matching samples (all optional, combined with AND)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export the trace and print a one-line summary (unless --quiet)."""
    from .._profile import open_profile
    from .._profile.exports import export_trace
    from .._query import filters_only

    target = output_path(args.output)
    with query_errors():
        q = filters_only(**query_filters(args))
    began = time.perf_counter()
    profile = open_profile(args.profile)
    written = export_trace(profile, target, q)
    if not args.quiet:
        seconds = time.perf_counter() - began
        size = written.path.stat().st_size / 1e6
        sys.stdout.write(
            f"wrote {written.path}: {written.slices:,} slices on {written.tracks:,} tile tracks, "
            f"{size:.1f} MB in {seconds:.1f} s\n"
        )
    return 0
