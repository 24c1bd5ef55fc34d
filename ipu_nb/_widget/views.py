"""The side views the kernel sends beside the timeline, each answering for one `Shown` value.

A view's job (run on the `SideViews` worker) takes the value shown when it starts, builds its
payload (`ipu_nb._widget.pushes`, `ipu_nb._widget.inspector`) and sends it, unless what the
view depends on was swapped meanwhile: then the job is queued again and answers for the value
shown now, so the front end never gets a view of what was shown before after one of what is
shown now. The views a filter change leaves out of date go after the next timeline window
(`later`, `send_later`): the greyed timeline is drawn first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from .answers import Answers
from .inspector import panel_push
from .pushes import Payload, area_push, flame_push, groups_reply, overview_push, search_reply
from .shown import Shown, Sides
from .side_views import SideViews

__all__ = ["LATER", "VIEWS", "Views", "ViewsHost"]


class ViewsHost(Protocol):
    """What the views read of the widget when they run: the value shown and the view traits beside it."""

    @property
    def at(self) -> int | None: ...

    @property
    def selected(self) -> int | None: ...

    @property
    def selection(self) -> dict[str, Any] | None: ...

    @property
    def flame_hierarchy(self) -> str: ...

    def _shown_now(self) -> Shown: ...

    def _push(self, message: Any, buffers: list[bytes] | None = None) -> None: ...


@dataclass(frozen=True)
class _View:
    build: Callable[[Shown, ViewsHost, Answers, Sides, Any], Payload]
    """(value shown, host, answers, sides, the request) → payload."""
    depends: Callable[[Shown], Hashable]
    """The part of the value the payload depends on."""
    needs_index: bool = False
    """Whether it reads the sorted timeline index: queued once that is built, so the others go first."""


def _matching(shown: Shown) -> Hashable:
    return shown.matching.key


def _drawing(shown: Shown) -> Hashable:
    return shown.drawing


def _grouping(shown: Shown) -> Hashable:
    return shown.grouping


#: Each side view by the name it is queued under.
VIEWS: dict[str, _View] = {
    "overview": _View(lambda s, h, a, sides, _: overview_push(s, a), _drawing, needs_index=True),
    "flame": _View(
        lambda s, h, a, sides, _: flame_push(s, a, h.selection, sides.other(s.side), h.flame_hierarchy),
        _matching,
    ),
    "panel": _View(lambda s, h, a, sides, _: (panel_push(s, h.at, h.selected), []), _matching, needs_index=True),
    "area": _View(lambda s, h, a, sides, _: area_push(s, a, h.selection), _matching),
    "groups": _View(lambda s, h, a, sides, rid: groups_reply(s, a, rid, h.selection, sides.has_baseline), _grouping),
    "search": _View(lambda s, h, a, sides, message: search_reply(s, message), _matching, needs_index=True),
}
#: The views `send_later` sends, in this order.
LATER = ("overview", "panel", "flame", "area")


class Views:
    """Queues the side views on the worker, each job answering for the value it found shown."""

    def __init__(self, host: ViewsHost, answers: Answers, sides: Sides, worker: SideViews) -> None:
        self._host = host
        self._answers = answers
        self._sides = sides
        self._worker = worker
        self._later: set[str] = set()

    def send(self, *names: str, request: Any = None) -> None:
        """Queue views `names` (`VIEWS`; ``request``: what a groups or search job answers)."""
        build = self._host._shown_now().side.build
        after = None if build.ready else lambda: build.index(hurry=False)
        for name in names:
            self._worker.submit(name, self._job(name, request), after if VIEWS[name].needs_index else None)

    def later(self, *names: str) -> None:
        """Views to send after the next window or blocks answer."""
        self._later.update(names)

    def forget_later(self) -> None:
        """Nothing waits any more (a new front-end view asks for everything)."""
        self._later.clear()

    def send_later(self) -> None:
        later, self._later = self._later, set()
        self.send(*(name for name in LATER if name in later))

    def _job(self, name: str, request: Any) -> Callable[[], None]:
        view = VIEWS[name]

        def run() -> None:
            shown = self._host._shown_now()
            message, buffers = view.build(shown, self._host, self._answers, self._sides, request)
            if view.depends(self._host._shown_now()) != view.depends(shown):
                self._worker.submit(name, run)  # swapped meanwhile: answer for the value shown now
                return
            self._host._push(message, buffers or None)

        return run
