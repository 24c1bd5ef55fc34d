"""Call a typed function the way an untyped caller (a notebook, a script) can: with any arguments.

Tests of the run-time argument checks pass what the signature forbids (a misspelt keyword, a
value of the wrong type) on purpose; ``untyped(f)(...)`` says so where the call is, and the type
checker still checks everything else in the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["untyped"]

R = TypeVar("R")


def untyped(function: Callable[..., R]) -> Callable[..., R]:
    """`function` itself, with its parameters unchecked (its return type is kept).

    >>> def double(x: int) -> int:
    ...     return 2 * x
    >>> untyped(double)("ab")
    'abab'
    >>> untyped(double) is double
    True
    """
    return function
