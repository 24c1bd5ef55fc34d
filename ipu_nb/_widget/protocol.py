"""Every message between the widget's kernel side and its front end, typed once.

Messages travel as anywidget custom messages: a JSON object with a ``type`` tag, plus
binary buffers for bulk data (listed on each reply). ``*Request`` are what the front end
sends (checked by `ipu_nb._widget.messages.parse_message` before anything acts on them);
``*Reply`` and ``*Push`` are what the kernel sends. js/kernel/protocol.ts mirrors these as tagged
unions and docs/widget-protocol.md describes them; the wire format is exactly this.
(No ``from __future__ import annotations`` here: the TypedDicts' required keys are read at run time.)
"""

import sys
from typing import Any, Literal, TypedDict

from .._model.vocabulary import VocabularyInfo

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired

__all__ = [
    "MAX_SAFE_INTEGER",
    "REPLY_TYPES",
    "REQUEST_TYPES",
    "AreaPush",
    "AreaSample",
    "AtSummary",
    "BlocksReply",
    "BlocksRequest",
    "CodeReply",
    "CodeRequest",
    "ErrorReply",
    "FindingRow",
    "FitReply",
    "FitRequest",
    "FlameMetadata",
    "FlameNode",
    "FlamePush",
    "FlameTree",
    "FromFrontEnd",
    "GroupDelta",
    "GroupRow",
    "GroupsReply",
    "GroupsRequest",
    "HelloRequest",
    "HighlightPush",
    "HoverReply",
    "HoverRequest",
    "LodHeader",
    "OverviewPush",
    "PanelPush",
    "PickRequest",
    "RawHeader",
    "ReplyAddress",
    "SampleDetail",
    "SampleInfo",
    "SearchReply",
    "SearchRequest",
    "ToFrontEnd",
    "VocabularyInfo",
    "WindowReply",
    "WindowRequest",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a browser's Number holds exactly (``Number.MAX_SAFE_INTEGER``)."""

# ---- from the front end -------------------------------------------------------------------


class WindowRequest(TypedDict):
    """Draw offsets ``[start, end)`` ``pixels`` wide; ``labels`` asks for operation names of raw samples."""

    type: Literal["window"]
    view: NotRequired[str]
    id: NotRequired[int]
    start: int
    end: int
    pixels: int
    labels: NotRequired[bool]


class HoverRequest(TypedDict):
    """Describe the sample of timeline row ``row`` at offset ``x`` (answered by `HoverReply`)."""

    type: Literal["hover"]
    view: NotRequired[str]
    id: NotRequired[int]
    row: int
    x: int


class PickRequest(TypedDict):
    """A click: sets the ``at`` trait to ``x`` and ``selected`` to the sample there (then a `PanelPush`)."""

    type: Literal["pick"]
    row: int
    x: int


class GroupsRequest(TypedDict):
    """Send the group table for the current state (answered by `GroupsReply`)."""

    type: Literal["groups"]
    id: NotRequired[int]


class HelloRequest(TypedDict):
    """A new view opened: send every side view (overview, flame graph, panel)."""

    type: Literal["hello"]


class BlocksRequest(TypedDict):
    """Cache blocks ``blocks`` of ``level`` (``bins`` cells a row), for the ``filters`` and ``color_by``
    the front end holds; ``[start, end)`` is its view (answered by `WindowReply`s, then a `BlocksReply`)."""

    type: Literal["blocks"]
    view: NotRequired[str]
    id: NotRequired[int]
    level: int
    bins: int
    blocks: list[int]
    labels: NotRequired[bool]
    filters: dict[str, Any]
    color_by: str
    start: int
    end: int
    showing: NotRequired[str]
    """With a baseline: the profile shown (``"after"`` / ``"baseline"``); other answers are stale."""


class SearchRequest(TypedDict):
    """Samples matching the filters whose operation or kernel contains ``text`` (answered by `SearchReply`)."""

    type: Literal["search"]
    id: NotRequired[int]
    text: str
    case_sensitive: NotRequired[bool]


class FitRequest(TypedDict):
    """The range to zoom to: ``by`` "matching" (the filters), "sample" or "phase" (``value``); a `FitReply`."""

    type: Literal["fit"]
    id: NotRequired[int]
    by: Literal["matching", "sample", "phase"]
    value: NotRequired[int]


class CodeRequest(TypedDict):
    """The "copy as code" button: send ``widget.to_code()`` (answered by `CodeReply`)."""

    type: Literal["code"]
    id: NotRequired[int]


FromFrontEnd = (
    WindowRequest
    | HoverRequest
    | PickRequest
    | GroupsRequest
    | HelloRequest
    | BlocksRequest
    | SearchRequest
    | FitRequest
    | CodeRequest
)
#: The ``type`` tags of `FromFrontEnd`.
REQUEST_TYPES: tuple[str, ...] = ("window", "hover", "pick", "groups", "hello", "blocks", "search", "fit", "code")

# ---- to the front end -----------------------------------------------------------------------


class RawHeader(TypedDict):
    """A window of raw intervals. Buffers: x0 and x1 (f32, relative to ``start``), row (u16),
    flags (u8: colour class | 0x80 when matching), sample id (u32); with labels, one more:
    each sample's index (u32) into ``labels``."""

    mode: Literal["raw"]
    start: int
    end: int
    count: int


class LodHeader(TypedDict):
    """A summarised window: one u8 cell per (row, bin), ``class | level << 5``; packed as
    ``"xor-runs"`` (``runs`` runs over the buffers of `ipu_nb._widget.lod.pack_cells`)."""

    mode: Literal["lod"]
    start: int
    end: int
    rows: int
    bins: int
    count: int
    compressed: Literal["xor-runs"] | None
    runs: NotRequired[int]


class WindowReply(TypedDict):
    """The answer to a `WindowRequest`: its ``view`` and ``id`` echoed, and a raw or summary header."""

    type: Literal["window"]
    view: str | None
    id: int | None
    color_by: str
    filtered: bool
    mode: Literal["raw", "lod"]
    start: int
    end: int
    count: int
    rows: NotRequired[int]
    bins: NotRequired[int]
    compressed: NotRequired[Literal["xor-runs"] | None]
    runs: NotRequired[int]
    labels: NotRequired[list[str]]
    level: NotRequired[int]
    block: NotRequired[int]


class BlocksReply(TypedDict):
    """A `BlocksRequest` answered: its blocks went out before as `WindowReply`s (``stale``: none did,
    the kernel held other filters or colours); ``count``/``matched``: samples in the request's view."""

    type: Literal["blocks"]
    view: str | None
    id: int | None
    stale: bool
    count: int
    matched: int
    cost_ms: list[float]


class SearchReply(TypedDict):
    """The first ``sent`` of ``count`` matches by offset. Buffers: start, end (f64), row (u16), sample (u32)."""

    type: Literal["search"]
    id: int | None
    text: str
    case_sensitive: bool
    count: int
    sent: int


class FitReply(TypedDict):
    """The range a `FitRequest` zooms to, or None when there is nothing to fit."""

    type: Literal["fit"]
    id: int | None
    view: list[int] | None


class SampleInfo(TypedDict):
    """One sample as the tooltip and the inspector show it."""

    sample: int
    tile: int
    kind: str
    inactive: bool
    operation: str
    kernel: str
    phase: int
    epoch: int
    offset: int
    duration: int
    local_index: int
    start: int
    end: int
    matched: bool


class SampleDetail(SampleInfo):
    """`SampleInfo` plus the sample's metadata entries as ``[name, value]`` pairs in position order."""

    metadata: list[list[str]]


class HoverReply(TypedDict):
    """The answer to a `HoverRequest`: the sample there, or None."""

    type: Literal["hover"]
    view: str | None
    id: int | None
    sample: SampleInfo | None


class AtSummary(TypedDict):
    """The samples matching the filters and active at offset ``at``: counts and the top names.

    ``kinds``, ``operations`` and ``kernels`` are ``[name, count]`` pairs, ``metadata``
    ``[name, value, count]`` triples, most frequent first."""

    at: int
    count: int
    tiles: int
    kinds: list[list[Any]]
    operations: list[list[Any]]
    kernels: list[list[Any]]
    metadata: list[list[Any]]


class PanelPush(TypedDict):
    """The inspector: the cursor's summary (None without ``at``) and the selected sample (None without one)."""

    type: Literal["panel"]
    at: AtSummary | None
    selected: SampleDetail | None


class FlameNode(TypedDict):
    """One node of the flame graph; ``path`` holds the filters that focus it (None for a merged ``…`` node)."""

    name: str
    level: int
    value: int
    parent: int
    path: dict[str, Any] | None


class FlameMetadata(TypedDict):
    """A metadata entry of the focused operation's samples: summed cycles and sample count."""

    name: str
    value: str
    cycles: int
    samples: int


class FlameTree(TypedDict):
    """The flame graph of the matching samples: kind → kernel → phase/epoch → operation."""

    total: int
    nodes: list[FlameNode]
    metadata: list[FlameMetadata]


class FlamePush(FlameTree):
    """`FlameTree` as sent; ``area``: of the selected area (its clipped cycles), not of every matching sample."""

    type: Literal["flame"]
    area: NotRequired[bool]
    deltas: NotRequired[list[int | None]]
    """With a baseline: each node's after − before cycles on its path (None: a merged node)."""


class OverviewPush(TypedDict):
    """Tile occupancy by compute in ``bins`` bins over the span. Buffers: all samples (f32), matching (f32)."""

    type: Literal["overview"]
    bins: int
    span: int
    filtered: bool


class GroupRow(TypedDict):
    """One row of the group table (the top of ``query(profile, widget.query).groups``)."""

    name: str
    dimensions: dict[str, str]
    sample_count: int
    phase_cycles: int
    work_cycles: int
    average_active_tiles: float


class GroupsReply(TypedDict):
    """The answer to a `GroupsRequest`: rows, or the query's error (a metadata group-by without its key)."""

    type: Literal["groups"]
    id: int | None
    group_by: str
    error: str | None
    rows: list[GroupRow]
    area: NotRequired[bool]
    """The rows are the selected area's (``widget.selection_groups``, clipped cycles)."""
    deltas: NotRequired[list["GroupDelta | None"]]
    """With a baseline: each row's phase cycles before and after (``compare(baseline, after)``); None: no such group."""


class GroupDelta(TypedDict):
    """A group's Δ columns: its `Comparison.groups` status and phase cycles (before/after null where absent)."""

    status: str
    before: int | None
    after: int | None
    delta: int
    ratio: float | None


class FindingRow(TypedDict):
    """One entry of the findings panel (``widget.finding_rows``): a ranked finding and the state that shows it."""

    rank: int
    category: str
    subject: str
    message: str
    cycles: int
    ms: float
    share: float
    filters: dict[str, Any]
    view: list[int]


class ReplyAddress(TypedDict, total=False):
    """Which request an error answers, where the (possibly bad) request said so well-formed."""

    request: str
    id: int
    view: str


class ErrorReply(ReplyAddress):
    """A request or a trait update the kernel refused; ``request``, ``id`` and ``view`` say which, where known."""

    type: Literal["error"]
    message: str


class AreaSample(TypedDict):
    """One of an area's longest samples: its own interval, and its cycles inside the area."""

    sample: int
    tile: int
    offset: int
    duration: int
    clipped_cycles: int
    kind: str
    operation: str
    kernel: str
    phase: int
    epoch: int


class AreaPush(TypedDict):
    """The selected area (``widget.selection``, None when cleared) and what it holds.

    ``window`` and ``tiles`` are the area within the filters (None: it misses them, or no
    tiles filter); ``count``, ``tiles_hit`` and ``cycles`` count the matching samples overlapping
    it, the tiles they are on and their clipped cycles; ``longest`` the top samples by clipped
    cycles. The groups and flame graph of the area come as `GroupsReply` / `FlamePush` with ``area``."""

    type: Literal["area"]
    selection: dict[str, Any] | None
    window: list[int] | None
    tiles: list[int] | None
    count: int
    tiles_hit: int
    cycles: int
    longest: list[AreaSample]


class HighlightPush(TypedDict):
    """``widget.highlight(frame)``: ``count`` samples marked, the first ``sent`` by offset in the buffers
    (start, end f64; row u16; sample id u32), as a search reply's; ``count`` 0 clears."""

    type: Literal["highlight"]
    count: int
    sent: int


class CodeReply(TypedDict):
    """The answer to a `CodeRequest`: the Python reproducing the view."""

    type: Literal["code"]
    id: int | None
    code: str


ToFrontEnd = (
    WindowReply
    | HoverReply
    | PanelPush
    | FlamePush
    | OverviewPush
    | GroupsReply
    | ErrorReply
    | BlocksReply
    | SearchReply
    | FitReply
    | AreaPush
    | HighlightPush
    | CodeReply
)
#: The ``type`` tags of `ToFrontEnd`.
REPLY_TYPES: tuple[str, ...] = (
    "window",
    "hover",
    "panel",
    "flame",
    "overview",
    "groups",
    "error",
    "blocks",
    "search",
    "fit",
    "area",
    "highlight",
    "code",
)
