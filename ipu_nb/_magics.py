"""IPython magics: ``%load_ext ipu_nb`` then ``%ipu_open`` and ``%ipu_query``.

Thin layers over `open_profile` and the query core; ``%ipu_query`` parses its
flags with the ``profile-query`` command line's own parser, so a notebook and
a shell accept exactly the same flags. ``%ipu_open`` binds what it opens to
variables (the profile to ``profile``, its widget to ``ipu_widget``, or the names
``-o`` and ``-w`` give), so the widget's selections can be read back in Python.
User errors surface as IPython's `UsageError`: one line, no traceback.
"""

from __future__ import annotations

import contextlib
import io
import keyword
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class, output_can_be_silenced
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from ._one_line import command_line_warnings, one_line

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.lib.pretty import RepresentationPrinter

    from ._profile import Profile
    from ._query import Query, QueryResult

__all__ = ["IpuMagics", "QueryJson", "load_ipython_extension", "parse_query_args", "unload_ipython_extension"]

_MAGIC_NAMES = ("ipu_open", "ipu_query")
#: The variable ``%ipu_open`` binds its widget to without ``-w NAME``.
DEFAULT_WIDGET_NAME = "ipu_widget"


def _variable(name: str, flag: str) -> str:
    """`name` when a notebook can use it as a variable; a one-line UsageError otherwise."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"ipu_open: {flag} expects a Python variable name, got {name!r}")
    return name


def _open(path: str, magic: str) -> Profile:
    """`open_profile` (progress bar for large files); file and format errors become one-line UsageErrors."""
    from ._load import ProfileFormatError
    from ._profile import open_profile

    try:
        return open_profile(Path(path).expanduser(), progress=None)
    except (OSError, ProfileFormatError) as exc:
        raise UsageError(f"{magic}: {one_line(exc)}") from None


class QueryJson(str):
    """``%ipu_query --json``'s value: `QueryResult.to_json` text, shown as is rather than as a quoted string.

    >>> from IPython.lib.pretty import pretty
    >>> pretty(QueryJson('{"name": "a\\'b"}'))
    '{"name": "a\\'b"}'
    """

    __slots__ = ()

    def _repr_pretty_(self, printer: RepresentationPrinter, cycle: bool) -> None:
        printer.text(str(self))


def parse_query_args(argv: list[str]) -> tuple[str, Query, bool]:
    """``profile-query``'s argv (PROFILE then flags) to (PROFILE, Query, --json), with the command line's own parser.

    Usage errors behave as on the command line: one line on stderr and ``SystemExit(2)``.
    """
    import dataclasses

    from ._cli import ArgumentParser
    from ._cli.query import register
    from ._query import Query, make_query

    subparsers = ArgumentParser(prog="ipu-nb").add_subparsers(parser_class=ArgumentParser)
    register(subparsers)
    parser = subparsers.choices["profile-query"]
    parser.prog = "%ipu_query"
    args = parser.parse_args(argv)
    flags: dict[str, Any] = {
        f.name: tuple(value) if isinstance(value, list) else value
        for f in dataclasses.fields(Query)
        if (value := getattr(args, f.name, None)) is not None
    }
    return str(args.profile), make_query(Query(), **flags), bool(args.json)


def _parse_query(argv: list[str]) -> tuple[str, Query, bool] | None:
    """`parse_query_args` with errors as one-line UsageErrors; None after ``--help``."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            return parse_query_args(argv)
    except SystemExit as exc:
        if not exc.code:  # --help printed its text and exited 0
            return None
        message = stderr.getvalue().strip().splitlines()
        detail = message[-1].split("error: ", 1)[-1] if message else f"invalid arguments (exit {exc.code})"
        raise UsageError(f"ipu_query: {detail}") from None
    except ValueError as exc:  # QueryError raised while building the Query
        raise UsageError(f"ipu_query: {one_line(exc)}") from None


@magics_class
class IpuMagics(Magics):
    """``%ipu_open`` and ``%ipu_query``."""

    def _namespace(self) -> dict[str, Any]:
        """The notebook's variables (the shell these magics were registered with)."""
        if self.shell is None:
            raise UsageError("ipu-nb magics need an IPython shell: %load_ext ipu_nb")
        namespace: dict[str, Any] = self.shell.user_ns
        return namespace

    @magic_arguments()
    @argument("path", help="the profile file (.capnp) the runtime wrote")
    @argument("-o", "--output", default="profile", metavar="NAME", help="variable to store it in (default: profile)")
    @argument(
        "-w",
        "--widget",
        default=None,
        metavar="NAME",
        help=f"variable to bind the widget to, to read its selections back (default: {DEFAULT_WIDGET_NAME})",
    )
    @argument("--no-widget", action="store_true", help="show the summary instead of the interactive widget")
    @line_magic
    def ipu_open(self, line: str) -> None:
        """Open a profile into a variable and show its widget: ``%ipu_open PATH [-o NAME] [-w NAME] [--no-widget]``.

        The profile goes to ``profile`` (or ``-o NAME``) and the widget to ``ipu_widget``
        (or ``-w NAME``), so what is selected in it can be read back: ``ipu_widget.filtered``,
        ``ipu_widget.at_slice``, ``ipu_widget.selected_sample``, ``ipu_widget.query``. The cell's
        output names both variables.
        """
        try:
            argv = shlex.split(line)  # POSIX quoting: `%ipu_open "{path}"` works for paths with spaces
        except ValueError as exc:
            raise UsageError(f"ipu_open: {exc}") from None
        args = self.ipu_open.parser.parse_args(argv)
        output = _variable(args.output, "-o")
        if args.widget is not None and args.no_widget:
            raise UsageError("ipu_open: -w names the widget's variable; with --no-widget there is no widget")
        widget_name = _variable(args.widget if args.widget is not None else DEFAULT_WIDGET_NAME, "-w")
        if widget_name == output and not args.no_widget:
            raise UsageError(f"ipu_open: -o and -w both name {output!r}; the profile and its widget need two variables")
        profile = _open(args.path, "ipu_open")
        namespace = self._namespace()
        namespace[output] = profile
        if args.no_widget:
            display(profile)
            return
        try:
            from ._widget.widget import ProfileWidget

            widget = ProfileWidget(profile)
        except (ImportError, FileNotFoundError) as exc:  # e.g. the front end was never built: the summary helps
            print(f"ipu_open: widget unavailable ({one_line(exc)}); showing the summary", file=sys.stderr)
            display(profile)
            return
        namespace[widget_name] = widget
        print(
            f"profile in `{output}`, widget in `{widget_name}`: read its selections with"
            f" {widget_name}.filtered, {widget_name}.at_slice, {widget_name}.selected_sample"
        )
        display(widget)

    @output_can_be_silenced
    @line_magic
    def ipu_query(self, line: str) -> QueryResult | QueryJson | None:
        """Run a ``profile-query`` on a path or a Profile variable: ``%ipu_query SOURCE [flags…]``.

        The flags are the command line's (``--group-by``, ``--kind``, ``--at`` …,
        see ``ipu-nb profile-query --help``). Returns the `QueryResult` (with ``--json``,
        its JSON text as a `QueryJson`, the command line's bytes); IPython shows it as
        the cell's value, so an assigned result (``r = %ipu_query …``) or a trailing ``;``
        shows nothing.
        """
        from ._query import QueryError, query

        try:
            argv = shlex.split(line.rstrip().removesuffix(";"))
        except ValueError as exc:
            raise UsageError(f"ipu_query: {exc}") from None
        if not argv:
            raise UsageError("ipu_query: missing SOURCE (a profile path or a variable holding a Profile)")
        parsed = _parse_query(argv)
        if parsed is None:
            return None
        source, q, as_json = parsed
        profile = self._resolve(source)
        try:
            with command_line_warnings("ipu_query"):
                result = query(profile, q)
        except QueryError as exc:
            raise UsageError(f"ipu_query: {one_line(exc)}") from None
        return QueryJson(result.to_json()) if as_json else result

    def _resolve(self, source: str) -> Profile:
        """A Profile from a variable name (Profile, or str/Path naming a file) or a file path."""
        from ._profile import Profile

        namespace = self._namespace()
        if source.isidentifier() and source in namespace:
            value = namespace[source]
            if isinstance(value, Profile):
                return value
            if isinstance(value, (str, Path)):
                return _open(str(value), "ipu_query")
            raise UsageError(f"ipu_query: variable {source!r} holds a {type(value).__name__}, not a Profile")
        if Path(source).expanduser().exists():
            return _open(source, "ipu_query")
        if source.isidentifier():
            raise UsageError(f"ipu_query: no variable or file named {source!r} (open one with %ipu_open PATH)")
        raise UsageError(f"ipu_query: profile not found: {source}")


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext ipu_nb``: register the magics and make Altair render offline."""
    from . import charts

    charts.enable_offline()
    ipython.register_magics(IpuMagics)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    """``%unload_ext ipu_nb``: remove the magics again."""
    registry = ipython.magics_manager.magics["line"]
    for name in _MAGIC_NAMES:
        registry.pop(name, None)
