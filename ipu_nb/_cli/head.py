"""``--semantics head``: `profile-query` and `profile-inspect` as the newest runtime runs them (docs/reference/head.md).

`route_semantics` gives the default `profile-query` parser a ``--semantics`` flag and hands
any command line holding ``--semantics head`` to a parser of its own, which takes the newest
runtime's flags exactly as its clap parser does (`ipu_nb._cli.clap_flags`) and refuses the
others; `add_inspect_semantics` does the same for `profile-inspect`. A profile of a schema
version the runtime cannot read fails with the runtime's own message (`read_head_profile`).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._model.vocabulary import GROUP_BYS, SEMANTICS, SORT_BYS, STEP_KINDS
from . import ArgumentParser, add_quiet_flag
from .clap_flags import Once, choice, clap_text, clap_u32, refuse_hyphen_values
from .flags import _Refused, query_errors, unsigned, write_output

if TYPE_CHECKING:
    from pathlib import Path

    from .._model.profile import ProfileData

__all__ = [
    "HeadFailure",
    "add_inspect_semantics",
    "read_head_profile",
    "route_semantics",
    "run_head_inspect",
    "run_head_query",
]

#: The newest runtime's ``--kind`` spellings (``sync`` too) and the kind each means.
_KINDS = {**{kind: kind for kind in STEP_KINDS}, "sync": "synchronization"}
#: Its value-taking flags: none takes the next argument as its value when that starts with ``-``.
_VALUE_FLAGS = (
    "--group-by",
    "--sort-by",
    "--kind",
    "--kernel",
    "--operation-contains",
    "--tile",
    "--phase",
    "--samples",
    "--at-offset",
    "--limit",
    "--semantics",
)
#: The default semantics' flags the newest runtime's query has no counterpart for, and what to say.
_NOT_HEAD = {
    "--metadata": "filters by metadata; the newest runtime's profile-query cannot",
    "--metadata-key": "does not exist in the newest runtime, whose --group-by metadata groups by the first entry "
    'named ""',
    "--at": "is the default semantics' per-tile offset; the newest runtime's is --at-offset N",
    "--operation": "is an ipu-nb extension of the default semantics",
    "--window": "is an ipu-nb extension of the default semantics",
    "--clip": "is an ipu-nb extension of the default semantics",
}


class HeadFailure(Exception):
    """A failure the newest runtime reports in its own words: `text` goes to stderr as it is, exit status 1."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def report(self) -> int:
        """Write `text` to stderr; the exit status."""
        sys.stderr.write(self.text)
        return 1


def read_head_profile(path: str | Path, *, context: str | None = None) -> ProfileData:
    """Open `path`; a schema version outside 1..5 is a `HeadFailure` with the runtime's message.

    With `context` (``reading PATH``), the message is the runtime's for an error with that context.
    """
    from .._load import UnsupportedSchemaVersionError
    from .._profile import open_profile

    try:
        return open_profile(path)
    except UnsupportedSchemaVersionError as exc:
        reason = f"invalid package: unsupported profile schema version {exc.version}"
        text = f"Error: {reason}\n" if context is None else f"Error: {context}\n\nCaused by:\n    {reason}\n"
        raise HeadFailure(text) from None


def _refuse(parser: argparse.ArgumentParser, flag: str, reason: str, dest: str) -> None:
    parser.add_argument(flag, action=_Refused, dest=dest, reason=reason)


def _head_query_parser(prog: str) -> ArgumentParser:
    """The newest runtime's `profile-query` flags, taken as its clap parser takes them."""
    parser = ArgumentParser(
        prog=prog,
        description=(
            "The newest runtime's profile-query (--semantics head): offsets on one shared clock, the leading "
            "interval before every tile is profiled cropped (unless --shared-clock), and its key=value text."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("profile", metavar="PROFILE", help="cycle-profile file (.capnp) written by the runtime")
    parser.add_argument(
        "--semantics",
        action=Once,
        choices=SEMANTICS,
        default=SEMANTICS[0],
        help="head: these flags (without it, profile-query --help lists the default semantics' own)",
    )
    once: list[tuple[str, Any, Any, str, str]] = [
        ("--group-by", choice("group-by", {g: g for g in GROUP_BYS}), "kernel", "BY", ", ".join(GROUP_BYS)),
        ("--sort-by", choice("sort-by", {s: s for s in SORT_BYS}), "phase-cycles", "KEY", ", ".join(SORT_BYS)),
        ("--kind", choice("kind", _KINDS), None, "KIND", "exchange, compute, synchronization (or sync) or idle"),
        ("--kernel", clap_text, None, "S", "exact kernel string"),
        ("--operation-contains", clap_text, None, "S", "case-sensitive substring of operation"),
        ("--samples", unsigned(64, "sample count"), 0, "N", "also list the N longest matching samples"),
        ("--at-offset", unsigned(64, "offset"), None, "N", "samples running at this offset of the cropped clock"),
        ("--limit", unsigned(64, "limit"), 20, "N", "at most N groups; 0 = all (default: 20)"),
    ]
    for flag, kind, default, metavar, text in once:
        dest = flag[2:].replace("-", "_")
        parser.add_argument(flag, action=Once, type=kind, default=default, dest=dest, metavar=metavar, help=text)
    for flag in ("--tile", "--phase"):
        parser.add_argument(
            flag, type=clap_u32(flag[2:]), action="append", default=[], dest=f"{flag[2:]}s", metavar="N",
            help=f"{flag[2:]} (repeatable: any of them)",
        )  # fmt: skip
    for flag, text in (("--shared-clock", "keep the leading interval"), ("--json", "print the JSON report")):
        parser.add_argument(flag, action=Once, nargs=0, const=True, default=False, help=text)
    for flag, reason in _NOT_HEAD.items():
        _refuse(parser, flag, f"{reason} (--semantics head)", f"_refused_{flag[2:]}")
    parser.set_defaults(func=run_head_query)
    add_quiet_flag(parser)
    return parser


def _asks_for_head(args: Sequence[str]) -> bool:
    """Whether `args` hold ``--semantics head`` (or ``--semantics=head``) before any ``--``."""
    for flag, following in itertools.pairwise([*args, ""]):
        if flag == "--":
            return False
        if flag == "--semantics=head" or (flag == "--semantics" and following == "head"):
            return True
    return False


class _SemanticsRouter(ArgumentParser):
    """`profile-query`'s parser: a command line asking for ``--semantics head`` goes to the head parser."""

    head: ArgumentParser

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = list(sys.argv[1:] if args is None else args)
        if _asks_for_head(given):
            refuse_hyphen_values(self.head, given, _VALUE_FLAGS)
            return self.head.parse_known_args(given, namespace)
        return super().parse_known_args(given, namespace)


def route_semantics(parser: argparse.ArgumentParser) -> None:
    """Give the default `profile-query` parser ``--semantics`` and the head parser behind ``--semantics head``.

    The default parser refuses the newest runtime's own flags (``--at-offset``, ``--shared-clock``).
    """
    parser.add_argument(
        "--semantics",
        choices=SEMANTICS,
        default=SEMANTICS[0],
        help="whose profile-query: the runtime at ba7339c (default) or the newest one, head, which takes "
        "its own flags (--at-offset and --shared-clock among them; see --semantics head --help)",
    )
    for flag in ("--at-offset", "--shared-clock"):
        _refuse(parser, flag, "is a flag of the newest runtime: add --semantics head", f"_refused_{flag[2:]}")
    # The subparsers action builds the parser; its class changes to the router, which adds only a method.
    parser.__class__ = _SemanticsRouter
    assert isinstance(parser, _SemanticsRouter)
    parser.head = _head_query_parser(parser.prog)


def run_head_query(args: argparse.Namespace) -> int:
    """Run the newest runtime's `profile-query`; its output is built in full before any of it is written."""
    from .._query import head_query

    try:
        profile = read_head_profile(args.profile)
    except HeadFailure as failure:
        return failure.report()
    with query_errors():
        result = head_query(
            profile,
            group_by=args.group_by,
            sort_by=args.sort_by,
            kind=args.kind,
            kernel=args.kernel,
            operation_contains=args.operation_contains,
            tiles=tuple(args.tiles),
            phases=tuple(args.phases),
            limit=args.limit,
            samples=args.samples,
            shared_clock=args.shared_clock,
            at_offset=args.at_offset,
        )
    write_output(result.to_json() if args.json else result.to_text())
    return 0


def add_inspect_semantics(parser: argparse.ArgumentParser) -> None:
    """``--semantics`` for `profile-inspect`: head prints the newest runtime's exchange summary instead."""
    parser.add_argument(
        "--semantics",
        choices=SEMANTICS,
        default=SEMANTICS[0],
        help="ba7339c (default): one line per operation; head: the newest runtime's one-line exchange summary",
    )


def run_head_inspect(args: argparse.Namespace) -> int:
    """The newest runtime's `profile-inspect`: its exchange summary (docs/reference/head.md#profile-inspect)."""
    from .._exchange import exchange_summary, summary_line

    try:
        profile = read_head_profile(args.profile)
    except HeadFailure as failure:
        return failure.report()
    write_output(summary_line(exchange_summary(profile)))
    return 0
