"""The query core: `Query` mirrors `profile-query`'s flags (SPEC §3).

(Skeleton: the aggregation lands with the query-core issue.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["GROUP_BYS", "KINDS", "SORT_BYS", "Query", "QueryError"]

GroupBy = Literal["kind", "kernel", "operation", "phase", "tile", "metadata"]
SortBy = Literal["phase-cycles", "work-cycles", "maximum-cycles", "samples", "name"]

GROUP_BYS: tuple[str, ...] = ("kind", "kernel", "operation", "phase", "tile", "metadata")
SORT_BYS: tuple[str, ...] = ("phase-cycles", "work-cycles", "maximum-cycles", "samples", "name")
KINDS: tuple[str, ...] = ("compute", "exchange", "synchronization", "idle")


class QueryError(ValueError):
    """A query that cannot run: a bad flag value (`usage` True) or a missing requirement."""

    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class Query:
    """One `profile-query` invocation; field names follow the flags (SPEC §3).

    ``metadata`` holds ``(name, value)`` pairs, value None meaning "has an entry
    with that name". ``limit`` 0 means unlimited. Values use the CLI's spelling
    (``sort_by="phase-cycles"``), so a UI state and a command line map one to one.
    """

    group_by: GroupBy = "kernel"
    sort_by: SortBy = "phase-cycles"
    kind: str | None = None
    kernel: str | None = None
    operation_contains: str | None = None
    tiles: tuple[int, ...] = field(default=())
    phases: tuple[int, ...] = field(default=())
    metadata: tuple[tuple[str, str | None], ...] = field(default=())
    metadata_key: str | None = None
    at: int | None = None
    limit: int = 20
    samples: int = 0
