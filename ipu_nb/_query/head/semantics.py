"""Which runtime's `profile-query` a query reproduces: the one at ba7339c (the default) or the newest (``head``)."""

from __future__ import annotations

from typing import Any

from ..._model.vocabulary import SEMANTICS, Semantics
from ..flags import QueryError

__all__ = ["DEFAULT_SEMANTICS", "SEMANTICS", "Semantics", "check_semantics"]

DEFAULT_SEMANTICS: Semantics = "ba7339c"


def check_semantics(value: Any) -> Semantics:
    """`value` if it names a semantics (`SEMANTICS`), else a `QueryError` listing them.

    >>> check_semantics("head")
    'head'
    """
    if not isinstance(value, str) or value not in SEMANTICS:
        raise QueryError(f"semantics must be one of {', '.join(SEMANTICS)}; got {value!r}")
    return value  # type: ignore[return-value]
