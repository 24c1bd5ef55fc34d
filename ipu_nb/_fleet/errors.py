"""What goes wrong in a fleet: `FleetError` for the batch as a whole, `Failure` for one profile.

A problem with the request itself (no profiles, a bad label pattern, labels given in
code that collide with result columns) is a `FleetError` raised at once. A problem with
one profile (missing, corrupt, no regular file, unlabelled, a bug while querying it) is
a `Failure`: one row of `Fleet.errors` with the path and a one-line reason, and the
batch carries on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from .._io.errors import FleetError, LabelError
from .._model.text import path_text
from .._one_line import one_line

__all__ = [
    "ERRORS_SCHEMA",
    "Failure",
    "FleetError",
    "LabelError",
    "NotARegularFileError",
    "errors_frame",
    "failure_of",
]

#: `Fleet.errors`: one row per profile that gave no result.
ERRORS_SCHEMA = pl.Schema({"path": pl.String, "error": pl.String, "reason": pl.String})


class NotARegularFileError(OSError):
    """A path a fleet will not open: a FIFO, a device, a socket, a directory, a dangling symlink or a symlink loop.

    >>> str(NotARegularFileError("runs/x.capnp", "not a regular file (FIFO)"))
    'runs/x.capnp: not a regular file (FIFO)'
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = path, problem

    def __reduce__(self) -> tuple[type[NotARegularFileError], tuple[str, str]]:
        return type(self), (self.path, self.problem)


@dataclass(frozen=True)
class Failure:
    """One profile that gave no result: its path, the error's type name and a one-line reason."""

    path: str
    error: str
    reason: str


# What a user can cause (a file, its contents, its labels, a query it cannot answer); anything else is a bug.
_USER_ERRORS: tuple[type[BaseException], ...] = (OSError, ValueError, MemoryError, LabelError)


def failure_of(path: str, exc: BaseException) -> Failure:
    """The `Failure` of `path` from the exception that stopped it; a bug is named as an internal error."""
    reason = one_line(exc)
    if not isinstance(exc, _USER_ERRORS):
        reason = f"internal error: {type(exc).__name__}: {reason} (please report it)"
    elif isinstance(exc, MemoryError):
        reason = "out of memory" + (f": {reason}" if str(exc) else "")
    return Failure(path, type(exc).__name__, reason)


def errors_frame(failures: Iterable[Failure]) -> pl.DataFrame:
    """`Fleet.errors` from failures, in the order given (the fleet's order); text a frame cannot hold escaped."""
    rows = [(path_text(f.path), f.error, path_text(f.reason)) for f in failures]
    return pl.DataFrame(rows, schema=ERRORS_SCHEMA, orient="row")
