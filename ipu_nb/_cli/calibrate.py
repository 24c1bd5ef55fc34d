"""`ipu-nb profile-calibrate`: the newest runtime's command, the same stdout line and the same database file.

What it collates and writes: docs/reference/head.md#profile-calibrate.
"""

from __future__ import annotations

import argparse
from typing import Any

from .._terminal import printable
from . import ArgumentParser
from .clap_flags import Once, clap_text, refuse_hyphen_values
from .flags import write_output

__all__ = ["register", "run"]


class _CalibrateParser(ArgumentParser):
    """Refuses a value taken from an argument that starts with ``-``, as the runtime's parser does."""

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None:
            refuse_hyphen_values(self, list(args), ("-o", "--output", "--target", "--build-id"))
        return super().parse_known_args(args, namespace)


def register(subparsers: Any) -> None:
    """Add `profile-calibrate` to the `ipu-nb` command line."""
    parser = subparsers.add_parser(
        "profile-calibrate",
        help="collate kernel-call cycles into a cost-table database, exactly like the newest runtime",
        description=(
            "Read every PROFILE (all at one clock) and write a JSON database of per-call cycles of each "
            "compute kernel, per kernel and metadata dimensions: count, minimum, median, p95 and maximum. "
            "The newest runtime's profile-calibrate, byte for byte."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("profiles", nargs="+", metavar="PROFILE", help="cycle-profile files (.capnp)")
    parser.add_argument("-o", "--output", action=Once, required=True, metavar="OUT", help="the .json file to write")
    parser.add_argument(
        "--target", action=Once, type=clap_text, default="ipu21", help="the target measured (default: ipu21)"
    )
    parser.add_argument(
        "--build-id",
        action=Once,
        type=clap_text,
        required=True,
        dest="build_id",
        metavar="ID",
        help="the kernel and runtime build the cycles belong to (stale measurements are told by it)",
    )
    parser.set_defaults(func=run)
    parser.__class__ = _CalibrateParser  # built by the subparsers action; this adds one check before parsing


def run(args: argparse.Namespace) -> int:
    """Read the profiles, collate, write the file, then print ``profiles=N measurements=M output=PATH``."""
    from .._calibrate import CalibrationError, calibrate
    from .head import HeadFailure, read_head_profile

    try:
        profiles = [read_head_profile(path, context=f"reading {printable(path)}") for path in args.profiles]
    except HeadFailure as failure:
        return failure.report()
    try:
        calibration = calibrate(profiles, args.target, build_id=args.build_id)
    except CalibrationError as exc:
        return HeadFailure(f"Error: {exc}\n").report()
    calibration.write(args.output)
    write_output(f"profiles={len(args.profiles)} measurements={calibration.height} output={printable(args.output)}\n")
    return 0
