"""The one-line text of an error or warning, as the CLI and the magics show it (never a traceback for user error).

Both speak the command line's language: an error or warning that carries a
``cli_message`` (`ipu_nb.QueryError`, `ipu_nb.QueryWarning`) is shown in those words
(``--metadata-key``), not in the Python keyword's (``metadata_key``).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any, TextIO

from ._terminal import printable

__all__ = ["command_line_warnings", "one_line"]


def one_line(exc: BaseException) -> str:
    """`exc` in one line: ``file: reason`` for an OS error, else the first line of its message (or its type).

    The message is the command line's (``cli_message``) where the error carries one.

    >>> one_line(FileNotFoundError(2, "No such file or directory", "x.capnp"))
    'x.capnp: No such file or directory'
    >>> one_line(ValueError("bad value\\nmore detail"))
    'bad value'
    >>> one_line(KeyError())
    'KeyError'
    """
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    text = str(getattr(exc, "cli_message", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextlib.contextmanager
def command_line_warnings(prog: str) -> Iterator[None]:
    """Within: a warning carrying a ``cli_message`` goes to stderr as ``PROG: warning: TEXT``, once per text.

    Other warnings are shown as Python shows them. The runtime prints nothing for what
    ipu-nb warns about, so stdout and the exit status stay exactly the runtime's.
    """
    from ._query.flags import QueryWarning

    shown: set[str] = set()
    with warnings.catch_warnings():
        python_way = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            text: Any = getattr(message, "cli_message", None)
            if not isinstance(text, str):
                python_way(message, category, filename, lineno, file, line)
            elif text not in shown:
                shown.add(text)
                sys.stderr.write(f"{prog}: warning: {printable(text)}\n")

        warnings.showwarning = show
        warnings.simplefilter("always", QueryWarning)  # `shown` drops repeats; a filter would hide the next run's
        yield
