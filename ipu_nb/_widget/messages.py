"""Messages from the widget's front end, checked before the widget acts on them.

The browser is untrusted input: every field of every message is type- and range-checked
here, so the widget only ever acts on a `Window`, `Hover`, `Pick`, `Groups` or `Hello`
whose numbers are finite integers inside the profile (offsets within the view limit,
rows within the timeline, request ids within the integers a browser holds exactly).
Anything else raises `MessageError`, which the widget answers with an error reply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .protocol import REQUEST_TYPES, ReplyAddress

__all__ = [
    "MAX_PIXELS",
    "MAX_SAFE_INTEGER",
    "MESSAGE_TYPES",
    "MIN_VIEW_WIDTH",
    "Groups",
    "Hello",
    "Hover",
    "Limits",
    "MessageError",
    "Pick",
    "Window",
    "check_integer",
    "check_range",
    "parse_message",
    "reply_address",
    "view_limit",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a browser's Number holds exactly (``Number.MAX_SAFE_INTEGER``)."""
MIN_VIEW_WIDTH = 8
"""The narrowest view the front end zooms to (``MIN_WIDTH`` in js/view.ts), so a view may end there."""
MAX_PIXELS = 65_536
"""Widest drawing a window request may ask for (the answer uses at most `lod.MAX_BINS` cells a row)."""
_MAX_VIEW_ID = 200
"""Longest front-end view id echoed back in replies (the front end's ids are ~10 characters)."""


class MessageError(ValueError):
    """A message from the front end that the widget refuses (it answers with an error reply)."""


def view_limit(span: int) -> int:
    """End of the range views, windows and clicks must lie in: the span, at least `MIN_VIEW_WIDTH`."""
    return max(int(span), MIN_VIEW_WIDTH)


@dataclass(frozen=True)
class Limits:
    """What the numbers in a message are checked against: the view limit and the timeline's row count."""

    end: int
    rows: int


@dataclass(frozen=True)
class Window:
    """``{"type": "window"}``: draw ``[start, end)`` ``pixels`` wide (with operation labels if asked)."""

    view: str | None
    id: int | None
    start: int
    end: int
    pixels: int
    labels: bool


@dataclass(frozen=True)
class Hover:
    """``{"type": "hover"}``: describe the sample of timeline row ``row`` at offset ``x``."""

    view: str | None
    id: int | None
    row: int
    x: int


@dataclass(frozen=True)
class Pick:
    """``{"type": "pick"}``: a click, setting ``at`` to ``x`` and ``selected`` to the sample there."""

    row: int
    x: int


@dataclass(frozen=True)
class Groups:
    """``{"type": "groups"}``: send the group table for the current state."""

    id: int | None


@dataclass(frozen=True)
class Hello:
    """``{"type": "hello"}``: a new view opened; send every side view."""


Message = Window | Hover | Pick | Groups | Hello
#: The ``type`` of every message the front end may send (`ipu_nb._widget.protocol.FromFrontEnd`).
MESSAGE_TYPES = REQUEST_TYPES


def _shown(value: Any) -> str:
    """`value`'s repr, cut short: messages can be large."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def check_integer(value: Any, what: str, low: int, high: int) -> int:
    """`value` as an int in ``low..high``; integral floats are accepted, bools and everything else refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MessageError(f"{what} must be an integer, got {type(value).__name__} {_shown(value)}")
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            raise MessageError(f"{what} must be a finite integer, got {value!r}")
        value = int(value)
    if not low <= value <= high:
        raise MessageError(f"{what} must be in {low}..{high}, got {_shown(value)}")
    return value


def check_range(start: Any, end: Any, what: str, limit: int) -> tuple[int, int]:
    """``(start, end)`` as ints with ``0 <= start < end <= limit``."""
    start = check_integer(start, f"{what} start", 0, limit)
    end = check_integer(end, f"{what} end", 0, limit)
    if end <= start:
        raise MessageError(f"{what} must have start < end, got [{start}, {end}]")
    return start, end


def _field(content: dict[str, Any], name: str, kind: str) -> Any:
    if name not in content:
        raise MessageError(f"{kind} message needs a {name!r} field")
    return content[name]


def _request_id(content: dict[str, Any], kind: str) -> int | None:
    value = content.get("id")
    return None if value is None else check_integer(value, f"{kind} id", 0, MAX_SAFE_INTEGER)


def _view_id(content: dict[str, Any], kind: str) -> str | None:
    value = content.get("view")
    if value is not None and not (isinstance(value, str) and len(value) <= _MAX_VIEW_ID):
        raise MessageError(f"{kind} view must be a string of at most {_MAX_VIEW_ID} characters, got {_shown(value)}")
    return value


def _offset(content: dict[str, Any], kind: str, limits: Limits) -> int:
    return check_integer(_field(content, "x", kind), f"{kind} x", 0, limits.end)


def _row(content: dict[str, Any], kind: str, limits: Limits) -> int:
    return check_integer(_field(content, "row", kind), f"{kind} row", 0, limits.rows - 1)


def parse_message(content: Any, limits: Limits) -> Message:
    """The checked message `content` stands for; `MessageError` says what is wrong with it.

    `content` should be one of `ipu_nb._widget.protocol.FromFrontEnd`; it is treated as
    anything until checked field by field.
    """
    if not isinstance(content, dict):
        raise MessageError(f"a message must be a JSON object, got {type(content).__name__} {_shown(content)}")
    kind = content.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise MessageError(f"unknown message type {_shown(kind)}; expected one of {', '.join(MESSAGE_TYPES)}")
    if kind == "window":
        start, end = check_range(_field(content, "start", kind), _field(content, "end", kind), "window", limits.end)
        labels = content.get("labels", False)
        if not isinstance(labels, bool):
            raise MessageError(f"window labels must be true or false, got {_shown(labels)}")
        return Window(
            view=_view_id(content, kind),
            id=_request_id(content, kind),
            start=start,
            end=end,
            pixels=check_integer(_field(content, "pixels", kind), "window pixels", 1, MAX_PIXELS),
            labels=labels,
        )
    if kind == "hover":
        return Hover(
            view=_view_id(content, kind),
            id=_request_id(content, kind),
            row=_row(content, kind, limits),
            x=_offset(content, kind, limits),
        )
    if kind == "pick":
        return Pick(row=_row(content, kind, limits), x=_offset(content, kind, limits))
    if kind == "groups":
        return Groups(id=_request_id(content, kind))
    return Hello()


def reply_address(content: Any) -> ReplyAddress:
    """The ``request`` type, ``id`` and ``view`` of a (possibly bad) message, where well-formed, for its error reply."""
    if not isinstance(content, dict):
        return {}
    out: ReplyAddress = {}
    kind, request_id, view = content.get("type"), content.get("id"), content.get("view")
    if isinstance(kind, str) and kind in MESSAGE_TYPES:
        out["request"] = kind
    if isinstance(request_id, int) and not isinstance(request_id, bool) and 0 <= request_id <= MAX_SAFE_INTEGER:
        out["id"] = request_id
    if isinstance(view, str) and len(view) <= _MAX_VIEW_ID:
        out["view"] = view
    return out
