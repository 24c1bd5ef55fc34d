"""`ipu-nb generate`: write a realistic synthetic profile (see `ipu_nb._synth`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import CliError, positive_int

__all__ = ["register", "run"]

# Mirrors ipu_nb._synth (kept literal so `ipu-nb --help` does not import numpy).
_WORKLOADS = ("mlp", "gemm", "attention")
_GRANULARITIES = ("graph", "region", "phase", "step")
_MAX_TILES = 1472


def _tiles(text: str) -> int:
    value = positive_int(text)
    if value > _MAX_TILES:
        raise argparse.ArgumentTypeError(f"an IPU has at most {_MAX_TILES} tiles, got {value}")
    return value


def _natural(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def _cycle(text: str) -> int:
    value = _natural(text)
    if value >= 1 << 32:
        raise argparse.ArgumentTypeError(f"must be below 2^32 (a 32-bit counter), got {value}")
    return value


def _version(text: str) -> int:
    value = positive_int(text)
    if value > 5:
        raise argparse.ArgumentTypeError(f"supported schema versions are 1 to 5, got {value}")
    return value


def _scale(text: str) -> tuple[str, float]:
    """``NAME=FACTOR``: a kernel name and a positive factor (the name is checked by the generator)."""
    name, sep, factor = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected KERNEL=FACTOR, got {text!r}")
    try:
        value = float(factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid factor {factor!r} in {text!r}") from None
    return name, value


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Show `(default: …)` only for knobs with a concrete default (the others say it in words)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `generate` subcommand."""
    parser = subparsers.add_parser(
        "generate",
        help="write a realistic synthetic profile",
        description=(
            "Write a realistic synthetic IPU cycle profile (Cap'n Proto, the runtime's format). "
            "Defaults give the MLP FP32 512x2048x8 phase profile: 1,472 tiles, 1,170,240 samples, ~770 MB."
        ),
        formatter_class=_Formatter,
    )
    parser.add_argument("-o", "--output", required=True, metavar="PATH", help="profile file to write")
    parser.add_argument("--workload", default="mlp", choices=_WORKLOADS, help="model whose profile to synthesise")
    parser.add_argument("--granularity", default="phase", choices=_GRANULARITIES, help="collection level (SPEC §5)")
    parser.add_argument("--tiles", type=_tiles, default=_MAX_TILES, metavar="N", help="tile entries, 1 to 1472")
    parser.add_argument(
        "--layers", type=positive_int, default=None, metavar="N", help="model layers (default: 8 for mlp, 1 otherwise)"
    )
    parser.add_argument(
        "--phases", type=positive_int, default=None, metavar="N", help="keep only the first N phases (default: all)"
    )
    parser.add_argument(
        "--busy-tiles",
        type=positive_int,
        default=None,
        metavar="N",
        help="tiles holding work (default: 1280 for mlp/attention, 1024 for gemm, scaled to --tiles)",
    )
    parser.add_argument("--seed", type=_natural, default=0, metavar="N", help="random seed (same seed, same file)")
    parser.add_argument(
        "--scale-kernel",
        type=_scale,
        action="append",
        default=None,
        metavar="KERNEL=FACTOR",
        help="make KERNEL's samples take FACTOR times as long, as a compiler change would (0 < FACTOR <= 100; "
        "repeatable); later samples move, since phases end when their slowest tile ends",
    )
    parser.add_argument(
        "--schema-version",
        type=_version,
        default=3,
        metavar="V",
        help="3 as the runtime writes; 2 marks idle phases as compute with active=false; 4+ adds exchange activities",
    )
    parser.add_argument(
        "--base-cycle",
        type=_cycle,
        default=None,
        metavar="C",
        help="raw counter at device time 0 (default: chosen so the 32-bit counters wrap mid-profile)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate and write the profile, then print a one-line summary."""
    output = Path(args.output)
    if args.busy_tiles is not None and args.busy_tiles > args.tiles:
        raise CliError(f"--busy-tiles {args.busy_tiles} exceeds --tiles {args.tiles}", 2)
    scale: dict[str, float] = {}
    for name, factor in args.scale_kernel or ():
        if name in scale:
            raise CliError(f"--scale-kernel gives {name!r} twice", 2)
        scale[name] = factor
    directory = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        raise CliError(f"{output}: is a directory", 2)
    if not directory.is_dir():
        raise CliError(f"{directory}: no such directory", 2)
    if not os.access(directory, os.W_OK):
        raise CliError(f"{directory}: directory is not writable", 2)

    from .._synth.generate import generate_columns, write_profile

    began = time.perf_counter()
    try:
        columns = generate_columns(
            args.workload,
            args.granularity,
            progress=False if args.quiet else None,
            tiles=args.tiles,
            layers=args.layers,
            phases=args.phases,
            busy_tiles=args.busy_tiles,
            seed=args.seed,
            scale_kernel=scale,
            base_cycle=args.base_cycle,
            schema_version=args.schema_version,
        )
    except (ValueError, TypeError) as exc:
        raise CliError(str(exc), 2) from None
    path = write_profile(columns, output, progress=False if args.quiet else None)
    seconds = time.perf_counter() - began
    if not args.quiet:
        size = path.stat().st_size
        sys.stdout.write(f"wrote {path}: {columns.sample_count:,} samples, {size / 1e6:.1f} MB in {seconds:.1f} s\n")
    return 0
