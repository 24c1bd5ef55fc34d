"""The signature `help()` shows for a function taking ``**flags: Unpack[QueryFlags]`` (or `Filters`…).

PEP 692 gives mypy and editors the keywords of ``**flags``; `inspect.signature`, and so
`help()`, IPython's ``?`` and the API docs, would still show ``**flags``. `keyword_signature`
replaces it with one keyword-only parameter per key of the typed dictionary, annotated
with the key's type and defaulting to the `Query` field's default, so both views come
from the same two declarations (`ipu_nb._query.keywords` and `Query`).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

from .flags import Query

__all__ = ["keyword_signature"]

F = TypeVar("F", bound=Callable[..., Any])


def _defaults() -> dict[str, Any]:
    return {f.name: getattr(Query(), f.name) for f in dataclasses.fields(Query)}


def keyword_signature(keywords: type) -> Callable[[F], F]:
    """Decorator: `func`'s signature with its ``**`` parameter spelled out as the keys of `keywords`.

    `keywords` is one of the typed dictionaries of `ipu_nb._query.keywords`; the function
    itself is returned unchanged (no wrapper), only its ``__signature__`` is set.

    Raises
    ------
    TypeError
        `func` has no ``**`` parameter, or a parameter of its own named like a key
        (mypy refuses that overlap too).
    """
    hints = get_type_hints(keywords)
    defaults = _defaults()

    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        if len(own) == len(signature.parameters):
            raise TypeError(f"{func.__qualname__} has no **keywords parameter to spell out")
        clash = sorted({p.name for p in own} & hints.keys())
        if clash:
            raise TypeError(f"{func.__qualname__}: parameter(s) {', '.join(clash)} clash with {keywords.__name__} keys")
        spelled = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=defaults[name], annotation=hint)
            for name, hint in hints.items()
        ]
        func.__signature__ = signature.replace(parameters=[*own, *spelled])  # type: ignore[attr-defined]
        return func

    return decorate
