"""A polars or numpy scalar as a plain ``int`` or ``float``, checked.

``Series.min()``, ``.max()``, ``.mean()`` and ``.item()`` are typed as any Python literal or ``None``:
these narrow the value for the type checker and fail loudly when it is not a number (an empty
column's ``None``, a string) instead of comparing it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["float_of", "int_of"]


def int_of(value: object) -> int:
    """``value`` as an ``int``; a ``TypeError`` unless it is an integer (``bool`` is not).

    >>> import polars as pl
    >>> int_of(pl.Series([3, 1, 2]).max()) + 1
    4
    >>> int_of(pl.Series([], dtype=pl.Int64).max())
    Traceback (most recent call last):
    ...
    TypeError: not an integer: None
    """
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"not an integer: {value!r}")
    return int(value)


def float_of(value: object) -> float:
    """``value`` as a ``float``; a ``TypeError`` unless it is a real number (``bool`` is not).

    >>> import polars as pl
    >>> float_of(pl.Series([1, 2]).mean())
    1.5
    >>> float_of("1.5")
    Traceback (most recent call last):
    ...
    TypeError: not a number: '1.5'
    """
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"not a number: {value!r}")
    return float(value)
