"""How many examples a property test runs under the loaded Hypothesis profile (see the root conftest.py)."""

from __future__ import annotations

from hypothesis import settings

__all__ = ["examples"]


def examples(count: int) -> int:
    """``count`` under the "ci" profile (100 examples by default), proportionally fewer under "quick" (10).

    >>> examples(200) == 2 * settings.default.max_examples
    True
    """
    loaded = settings.default
    assert loaded is not None  # the root conftest.py loads a profile before any test module is imported
    return max(1, count * loaded.max_examples // 100)
