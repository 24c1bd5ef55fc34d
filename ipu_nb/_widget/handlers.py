"""What the kernel does with each message from the front end: one handler per message type, in one table.

`handle` checks the message (`ipu_nb._widget.messages.parse_message`) against the value shown,
then runs its handler with that value: everything a handler answers is computed for it. What
fails becomes an error reply; nothing the browser sends raises into the kernel.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import traitlets

from . import lod
from .answers import Answers
from .background import Background
from .inspector import hover_reply
from .messages import (
    Blocks,
    Code,
    Finding,
    Fit,
    Groups,
    Hello,
    Hover,
    MessageError,
    Pick,
    Search,
    Window,
    parse_message,
    reply_address,
)
from .protocol import BlocksReply, CodeReply, FitReply, ReplyAddress
from .pushes import Marks, highlight_push, window_reply, with_labels
from .shown import Shown, filters_key
from .side_views import RECOVERABLE
from .state import STATE_KEYS
from .traits import check_trait_depth
from .views import Views, ViewsHost
from .zoom import fitted

__all__ = ["FRONT_END_WRITES", "HANDLERS", "MOVES", "Host", "handle", "send_views", "update"]

FRONT_END_WRITES = frozenset(STATE_KEYS)
"""The traits the browser may set: those of a view (`STATE_KEYS`). Every other synced trait (``info``,
``finding_rows``, the front end's own code ``_esm`` and ``_css``, ``layout``…) is read-only to it."""


class Host(ViewsHost, Protocol):
    """What the handlers use of the widget."""

    _answers: Answers
    _views: Views
    _background: Background
    _marks: Marks | None
    keys: list[str]
    """The synced traits' names."""

    def _pick(self, x: int, sample: int | None) -> None:
        """Set the cursor to `x` and select `sample` (one inspector update)."""

    def to_code(self) -> str: ...

    def _start_findings(self) -> None: ...

    def show_finding(self, rank: int) -> list[int]: ...

    def _send_error(self, error: BaseException, address: ReplyAddress | None = None) -> None: ...

    def _resync(self, keys: list[str]) -> None: ...


def handle(host: Host, content: Any) -> None:
    """Answer one message from the browser: checked first, and whatever fails becomes an error reply.

    A refused message changes no state. The catch is the last resort for the kernel:
    nothing the browser sends raises out of here (the kernel would only log it, and
    the browser would wait for a reply that never comes).
    """
    try:
        shown = host._shown_now()
        message = parse_message(content, shown.side.limits)
        if type(message) in MOVES:
            host._background.moved()
        HANDLERS[type(message)](host, shown, message)
    except RECOVERABLE as error:  # answered, never raised into the kernel
        address = reply_address(content)
        host._send_error(error, address)
        if address.get("request") == "pick":  # the browser drew its cursor already: set it back
            host._resync(["at", "selected"])


def update(host: Host, sync_data: Any, apply: Callable[[dict[str, Any]], None]) -> None:
    """Trait updates from the browser, untrusted like its messages: checked, then `apply`'d (traitlets
    checks each value); a refused one changes nothing, the browser gets an error reply and Python's
    values back, and no exception reaches the kernel."""
    keys: list[str] = []
    try:
        if not isinstance(sync_data, dict):
            raise MessageError(f"a trait update must be a JSON object, got {type(sync_data).__name__}")
        keys = [k for k in sync_data if k in host.keys]
        refused = [k for k in sync_data if k not in FRONT_END_WRITES]
        if refused:
            named = ", ".join(repr(k)[:40] for k in refused[:5]) + (", …" if len(refused) > 5 else "")
            raise traitlets.TraitError(
                f"the browser cannot set {named}: it may set only {', '.join(sorted(FRONT_END_WRITES))}"
            )
        for name, value in sync_data.items():
            check_trait_depth(name, value)
        apply(sync_data)
    except RECOVERABLE as error:  # answered, never raised into the kernel
        host._send_error(error, {"request": "update"})
        host._resync(keys)


def _window(host: Host, shown: Shown, message: Window) -> None:
    header, buffers = host._answers.window(shown, message.start, message.end, message.pixels)
    reply = window_reply(shown, message.view, message.id, header)
    host._push(reply, with_labels(shown, reply, buffers) if message.labels else buffers)
    host._views.send_later()


def _hover(host: Host, shown: Shown, message: Hover) -> None:
    host._push(hover_reply(shown, message))


def _pick(host: Host, shown: Shown, message: Pick) -> None:
    host._pick(message.x, shown.side.index.sample_at(message.row, message.x))


def _groups(host: Host, shown: Shown, message: Groups) -> None:
    host._views.send("groups", request=message.id)


def _blocks(host: Host, shown: Shown, message: Blocks) -> None:
    """Send each block asked for as a window reply, as it is ready, then a `BlocksReply` closing the request."""
    # Asked for another value than the one shown (a change from Python on its way): stale, never mixed up.
    fresh = (
        filters_key(message.filters) == shown.matching.filters
        and message.color_by == shown.color_by
        and message.showing in (None, shown.side.which)
        and message.clock in (None, shown.side.clock)
    )
    costs: list[float] = []
    count = matched = 0
    if fresh:
        for k, header, buffers, seconds in host._answers.blocks(shown, message.level, message.bins, message.blocks):
            reply = window_reply(shown, message.view, message.id, header, level=message.level, block=k)
            began = time.perf_counter()
            host._push(reply, with_labels(shown, reply, buffers) if message.labels else buffers)
            costs.append(round((seconds + time.perf_counter() - began) * 1000, 2))
        windowed, mask = shown.matching.windowed()
        count, matched = lod.count_in(windowed, message.start, message.end, mask)
        shown.side.build.start_sorting()  # the picture is out: the index may take the CPUs now
    done: BlocksReply = {
        "type": "blocks",
        "view": message.view,
        "id": message.id,
        "stale": not fresh,
        "count": count,
        "matched": matched,
        "cost_ms": costs,
    }
    host._push(done)
    if fresh:
        host._views.send_later()


def _search(host: Host, shown: Shown, message: Search) -> None:
    host._views.send("search", request=message)


def _fit(host: Host, shown: Shown, message: Fit) -> None:
    reply: FitReply = {"type": "fit", "id": message.id, "view": fitted(shown, message.by, message.value)}
    host._push(reply)


def _code(host: Host, shown: Shown, message: Code) -> None:
    reply: CodeReply = {"type": "code", "id": message.id, "code": host.to_code()}
    host._push(reply)


def _finding(host: Host, shown: Shown, message: Finding) -> None:
    host.show_finding(message.rank)


def _hello(host: Host, shown: Shown, message: Hello) -> None:
    """A new view of the widget opened: every side view goes to it."""
    host._views.forget_later()
    send_views(host, shown)


def send_views(host: Host, shown: Shown) -> None:
    """Every side view of `shown`: the overview, flame graph and panel, the findings, the area and the marks."""
    host._views.send("overview", "flame", "panel")
    host._start_findings()  # 2 s at full size, 6 s at 10M, in steps while the view is still
    if host.selection is not None:
        host._views.send("area")
    if host._marks is not None:
        host._push(*highlight_push(shown, host._marks))


#: The handler of each message type.
HANDLERS: dict[type, Callable[[Host, Shown, Any], None]] = {
    Window: _window,
    Hover: _hover,
    Pick: _pick,
    Groups: _groups,
    Blocks: _blocks,
    Search: _search,
    Fit: _fit,
    Code: _code,
    Finding: _finding,
    Hello: _hello,
}
#: The messages that mean the view moved: the background's next step waits for it to be still.
MOVES = frozenset({Window, Blocks, Hover, Pick})
