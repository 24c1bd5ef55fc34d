"""`ProfileWidget`: the timeline, overview, flame graph and inspector in a notebook.

The front end never holds the profile: it asks the kernel for what it draws
(custom messages answered by `ipu_nb._widget.lod`, binary buffers for bulk data) and
writes its selections back through small synced traits, so every UI state is a
`Query` and a polars DataFrame in Python.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anywidget
import numpy as np
import polars as pl
import traitlets

from .._compare import Comparison
from .._model.profile import Profile
from .._model.vocabulary import COLOR_BYS, GROUP_BYS, NO_KERNEL, widget_vocabulary
from .._query import Query, QueryError, filter_mask, index_of, make_query
from .._query.index import ProfileIndex
from .._supersteps import Findings
from . import lod as _lod
from . import quiet_status
from .background import Background
from .baseline import SHOWING, baseline_profile, comparison_of, flame_deltas, group_deltas
from .code import Baseline, view_code
from .filters import empty_filters, filters_query, normalise_filters
from .findings_panel import finding_rows
from .flame import flame_tree
from .highlight import highlight_ids
from .messages import (
    MAX_SAFE_INTEGER,
    Blocks,
    Code,
    Fit,
    Groups,
    Hello,
    Hover,
    Limits,
    MessageError,
    Pick,
    Search,
    Window,
    check_integer,
    check_range,
    parse_message,
    reply_address,
    view_limit,
)
from .protocol import (
    AreaPush,
    AtSummary,
    BlocksReply,
    CodeReply,
    ErrorReply,
    FitReply,
    FlamePush,
    FlameTree,
    GroupRow,
    GroupsReply,
    HighlightPush,
    HoverReply,
    OverviewPush,
    PanelPush,
    ReplyAddress,
    SampleDetail,
    SampleInfo,
    SearchReply,
    ToFrontEnd,
    WindowReply,
)
from .selection import (
    SelectionError,
    area_groups,
    area_longest,
    area_query,
    normalise_selection,
    selection_groups,
    selection_samples,
)
from .side_views import RECOVERABLE, SideViews, in_kernel, on_main_thread
from .state import STATE_KEYS, STATE_VERSION, StateError, check_depth, default_tracks, normalise_tracks, parse_state
from .timeline import extent, fit, row_positions, search_rows, timeline_matches

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
SEARCH_LIMIT = 100_000
"""Most search matches sent (the first by offset; the reply counts them all)."""
ANSWERS_KEPT = 48
"""Encoded window and block answers kept for the current filters (each well under 2 MB)."""
FIT_MARGIN = 0.05
"""Room left on each side of what `ProfileWidget.zoom_to` fits, as a fraction of its width."""
AREA_LONGEST = 10
"""Longest samples of a selected area the side panel lists."""
HIGHLIGHT_SENT = 200_000
"""Most highlighted samples whose places are sent (the first by offset; the push counts them all)."""
FRONT_END_WRITES = frozenset(STATE_KEYS)
"""The traits the browser may set: those of a view (`STATE_KEYS`). Every other synced trait (``info``,
``finding_rows``, the front end's own code ``_esm`` and ``_css``, ``layout``…) is read-only to it."""


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
    back). Messages from the browser are checked the same way (`ipu_nb._widget.messages`).

    Parameters
    ----------
    profile : Profile
        The profile to show; it stays in the kernel (the browser only receives windows).
    **traits
        Initial values of the traits below.

    Examples
    --------
    >>> widget = ipu_nb.ProfileWidget(profile)
    >>> widget.filters = {"kind": "compute", "metadata": [["layer", "0"]]}
    >>> widget.filters["metadata"]
    [['layer', '0']]
    >>> widget.filters = {"metadata": ["layer=0"]}  # the same metadata filter, split at the first "="
    >>> widget.filters["metadata"]
    [['layer', '0']]
    >>> widget.at = 150_000
    >>> widget.at_slice.height  # layer-0 samples running at cycle 150,000: one compute sample per busy tile
    14
    >>> with widget.hold_trait_notifications():
    ...     widget.group_by, widget.metadata_key = "metadata", "layer"
    >>> widget.groups.select("name", "sample_count").rows()
    [('0', 128)]
    """

    _esm = _bundle_path(_BUNDLE)
    _css = _bundle_path(_STYLE)

    filters = traitlets.Dict(default_value=empty_filters()).tag(sync=True)
    """dict: ``kind``, ``kernel``, ``operation_contains`` (str or None), ``tiles``, ``phases``
    (lists of int), ``metadata``, ``operation`` (exact operation names, any of them: what a
    flame-graph focus sets) and ``window`` (``[start, end]`` or None), all ANDed. ``metadata``
    holds ``[name, value]`` pairs (value None: "has an entry named name"); ``"name"`` and
    ``"name=value"`` strings are accepted and split at the first ``=`` as the CLI does, so
    names containing ``=`` need a pair. Values are stored normalised (pairs, sorted lists)."""
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
    selection = traitlets.Dict(default_value=None, allow_none=True).tag(sync=True)
    """dict or None: the selected area, ``{"start": int, "end": int, "tiles": list[int] | None}``:
    offsets ``[start, end)`` on those physical tiles (None: every tile). Alt+drag on the
    timeline (or drag with the area tool) selects one; setting it here draws it. Read what it
    holds with `selection_samples` and `selection_groups`."""
    tracks = traitlets.Dict(default_value=default_tracks()).tag(sync=True)
    """dict: the timeline's row layout, ``order`` ("physical", "logical" or "grid"), ``pinned``
    (physical tile ids shown first), ``rows`` (tiles in view, 0: all) and ``scroll`` (first
    unpinned tile position on screen); the front end keeps it up to date."""
    showing = traitlets.Enum(SHOWING, default_value="after").tag(sync=True)
    """str: which profile the timeline and side views show, ``"after"`` (the one given first) or
    ``"baseline"`` (needs ``baseline=``); flipping keeps the view, rows and filters (key ``B``)."""
    finding_rows = traitlets.List(traitlets.Dict(), read_only=True).tag(sync=True)
    """list: the findings panel's entries, ``ipu_nb.findings`` of the shown profile, best first
    (each with the ``filters`` and ``view`` that show it; `show_finding` applies one)."""

    def __init__(
        self,
        profile: Profile,
        *,
        baseline: Profile | str | Path | None = None,
        allow_clock_mismatch: bool = False,
        state: dict[str, Any] | None = None,
        **traits: Any,
    ) -> None:
        if not isinstance(profile, Profile):
            raise TypeError(f"ProfileWidget(profile): expected an ipu_nb.Profile, got {type(profile).__name__}")
        if not _BUNDLE.exists():
            raise FileNotFoundError(
                f"the widget's front end {_BUNDLE} is missing: run `npm ci && npm run build` in the ipu-nb checkout"
            )
        self._allow_clock_mismatch = bool(allow_clock_mismatch)
        self._after = profile
        self._baseline = (
            None
            if baseline is None
            else baseline_profile(baseline, profile, allow_clock_mismatch=self._allow_clock_mismatch)
        )
        self._sides: dict[str, tuple[Profile, _lod.IndexBuild, ProfileIndex]] = {}
        self._findings: dict[str, Findings] = {}
        self._finding_steps: dict[str, Generator[None, None, Findings]] = {}  # findings under way, per profile
        self._findings_lock = threading.Lock()  # one thread at a time advances them
        self._comparisons: dict[Query, Comparison] = {}
        self._bind("after")
        self._mask: np.ndarray | None = None
        self._row_mask: np.ndarray | None = None
        self._prepared: tuple[Profile, str, Query, np.ndarray] | None = None  # see `_prepare_mask`
        self._sorted_held: tuple[np.ndarray, _lod.IndexBuild, np.ndarray] | None = None
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
        self._background = Background(self._send_error, threaded=self._side.threaded)
        self._areas: dict[str, pl.DataFrame] = {}
        self._highlighted: np.ndarray | None = None  # positions in the timeline index
        span = max(self._facts.span, 1)
        if state is not None:
            traits = self._merged_state(state, traits)
        for name, value in traits.items():
            _check_depth(name, value)
        traits.setdefault("view", [0, span])
        traits["filters"] = self._normalised(traits.get("filters"))
        if traits.get("showing") == "baseline" and self._baseline is None:
            raise traitlets.TraitError("showing='baseline' needs a baseline: ProfileWidget(profile, baseline=...)")
        super().__init__(**traits)
        self.set_trait("info", self._info())
        self._update_mask()
        self.on_msg(self._on_message)
        if self.comm is not None:
            quiet_status.quiet(self.comm.comm_id)
        # What the front end asks for right after its first picture (overview, flame graph,
        # group table, metadata order: about a second on a full-size profile, a minute at
        # ten million samples) is prepared on the worker thread, so the timeline is drawn
        # first; the views it is asked for later find it done (inline outside a kernel).
        self._side.submit("warm-up", self._warm_up)
        self._stale.clear()  # the front end's hello asks for every view

    def _warm_up(self) -> None:
        """Compute the side views of the initial state once, ahead of the front end asking (after the first picture)."""
        self._build.index(hurry=not self._side.threaded)  # inline (outside a kernel) nothing comes first
        self._overview_active()
        self._flame()
        self._groups(self.query)
        self._metadata_of(np.zeros(0, dtype=np.int64))

    def _info(self) -> dict[str, Any]:
        """The header facts of the shown profile (the `info` trait)."""
        profile = self._profile
        kernels = (
            profile.samples.get_column("kernel").unique().cast(pl.String).sort().to_list()
        )  # distinct first: cheap
        return {
            "tiles": profile.tile_count,
            "samples": profile.sample_count,
            "span": self._facts.span,
            "clock_hz": profile.clock_hz,
            "granularity": profile.granularity,
            "rows": self._facts.row_tiles.tolist(),
            **row_positions(profile, self._facts),
            "legend": {"kind": self._facts.legend("kind"), "kernel": self._facts.legend("kernel")},
            "kernels": kernels[:500],
            "vocabulary": widget_vocabulary(),
            "baseline": self._baseline is not None,
        }

    # ---- the baseline (issue 13) and the findings (issue 14) -------------------------------------

    def _bind(self, which: str) -> None:
        """Make `which` ("after" or "baseline") the profile every view reads (its index built once, on a thread)."""
        side = self._sides.get(which)
        if side is None:
            profile = self._after if which == "after" else self._baseline
            assert profile is not None
            side = (profile, _lod.IndexBuild(profile.samples, profile.tiles), index_of(profile))
            self._sides[which] = side
        self._profile, self._build, self._lookup = side  # _lookup: sample id -> row, metadata of samples
        self._tile_ids = frozenset(self._facts.row_tiles.tolist())

    @property
    def _facts(self) -> _lod.TimelineFacts:
        """Rows, span and legends of the shown profile (there from construction on)."""
        return self._build.facts

    @property
    def _index(self) -> _lod.TimelineIndex:
        """The shown profile's timeline index: waits for its build (`TimelineIndexError` if that failed)."""
        return self._build.index()

    def _windowed(self) -> tuple[_lod.Windowed, np.ndarray | None]:
        """What answers windows now, and the filters' mask for it: the index once sorted, before
        that the file-order samples (`lod.FileRuns` or `lod.UnsortedSamples`: the same answers, so
        the first picture does not wait for the sort)."""
        early = self._build.early()
        return (self._index, self._sorted_mask) if early is None else (early, self._row_mask)

    @traitlets.validate("showing")
    def _valid_showing(self, proposal: Any) -> str:
        if proposal["value"] == "baseline" and self._baseline is None:
            raise traitlets.TraitError("showing='baseline' needs a baseline: ProfileWidget(profile, baseline=...)")
        return proposal["value"]

    @traitlets.observe("showing")
    def _showing_changed(self, change: Any) -> None:
        """Show the other profile at the same view, rows and filters (what no longer fits is dropped)."""
        self._side.wait()  # no side view of the old profile in flight
        self._bind(change["new"])
        self._flames.clear()
        self._group_rows.clear()
        self._areas.clear()
        self._active_overview = None
        self.set_trait("info", self._info())
        limit = self._limits.end
        start, end = self.view
        if end > limit:
            self.view = [max(0, min(start, limit - 8)), limit]
        if self.selected is not None and not self._is_sample(self.selected):
            self.selected = None
        if self.selection is not None:
            try:
                normalise_selection(self.selection, self._tile_ids, limit)
            except SelectionError:  # the area lies beyond this profile's span or tiles
                self.set_trait("selection", None)
        self._update_mask()
        for name in ("overview", "flame", "panel"):
            self._side.submit(name, getattr(self, f"_send_{name}"))
        self._background.submit("findings", self._send_findings)
        if self.selection is not None:
            self._side.submit("area", self._send_area)

    @property
    def baseline(self) -> Profile | None:
        """The profile compared with (``baseline=``), or None."""
        return self._baseline

    @property
    def comparison(self) -> Comparison:
        """``ipu_nb.compare(baseline, profile, by=group_by, <the filters>)``: what the Δ columns show.

        Raises
        ------
        ValueError
            The widget has no baseline.
        """
        if self._baseline is None:
            raise ValueError("this widget has no baseline: ProfileWidget(profile, baseline=before)")
        q = self.query
        found = self._comparisons.get(q)
        if found is None:
            found = comparison_of(self._baseline, self._after, q, allow_clock_mismatch=self._allow_clock_mismatch)
            _remember(self._comparisons, q, found, size=4)
        return found

    @property
    def findings(self) -> Findings:
        """``ipu_nb.findings(profile)`` of the shown profile (computed once per profile)."""
        from .._supersteps.detectors import drained

        return drained(self._findings_of(self.showing))

    def _findings_of(self, which: str) -> Generator[None, None, Findings]:
        """The findings of profile `which` ("after" or "baseline"), yielding between their steps."""
        while (found := self._findings_step(which)) is None:
            yield
        return found

    def _findings_step(self, which: str) -> Findings | None:
        """Advance the findings of profile `which` ("after" or "baseline") by one step: the
        findings once done, else None. The background job and `findings` share the steps."""
        from .._supersteps.detectors import finding_steps

        with self._findings_lock:
            found = self._findings.get(which)
            if found is not None:
                return found
            steps = self._finding_steps.get(which)
            if steps is None:
                steps = self._finding_steps[which] = finding_steps(self._sides[which][0])
            try:
                next(steps)
            except StopIteration as done:
                del self._finding_steps[which]
                found = self._findings[which] = done.value
                return found
            except BaseException:
                del self._finding_steps[which]  # a failed one starts afresh on the next call
                raise
            return None

    def _send_findings(self) -> Generator[None, None, None]:
        """The findings panel's rows, a `Background` job: the findings in steps, then the trait on the main thread."""
        which = self.showing
        rows = finding_rows((yield from self._findings_of(which)))

        def send() -> None:
            if which == self.showing:
                self.set_trait("finding_rows", rows)

        on_main_thread(send)

    def show_finding(self, rank: int) -> list[int]:
        """Apply finding `rank` (1 = best) of `finding_rows`: its filters, then zoom to its supersteps.

        Returns the new `view`. Raises `ValueError` for a rank with no finding.
        """
        found = self.findings
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= len(found):
            raise ValueError(f"show_finding(rank): a rank in 1..{len(found)}, got {rank!r}")
        state = found[rank - 1].state
        start, end = state["view"]
        limit = self._limits.end
        self.filters = state["filters"]
        return self.zoom_to(range=(min(start, limit - 1), min(max(end, start + 1), limit)))

    # ---- traits -----------------------------------------------------------------------------

    @staticmethod
    def _normalised(filters: Any) -> dict[str, Any]:
        try:
            return normalise_filters(filters)
        except QueryError as error:
            raise traitlets.TraitError(str(error)) from None

    @traitlets.validate("filters")
    def _valid_filters(self, proposal: Any) -> dict[str, Any]:
        filters = self._normalised(proposal["value"])
        self._prepare_mask(filters)  # here, so that filters whose selection fails are never set
        return filters

    @traitlets.validate("view")
    def _valid_view(self, proposal: Any) -> list[int]:
        limit = self._limits.end
        try:
            start, end = proposal["value"]
            return list(check_range(start, end, "view", limit))
        except MessageError as error:
            raise traitlets.TraitError(
                f"{error}; view must be [start, end] with integers 0 <= start < end <= {limit}"
                f" (the profile spans {self._facts.span} cycles)"
            ) from None

    @traitlets.validate("at")
    def _valid_at(self, proposal: Any) -> int | None:
        at = proposal["value"]
        if at is not None and not 0 <= at <= MAX_SAFE_INTEGER:
            raise traitlets.TraitError(
                f"at must be None or an offset in cycles in 0..{MAX_SAFE_INTEGER} (the integers a browser holds"
                f" exactly; the profile spans {self._facts.span} cycles and nothing is active beyond), got {at}"
            )
        return at

    @traitlets.validate("selected")
    def _valid_selected(self, proposal: Any) -> int | None:
        sid = proposal["value"]
        # The range first: an id beyond int64 cannot be looked up (numpy would overflow).
        if sid is not None and not (0 <= sid <= MAX_SAFE_INTEGER and self._is_sample(sid)):
            raise traitlets.TraitError(
                f"selected must be None or a sample id of this profile (a value of profile.samples['sample'],"
                f" 0..{self._profile.sample_count - 1} when the ids are contiguous), got {sid}"
            )
        return sid

    @traitlets.validate("selection")
    def _valid_selection(self, proposal: Any) -> dict[str, Any] | None:
        try:
            return normalise_selection(proposal["value"], self._tile_ids, self._limits.end)
        except SelectionError as error:
            raise traitlets.TraitError(str(error)) from None

    @traitlets.validate("tracks")
    def _valid_tracks(self, proposal: Any) -> dict[str, Any]:
        try:
            return normalise_tracks(proposal["value"], self._tile_ids)
        except StateError as error:
            raise traitlets.TraitError(str(error)) from None

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
        try:
            return make_query(metadata_key=proposal["value"]).metadata_key
        except QueryError as error:
            raise traitlets.TraitError(str(error)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name in FRONT_END_WRITES:
            _check_depth(name, value)  # before traitlets, whose error messages repr the value recursively
        super().__setattr__(name, value)

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
            refused = [k for k in sync_data if k not in FRONT_END_WRITES]
            if refused:
                named = ", ".join(repr(k)[:40] for k in refused[:5]) + (", …" if len(refused) > 5 else "")
                raise traitlets.TraitError(
                    f"the browser cannot set {named}: it may set only {', '.join(sorted(FRONT_END_WRITES))}"
                )
            for name, value in sync_data.items():
                _check_depth(name, value)
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
        return Limits(end=view_limit(self._facts.span), rows=self._facts.rows)

    def _is_sample(self, sid: int) -> bool:
        return self._lookup.is_sample(sid)

    @traitlets.observe("filters")
    def _filters_changed(self, change: Any) -> None:
        # The flame graph, overview and panel follow the next timeline window, so the
        # greyed timeline (the view's reaction to a filter change) is drawn first.
        self._update_mask()
        self._stale.update(("flame", "overview", "panel"))
        if self.selection is not None:
            self._stale.add("area")  # groups follow too: the front end asks for them

    @traitlets.observe("selection")
    def _selection_changed(self, change: Any) -> None:
        # Each goes out as soon as it is ready, the cheapest first; the flame graph before the
        # groups, so the browser draws it (the costliest part to show) while the groups compute.
        for name in ("area", "flame", "groups"):
            self._side.submit(name, getattr(self, f"_send_{name}"))

    @traitlets.observe("at", "selected")
    def _cursor_changed(self, change: Any) -> None:
        if not self._picking:
            self._side.submit("panel", self._send_panel)

    def _prepare_mask(self, filters: dict[str, Any]) -> tuple[str, Query, np.ndarray]:
        """What normalised `filters` select in the shown profile: their key, `Query` and per-row mask.

        Made while the filters are validated (and kept for `_update_mask`, which applies them
        once set), so that filters whose selection cannot be made are refused with a
        `traitlets.TraitError` and leave every trait and mask as they were.
        """
        key = json.dumps(filters, sort_keys=True)
        held = self._prepared
        if held is not None and held[0] is self._profile and held[1] == key:
            return held[1], held[2], held[3]
        try:
            q = filters_query(filters)
            row_mask = filter_mask(self._profile, q)
        except (QueryError, pl.exceptions.PolarsError) as error:
            raise traitlets.TraitError(f"filters: {error}") from None
        self._prepared = (self._profile, key, q, row_mask)
        return key, q, row_mask

    def _update_mask(self) -> None:
        key, self._filters_query, row_mask = self._prepare_mask(self.filters)  # the one Query every view uses
        mask = self._lookup.by_id(row_mask)
        self._mask = None if mask.all() else mask
        self._row_mask = None if self._mask is None else row_mask
        # One object the worker thread reads at once: the Query and its mask always agree.
        self._filtered = (key, self._filters_query, self._mask)
        self._cache.clear()

    @property
    def _sorted_mask(self) -> np.ndarray | None:
        """`_mask` per position of the timeline index (made once per mask and profile; waits for the index)."""
        mask, build = self._mask, self._build
        if mask is None:
            return None
        held = self._sorted_held  # one tuple, read and written whole: the worker thread reads it too
        if held is None or held[0] is not mask or held[1] is not build:
            held = (mask, build, mask[self._index.sample])
            self._sorted_held = held
        return held[2]

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

    # ---- the selected area, highlights, the view as code and as state --------------------------

    @property
    def selection_samples(self) -> pl.DataFrame:
        """Samples matching the filters that overlap the selected area on its tiles (no rows without one).

        The columns of ``profile.samples`` (file order) plus ``clipped_cycles``, each
        sample's cycles inside the area's window. The area narrows the filters: a
        ``window`` or ``tiles`` filter holds as well (`ipu_nb._widget.selection`).
        """
        return self._area_samples(self.selection).clone()

    @property
    def selection_groups(self) -> pl.DataFrame:
        """The area's aggregate by `group_by`, clipped: ``ipu_nb.query(profile, window=(start, end),
        clip=True, tiles=..., <the filters>, group_by=...).groups`` (no rows without a selection)."""
        selection = self.selection
        return selection_groups(self._profile, self.query, selection, self._area_samples(selection))

    def highlight(self, frame: Any) -> int:
        """Mark the samples of `frame` (any DataFrame with a ``sample`` column) on the timeline.

        ``highlight(None)`` clears the marks. Returns how many samples are marked. Every
        id must be a sample of this profile; a view opened later shows the marks too.

        Raises
        ------
        TypeError, ValueError
            Not a DataFrame, no ``sample`` column, or ids that are no sample (named).

        >>> widget.highlight(widget.selection_samples.filter(pl.col("kind") == "exchange"))  # doctest: +SKIP
        """
        if frame is None:
            self._highlighted = None
        else:
            self._highlighted = np.flatnonzero(np.isin(self._index.sample, highlight_ids(frame, self._lookup)))
        self._send_highlight()
        return 0 if self._highlighted is None else len(self._highlighted)

    def to_code(self) -> str:
        """The Python that reproduces this view's data with the public API.

        It opens the profile and builds `groups`, `filtered` (``samples``), `at_slice`,
        `selection_groups` and `selection_samples` from every active filter, the area and the
        grouping, then the same view as a widget from `state`.

        >>> print(widget.to_code())  # doctest: +SKIP
        """
        baseline = None if self._baseline is None else Baseline(self._baseline.path, self._allow_clock_mismatch)
        path = self._after.path
        return view_code(path, self.filters, self.query, self.at, self.selection, self.state, baseline)

    @property
    def state(self) -> dict[str, Any]:
        """The whole view as a JSON-serialisable dict: ``view``, ``tracks`` (the row layout),
        ``filters``, ``at``, ``selected``, ``selection``, ``group_by``, ``metadata_key``,
        ``color_by``, ``showing`` and a ``version``. ``ProfileWidget(profile, state=...)`` or setting it
        restores the view; a bad value raises `traitlets.TraitError` and changes nothing."""
        return json.loads(json.dumps({"version": STATE_VERSION, **{k: getattr(self, k) for k in STATE_KEYS}}))

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        try:
            traits = parse_state(value)
        except StateError as error:
            raise traitlets.TraitError(str(error)) from None
        if "filters" in traits:
            traits["filters"] = self._normalised(traits["filters"])
        showing = traits.pop("showing", self.showing)
        before = None if showing == self.showing else self.state
        self.showing = showing  # first: a flip fits the view and area to the profile shown
        try:
            with self.hold_trait_notifications():
                for key, v in traits.items():
                    setattr(self, key, v)
        except traitlets.TraitError:
            if before is not None:
                self.state = before  # the flip is undone with the rest
            raise

    def _merged_state(self, state: Any, traits: dict[str, Any]) -> dict[str, Any]:
        """Constructor traits with those of `state` (a trait in both is refused)."""
        try:
            parsed = parse_state(state)
        except StateError as error:
            raise traitlets.TraitError(str(error)) from None
        both = sorted(set(parsed) & set(traits))
        if both:
            raise TypeError(f"ProfileWidget: {', '.join(both)} given both in state and as keywords")
        return {**traits, **parsed}

    def _area_samples(self, selection: dict[str, Any] | None) -> pl.DataFrame:
        """`selection_samples` for the current filters, kept for the last few areas."""
        filters, q, matched = self._filtered
        key = json.dumps([filters, selection], sort_keys=True)
        frame = self._areas.get(key)
        if frame is None:
            frame = selection_samples(self._profile, q, selection, self._area_index(selection), matched)
            _remember(self._areas, key, frame, size=4)
        return frame

    def _area_index(self, selection: dict[str, Any] | None) -> _lod.TimelineIndex | None:
        """The index to find an area's rows in (faster than a scan, the same frame): only once it is
        built, so that no area waits for it, and None when it failed (the scan still answers)."""
        if selection is None or not self._build.ready:
            return None
        try:
            return self._index
        except _lod.TimelineIndexError:
            return None

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
            if isinstance(message, (Window, Blocks, Hover, Pick)):
                self._background.moved()
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
            elif isinstance(message, Blocks):
                self._answer_blocks(message)
            elif isinstance(message, Search):
                self._side.submit("search", lambda: self._send_search(message))
            elif isinstance(message, Fit):
                fit: FitReply = {"type": "fit", "id": message.id, "view": self._fit(message.by, message.value)}
                self._push(fit)
            elif isinstance(message, Code):
                code: CodeReply = {"type": "code", "id": message.id, "code": self.to_code()}
                self._push(code)
            elif isinstance(message, Hello):
                self._stale.clear()
                self._side.submit("overview", self._send_overview)
                self._side.submit("flame", self._send_flame)
                self._side.submit("panel", self._send_panel)
                self._background.submit("findings", self._send_findings)  # 2 s at full size, 6 s at 10M
                if self.selection is not None:
                    self._side.submit("area", self._send_area)
                if self._highlighted is not None:
                    self._send_highlight()
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
        for worker in (getattr(self, "_side", None), getattr(self, "_background", None)):  # None: __init__ failed early
            if worker is not None:
                worker.close()
        if getattr(self, "comm", None) is not None:
            quiet_status.unquiet(self.comm.comm_id)
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
            windowed, matched = self._windowed()
            answer = _lod.window(windowed, key[0], key[1], key[2], matched, self.color_by)
            hit = _lod.encode_window(answer)
            _remember(self._cache, key, hit, ANSWERS_KEPT)
        return hit

    def _answer_window(self, message: Window) -> None:
        header, buffers = self.window_answer(message.start, message.end, message.pixels)
        reply = self._window_reply(message.view, message.id, header)
        self._push(reply, self._with_labels(reply, buffers) if message.labels else buffers)
        self._send_stale()

    def _window_reply(self, view: str | None, request: int | None, header: dict[str, Any], **more: Any) -> WindowReply:
        """A window reply: the request's address, the state answered, a raw or summary header (and `more`)."""
        # A RawHeader or a LodHeader after the request's address: WindowReply by construction.
        return cast(
            WindowReply,
            {
                "type": "window",
                "view": view,
                "id": request,
                "color_by": self.color_by,
                "filtered": self._mask is not None,
                **header,
                **more,
            },
        )

    def _with_labels(self, reply: WindowReply, buffers: list[bytes]) -> list[bytes]:
        """Add the operation names of a raw reply's samples (when few enough): ``labels`` and one more buffer."""
        if reply["mode"] != "raw" or reply["count"] > LABEL_LIMIT:
            return buffers
        names, codes = self._labels(np.frombuffer(buffers[4], "<u4"))
        reply["labels"] = names
        return [*buffers, codes.astype("<u4").tobytes()]

    # ---- cache blocks, search and zoom to fit ----------------------------------------------------

    def _holds(self, filters: dict[str, Any], color_by: str) -> bool:
        """Whether the kernel's filters and colouring are `filters` (normalised) and `color_by`."""
        return color_by == self.color_by and filters == self.filters

    def block_answers(
        self, level: int, bins: int, wanted: tuple[int, ...] | list[int]
    ) -> Iterator[tuple[int, dict[str, Any], list[bytes], float]]:
        """Encoded answers for cache blocks `wanted` of `level`: (block, header, buffers, seconds spent).

        Each as soon as it is ready: those kept from before first (per state, like
        `window_answer`: a block asked for again costs nothing), then the others as computed.
        """
        missing = []
        for k in wanted:
            hit = self._cache.get(("block", level, bins, k, self.color_by))
            if hit is None:
                missing.append(k)
            else:
                yield (k, *hit, 0.0)
        if not missing:
            return
        windowed, matched = self._windowed()
        for block in _lod.blocks(windowed, level, bins, missing, matched, self.color_by):
            began = time.perf_counter()
            header, buffers = _lod.encode_window(block.answer)
            _remember(self._cache, ("block", level, bins, block.index, self.color_by), (header, buffers), ANSWERS_KEPT)
            yield block.index, header, buffers, block.seconds + time.perf_counter() - began

    def _answer_blocks(self, message: Blocks) -> None:
        """Send each block asked for as a window reply, as it is ready, then a `BlocksReply` closing the request."""
        # A flip from Python while a request was on its way: its blocks would be the other profile's.
        fresh = self._holds(message.filters, message.color_by) and message.showing in (None, self.showing)
        costs: list[float] = []
        count = matched = 0
        if fresh:
            for k, header, buffers, seconds in self.block_answers(message.level, message.bins, message.blocks):
                reply = self._window_reply(message.view, message.id, header, level=message.level, block=k)
                began = time.perf_counter()
                self._push(reply, self._with_labels(reply, buffers) if message.labels else buffers)
                costs.append(round((seconds + time.perf_counter() - began) * 1000, 2))
            windowed, mask = self._windowed()
            count, matched = _lod.count_in(windowed, message.start, message.end, mask)
            self._build.start_sorting()  # the picture is out: the index may take the CPUs now
        done: BlocksReply = {
            "type": "blocks",
            "view": message.view,
            "id": message.id,
            "stale": not fresh,
            "count": count,
            "matched": matched,
            "cost_ms": costs,
        }
        self._push(done)
        if fresh:
            self._send_stale()

    def search(self, text: str, case_sensitive: bool = True) -> pl.DataFrame:
        """Samples matching the filters whose operation or kernel contains `text`, by offset.

        What the search box finds (`ipu_nb._query.search`): ``case_sensitive=False``
        compares case-folded. The frame is ``profile.samples``' rows.

        >>> widget.search("gemm", case_sensitive=False).height > 0  # doctest: +SKIP
        True
        """
        rows = np.flatnonzero(search_rows(self._profile, text, case_sensitive, self._filtered[2]))
        return self._profile.samples[pl.Series(rows, dtype=pl.Int64)].sort("offset", "tile")

    def _send_search(self, message: Search) -> None:
        idx = self._index
        found = search_rows(self._profile, message.text, message.case_sensitive, self._filtered[2])
        count, pos = timeline_matches(idx, self._lookup, found, SEARCH_LIMIT)
        reply: SearchReply = {
            "type": "search",
            "id": message.id,
            "text": message.text,
            "case_sensitive": message.case_sensitive,
            "count": count,
            "sent": len(pos),
        }
        self._push(
            reply,
            [
                idx.start[pos].astype("<f8").tobytes(),
                idx.end[pos].astype("<f8").tobytes(),
                idx.row[pos].astype("<u2").tobytes(),
                idx.sample[pos].astype("<u4").tobytes(),
            ],
        )

    def _fit(self, by: str, value: int | None, margin: float = FIT_MARGIN) -> list[int] | None:
        """The view `zoom_to` shows for `by` and `value` (None: nothing to fit)."""
        found = extent(self._profile, self._index, self._lookup, self._filtered[2], by, value)
        return None if found is None else fit(found, margin, self._limits.end)

    def zoom_to(
        self,
        *,
        sample: int | None = None,
        phase: int | None = None,
        range: tuple[int, int] | list[int] | None = None,
        matching: bool = False,
        margin: float = FIT_MARGIN,
    ) -> list[int]:
        """Zoom the timeline to one sample, one phase, an offset range, or what the filters match.

        Give exactly one of them. ``sample`` (an id of ``profile.samples["sample"]``) also
        selects it, so the inspector shows it and its tile row scrolls into view; ``phase``
        fits every sample of that phase (all tiles, whatever the filters); ``range`` is
        ``(start, end)`` in per-tile offsets, shown exactly; ``matching=True`` fits the
        samples matching the filters. `margin` is the room left each side (a fraction of
        the width fitted). Returns the new `view`.

        Raises
        ------
        ValueError
            Naming the keyword: none or several given, no such sample or phase, no sample
            matching the filters, or a range outside the profile.

        Examples
        --------
        >>> widget.zoom_to(sample=1234)  # doctest: +SKIP
        >>> widget.zoom_to(phase=17)  # doctest: +SKIP
        >>> widget.zoom_to(range=(100_000, 250_000))  # doctest: +SKIP
        >>> widget.filters = {"kernel": "gemm_f32_accumulate_large_rows"}  # doctest: +SKIP
        >>> widget.zoom_to(matching=True)  # doctest: +SKIP
        """
        given = [name for name, v in (("sample", sample), ("phase", phase), ("range", range)) if v is not None]
        if matching:
            given.append("matching")
        if len(given) != 1:
            raise ValueError(
                "zoom_to needs exactly one of sample=ID, phase=N, range=(start, end) or matching=True,"
                f" got {', '.join(given) or 'none'}"
            )
        if not (isinstance(margin, (int, float)) and 0 <= margin <= 10):
            raise ValueError(f"zoom_to margin must be a number in 0..10 (a fraction of the width), got {margin!r}")
        if range is not None:
            try:
                start, end = range
                view = list(check_range(start, end, "zoom_to range", self._limits.end))
            except (MessageError, TypeError, ValueError) as error:
                raise ValueError(
                    f"zoom_to(range=(start, end)) needs integers 0 <= start < end <= {self._limits.end}: {error}"
                ) from None
            self.view = view
            return view
        if sample is not None:
            try:
                value = check_integer(sample, "zoom_to sample", 0, MAX_SAFE_INTEGER)
            except MessageError:
                value = -1
            found = self._fit("sample", value, margin) if value >= 0 else None
            if found is None:
                raise ValueError(f"zoom_to(sample={sample!r}): no sample with that id in this profile")
            with self.hold_trait_notifications():
                self.view = found
                self.selected = value
            return found
        if phase is not None:
            value = check_integer(phase, "zoom_to phase", 0, MAX_SAFE_INTEGER)
            found = self._fit("phase", value, margin)
            if found is None:
                raise ValueError(f"zoom_to(phase={phase!r}): no sample has that phase")
        else:
            found = self._fit("matching", None, margin)
            if found is None:
                raise ValueError("zoom_to(matching=True): no sample matches the filters")
        self.view = found
        return found

    def _send_stale(self) -> None:
        """Send the views a filter change left out of date."""
        stale, self._stale = self._stale, set()
        for name in ("overview", "panel", "flame", "area"):
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

    def _groups(self, q: Query, area: pl.DataFrame | None = None) -> tuple[str | None, list[GroupRow]]:
        """Error (or None) and the top rows of ``query(profile, q).groups``, kept per query; for an
        area's query, aggregated from its samples `area` (`selection.area_groups`)."""
        from .._query import query

        key = dataclasses.replace(q, limit=GROUP_ROWS)
        hit = self._group_rows.get(key)
        if hit is None:
            try:
                if area is None:
                    groups = query(self._profile, key).groups
                else:  # the columns below only
                    groups = area_groups(self._profile, key, area, percentiles=False)
            except QueryError as error:
                hit = (str(error), [])
            else:
                columns = ["name", "dimensions", "sample_count", "phase_cycles", "work_cycles", "average_active_tiles"]
                rows: list[GroupRow] = [
                    {**row, "dimensions": {d["name"]: d["value"] for d in row["dimensions"]}}  # type: ignore[typeddict-item]
                    for row in groups.select(columns).iter_rows(named=True)
                ]
                hit = (None, rows)
            _remember(self._group_rows, key, hit)
        return hit

    def _send_groups(self, request_id: Any = None) -> None:
        """The top groups of `groups` for the side panel (asked for after the timeline is drawn);
        with a selected area, of `selection_groups`."""
        q: Query | None = self.query
        selection = self.selection
        area = None
        if selection is not None:
            q = area_query(self.query, selection)
            area = self._area_samples(selection)
        error, rows = (None, []) if q is None else self._groups(q, area)
        reply: GroupsReply = {
            "type": "groups",
            "id": request_id,
            "group_by": self.group_by,
            "error": error,
            "rows": rows,
            "area": selection is not None,
        }
        if self._baseline is not None and selection is None and error is None:
            reply["deltas"] = group_deltas(self.comparison, [row["name"] for row in rows])
        self._push(reply)

    def _flame(self) -> FlameTree:
        key, q, mask = self._filtered
        tree = self._flames.get(key)
        if tree is None:
            tree = flame_tree(self._profile, mask, q)
            _remember(self._flames, key, tree)
        return tree

    def _send_flame(self) -> None:
        selection = self.selection
        tree = self._flame() if selection is None else self._area_flame(selection)
        push: FlamePush = {
            "type": "flame",
            "total": tree["total"],
            "nodes": tree["nodes"],
            "metadata": tree["metadata"],
            "area": selection is not None,
        }
        if self._baseline is not None and selection is None:
            other = self._baseline if self.showing == "after" else self._after
            push["deltas"] = flame_deltas(tree, other, self._filtered[1], shown=self.showing)
        self._push(push)

    def _area_flame(self, selection: dict[str, Any]) -> FlameTree:
        """The flame graph of the area's samples, each counted with its cycles inside the area."""
        key = json.dumps([self._filtered[0], selection], sort_keys=True)
        tree = self._flames.get(key)
        if tree is None:
            frame = self._area_samples(selection)
            clipped = frame.with_columns(duration=pl.col("clipped_cycles").cast(pl.UInt32))
            tree = flame_tree(self._profile, None, self._filtered[1], samples=clipped)
            _remember(self._flames, key, tree)
        return tree

    def _send_area(self) -> None:
        """The selected area's summary and longest samples for the side panel (cleared: all None)."""
        selection = self.selection
        q = None if selection is None else area_query(self.query, selection)
        frame = self._area_samples(selection)
        longest = [] if q is None or q.window is None else area_longest(frame, q.window, AREA_LONGEST)
        push: AreaPush = {
            "type": "area",
            "selection": selection,
            "window": None if q is None or q.window is None else list(q.window),
            "tiles": None if q is None or not q.tiles else list(q.tiles),
            "count": frame.height,
            "tiles_hit": frame.get_column("tile").n_unique() if frame.height else 0,
            "cycles": int(frame.get_column("clipped_cycles").sum()) if frame.height else 0,
            "longest": longest,
        }
        self._push(push)

    def _send_highlight(self) -> None:
        """The highlighted samples' places, the first `HIGHLIGHT_SENT` by offset (none: cleared)."""
        idx = self._index
        pos = self._highlighted if self._highlighted is not None else np.zeros(0, np.int64)
        count = len(pos)
        if count > HIGHLIGHT_SENT:
            pos = pos[np.argpartition(idx.start[pos], HIGHLIGHT_SENT - 1)[:HIGHLIGHT_SENT]]
        pos = pos[np.lexsort((idx.row[pos], idx.start[pos]))]
        push: HighlightPush = {"type": "highlight", "count": count, "sent": len(pos)}
        self._push(
            push,
            [
                idx.start[pos].astype("<f8").tobytes(),
                idx.end[pos].astype("<f8").tobytes(),
                idx.row[pos].astype("<u2").tobytes(),
                idx.sample[pos].astype("<u4").tobytes(),
            ],
        )


def _check_depth(name: str, value: Any) -> None:
    """`traitlets.TraitError` for a value of trait `name` nested deeper than any view's (`check_depth`)."""
    try:
        check_depth(value, name)
    except StateError as error:
        raise traitlets.TraitError(str(error)) from None


def _remember(cache: dict, key: Any, value: Any, size: int = 8) -> None:
    """``cache[key] = value``, dropping the oldest entries beyond ``size``."""
    cache[key] = value
    while len(cache) > size:
        cache.pop(next(iter(cache)))
