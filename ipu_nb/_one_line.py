"""The one-line text of an error, as the CLI and the magics show it (never a traceback for user error)."""

from __future__ import annotations

__all__ = ["one_line"]


def one_line(exc: BaseException) -> str:
    """`exc` in one line: ``file: reason`` for an OS error, else the first line of its message (or its type).

    >>> one_line(FileNotFoundError(2, "No such file or directory", "x.capnp"))
    'x.capnp: No such file or directory'
    >>> one_line(ValueError("bad value\\nmore detail"))
    'bad value'
    >>> one_line(KeyError())
    'KeyError'
    """
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
