"""`ipu-nb generate`: write a realistic synthetic profile (see `ipu_nb._synth`)."""

from __future__ import annotations

import argparse
import sys
import time

from .._demo import DEMO_KNOBS, DEMO_SIZES, describe_demo
from . import CliError, output_path, positive_int, status

__all__ = ["register", "run"]

# Mirrors ipu_nb._synth (kept literal so `ipu-nb --help` does not import numpy).
_WORKLOADS = ("mlp", "gemm", "attention")
_GRANULARITIES = ("graph", "region", "phase", "step")
_MAX_TILES = 1472
_SMALL = DEMO_KNOBS["small"]


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
            f"--size full (the default) is the demo profile, {describe_demo('full')}; "
            f"--size small is {describe_demo('small')}. The other knobs change either. "
            "Without -o, the demo profile of --size is written where `ipu-nb demo` finds it "
            "(reused when already there) and its path printed."
        ),
        formatter_class=_Formatter,
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="profile file to write (required unless only --size is given)",
    )
    parser.add_argument("--size", default="full", choices=DEMO_SIZES, help="the demo profile to start from")
    parser.add_argument("--workload", default="mlp", choices=_WORKLOADS, help="model whose profile to synthesise")
    parser.add_argument(
        "--granularity",
        default="phase",
        choices=_GRANULARITIES,
        help="what each tile records: one interval for the whole run (graph), one per model stage (region), "
        "intervals per exchange and compute phase (phase), or per kernel call as well (step)",
    )
    parser.add_argument(
        "--tiles",
        type=_tiles,
        default=None,
        metavar="N",
        help=f"tile entries, 1 to {_MAX_TILES} (default: {_MAX_TILES}; {_SMALL['tiles']} with --size small)",
    )
    parser.add_argument(
        "--layers",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"model layers (default: 8 for mlp, 1 otherwise; {_SMALL['layers']} with --size small)",
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
    parser.set_defaults(func=run)


def _knobs(args: argparse.Namespace) -> dict[str, object]:
    """`generate_columns` keywords: the --size demo's knobs, overridden by any knob given."""
    knobs = {**DEMO_KNOBS[args.size], "workload": args.workload, "granularity": args.granularity}
    given = {
        "tiles": args.tiles,
        "layers": args.layers,
        "phases": args.phases,
        "busy_tiles": args.busy_tiles,
        "base_cycle": args.base_cycle,
    }
    knobs.update({name: value for name, value in given.items() if value is not None})
    scale: dict[str, float] = {}
    for name, factor in args.scale_kernel or ():
        if name in scale:
            raise CliError(f"--scale-kernel gives {name!r} twice", 2)
        scale[name] = factor
    if scale:
        knobs["scale_kernel"] = scale
    return {**knobs, "seed": args.seed, "schema_version": args.schema_version}


def _demo_only(args: argparse.Namespace, knobs: dict[str, object]) -> bool:
    """Whether the knobs are exactly those of the --size demo (so the demo's file can stand for them)."""
    return knobs == {**DEMO_KNOBS[args.size], "seed": 0, "schema_version": 3}


def run(args: argparse.Namespace) -> int:
    """Generate and write the profile, then print a one-line summary (or, without -o, the demo profile's path)."""
    knobs = _knobs(args)
    tiles = int(knobs.get("tiles", _MAX_TILES))  # type: ignore[call-overload]
    if args.busy_tiles is not None and args.busy_tiles > tiles:
        raise CliError(f"--busy-tiles {args.busy_tiles} exceeds --tiles {tiles}", 2)
    if args.output is None:
        if not _demo_only(args, knobs):
            raise CliError("the following arguments are required with these knobs: -o/--output", 2)
        return _demo(args)
    output = output_path(args.output)

    from .._synth.generate import generate_columns, write_profile

    began = time.perf_counter()
    workload, granularity = str(knobs.pop("workload")), str(knobs.pop("granularity"))
    try:
        columns = generate_columns(workload, granularity, progress=None, **knobs)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        raise CliError(str(exc), 2) from None
    path = write_profile(columns, output, progress=None)
    seconds = time.perf_counter() - began
    if not args.quiet:
        size = path.stat().st_size
        sys.stdout.write(f"wrote {path}: {columns.sample_count:,} samples, {size / 1e6:.1f} MB in {seconds:.1f} s\n")
    return 0


def _demo(args: argparse.Namespace) -> int:
    """Generate the --size demo profile where `ipu-nb demo` looks for it (if not there yet); print its path."""
    from .._synth.generate import demo_profile_path

    began = time.perf_counter()
    path = demo_profile_path(args.size)
    status(args, f"{path}: {describe_demo(args.size)} (ready in {time.perf_counter() - began:.1f} s)")
    sys.stdout.write(f"{path}\n")
    return 0
