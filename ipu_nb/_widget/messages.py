"""Messages from the widget's front end, checked before the widget acts on them.

The browser is untrusted input: every field of every message is type- and range-checked
here, so the widget only ever acts on a `Window`, `Hover`, `Pick`, `Groups`, `Hello`,
`Blocks`, `Search`, `Fit`, `Code` or `Finding` whose numbers are finite integers inside
the profile (offsets within the view limit, rows within the timeline,
request ids within the integers a browser holds exactly).
Anything else raises `MessageError`, which the widget answers with an error reply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, get_args, get_type_hints

from .._model.vocabulary import COLOR_BYS
from .._query import QueryError
from .._query.filters_codec import normalise_filters
from .clocks import CLOCKS
from .lod.blocks import MAX_BLOCK_BINS, MAX_LEVEL
from .protocol import MAX_SAFE_INTEGER, REQUEST_TYPES, FromFrontEnd, ReplyAddress

__all__ = [
    "FIT_BY",
    "MAX_BLOCKS",
    "MAX_PIXELS",
    "MAX_SAFE_INTEGER",
    "MAX_SEARCH_TEXT",
    "MESSAGE_TYPES",
    "MIN_VIEW_WIDTH",
    "Blocks",
    "Code",
    "Finding",
    "Fit",
    "Groups",
    "Hello",
    "Hover",
    "Limits",
    "MessageError",
    "Pick",
    "Search",
    "Window",
    "check_integer",
    "check_range",
    "parse_message",
    "reply_address",
    "view_limit",
]

MIN_VIEW_WIDTH = 8
"""The narrowest view the front end zooms to (``MIN_WIDTH`` in js/timeline/view.ts), so a view may end there."""
MAX_PIXELS = 65_536
"""Widest drawing a window request may ask for (the answer uses at most `lod.MAX_BINS` cells a row)."""
MAX_BLOCKS = 64
"""Most cache blocks one ``blocks`` request may ask for."""
MAX_SEARCH_TEXT = 1000
"""Longest text a search may look for."""
FIT_BY = ("matching", "sample", "phase")
"""What a ``fit`` request may zoom to (`ProfileWidget.zoom_to`'s keywords)."""
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


@dataclass(frozen=True)
class Blocks:
    """``{"type": "blocks"}``: cache blocks ``blocks`` of ``level`` (``bins`` cells a row), answered
    for the ``filters`` and ``color_by`` the front end held; ``[start, end)`` is its view."""

    view: str | None
    id: int | None
    level: int
    bins: int
    blocks: tuple[int, ...]
    labels: bool
    filters: dict[str, Any]
    color_by: str
    start: int
    end: int
    showing: str | None = None
    """The profile the front end showed (``"after"`` / ``"baseline"``; None: not said)."""
    clock: str | None = None
    """The clock the front end's offsets were on (a value of the ``clock`` trait; None: not said)."""


@dataclass(frozen=True)
class Search:
    """``{"type": "search"}``: samples matching the filters whose operation or kernel contains ``text``."""

    id: int | None
    text: str
    case_sensitive: bool


@dataclass(frozen=True)
class Fit:
    """``{"type": "fit"}``: the range to zoom to, ``by`` one of `FIT_BY` (``value``: the sample or phase)."""

    id: int | None
    by: str
    value: int | None


@dataclass(frozen=True)
class Code:
    """``{"type": "code"}``: send ``widget.to_code()`` (the "copy as code" button)."""

    id: int | None


@dataclass(frozen=True)
class Finding:
    """``{"type": "finding"}``: a click on the findings panel's entry `rank` (``widget.show_finding(rank)``)."""

    id: int | None
    rank: int


Message = Window | Hover | Pick | Groups | Hello | Blocks | Search | Fit | Code | Finding
#: The ``type`` of every message the front end may send (`ipu_nb._widget.protocol.FromFrontEnd`).
MESSAGE_TYPES = REQUEST_TYPES
#: The keys each request must have, in the order its TypedDict lists them (the protocol's word on it).
_REQUIRED: dict[str, tuple[str, ...]] = {
    get_args(get_type_hints(request)["type"])[0]: tuple(
        k for k in request.__annotations__ if k in request.__required_keys__
    )
    for request in get_args(FromFrontEnd)
}


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
    for name in _REQUIRED[kind]:
        _field(content, name, kind)
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
    if kind == "blocks":
        return _blocks(content, limits)
    if kind == "search":
        text = _field(content, "text", kind)
        if not isinstance(text, str) or len(text) > MAX_SEARCH_TEXT:
            raise MessageError(
                f"search text must be a string of at most {MAX_SEARCH_TEXT} characters, got {_shown(text)}"
            )
        case = content.get("case_sensitive", True)
        if not isinstance(case, bool):
            raise MessageError(f"search case_sensitive must be true or false, got {_shown(case)}")
        return Search(id=_request_id(content, kind), text=text, case_sensitive=case)
    if kind == "fit":
        by = _field(content, "by", kind)
        if by not in FIT_BY:
            raise MessageError(f"fit by must be one of {', '.join(FIT_BY)}, got {_shown(by)}")
        value = content.get("value")
        if by != "matching":
            value = check_integer(value, f"fit {by}", 0, MAX_SAFE_INTEGER)
        return Fit(id=_request_id(content, kind), by=by, value=value)
    if kind == "code":
        return Code(id=_request_id(content, kind))
    if kind == "finding":
        rank = check_integer(_field(content, "rank", kind), "finding rank", 1, MAX_SAFE_INTEGER)
        return Finding(id=_request_id(content, kind), rank=rank)
    return Hello()


def _blocks(content: dict[str, Any], limits: Limits) -> Blocks:
    kind = "blocks"
    level = check_integer(_field(content, "level", kind), "blocks level", 0, MAX_LEVEL)
    bins = check_integer(_field(content, "bins", kind), "blocks bins", 1, MAX_BLOCK_BINS)
    wanted = _field(content, "blocks", kind)
    if not isinstance(wanted, list) or not 1 <= len(wanted) <= MAX_BLOCKS:
        raise MessageError(f"blocks must be a list of 1..{MAX_BLOCKS} block indices, got {_shown(wanted)}")
    last = max(0, (limits.end - 1) // (bins << level))  # blocks start inside the profile
    indices = tuple(check_integer(k, "block index", 0, last) for k in wanted)
    labels = content.get("labels", False)
    if not isinstance(labels, bool):
        raise MessageError(f"blocks labels must be true or false, got {_shown(labels)}")
    color_by = _field(content, "color_by", kind)
    if color_by not in COLOR_BYS:
        raise MessageError(f"blocks color_by must be one of {', '.join(COLOR_BYS)}, got {_shown(color_by)}")
    try:
        filters = normalise_filters(_field(content, "filters", kind))
    except QueryError as error:
        raise MessageError(f"blocks filters: {error}") from None
    start, end = check_range(_field(content, "start", kind), _field(content, "end", kind), "blocks view", limits.end)
    showing = content.get("showing")
    if showing is not None and showing not in ("after", "baseline"):
        raise MessageError(f"blocks showing must be 'after' or 'baseline', got {_shown(showing)}")
    clock = content.get("clock")
    if clock is not None and clock not in CLOCKS:
        raise MessageError(f"blocks clock must be one of {', '.join(CLOCKS)}, got {_shown(clock)}")
    return Blocks(
        view=_view_id(content, kind),
        id=_request_id(content, kind),
        level=level,
        bins=bins,
        blocks=indices,
        labels=labels,
        filters=filters,
        color_by=color_by,
        start=start,
        end=end,
        showing=showing,
        clock=clock,
    )


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
