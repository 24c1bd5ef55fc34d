"""argparse pieces that take flags as the newest runtime's command line (clap) does.

Its `profile-query` and `profile-calibrate` refuse a single-valued flag given twice
(`Once`), read ``--tile``/``--phase`` as clap reads a u32 (through an i64: ``+7`` and
``-0`` pass, `clap_u32`), refuse text that is not UTF-8 (`clap_text`) and never take a
value that starts with ``-`` from the next argument (`refuse_hyphen_values`). Used with
``--semantics head`` and by `profile-calibrate` (docs/reference/head.md#command-line).
"""

from __future__ import annotations

import argparse
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

__all__ = ["Once", "choice", "clap_text", "clap_u32", "refuse_hyphen_values"]

_I64 = re.compile(r"[+-]?[0-9]+")
_GIVEN = "_once_given"


class Once(argparse.Action):
    """A flag taking one value (or, with ``nargs=0``, none: it stores `const`) that may be given once only."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        given: set[str] = namespace.__dict__.setdefault(_GIVEN, set())
        if self.dest in given:
            parser.error(f"the argument '{'/'.join(self.option_strings)}' cannot be used multiple times")
        given.add(self.dest)
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)


def clap_u32(what: str) -> Callable[[str], int]:
    """argparse type: a u32 as clap parses one, an i64 (optional sign, ASCII digits) from 0 to 2**32 - 1."""

    def parse(text: str) -> int:
        if not _I64.fullmatch(text) or not 0 <= int(text) < 2**32:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer from 0 to {2**32 - 1}")
        return int(text)

    parse.__name__ = what
    return parse


def clap_text(text: str) -> str:
    """argparse type: any text that is valid UTF-8 (a non-UTF-8 argument reaches Python as lone surrogates)."""
    if any("\udc80" <= c <= "\udcff" for c in text):
        raise argparse.ArgumentTypeError(f"invalid UTF-8 was detected in {text!r}")
    return text


def choice(what: str, values: dict[str, str]) -> Callable[[str], str]:
    """argparse type: one of the spellings `values` maps (to the canonical value), with the runtime's message."""
    names = list(dict.fromkeys(values.values()))
    expected = ", ".join(names[:-1]) + f", or {names[-1]}"

    def parse(text: str) -> str:
        if text not in values:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected {expected}")
        return values[text]

    parse.__name__ = what
    return parse


def refuse_hyphen_values(parser: argparse.ArgumentParser, args: Sequence[str], flags: Collection[str]) -> None:
    """A usage error when one of `flags` (taking a value) is followed by an argument starting with ``-``.

    clap never takes such an argument as the value (``--kernel=-x`` gives it); argparse would
    take ``-1`` or ``-a b``. A lone ``-`` is a value, and nothing after ``--`` is looked at.
    """
    for flag, following in itertools.pairwise(args):
        if flag == "--":
            return
        if flag in flags and following.startswith("-") and following != "-":
            parser.error(f"a value is required for '{flag}' but none was supplied")
