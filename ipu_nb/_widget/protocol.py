"""Every message between the widget's kernel side and its front end, typed once.

Messages travel as anywidget custom messages: a JSON object with a ``type`` tag, plus
binary buffers for bulk data (`LAYOUTS` lists them, per message). ``*Request`` are what
the front end sends (checked by `ipu_nb._widget.messages.parse_message` before anything acts
on them); ``*Reply`` and ``*Push`` are what the kernel sends. This module is the source:
``python -m ipu_nb._widget.protocol_gen`` writes the TypeScript types, the front end's checks
and buffer layouts (js/kernel/generated.ts) and the message tables of docs/widget-protocol.md
from it. (No ``from __future__ import annotations`` here: the generator and the tests read
the TypedDicts' annotations and required keys at run time.)
"""

import sys
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_type_hints

from .._model.vocabulary import VocabularyInfo
from .._query.filters_codec import MAX_SAFE_INTEGER

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # pragma: no cover - Python 3.10: typing's TypedDict does not read NotRequired
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "HIGHLIGHT_MATCHES",
    "LAYOUTS",
    "LOD_WINDOW",
    "MAX_SAFE_INTEGER",
    "OVERVIEW_SHARES",
    "PACKED_WINDOW",
    "RAW_WINDOW",
    "REPLY_TYPES",
    "REQUEST_TYPES",
    "SEARCH_MATCHES",
    "VARIANTS",
    "Area",
    "AreaPush",
    "AreaSample",
    "AtSummary",
    "BlocksReply",
    "BlocksRequest",
    "Buffer",
    "CodeReply",
    "CodeRequest",
    "Dtype",
    "ErrorReply",
    "Filters",
    "FindingRequest",
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
    "Layout",
    "LodHeader",
    "Marker",
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
    "Wire",
]


@dataclass(frozen=True)
class Wire:
    """The JSON a field holds where Python builds it more loosely: ``Annotated[list[Any], Wire(tuple[str, int])]``.

    Python code sees the first argument (it builds a list, JSON has no tuples); the front end's
    types and checks follow `shape`, a fixed-length array here.
    """

    shape: Any


def _tags(union: Any) -> tuple[str, ...]:
    """The ``type`` tag of each message of `union`, in order."""
    return tuple(get_args(get_type_hints(message)["type"])[0] for message in get_args(union))


_Range = Annotated[list[int], Wire(tuple[int, int])]
_NameCount = Annotated[list[Any], Wire(tuple[str, int])]
_NameValue = Annotated[list[str], Wire(tuple[str, str])]
_NameValueCount = Annotated[list[Any], Wire(tuple[str, str, int])]
_NameStartEnd = Annotated[list[Any], Wire(tuple[str, int, int])]

# ---- traits that messages carry ---------------------------------------------------------------


class Filters(TypedDict):
    """The ``filters`` trait as the front end holds it (`ipu_nb._query.filters_codec.normalise_filters`' form)."""

    kind: str | None
    kernel: str | None
    operation: list[str]
    """Exact operation names (any of them); the flame graph's focus sets one."""
    operation_contains: str | None
    tiles: list[int]
    phases: list[int]
    metadata: list[Annotated[list[Any], Wire(tuple[str, str | None])]]
    """``[name, value]`` pairs, value None meaning "has an entry named name"."""
    window: _Range | None
    """Samples overlapping ``[start, end)`` (set from Python; the front end keeps it as it is)."""


class Area(TypedDict):
    """The ``selection`` trait: offsets ``[start, end)`` on physical tiles ``tiles`` (None: every tile)."""

    start: int
    end: int
    tiles: list[int] | None


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
    filters: Annotated[dict[str, Any], Wire(Filters)]
    color_by: str
    start: int
    end: int
    showing: NotRequired[Literal["after", "baseline"]]
    """With a baseline: the profile shown (``"after"`` / ``"baseline"``); other answers are stale."""
    clock: NotRequired[Literal["tile", "cropped", "shared"]]
    """The clock of ``start``, ``end`` and the blocks (the ``clock`` trait); answers on another are stale."""


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


class FindingRequest(TypedDict):
    """A click on a finding: ``widget.show_finding(rank)`` (its filters, view, named tile pinned and highlighted)."""

    type: Literal["finding"]
    id: NotRequired[int]
    rank: int


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
    | FindingRequest
)
#: The ``type`` tags of `FromFrontEnd`.
REQUEST_TYPES: tuple[str, ...] = _tags(FromFrontEnd)

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
    """A summarised window: ``planes`` grids of u8 cells per (row, bin), one per colour class of
    ``classes`` (ascending; 0: samples not matching the filters), each cell the share of its cycles
    that class covers in 255ths (`ipu_nb._widget.lod.shares`); packed as ``"xor-runs"`` (``runs``
    runs over the buffers of `ipu_nb._widget.lod.pack_cells`, the planes one under the other)."""

    mode: Literal["lod"]
    start: int
    end: int
    rows: int
    bins: int
    planes: int
    classes: list[int]
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
    planes: NotRequired[int]
    classes: NotRequired[list[int]]
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
    view: _Range | None


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
    """`SampleInfo` plus the sample's metadata entries as ``[name, value]`` pairs in position order, its
    exchange activities as ``[kind, start, end]`` (offsets in its window), its role cycles (`ROLE_COLUMNS`
    names; none without a window) and the newest runtime's accounting parts as ``[name, offset, end]``."""

    metadata: list[_NameValue]
    activities: list[_NameStartEnd]
    roles: dict[str, int]
    parts: list[_NameStartEnd]


class HoverReply(TypedDict):
    """The answer to a `HoverRequest`: the sample there, or None; in colour mode "activity" also the display
    piece there (``[class, offset, end]``) and the newest runtime's accounting part there (``[name, offset, end]``)."""

    type: Literal["hover"]
    view: str | None
    id: int | None
    sample: SampleInfo | None
    piece: NotRequired[_NameStartEnd]
    part: NotRequired[_NameStartEnd]


class AtSummary(TypedDict):
    """The samples matching the filters and active at offset ``at``: counts and the top names.

    ``kinds``, ``operations`` and ``kernels`` are ``[name, count]`` pairs, ``metadata``
    ``[name, value, count]`` triples, most frequent first."""

    at: int
    count: int
    tiles: int
    kinds: list[_NameCount]
    operations: list[_NameCount]
    kernels: list[_NameCount]
    metadata: list[_NameValueCount]


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
    path: Annotated[dict[str, Any], Wire(dict[str, str | int])] | None


class FlameMetadata(TypedDict):
    """A metadata entry of the focused operation's samples: summed cycles and sample count."""

    name: str
    value: str
    cycles: int
    samples: int


class FlameTree(TypedDict):
    """The flame graph of the matching samples, one level per key of ``levels`` (``flame_hierarchy``)."""

    total: int
    levels: list[str]
    """The filter key of each level below the root, outermost first (a node at level d has the first d in its path)."""
    nodes: list[FlameNode]
    metadata: list[FlameMetadata]


class FlamePush(FlameTree):
    """`FlameTree` as sent; ``area``: of the selected area (its clipped cycles), not of every matching sample."""

    type: Literal["flame"]
    area: NotRequired[bool]
    deltas: NotRequired[list[int | None]]
    """With a baseline: each node's after − before cycles on its path (None: a merged node)."""


class OverviewPush(TypedDict):
    """The whole span in ``bins`` bins, coloured by ``color_by``: per plane (colour class of the
    ``classes`` buffer; 0: samples not matching the filters), each bin's tile-cycles of that class
    / (tiles × bin width) (`ipu_nb._widget.lod.overview_shares`). Drawn as stacks of those shares
    of the strip's height, the mean colour of any columns is the cycle-weighted mean over all tiles."""

    type: Literal["overview"]
    bins: int
    span: int
    planes: int
    color_by: str


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
    filters: Annotated[dict[str, Any], Wire(Filters)]
    view: _Range
    tile: int | None
    """The physical tile it names (pinned and highlighted when it is shown), or None."""


class Marker(TypedDict):
    """One note on the timeline (``widget.marker_rows``): offsets ``[start, end]`` (equal: a point in time)
    and a label, untrusted text the front end shows escaped."""

    start: int
    end: int
    label: str


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
    selection: Annotated[dict[str, Any], Wire(Area)] | None
    window: _Range | None
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
REPLY_TYPES: tuple[str, ...] = _tags(ToFrontEnd)

#: Replies whose TypeScript type is a union on one key, per value a header: ``WindowReply`` is a
#: ``RawWindowReply`` (``mode: "raw"``, a `RawHeader`'s keys as it types them) or a
#: ``LodWindowReply``; each variant leaves out the keys only the other headers have.
VARIANTS: dict[str, tuple[str, tuple[type, ...]]] = {"WindowReply": ("mode", (RawHeader, LodHeader))}

# ---- binary buffers ----------------------------------------------------------------------------

#: A buffer's element type: unsigned or floating, of 8 to 64 bits, little-endian.
Dtype = Literal["u8", "u16", "u32", "f32", "f64"]


@dataclass(frozen=True)
class Buffer:
    """One binary buffer: little-endian `dtype` elements, as many as the product of the header's `length` keys.

    An empty `length` is any length (the runs of packed cells); `only_with` names a header key
    without which the buffer is not sent (a raw window's label indices come with ``labels``).
    """

    name: str
    dtype: Dtype
    length: tuple[str, ...]
    doc: str
    only_with: str | None = None


@dataclass(frozen=True)
class Layout:
    """The buffers, in order, of a ``message`` whose header has the values `when` (and the keys `needs`)."""

    name: str
    message: str
    when: tuple[tuple[str, Any], ...]
    buffers: tuple[Buffer, ...]
    needs: tuple[str, ...] = ()


RAW_WINDOW = Layout(
    "raw_window",
    "window",
    (("mode", "raw"),),
    (
        Buffer("x0", "f32", ("count",), "start offset minus the header's `start` (may be negative)"),
        Buffer("x1", "f32", ("count",), "end offset minus `start`"),
        Buffer("row", "u16", ("count",), "timeline row"),
        Buffer("flags", "u8", ("count",), "bits 0–4: colour class (legend index + 1); bit 7: matches the filters"),
        Buffer("sample", "u32", ("count",), "sample id"),
        Buffer("label", "u32", ("count",), "index into the header's `labels` (the operation names)", "labels"),
    ),
)
"""A window of raw intervals (`RawHeader`): one entry per sample overlapping it, unclipped."""
LOD_WINDOW = Layout(
    "lod_window",
    "window",
    (("mode", "lod"), ("compressed", None)),
    (
        Buffer(
            "cells",
            "u8",
            ("planes", "rows", "bins"),
            "per plane (class of `classes`), per (row, bin): the class's share of the cell in 255ths, row-major",
        ),
    ),
)
"""A summarised window (`LodHeader`) as it is: one byte a cell and plane."""
PACKED_WINDOW = Layout(
    "packed_window",
    "window",
    (("mode", "lod"), ("compressed", "xor-runs")),
    (
        Buffer("gaps", "u8", (), "the zeros before each run, as counts (one byte below 255, else 255 and a u32)"),
        Buffer("lengths", "u8", (), "the length of each run, as counts"),
        Buffer("literals", "u8", (), "the runs' bytes"),
    ),
    ("runs",),
)
"""A summarised window packed by `ipu_nb._widget.lod.pack_cells`: each row XOR the row above, as ``runs`` runs."""
_MATCHES = (
    Buffer("start", "f64", ("sent",), "start offset"),
    Buffer("end", "f64", ("sent",), "end offset"),
    Buffer("row", "u16", ("sent",), "timeline row"),
    Buffer("sample", "u32", ("sent",), "sample id"),
)
SEARCH_MATCHES = Layout("search_matches", "search", (), _MATCHES)
"""The first ``sent`` matches of a search by offset, then timeline row."""
HIGHLIGHT_MATCHES = Layout("highlight_matches", "highlight", (), _MATCHES)
"""The first ``sent`` highlighted samples by offset, then timeline row (as a search's)."""
OVERVIEW_SHARES = Layout(
    "overview_shares",
    "overview",
    (),
    (
        Buffer("classes", "u8", ("planes",), "the colour class of each plane, ascending"),
        Buffer("shares", "f32", ("planes", "bins"), "per plane, per bin: the class's share of all tiles' cycles"),
    ),
)
"""The overview's share planes: only the classes present, one row of ``bins`` shares each."""
#: Every message that carries buffers, by layout; a message matches at most one.
LAYOUTS: tuple[Layout, ...] = (
    RAW_WINDOW,
    LOD_WINDOW,
    PACKED_WINDOW,
    SEARCH_MATCHES,
    HIGHLIGHT_MATCHES,
    OVERVIEW_SHARES,
)
