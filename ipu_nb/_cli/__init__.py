"""The `ipu-nb` command line: one subcommand a module, errors as one line on stderr.

Usage errors exit 2 and runtime errors exit 1 (docs/reference/query.md#exit-status-and-errors);
stdout stays empty on error.
Every failure is one line: a bad file, an unreadable path, memory running out, and even
a bug (named as an internal error; ``IPU_NB_TRACEBACK=1`` shows its traceback instead).
Every subcommand takes ``-q/--quiet`` (`add_quiet_flag`, added here to all of them): no
progress bars and no status lines; results and errors are still written.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from .._one_line import command_line_warnings, one_line
from .._terminal import printable

__all__ = [
    "TRACEBACK_ENV",
    "ArgumentParser",
    "CliError",
    "add_quiet_flag",
    "main",
    "output_path",
    "positive_int",
    "status",
]

#: Set (to anything but "" or "0") to get a traceback instead of the one-line internal error.
TRACEBACK_ENV = "IPU_NB_TRACEBACK"

# Each module defines `register(subparsers)`, which adds its parser and sets `func`.
_SUBCOMMAND_MODULES = (
    "generate",
    "query",
    "diff",
    "batch",
    "check",
    "supersteps",
    "findings",
    "render",
    "trace",
    "demo",
    "cache",
    "calibrate",
)


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status `exit_code`."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line usage error (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {printable(message)} (see --help)\n")
        raise SystemExit(2)


def positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def output_path(text: str | os.PathLike[str]) -> Path:
    """A file the command may write: not a directory, in an existing writable directory (else exit 2)."""
    output = Path(text)
    directory = output.parent if str(output.parent) else Path(".")
    if output.is_dir():
        raise CliError(f"{output}: is a directory", 2)
    if not directory.is_dir():
        raise CliError(f"{directory}: no such directory", 2)
    if not os.access(directory, os.W_OK):
        raise CliError(f"{directory}: directory is not writable", 2)
    return output


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``-q/--quiet`` to `parser`, or to each of its subcommands if it has some."""
    branches = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not branches:
        parser.add_argument(
            "-q", "--quiet", action="store_true", help="no progress bars or status lines (results and errors still)"
        )
    for branch in branches:
        for child in dict.fromkeys(branch.choices.values()):  # aliases map to the same parser
            add_quiet_flag(child)


def status(args: argparse.Namespace, message: str) -> None:
    """Write a status line (what was written, how long it took) to stderr, unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        sys.stderr.write(f"{message}\n")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="ipu-nb", description="Explore IPU cycle profiles: generate, query, render, demo.")
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"ipu-nb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    subparsers.required = True
    for name in _SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.register(subparsers)
    add_quiet_flag(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    from .._load import ProfileFormatError
    from .._load._cache import CacheSettingError
    from .._progress import silenced

    parser = build_parser()
    args = parser.parse_args(argv)
    prog = f"ipu-nb {args.command}"
    try:
        with silenced(args.quiet), command_line_warnings(prog):
            return int(args.func(args) or 0)
    except CliError as exc:
        sys.stderr.write(f"{prog}: error: {printable(exc)}\n")
        return exc.exit_code
    except (ProfileFormatError, OSError, CacheSettingError) as exc:
        sys.stderr.write(f"{prog}: error: {printable(one_line(exc))}\n")
        return 1
    except MemoryError as exc:
        detail = f": {printable(one_line(exc))}" if str(exc) else ""
        sys.stderr.write(f"{prog}: error: out of memory{detail}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a bug (polars' PanicException is a BaseException too): still one line
        if os.environ.get(TRACEBACK_ENV, "") not in ("", "0"):
            raise
        sys.stderr.write(
            f"{prog}: internal error: {type(exc).__name__}: {printable(one_line(exc))} "
            f"(please report it; set {TRACEBACK_ENV}=1 for the traceback)\n"
        )
        return 1
