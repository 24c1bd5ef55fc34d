"""What goes wrong in a fleet: `FleetError` for the batch as a whole, `Failure` for one profile.

A problem with the request itself (no profiles, a bad label pattern, labels that
collide with result columns) is a `FleetError` raised at once. A problem with one
profile (missing, corrupt, unlabelled, a bug while querying it) is a `Failure`: one row
of `Fleet.errors` with the path and a one-line reason, and the batch carries on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

from .._one_line import one_line

__all__ = ["ERRORS_SCHEMA", "Failure", "FleetError", "LabelError", "errors_frame", "failure_of"]

#: `Fleet.errors`: one row per profile that gave no result.
ERRORS_SCHEMA = pl.Schema({"path": pl.String, "error": pl.String, "reason": pl.String})


class FleetError(ValueError):
    """A fleet that cannot be built or run as asked (the request, not one profile, is wrong)."""


class LabelError(ValueError):
    """One profile's labels cannot be read: a missing or malformed sidecar, a name the pattern does not match."""


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
    """`Fleet.errors` from failures, in the order given (the fleet's order)."""
    rows = [(f.path, f.error, f.reason) for f in failures]
    return pl.DataFrame(rows, schema=ERRORS_SCHEMA, orient="row")
