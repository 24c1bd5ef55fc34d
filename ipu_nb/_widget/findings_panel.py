"""The widget's findings panel: `ipu_nb.findings` as rows the front end lists, and the job computing them.

Each row carries the widget state that shows its finding (its `Query` as the ``filters``
trait and the offsets of the supersteps concerned), so a click applies exactly that. The
findings of each profile on each clock are computed once, in steps (`FindingSteps`), which the background
job (`rows_job`) and ``ProfileWidget.findings`` share. A finding naming a tile (a straggler,
a phase's critical tile) is shown with that tile pinned first and its samples highlighted
(`pinned_first`, `culprit_samples`), so the culprit is on screen whatever the scroll.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import polars as pl

from .._supersteps import Finding, Findings
from .protocol import FindingRow
from .side_views import on_main_thread

if TYPE_CHECKING:
    from .._profile import Profile

__all__ = ["FindingSteps", "culprit_samples", "finding_rows", "pinned_first", "rows_job"]


def finding_rows(found: Findings) -> list[FindingRow]:
    """The findings, best first, as the panel's rows."""
    rows: list[FindingRow] = []
    for rank, finding in enumerate(found.items, 1):
        state = finding.state
        rows.append(
            {
                "rank": rank,
                "category": finding.category,
                "subject": finding.subject,
                "message": finding.message,
                "cycles": finding.cycles,
                "ms": finding.ms,
                "share": finding.share,
                "filters": state["filters"],
                "view": state["view"],
                "tile": finding.tile,
            }
        )
    return rows


def pinned_first(tracks: dict[str, Any], tile: int) -> dict[str, Any]:
    """The row layout `tracks` with `tile` pinned first (the other pins kept after it).

    >>> pinned_first({"order": "physical", "pinned": [3, 7], "rows": 0, "scroll": 0}, 7)["pinned"]
    [7, 3]
    """
    return {**tracks, "pinned": [tile, *(t for t in tracks.get("pinned", []) if t != tile)]}


def culprit_samples(profile: Profile, finding: Finding, view: list[int]) -> pl.DataFrame | None:
    """The samples the finding is about on its named tile within offsets `view` (None: it names no tile)."""
    if finding.tile is None:
        return None
    start, end = view
    q = dataclasses.replace(finding.query, tiles=(finding.tile,), window=(start, end))
    return profile.filter(q).select("sample")


#: Which findings: the profile ("after", "baseline") and the clock its offsets are on (`Side.key`).
Which = tuple[str, str]


class FindingSteps:
    """The findings of each profile on each clock, each computed once, one step at a time.

    A step is the detectors' work up to their next yield; one thread at a time advances
    them, so a caller wanting the findings now finishes the steps the background began.
    """

    def __init__(self, profile_of: Callable[[Which], Profile]) -> None:
        self._profile_of = profile_of
        self._done: dict[Which, Findings] = {}
        self._under_way: dict[Which, Generator[None, None, Findings]] = {}
        self._lock = threading.Lock()

    def step(self, which: Which) -> Findings | None:
        """Advance the findings of profile `which` by one step: the findings once done, else None."""
        from .._supersteps.detectors import finding_steps

        with self._lock:
            found = self._done.get(which)
            if found is not None:
                return found
            steps = self._under_way.get(which)
            if steps is None:
                steps = self._under_way[which] = finding_steps(self._profile_of(which))
            try:
                next(steps)
            except StopIteration as done:
                del self._under_way[which]
                found = self._done[which] = done.value
                return found
            except BaseException:
                del self._under_way[which]  # a failed one starts afresh on the next call
                raise
            return None

    def steps(self, which: Which) -> Generator[None, None, Findings]:
        """The findings of profile `which`, yielding between their steps."""
        while (found := self.step(which)) is None:
            yield
        return found

    def of(self, which: Which) -> Findings:
        """The findings of profile `which`, now (the steps left run on this thread)."""
        from .._supersteps.detectors import drained

        return drained(self.steps(which))


def rows_job(
    findings: FindingSteps, showing: Callable[[], Which], show: Callable[[list[FindingRow]], None]
) -> Generator[None, None, None]:
    """A `Background` job: the shown profile's findings in steps, then `show` of their rows on the main
    thread, unless another profile or clock is shown by then (its own job sends its rows)."""
    which = showing()
    rows = finding_rows((yield from findings.steps(which)))

    def send() -> None:
        if which == showing():
            show(rows)

    on_main_thread(send)
