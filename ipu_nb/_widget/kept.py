"""`Kept`: a bounded cache that the widget's threads share, the one kind of cache the kernel side keeps.

Its keys say what an answer was made for (a part of `ipu_nb._widget.shown.Shown`), so an
answer for another profile, other filters or other colours is never found, whatever is
shown meanwhile: nothing has to be cleared by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

__all__ = ["Kept"]

V = TypeVar("V")


class Kept(Generic[V]):
    """At most `size` answers by key, the least recently used dropped first; safe to use from any thread.

    >>> kept: Kept[int] = Kept(2)
    >>> kept.get("a", lambda: 1), kept.get("a", lambda: 2)
    (1, 1)
    >>> kept.get("b", lambda: 3), kept.get("c", lambda: 4), kept.get("a", lambda: 5)
    (3, 4, 5)
    """

    def __init__(self, size: int) -> None:
        self._cache: LRUCache[Hashable, V] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The answer kept for `key`, else ``make()``'s, kept (made outside the lock: others are not held up)."""
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = make()
        with self._lock:
            self._cache[key] = value
        return value

    def peek(self, key: Hashable) -> V | None:
        """The answer kept for `key`, or None (nothing made)."""
        with self._lock:
            return self._cache.get(key)

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._cache[key] = value

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)

    def forget(self) -> None:
        """Drop every answer (benchmarks time the work again; nothing needs it for correctness)."""
        with self._lock:
            self._cache.clear()
