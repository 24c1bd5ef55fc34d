"""Label values a dataset can hold: a name (non-empty text) and a scalar (text, a 64-bit integer, a float,
a boolean or null), checked once wherever labels come from (docs/reference/fleet.md#labels)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._model.text import is_text
from .errors import LabelError

__all__ = ["LabelValue", "Labels", "checked"]

_I64 = (-(2**63), 2**63 - 1)

LabelValue = str | int | float | bool | None
Labels = dict[str, LabelValue]


def _value(name: str, value: Any, where: str) -> LabelValue:
    if isinstance(value, str) and not is_text(value):
        raise LabelError(f"{where}: label {name!r} is not valid Unicode text (a lone surrogate)")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        if not _I64[0] <= int(value) <= _I64[1]:
            raise LabelError(f"{where}: label {name!r} = {value} does not fit a 64-bit integer")
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    raise LabelError(
        f"{where}: label {name!r} must be a string, a number, a boolean or null, got {type(value).__name__}"
    )


def checked(labels: Any, where: str) -> Labels:
    """`labels` as a plain dict of name → scalar, or `LabelError` naming `where` and what is wrong.

    >>> checked({"batch": np.int64(8), "seed": None}, "run.capnp")
    {'batch': 8, 'seed': None}
    """
    if not isinstance(labels, Mapping):
        raise LabelError(f"{where}: labels must be a mapping of name to value, got {type(labels).__name__}")
    result: Labels = {}
    for name, value in labels.items():
        if not isinstance(name, str) or not name:
            raise LabelError(f"{where}: a label name must be a non-empty string, got {name!r}")
        if not is_text(name):
            raise LabelError(f"{where}: label name {name!r} is not valid Unicode text (a lone surrogate)")
        result[name] = _value(name, value, where)
    return result
