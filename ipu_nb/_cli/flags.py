"""The `profile-query` flags, registered once and shared by every command that selects samples.

`add_query_flags` gives `profile-query` and `profile-diff` the filter, grouping and
output flags; `add_filter_flags` gives `profile-supersteps` the filters alone. All
parse values with the runtime's rules (`unsigned`), and `query_filters` reads the
parsed filters back as `Query` keywords, so every command accepts and refuses the
same spellings. ``--operation``, ``--window`` and ``--clip`` are ipu-nb extensions
(docs/reference/query.md#ipu-nb-extensions).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .._model.vocabulary import GROUP_BYS, KINDS, SORT_BYS
from . import CliError

if TYPE_CHECKING:
    from .._query import Query, QueryError

__all__ = [
    "FILTERS_TITLE",
    "add_filter_flags",
    "add_limit_flag",
    "add_profile_argument",
    "add_query_flags",
    "cli_error",
    "cli_query",
    "query_errors",
    "query_filters",
    "refuse_clip",
    "unsigned",
    "window_bounds",
    "write_output",
]

FILTERS_TITLE = "filters (all optional, combined with AND)"


def unsigned(bits: int, what: str) -> Callable[[str], int]:
    """argparse type: an integer from 0 to 2**bits - 1, spelled as the runtime accepts it."""
    top = 2**bits - 1

    def parse(text: str) -> int:
        digits = text[1:] if text.startswith("+") else text  # Rust's integer parsing accepts one leading '+'
        if not digits.isascii() or not digits.isdigit():
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer from 0 to {top}")
        value = int(digits)
        if value > top:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer from 0 to {top}")
        return value

    parse.__name__ = what
    return parse


def window_bounds(text: str) -> tuple[int, int]:
    """argparse type of ``--window``: ``START:END``, two offsets (as `unsigned` reads them) with START < END."""
    offset = unsigned(64, "offset")
    start, colon, end = text.partition(":")
    try:
        bounds = offset(start), offset(end)
    except argparse.ArgumentTypeError:
        colon = ""
    if not colon:
        raise argparse.ArgumentTypeError(
            f"invalid window {text!r}: expected START:END, two offsets from 0 to {2**64 - 1}"
        )
    if bounds[0] >= bounds[1]:
        raise argparse.ArgumentTypeError(f"invalid window {text!r}: START must be less than END")
    return bounds


def _metadata_filter(text: str) -> tuple[str, str | None]:
    from .._query import QueryError, parse_metadata_filter

    try:
        name, value = parse_metadata_filter(text)
    except QueryError as exc:
        raise argparse.ArgumentTypeError(exc.cli_message) from None
    if not name:  # an empty NAME is a usage error on the command line only (docs/reference/query.md)
        raise argparse.ArgumentTypeError(f"--metadata needs a NAME or NAME=VALUE with a non-empty NAME, got {text!r}")
    return name, value


def add_profile_argument(parser: argparse.ArgumentParser) -> None:
    """The ``PROFILE`` argument every command that reads one profile takes."""
    parser.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")


def add_limit_flag(group: Any, what: str, note: str = "") -> None:
    """``--limit N``: at most N `what` (default 20, 0 for all), parsed as the runtime parses a u64."""
    group.add_argument(
        "--limit",
        type=unsigned(64, "limit"),
        default=20,
        metavar="N",
        help=f"at most N {what}; 0 = all (default: 20){note}",
    )


def add_filter_flags(parser: argparse.ArgumentParser, title: str = FILTERS_TITLE) -> None:
    """Add the filter flags (``--kind`` … ``--at``) to `parser`, in a group named `title`."""
    filters = parser.add_argument_group(title)
    filters.add_argument("--kind", choices=KINDS, metavar="KIND", help=f"step kind, one of: {', '.join(KINDS)}")
    filters.add_argument("--kernel", metavar="S", help="exact kernel string")
    filters.add_argument(
        "--operation",
        action="append",
        default=[],
        metavar="S",
        help="exact operation string (repeatable: any of them; an ipu-nb extension)",
    )
    filters.add_argument(
        "--operation-contains", metavar="S", dest="operation_contains", help="case-sensitive substring of operation"
    )
    for flag, what in (("tile", "physical tile id"), ("phase", "phase number")):
        filters.add_argument(
            f"--{flag}",
            type=unsigned(32, flag),
            action="append",
            default=[],
            metavar="N",
            dest=f"{flag}s",
            help=f"{what} (repeatable: any of them)",
        )
    filters.add_argument(
        "--metadata",
        type=_metadata_filter,
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="some metadata entry has NAME (and VALUE; split at the first '='); repeatable, all must hold",
    )
    filters.add_argument(
        "--at",
        type=unsigned(64, "offset"),
        metavar="N",
        help="samples running at per-tile offset N: offset <= N < offset + duration",
    )
    filters.add_argument(
        "--window",
        type=window_bounds,
        metavar="START:END",
        help="samples overlapping the per-tile offsets [START, END): offset < END and "
        "offset + duration > START, zero-length samples never (an ipu-nb extension)",
    )


def add_query_flags(
    parser: argparse.ArgumentParser,
    *,
    filters_title: str = FILTERS_TITLE,
    sort_help: str | None = None,
    samples: bool = True,
    clip: bool = True,
) -> Any:
    """Add profile-query's filter, grouping and output flags; return the "grouping and output" group.

    `sort_help` replaces ``--sort-by``'s help; ``samples=False`` leaves out ``--samples``,
    and ``clip=False`` refuses ``--clip`` (`refuse_clip`).
    """
    add_filter_flags(parser, filters_title)
    shape = parser.add_argument_group("grouping and output")
    shape.add_argument(
        "--group-by",
        choices=GROUP_BYS,
        default="kernel",
        metavar="BY",
        dest="group_by",
        help=f"group samples by one of: {', '.join(GROUP_BYS)} (default: kernel)",
    )
    shape.add_argument(
        "--metadata-key",
        metavar="NAME",
        dest="metadata_key",
        help="with --group-by metadata: group by the value of the first entry named NAME, or (missing)",
    )
    shape.add_argument(
        "--sort-by",
        choices=SORT_BYS,
        default="phase-cycles",
        metavar="KEY",
        dest="sort_by",
        help=sort_help
        or f"order groups by one of: {', '.join(SORT_BYS)}, descending except name (default: phase-cycles)",
    )
    add_limit_flag(shape, "groups")
    if samples:
        shape.add_argument(
            "--samples",
            type=unsigned(64, "sample count"),
            default=0,
            metavar="N",
            help="also list the N longest matching samples (default: 0); with --clip, the N with "
            "the most cycles inside the window",
        )
    if not clip:
        refuse_clip(parser)
    else:
        shape.add_argument(
            "--clip",
            action="store_true",
            help="with --window: cut every sample to the window before aggregating, so the table shows "
            "where the window's cycles went (an ipu-nb extension)",
        )
    shape.add_argument("--json", action="store_true", help="print the stable JSON report instead of text")
    return shape


class _Refused(argparse.Action):
    """A flag a command does not take, refused with its reason (rather than argparse's bare "unrecognized")."""

    def __init__(self, option_strings: list[str], dest: str, reason: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help=argparse.SUPPRESS, **kwargs)
        self.reason = reason

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        parser.error(f"{'/'.join(self.option_strings)} {self.reason}")


def refuse_clip(parser: argparse.ArgumentParser) -> None:
    """Make ``--clip`` a clear usage error for a command that measures whole samples only."""
    parser.add_argument(
        "--clip",
        action=_Refused,
        dest="_refused_clip",
        reason=f"is not available in {parser.prog}, which measures whole samples (--window still filters); "
        "use profile-query --window START:END --clip",
    )


def query_filters(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed filter flags as `Query` keywords (``tiles``, ``phases``, ``metadata`` as tuples)."""
    from .._query import FILTERS

    values = {name: getattr(args, name) for name in FILTERS}
    for name in ("operation", "tiles", "phases", "metadata"):
        values[name] = tuple(values[name])
    return values


def cli_query(args: argparse.Namespace) -> Query:
    """The `Query` that `add_query_flags`' parsed flags ask for, checked as the runtime checks its
    flags before reading a profile (a `QueryError` otherwise: wrap the call in `query_errors`)."""
    from .._query import Query, check_metadata_key, make_query

    q = make_query(
        Query(),
        group_by=args.group_by,
        sort_by=args.sort_by,
        metadata_key=args.metadata_key,
        limit=args.limit,
        samples=args.samples,
        clip=args.clip,
        **query_filters(args),
    )
    check_metadata_key(q)
    return q


@contextlib.contextmanager
def query_errors() -> Iterator[None]:
    """A `QueryError` inside becomes the command line's error: exit 2 for a usage error, else 1 (as profile-query)."""
    from .._query import QueryError

    try:
        yield
    except QueryError as exc:
        raise cli_error(exc) from None


def cli_error(exc: QueryError) -> CliError:
    """A `QueryError` in the command line's words (``cli_message``): exit 2 for a usage error, else 1."""
    return CliError(exc.cli_message, 2 if exc.usage else 1)


def write_output(text: str) -> None:
    """Write a command's whole output to stdout; a reader that closed early (``| head``) is no error."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # Point stdout at /dev/null so the exit stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
