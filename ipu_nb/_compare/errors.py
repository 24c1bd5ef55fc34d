"""The one error type of comparisons (a `QueryError`, so callers that catch query errors catch it too)."""

from __future__ import annotations

from .._query import QueryError

__all__ = ["ComparisonError"]


class ComparisonError(QueryError):
    """Two profiles that cannot be compared as asked: different clocks, or renames that do not align.

    ``usage`` is True for an argument that is wrong whatever the profiles hold (the CLI
    exits 2) and False for a conflict found in the profiles themselves (exit 1).
    """
