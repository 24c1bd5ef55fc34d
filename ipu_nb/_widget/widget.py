"""`ProfileWidget`: the timeline, overview, flame graph and inspector in a notebook.

The front end never holds the profile: it asks the kernel for what it draws
(custom messages answered by `ipu_nb._lod`, binary buffers for bulk data) and
writes its selections back through small synced traits, so every UI state is a
`Query` and a polars DataFrame in Python.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anywidget
import numpy as np
import polars as pl
import traitlets

from .._model.profile import Profile
from .._model.vocabulary import COLOR_BYS, GROUP_BYS, NO_KERNEL, widget_vocabulary
from .._query import Query, QueryError, filter_mask, index_of, make_query
from . import lod as _lod
from .filters import empty_filters, filters_query, normalise_filters
from .flame import flame_tree
from .messages import (
    MAX_SAFE_INTEGER,
    Groups,
    Hello,
    Hover,
    Limits,
    MessageError,
    Pick,
    Window,
    check_integer,
    check_range,
    parse_message,
    reply_address,
    view_limit,
)
from .protocol import (
    AtSummary,
    ErrorReply,
    FlameTree,
    GroupRow,
    GroupsReply,
    HoverReply,
    OverviewPush,
    PanelPush,
    ReplyAddress,
    SampleDetail,
    SampleInfo,
    ToFrontEnd,
    WindowReply,
)
from .side_views import RECOVERABLE, SideViews, in_kernel

if TYPE_CHECKING:
    from .._model.vocabulary import GroupBy

__all__ = ["ProfileWidget"]

_STATIC = Path(__file__).parent.parent / "static"
_BUNDLE = _STATIC / "widget.js"
_STYLE = _STATIC / "widget.css"
OVERVIEW_BINS = 1024
LABEL_LIMIT = 20_000
GROUP_ROWS = 12
TOP = 10
WINDOW_PIXELS = 8192
"""Widest window answered; wider requests are answered at this width (summaries use fewer bins still)."""


def _bundle_path(path: Path) -> Path | str:
    return path if path.exists() else ""


class _Integer(traitlets.Int):
    """`traitlets.Int` (which takes numpy integers and integral floats as int) refusing bools, which are not offsets."""

    info_text = "an int (not a bool)"

    def validate(self, obj: Any, value: Any) -> int:
        if isinstance(value, (bool, np.bool_)):
            self.error(obj, value)
        return super().validate(obj, value)


class _OptionalText(traitlets.Unicode):
    """A str-or-None trait whose None still meets the widget's ``@validate`` (traitlets skips it when allow_none)."""

    info_text = "a str or None"

    def validate(self, obj: Any, value: Any) -> str | None:
        return None if value is None else super().validate(obj, value)


class ProfileWidget(anywidget.AnyWidget):
    """Interactive timeline of one profile whose selections sync back to Python.

    Every trait is checked whether Python or the browser sets it: a bad value raises
    `traitlets.TraitError` naming the trait and what it must be, and the old value
    stays (a bad update from the browser gets an error reply and the browser is set
    back). Messages from the browser are checked the same way (`ipu_nb._widget_messages`).

    Parameters
    ----------
    profile : Profile
        The profile to show; it stays in the kernel (the browser only receives windows).
    **traits
        Initial values of the traits below.

    Examples
    --------
    >>> widget = ipu_nb.ProfileWidget(profile)  # doctest: +SKIP
    >>> widget.filters = {"kind": "compute", "metadata": [["layer", "3"]]}  # doctest: +SKIP
    >>> widget.filters = {"metadata": ["layer=3"]}  # the same, split at the first "="  # doctest: +SKIP
    >>> widget.at = 120_000  # doctest: +SKIP
    >>> widget.at_slice  # doctest: +SKIP
    >>> with widget.hold_trait_notifications():  # doctest: +SKIP
    ...     widget.group_by, widget.metadata_key = "metadata", "layer"
    """

    _esm = _bundle_path(_BUNDLE)
    _css = _bundle_path(_STYLE)

    filters = traitlets.Dict(default_value=empty_filters()).tag(sync=True)
    """dict: ``kind``, ``kernel``, ``operation_contains`` (str or None), ``tiles``, ``phases``
    (lists of int) and ``metadata``, all ANDed. ``metadata`` holds ``[name, value]`` pairs
    (value None: "has an entry named name"); ``"name"`` and ``"name=value"`` strings are
    accepted and split at the first ``=`` as the CLI does, so names containing ``=`` need
    a pair. Values are stored normalised (pairs, sorted tiles and phases)."""
    at = _Integer(None, allow_none=True).tag(sync=True)
    """int or None: the cursor, a per-tile offset in cycles, ``0 <= at <= 2**53 - 1`` (what the
    browser holds exactly; default None). An offset at or beyond the span is allowed and, as
    with ``--at``, nothing is active there: `at_slice` and the panel are empty."""
    view = traitlets.List(_Integer(), default_value=[0, 1], minlen=2, maxlen=2).tag(sync=True)
    """[start, end]: the visible range of offsets, ``0 <= start < end <= max(span, 8)``
    (default: the whole profile)."""
    selected = _Integer(None, allow_none=True).tag(sync=True)
    """int or None: id of the inspected sample, one of ``profile.samples["sample"]`` (default None)."""
    group_by = traitlets.Enum(GROUP_BYS, default_value="kernel").tag(sync=True)
    """str: grouping of `groups` (kind, kernel, operation, phase, tile or metadata); ``"metadata"``
    needs `metadata_key` set first, or both set inside ``widget.hold_trait_notifications()``."""
    metadata_key = _OptionalText(None).tag(sync=True)
    """str or None: the key for ``group_by="metadata"`` (not None while grouping by metadata)."""
    color_by = traitlets.Enum(COLOR_BYS, default_value="kind").tag(sync=True)
    """str: timeline colours, "kind" (default) or "kernel"."""
    info = traitlets.Dict(read_only=True).tag(sync=True)
    """dict: header facts the front end shows (tiles, samples, span, clock, rows, legends)."""

    def __init__(self, profile: Profile, **traits: Any) -> None:
        if not isinstance(profile, Profile):
            raise TypeError(f"ProfileWidget(profile): expected an ipu_nb.Profile, got {type(profile).__name__}")
        if not _BUNDLE.exists():
            raise FileNotFoundError(
                f"the widget's front end {_BUNDLE} is missing: run `npm ci && npm run build` in the ipu-nb checkout"
            )
        self._profile = profile
        self._index = _lod.build_index(profile.samples, profile.tiles)
        self._lookup = index_of(profile)  # sample id -> row, metadata of samples
        self._mask: np.ndarray | None = None
        self._sorted_mask: np.ndarray | None = None
        self._filters_query = Query()
        self._filtered: tuple[str, Query, np.ndarray | None] = ("", self._filters_query, None)
        # Side views that cost 50-200 ms on a full-size profile, kept per state (a few each).
        self._active_overview: np.ndarray | None = None
        self._flames: dict[str, FlameTree] = {}
        self._group_rows: dict[Query, tuple[str | None, list[GroupRow]]] = {}
        self._cache: dict[tuple, tuple[dict, list[bytes]]] = {}
        self._stale: set[str] = set()
        self._picking = False
        self._side = SideViews(self._send_error, threaded=in_kernel())
        span = max(self._index.span, 1)
        traits.setdefault("view", [0, span])
        traits["filters"] = self._normalised(traits.get("filters"))
        super().__init__(**traits)
        kernels = profile.samples.get_column("kernel").cast(pl.String).unique().sort().to_list()
        self.set_trait(
            "info",
            {
                "tiles": profile.tile_count,
                "samples": profile.sample_count,
                "span": self._index.span,
                "clock_hz": profile.clock_hz,
                "granularity": profile.granularity,
                "rows": self._index.row_tiles.tolist(),
                "legend": {"kind": self._index.legend("kind"), "kernel": self._index.legend("kernel")},
                "kernels": kernels[:500],
                "vocabulary": widget_vocabulary(),
            },
        )
        self._update_mask()
        self.on_msg(self._on_message)
        # What the front end asks for right after its first window (overview, flame graph,
        # group table: ~0.25 s on a full-size profile), computed now while nothing else
        # runs: done later on the worker thread, it would slow down the first zoom or click.
        self._overview_active()
        self._flame()
        self._groups(self.query)
        self._metadata_of(np.zeros(0, dtype=np.int64))
        self._stale.clear()  # the front end's hello asks for every view

    # ---- traits -----------------------------------------------------------------------------

    @staticmethod
    def _normalised(filters: Any) -> dict[str, Any]:
        try:
            return normalise_filters(filters)
        except QueryError as error:
            raise traitlets.TraitError(str(error)) from None

    @traitlets.validate("filters")
    def _valid_filters(self, proposal: Any) -> dict[str, Any]:
        return self._normalised(proposal["value"])

    @traitlets.validate("view")
    def _valid_view(self, proposal: Any) -> list[int]:
        limit = self._limits.end
        try:
            start, end = proposal["value"]
            return list(check_range(start, end, "view", limit))
        except MessageError as error:
            raise traitlets.TraitError(
                f"{error}; view must be [start, end] with integers 0 <= start < end <= {limit}"
                f" (the profile spans {self._index.span} cycles)"
            ) from None

    @traitlets.validate("at")
    def _valid_at(self, proposal: Any) -> int | None:
        at = proposal["value"]
        if at is not None and not 0 <= at <= MAX_SAFE_INTEGER:
            raise traitlets.TraitError(
                f"at must be None or an offset in cycles in 0..{MAX_SAFE_INTEGER} (the integers a browser holds"
                f" exactly; the profile spans {self._index.span} cycles and nothing is active beyond), got {at}"
            )
        return at

    @traitlets.validate("selected")
    def _valid_selected(self, proposal: Any) -> int | None:
        sid = proposal["value"]
        if sid is not None and not self._is_sample(sid):
            raise traitlets.TraitError(
                f"selected must be None or a sample id of this profile (a value of profile.samples['sample'],"
                f" 0..{self._profile.sample_count - 1} when the ids are contiguous), got {sid}"
            )
        return sid

    @traitlets.validate("group_by")
    def _valid_group_by(self, proposal: Any) -> str:
        if proposal["value"] == "metadata" and self.metadata_key is None:
            raise traitlets.TraitError(
                "group_by='metadata' needs a metadata_key: set widget.metadata_key = 'NAME' first, or both inside"
                " `with widget.hold_trait_notifications():`"
            )
        return proposal["value"]

    @traitlets.validate("metadata_key")
    def _valid_metadata_key(self, proposal: Any) -> str | None:
        if proposal["value"] is None and self.group_by == "metadata":
            raise traitlets.TraitError(
                "metadata_key cannot be None while group_by='metadata': choose another group_by first"
            )
        return proposal["value"]

    def set_state(self, sync_data: Any) -> None:
        """Apply trait updates from the browser, which are untrusted like its messages.

        A refused update (a bad value, a read-only trait) changes nothing: the browser gets
        an error reply and Python's values back, and no exception reaches the kernel.
        """
        keys: list[str] = []
        try:
            if not isinstance(sync_data, dict):
                raise MessageError(f"a trait update must be a JSON object, got {type(sync_data).__name__}")
            keys = [k for k in sync_data if k in self.keys]
            read_only = sorted(k for k in keys if self.traits()[k].read_only)
            if read_only:
                raise traitlets.TraitError(f"the browser cannot set read-only trait(s) {', '.join(read_only)}")
            super().set_state(sync_data)
        except RECOVERABLE as error:  # answered, never raised into the kernel
            self._send_error(error, {"request": "update"})
            self._resync(keys)

    def _resync(self, keys: list[str]) -> None:
        """Send Python's values of `keys` to the browser (after refusing its change to them)."""
        try:
            self.send_state(keys)
        except RECOVERABLE as error:  # a closed comm: nothing to set back
            self.log.warning("ipu-nb widget: could not resend %s: %r", keys, error)

    @property
    def _limits(self) -> Limits:
        return Limits(end=view_limit(self._index.span), rows=self._index.rows)

    def _is_sample(self, sid: int) -> bool:
        return self._lookup.is_sample(sid)

    @traitlets.observe("filters")
    def _filters_changed(self, change: Any) -> None:
        # The flame graph, overview and panel follow the next timeline window, so the
        # greyed timeline (the view's reaction to a filter change) is drawn first.
        self._update_mask()
        self._stale.update(("flame", "overview", "panel"))

    @traitlets.observe("at", "selected")
    def _cursor_changed(self, change: Any) -> None:
        if not self._picking:
            self._side.submit("panel", self._send_panel)

    def _update_mask(self) -> None:
        filters = self.filters
        self._filters_query = filters_query(filters)  # the one Query every view selects with
        mask = self._lookup.by_id(filter_mask(self._profile, self._filters_query))
        self._mask = None if mask.all() else mask
        self._sorted_mask = None if self._mask is None else self._mask[self._index.sample]
        # One object the worker thread reads at once: the Query and its mask always agree.
        self._filtered = (json.dumps(filters, sort_keys=True), self._filters_query, self._mask)
        self._cache.clear()

    # ---- Python-side views --------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        """The profile shown."""
        return self._profile

    @property
    def query(self) -> Query:
        """The `Query` equivalent to the current filters and grouping (``at`` not included).

        Its ``metadata_key`` is the trait's while grouping by metadata and None otherwise,
        where it would have no effect (`query` warns about such a key).
        """
        key = self.metadata_key if self.group_by == "metadata" else None
        return make_query(self._filters_query, group_by=cast("GroupBy", self.group_by), metadata_key=key)

    @property
    def filtered(self) -> pl.DataFrame:
        """Samples matching the filters: ``profile.filter(widget.query)``."""
        return self._profile.filter(self.query)

    @property
    def at_slice(self) -> pl.DataFrame:
        """Samples matching the filters and active at `at` (empty when `at` is None)."""
        if self.at is None:
            return self._profile.filter(dataclasses.replace(self.query, at=0)).clear()
        return self._profile.filter(dataclasses.replace(self.query, at=self.at))

    @property
    def selected_sample(self) -> pl.DataFrame:
        """The selected sample as one row of `Profile.filter`'s frame (no rows when none)."""
        q = Query()
        if self.selected is None:
            return self._profile.filter(dataclasses.replace(q, tiles=(0,), phases=(0,), kind="idle")).clear()
        row = self._profile.samples.row(self._row_of(self.selected), named=True)
        found = self._profile.filter(dataclasses.replace(q, tiles=(row["tile"],), phases=(row["phase"],)))
        return found.filter(pl.col("sample") == self.selected)

    @property
    def groups(self) -> pl.DataFrame:
        """``ipu_nb.query(profile, widget.query).groups``: the aggregation for the current state."""
        from .._query import query

        return query(self._profile, self.query).groups

    # ---- messages -----------------------------------------------------------------------------

    def _row_of(self, sid: int) -> int:
        return self._lookup.row_of(sid)

    def _on_message(self, _widget: Any, content: Any, buffers: Any) -> None:
        """Answer one message from the browser: checked first, and whatever fails becomes an error reply.

        A refused message changes no state. The catch is the last resort for the kernel:
        nothing the browser sends raises out of here (the kernel would only log it, and
        the browser would wait for a reply that never comes).
        """
        try:
            message = parse_message(content, self._limits)
            if isinstance(message, Window):
                self._answer_window(message)
            elif isinstance(message, Hover):
                sid = self._index.sample_at(message.row, message.x)
                sample = None if sid is None else self._describe(sid)
                hover: HoverReply = {"type": "hover", "view": message.view, "id": message.id, "sample": sample}
                self._push(hover)
            elif isinstance(message, Pick):
                self._pick(message)
            elif isinstance(message, Groups):
                self._side.submit("groups", lambda: self._send_groups(message.id))
            elif isinstance(message, Hello):
                self._stale.clear()
                self._side.submit("overview", self._send_overview)
                self._side.submit("flame", self._send_flame)
                self._side.submit("panel", self._send_panel)
        except RECOVERABLE as error:  # answered, never raised into the kernel
            address = reply_address(content)
            self._send_error(error, address)
            if address.get("request") == "pick":  # the browser drew its cursor already: set it back
                self._resync(["at", "selected"])

    def _send_error(self, error: BaseException, address: ReplyAddress | None = None) -> None:
        """Tell the browser a request failed (``request``, ``id`` and ``view`` say which, where known)."""
        try:
            reply: ErrorReply = {"type": "error", **(address or {}), "message": f"{type(error).__name__}: {error}"}
            self._push(reply)
        except RECOVERABLE as failure:  # a closed comm: log, never raise
            self.log.warning("ipu-nb widget: could not send the error %r: %r", error, failure)

    def _push(self, message: ToFrontEnd, buffers: list[bytes] | None = None) -> None:
        """Send one message of the protocol (`ipu_nb._widget.protocol`) to the front end."""
        self.send(message, buffers)

    def close(self) -> None:
        side = getattr(self, "_side", None)  # None when __init__ failed early
        if side is not None:
            side.close()
        super().close()

    def window_answer(self, start: int, end: int, pixels: int) -> tuple[dict[str, Any], list[bytes]]:
        """The reply to a window request: JSON header and binary buffers (cached per state).

        ``0 <= start < end <= max(span, 8)`` and ``pixels >= 1`` (wider than `WINDOW_PIXELS`
        is answered at that width); a `MessageError` says what is out of range.
        """
        start, end = check_range(start, end, "window", self._limits.end)
        pixels = min(check_integer(pixels, "window pixels", 1, MAX_SAFE_INTEGER), WINDOW_PIXELS)
        key = (start, end, pixels, self.color_by)
        hit = self._cache.get(key)
        if hit is None:
            answer = _lod.window(self._index, key[0], key[1], key[2], self._sorted_mask, self.color_by)
            hit = _lod.encode_window(answer)
            if len(self._cache) > 16:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = hit
        return hit

    def _answer_window(self, message: Window) -> None:
        header, buffers = self.window_answer(message.start, message.end, message.pixels)
        # A RawHeader or a LodHeader after the request's address: WindowReply by construction.
        reply = cast(
            WindowReply,
            {
                "type": "window",
                "view": message.view,
                "id": message.id,
                "color_by": self.color_by,
                "filtered": self._mask is not None,
                **header,
            },
        )
        if message.labels and header["mode"] == "raw" and header["count"] <= LABEL_LIMIT:
            names, codes = self._labels(np.frombuffer(buffers[4], "<u4"))
            reply["labels"] = names
            buffers = [*buffers, codes.astype("<u4").tobytes()]
        self._push(reply, buffers)
        self._send_stale()

    def _send_stale(self) -> None:
        """Send the views a filter change left out of date."""
        stale, self._stale = self._stale, set()
        for name in ("overview", "panel", "flame"):
            if name in stale:
                self._side.submit(name, getattr(self, f"_send_{name}"))

    def _labels(self, ids: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Operation names of the given samples: a table of distinct names and an index per sample."""
        ops = self._profile.samples.get_column("operation").gather(self._lookup.rows_of(ids))
        _, first, inverse = np.unique(ops.to_physical().to_numpy(), return_index=True, return_inverse=True)
        return ops.gather(first).cast(pl.String).to_list(), inverse

    def _pick(self, message: Pick) -> None:
        sid = self._index.sample_at(message.row, message.x)
        self._picking = True  # one inspector panel for both traits, not one per trait
        try:
            with self.hold_trait_notifications():
                self.at = message.x
                self.selected = sid
        finally:
            self._picking = False
        self._side.submit("panel", self._send_panel)

    def _describe(self, sid: int) -> SampleInfo:
        row = self._profile.samples.row(self._row_of(sid), named=True)
        return {
            "sample": sid,
            "tile": row["tile"],
            "kind": row["kind"],
            "inactive": row["inactive"],
            "operation": row["operation"],
            "kernel": row["kernel"],
            "phase": row["phase"],
            "epoch": row["epoch"],
            "offset": row["offset"],
            "duration": row["duration"],
            "local_index": row["local_index"],
            "start": row["start"],
            "end": row["end"],
            "matched": bool(self._mask is None or self._mask[sid]),
        }

    def _detail(self, sid: int) -> SampleDetail:
        entries = self._metadata_of(np.array([sid])).sort("position")
        return {**self._describe(sid), "metadata": [[n, v] for n, v in entries.select("name", "value").iter_rows()]}

    # ---- pushes to the front end ---------------------------------------------------------------

    def _overview_active(self) -> np.ndarray:
        """Tile occupancy by compute over the whole profile (filter-independent, computed once)."""
        if self._active_overview is None:
            idx = self._index
            self._active_overview = _lod.overview(idx, self._compute_positions(), OVERVIEW_BINS)
        return self._active_overview

    def _compute_positions(self) -> np.ndarray:
        idx = self._index
        return (idx.kind_class == _lod.KIND_CLASSES.index("compute") + 1) & (idx.end > idx.start)

    def _send_overview(self) -> None:
        idx = self._index
        active = self._overview_active()
        sorted_mask = self._sorted_mask
        matched = (
            active
            if sorted_mask is None
            else _lod.overview(idx, self._compute_positions() & sorted_mask, OVERVIEW_BINS)
        )
        push: OverviewPush = {
            "type": "overview",
            "bins": OVERVIEW_BINS,
            "span": idx.span,
            "filtered": sorted_mask is not None,
        }
        self._push(push, [active.astype("<f4").tobytes(), matched.astype("<f4").tobytes()])

    def _send_panel(self) -> None:
        push: PanelPush = {"type": "panel", "at": self._at_summary(), "selected": self._selected_detail()}
        self._push(push)

    def _selected_detail(self) -> SampleDetail | None:
        return None if self.selected is None else self._detail(self.selected)

    def _at_summary(self) -> AtSummary | None:
        if self.at is None:
            return None
        # Samples with offset <= at < offset + duration, from the timeline index (no scan).
        ids = np.sort(self._index.sample[_lod.samples_at(self._index, self.at)]).astype(np.int64)
        if self._mask is not None:
            ids = ids[self._mask[ids]]
        frame = self._profile.samples[pl.Series(self._lookup.rows_of(ids), dtype=pl.Int64)]

        def top(column: str, empty: str = "(empty)") -> list[list[Any]]:
            counts = frame.group_by(column).len().sort(["len", column], descending=[True, False]).head(TOP)
            return [[str(k) if k else empty, n] for k, n in counts.iter_rows()]

        entries = self._metadata_of(ids)
        meta = (
            entries.group_by("name", "value")
            .len()
            .sort(["len", "name", "value"], descending=[True, False, False])
            .head(TOP)
        )
        return {
            "at": self.at,
            "count": frame.height,
            "tiles": frame.get_column("tile").n_unique(),
            "kinds": top("kind"),
            "operations": top("operation"),
            "kernels": top("kernel", NO_KERNEL),
            "metadata": [[n, v, c] for n, v, c in meta.iter_rows()],
        }

    def _metadata_of(self, ids: np.ndarray) -> pl.DataFrame:
        """The metadata entries of the given sample ids."""
        return self._lookup.metadata_of(ids)

    def _groups(self, q: Query) -> tuple[str | None, list[GroupRow]]:
        """Error (or None) and the top rows of ``query(profile, q).groups``, kept per query."""
        from .._query import query

        key = dataclasses.replace(q, limit=GROUP_ROWS)
        hit = self._group_rows.get(key)
        if hit is None:
            try:
                result = query(self._profile, key)
            except QueryError as error:
                hit = (str(error), [])
            else:
                columns = ["name", "dimensions", "sample_count", "phase_cycles", "work_cycles", "average_active_tiles"]
                rows: list[GroupRow] = [
                    {**row, "dimensions": {d["name"]: d["value"] for d in row["dimensions"]}}  # type: ignore[typeddict-item]
                    for row in result.groups.select(columns).iter_rows(named=True)
                ]
                hit = (None, rows)
            _remember(self._group_rows, key, hit)
        return hit

    def _send_groups(self, request_id: Any = None) -> None:
        """The top groups of `groups` for the side panel (asked for after the timeline is drawn)."""
        q = self.query
        error, rows = self._groups(q)
        reply: GroupsReply = {"type": "groups", "id": request_id, "group_by": q.group_by, "error": error, "rows": rows}
        self._push(reply)

    def _flame(self) -> FlameTree:
        key, q, mask = self._filtered
        tree = self._flames.get(key)
        if tree is None:
            tree = flame_tree(self._profile, mask, q)
            _remember(self._flames, key, tree)
        return tree

    def _send_flame(self) -> None:
        self._push({"type": "flame", **self._flame()})


def _remember(cache: dict, key: Any, value: Any, size: int = 8) -> None:
    """``cache[key] = value``, dropping the oldest entries beyond ``size``."""
    cache[key] = value
    while len(cache) > size:
        cache.pop(next(iter(cache)))
