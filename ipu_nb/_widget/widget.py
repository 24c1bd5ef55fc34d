"""`ProfileWidget`: the timeline, overview, flame graph and inspector in a notebook.

The front end never holds the profile: it asks the kernel for what it draws
(custom messages answered by `ipu_nb._widget.lod`, binary buffers for bulk data) and
writes its selections back through small synced traits, so every UI state is a
`Query` and a polars DataFrame in Python. What is shown is one immutable value
(`ipu_nb._widget.shown.Shown`), swapped whole when a trait defining it changes; the
messages, answers, pushes, the flip and the findings live beside this module.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import traitlets

from .._compare import Comparison
from .._profile import Profile
from .._query import Query, QueryError, make_query
from .._query.filters_codec import normalise_filters
from .._supersteps import Findings
from . import quiet_status
from .answers import Answers
from .background import Background
from .baseline import baseline_profile
from .clock_switch import switch_clock
from .clocks import clock_crop, default_clock
from .code import Baseline, view_code
from .findings_panel import FindingSteps, culprit_samples, pinned_first, rows_job
from .flip import flip
from .handlers import FRONT_END_WRITES, handle, update
from .markers import MarkerError, marker_frame, new_marker
from .messages import MAX_SAFE_INTEGER, Limits, check_integer, check_range
from .protocol import ErrorReply, ReplyAddress, ToFrontEnd
from .pushes import Marks, highlight_push, info
from .selection import selection_groups
from .shown import Matching, Shown, Sides
from .side_views import RECOVERABLE, SideViews, in_kernel
from .state import STATE_KEYS, STATE_VERSION
from .synced import SyncedTraits
from .timeline import row_order, search_rows
from .traits import VIEW_CHECKS, check_trait_depth, merged_state, state_traits
from .views import Views
from .zoom import FIT_MARGIN, zoom_target

__all__ = ["ProfileWidget"]

_STATIC = Path(__file__).parent.parent / "static"
_BUNDLE = _STATIC / "widget.js"
_STYLE = _STATIC / "widget.css"


def _bundle_path(path: Path) -> Path | str:
    return path if path.exists() else ""


class ProfileWidget(SyncedTraits):
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
        Initial values of its traits (`ipu_nb._widget.synced.SyncedTraits`: the filters, the
        cursor ``at``, the ``view``, colours, the clock, markers and the rest).

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
        self._sides = Sides(profile, self._baseline)
        self._answers = Answers(self._sides, allow_clock_mismatch=self._allow_clock_mismatch)
        self._findings = FindingSteps(lambda key: self._sides.side(*key).profile)
        self._shown_lock = threading.Lock()  # the workers read `_shown` while the main thread swaps it
        self._picking = False
        self._marks: Marks | None = None
        self._side = SideViews(self._send_error, threaded=in_kernel())
        self._background = Background(self._send_error, threaded=self._side.threaded)
        self._views = Views(self, self._answers, self._sides, self._side)
        if state is not None:
            traits = merged_state(state, traits)
        for name, value in traits.items():
            check_trait_depth(name, value)
        if traits.get("showing") == "baseline" and self._baseline is None:
            raise traitlets.TraitError("showing='baseline' needs a baseline: ProfileWidget(profile, baseline=...)")
        traits["filters"] = self._normalised(traits.get("filters"))
        which = "baseline" if traits.get("showing") == "baseline" else "after"
        traits.setdefault("clock", default_clock(profile))
        clock = type(self).clock.validate(self, traits["clock"])
        # The profile, clock and filters first: the other traits are checked against them (the rest follows once set).
        self._shown = Shown(self._matched(which, traits["filters"], clock), "kind", "kernel", None)
        traits.setdefault("view", [0, max(self._shown.side.facts.span, 1)])
        super().__init__(**traits)
        self._refresh()
        self.set_trait("info", info(self._shown.side, self._baseline is not None))
        self.on_msg(self._on_message)
        if self.comm is not None:
            quiet_status.quiet(self.comm.comm_id)
        # What the side panels and a first click need (flame graph, group table, metadata order)
        # is prepared on the worker once the index is built, so the timeline is drawn first; the
        # side views asked for before that do not wait behind it (inline outside a kernel).
        build = self._shown.side.build
        self._side.submit("warm-up", self._warm_up, after=lambda: build.index(hurry=False))
        self._views.forget_later()  # the front end's hello asks for every view

    def _warm_up(self) -> None:
        """The side views of the initial value, made once ahead of the front end asking (after the first picture)."""
        self._answers.warm_up(self._shown_now(), self.flame_hierarchy)

    # ---- what is shown: one value, swapped whole ---------------------------------------------

    def _shown_now(self) -> Shown:
        """The value shown now (a worker takes it once per job and answers for it)."""
        with self._shown_lock:
            return self._shown

    def _matched(self, which: str, filters: dict[str, Any], clock: str | None = None) -> Matching:
        """What normalised `filters` select in profile `which` on `clock` (None: the ``clock`` trait's);
        `traitlets.TraitError` when that cannot be made."""
        try:
            return self._sides.matching(which, filters, self.clock if clock is None else clock)
        except (QueryError, pl.exceptions.PolarsError) as error:
            raise traitlets.TraitError(f"filters: {error}") from None

    @property
    def _which(self) -> str:
        """The profile ``showing`` names (inside a hold it may name a baseline there is none of: refused after)."""
        return "baseline" if self.showing == "baseline" and self._baseline is not None else "after"

    def _refresh(self) -> tuple[Shown, Shown]:
        """Make the value shown follow the traits that define it: (the value before, the value now)."""
        old = self._shown_now()
        new = Shown(self._matched(self._which, self.filters), self.color_by, self.group_by, self.metadata_key)
        if new.key == old.key:
            return old, old
        with self._shown_lock:
            self._shown = new
        return old, new

    @property
    def _limits(self) -> Limits:
        return self._shown_now().side.limits

    @traitlets.observe("filters", "color_by", "group_by", "metadata_key")
    def _shown_changed(self, change: Any) -> None:
        self._refresh()
        if change["name"] == "filters":
            # The flame graph, overview and panel follow the next timeline window, so the
            # greyed timeline (the view's reaction to a filter change) is drawn first.
            self._views.later("flame", "overview", "panel")
            if self.selection is not None:
                self._views.later("area")  # groups follow too: the front end asks for them
        elif change["name"] == "color_by":
            # Coloured as the timeline, after its next window; "activity" counts exchange as the newest runtime.
            self._views.later("overview", "flame")

    @traitlets.observe("showing")
    def _showing_changed(self, change: Any) -> None:
        """Show the other profile at the same view, rows and filters (`ipu_nb._widget.flip`)."""
        old, new = self._refresh()
        if old.side is not new.side:  # the same: the constructor's own profile
            flip(self, old, new)

    @traitlets.observe("clock")
    def _clock_changed(self, change: Any) -> None:
        """Show the profile on the other clock, the same part of it in view (`ipu_nb._widget.clock_switch`)."""
        old = self._shown_now()
        if old.side.clock == change["new"]:  # the constructor's own clock
            return
        crop = clock_crop(self._sides.profile(old.side.which))
        switch_clock(self, old, crop, lambda: self._refresh()[1])

    @traitlets.observe("selection")
    def _selection_changed(self, change: Any) -> None:
        # Each goes out as soon as it is ready, the cheapest first; the flame graph before the
        # groups, so the browser draws it (the costliest part to show) while the groups compute.
        self._views.send("area", "flame", "groups")

    @traitlets.observe("flame_hierarchy")
    def _flame_hierarchy_changed(self, change: Any) -> None:
        self._views.send("flame")

    @traitlets.observe("at", "selected")
    def _cursor_changed(self, change: Any) -> None:
        if not self._picking:
            self._views.send("panel")

    # ---- the baseline and the findings ---------------------------------------------------------

    @traitlets.validate("showing")
    def _valid_showing(self, proposal: Any) -> str:
        if proposal["value"] == "baseline" and self._baseline is None:
            raise traitlets.TraitError("showing='baseline' needs a baseline: ProfileWidget(profile, baseline=...)")
        self._matched(proposal["value"], self._normalised(self.filters))  # refused if they cannot select there
        return proposal["value"]

    @property
    def baseline(self) -> Profile | None:
        """The profile compared with (``baseline=``), or None."""
        return self._baseline

    @property
    def comparison(self) -> Comparison:
        """``ipu_nb.compare(baseline, profile, by=group_by, <the filters>)``: what the Δ columns show, both
        profiles on `clock` (``profile.on_clock(widget.clock)``).

        Raises
        ------
        ValueError
            The widget has no baseline.
        """
        if self._baseline is None:
            raise ValueError("this widget has no baseline: ProfileWidget(profile, baseline=before)")
        return self._answers.comparison(self.query, self.clock)

    @property
    def findings(self) -> Findings:
        """``ipu_nb.findings(widget.profile)``: of the profile shown, on `clock` (computed once for each)."""
        return self._findings.of((self.showing, self.clock))

    def _start_findings(self) -> None:
        """The findings panel's rows of the shown profile, a `Background` job (in steps while the view is still)."""

        def job() -> Generator[None, None, None]:
            return rows_job(
                self._findings, lambda: (self.showing, self.clock), lambda rows: self.set_trait("finding_rows", rows)
            )

        self._background.submit("findings", job)

    def show_finding(self, rank: int) -> list[int]:
        """Apply finding `rank` (1 = best) of `finding_rows`: its filters, then zoom to its supersteps.

        A finding naming a tile (a straggler, a phase's critical tile: ``finding.tile``) also pins
        that tile first in `tracks` and highlights its samples there, so its row is on screen
        whatever the scroll (what a click on the findings panel does). Returns the new `view`.
        Raises `ValueError` for a rank with no finding.
        """
        found = self.findings
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= len(found):
            raise ValueError(f"show_finding(rank): a rank in 1..{len(found)}, got {rank!r}")
        finding = found[rank - 1]
        state = finding.state
        start, end = state["view"]  # offsets on the clock shown: the findings were made there
        limit = self._limits.end
        with self.hold_sync():  # one message: the filters, the view and the rows together
            self.filters = state["filters"]
            view = self.zoom_to(range=(min(start, limit - 1), min(max(end, start + 1), limit)))
            if finding.tile is not None:
                self.tracks = pinned_first(self.tracks, finding.tile)
        culprit = culprit_samples(self.profile, finding, view)
        if culprit is not None:
            self.highlight(culprit)
        return view

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
        self._matched(self._which, filters)  # here, so that filters whose selection fails are never set
        return filters

    @traitlets.validate("view", "at", "selected", "selection", "tracks", "marker_rows")
    def _valid_view_trait(self, proposal: Any) -> Any:
        """A trait of the view, checked against the profile shown (`ipu_nb._widget.traits.VIEW_CHECKS`)."""
        return VIEW_CHECKS[proposal["trait"].name](proposal["value"], self._shown_now().side)

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
            check_trait_depth(name, value)  # before traitlets, whose error messages repr the value recursively
        if name not in ("showing", "clock"):
            super().__setattr__(name, value)
            return
        # A flip's (or a clock switch's) changes reach the front end in one message, the profile's facts with it.
        with self.hold_sync():
            super().__setattr__(name, value)

    def set_state(self, sync_data: Any) -> None:
        """Apply trait updates from the browser, untrusted like its messages (`ipu_nb._widget.handlers.update`):
        a refused one changes nothing, and the browser gets an error reply and Python's values back."""
        update(self, sync_data, super().set_state)

    def _resync(self, keys: list[str]) -> None:
        """Send Python's values of `keys` to the browser (after refusing its change to them)."""
        try:
            self.send_state(keys)
        except RECOVERABLE as error:  # a closed comm: nothing to set back
            self.log.warning("ipu-nb widget: could not resend %s: %r", keys, error)

    # ---- Python-side views --------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        """The profile shown."""
        return self._shown_now().profile

    @property
    def query(self) -> Query:
        """The `Query` equivalent to the current filters and grouping (``at`` not included).

        Its ``metadata_key`` is the trait's while grouping by metadata and None otherwise,
        where it would have no effect (`query` warns about such a key).
        """
        return self._shown_now().query

    @property
    def filtered(self) -> pl.DataFrame:
        """Samples matching the filters: ``profile.filter(widget.query)``."""
        return self.profile.filter(self.query)

    @property
    def at_slice(self) -> pl.DataFrame:
        """Samples matching the filters and active at `at` (empty when `at` is None)."""
        if self.at is None:
            return self.profile.filter(dataclasses.replace(self.query, at=0)).clear()
        return self.profile.filter(dataclasses.replace(self.query, at=self.at))

    @property
    def selected_sample(self) -> pl.DataFrame:
        """The selected sample as one row of `Profile.filter`'s frame (no rows when none)."""
        q, side = Query(), self._shown_now().side
        if self.selected is None:
            return side.profile.filter(dataclasses.replace(q, tiles=(0,), phases=(0,), kind="idle")).clear()
        row = side.profile.samples.row(side.lookup.row_of(self.selected), named=True)
        found = side.profile.filter(dataclasses.replace(q, tiles=(row["tile"],), phases=(row["phase"],)))
        return found.filter(pl.col("sample") == self.selected)

    @property
    def groups(self) -> pl.DataFrame:
        """``ipu_nb.query(profile, widget.query).groups``: the aggregation for the current state."""
        from .._query import query

        shown = self._shown_now()
        return query(shown.profile, shown.query).groups

    # ---- the selected area, highlights, the view as code and as state --------------------------

    @property
    def selection_samples(self) -> pl.DataFrame:
        """Samples matching the filters that overlap the selected area on its tiles (no rows without one).

        The columns of ``profile.samples`` (file order) plus ``clipped_cycles``, each
        sample's cycles inside the area's window. The area narrows the filters: a
        ``window`` or ``tiles`` filter holds as well (`ipu_nb._widget.selection`).
        """
        return self._answers.area_samples(self._shown_now(), self.selection).clone()

    @property
    def selection_groups(self) -> pl.DataFrame:
        """The area's aggregate by `group_by`, clipped: ``ipu_nb.query(profile, window=(start, end),
        clip=True, tiles=..., <the filters>, group_by=...).groups`` (no rows without a selection)."""
        shown, selection = self._shown_now(), self.selection
        return selection_groups(shown.profile, shown.query, selection, self._answers.area_samples(shown, selection))

    @property
    def timeline_tiles(self) -> list[int]:
        """Physical tile ids in the timeline's row order: pinned first, then `tracks` order, only the tiles the
        ``tiles`` filter keeps (what ``charts.timeline(widget)`` draws, top to bottom)."""
        return row_order(self.info, self.tracks, self.filters.get("tiles") or [])

    @property
    def markers(self) -> pl.DataFrame:
        """The markers as a DataFrame: ``start``, ``end`` (offsets in cycles) and ``label``, sorted by time."""
        return marker_frame(self.marker_rows)

    def add_marker(self, start: int, end: int | None = None, label: str = "") -> pl.DataFrame:
        """Mark offset `start` (or the range ``[start, end]``) with `label` on the timeline; returns `markers`.

        Raises
        ------
        traitlets.TraitError
            An offset outside the profile, ``end < start``, a label that is no str or longer
            than 200 characters, or 500 markers already (the message says which).

        >>> widget.add_marker(150_000, label="layer 0 ends").height  # doctest: +SKIP
        1
        """
        try:
            marker = new_marker(start, end, label, self._limits.end)
        except MarkerError as error:
            raise traitlets.TraitError(f"add_marker: {error}") from None
        self.marker_rows = [*self.marker_rows, dict(marker)]
        return self.markers

    def highlight(self, frame: Any) -> int:
        """Mark the samples of `frame` (any DataFrame with a ``sample`` column) on the timeline.

        ``highlight(None)`` clears the marks. Returns how many samples are marked. Every
        id must be a sample of this profile; a view opened later shows the marks too (the
        other profile of a baseline shows none).

        Raises
        ------
        TypeError, ValueError
            Not a DataFrame, no ``sample`` column, or ids that are no sample (named).

        >>> widget.highlight(widget.selection_samples.filter(pl.col("kind") == "exchange"))  # doctest: +SKIP
        """
        shown = self._shown_now()
        self._marks = None if frame is None else Marks.of(shown, frame)
        self._push(*highlight_push(shown, self._marks))
        return 0 if self._marks is None else len(self._marks.positions)

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
        ``color_by``, ``showing``, ``clock``, ``marker_rows`` (the markers), ``flame_hierarchy`` and a ``version``.
        ``ProfileWidget(profile, state=...)`` or setting it restores the view; a bad value raises
        `traitlets.TraitError` and changes nothing."""
        return json.loads(json.dumps({"version": STATE_VERSION, **{k: getattr(self, k) for k in STATE_KEYS}}))

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        traits = state_traits(value)
        if "filters" in traits:
            traits["filters"] = self._normalised(traits["filters"])
        showing = traits.pop("showing", self.showing)
        clock = type(self).clock.validate(self, traits.pop("clock", self.clock))  # refused before anything is set
        before = None if (showing, clock) == (self.showing, self.clock) else self.state
        with self.hold_sync():  # one message to the front end
            self.showing = showing  # first: a flip fits the view and area to the profile shown
            self.clock = clock  # and the state's offsets are on its clock
            try:
                with self.hold_trait_notifications():
                    for key, v in traits.items():
                        setattr(self, key, v)
            except traitlets.TraitError:
                if before is not None:
                    self.state = before  # the flip is undone with the rest
                raise

    # ---- the front end's messages (`ipu_nb._widget.handlers`) ----------------------------------

    def _on_message(self, _widget: Any, content: Any, buffers: Any) -> None:
        """Answer one message from the browser (`ipu_nb._widget.handlers.handle`: never raises)."""
        handle(self, content)

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

    def _pick(self, x: int, sample: int | None) -> None:
        """A click: the cursor at `x` and `sample` selected, with one inspector panel for both traits."""
        self._picking = True
        try:
            with self.hold_trait_notifications():
                self.at = x
                self.selected = sample
        finally:
            self._picking = False
        self._views.send("panel")

    def window_answer(self, start: int, end: int, pixels: int) -> tuple[dict[str, Any], list[bytes]]:
        """The reply to a window request: JSON header and binary buffers (kept per value shown).

        ``0 <= start < end <= max(span, 8)`` and ``pixels >= 1`` (wider than
        `ipu_nb._widget.answers.WINDOW_PIXELS` is answered at that width); a `MessageError`
        says what is out of range.
        """
        shown = self._shown_now()
        start, end = check_range(start, end, "window", shown.side.limits.end)
        pixels = check_integer(pixels, "window pixels", 1, MAX_SAFE_INTEGER)
        return self._answers.window(shown, start, end, pixels)

    def block_answers(
        self, level: int, bins: int, wanted: tuple[int, ...] | list[int]
    ) -> Iterator[tuple[int, dict[str, Any], list[bytes], float]]:
        """Encoded answers for cache blocks `wanted` of `level`: (block, header, buffers, seconds spent).

        Each as soon as it is ready: those kept from before first (per value shown, like
        `window_answer`: a block asked for again costs nothing), then the others as computed.
        """
        return self._answers.blocks(self._shown_now(), level, bins, wanted)

    # ---- search and zoom to fit ----------------------------------------------------------------

    def search(self, text: str, case_sensitive: bool = True) -> pl.DataFrame:
        """Samples matching the filters whose operation or kernel contains `text`, by offset.

        What the search box finds (`ipu_nb._query.search`): ``case_sensitive=False``
        compares case-folded. The frame is ``profile.samples``' rows.

        >>> widget.search("gemm", case_sensitive=False).height > 0  # doctest: +SKIP
        True
        """
        shown = self._shown_now()
        rows = np.flatnonzero(search_rows(shown.profile, text, case_sensitive, shown.matching.mask))
        return shown.profile.samples[pl.Series(rows, dtype=pl.Int64)].sort("offset", "tile")

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
        ``(start, end)`` in offsets on `clock`, shown exactly; ``matching=True`` fits the
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
        view, select = zoom_target(
            self._shown_now(), sample=sample, phase=phase, range=range, matching=matching, margin=margin
        )
        with self.hold_trait_notifications():
            self.view = view
            if select is not None:
                self.selected = select
        return view
