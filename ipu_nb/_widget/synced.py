"""The traits a `ProfileWidget` syncs with its front end: each one's type, default and what it holds.

They are declared here, apart from the widget's behaviour (`ipu_nb._widget.widget`), so the
list reads as the widget's synced state; the checks against the profile shown are the
widget's validators (`ipu_nb._widget.traits`).
"""

from __future__ import annotations

import anywidget
import traitlets

from .._model.vocabulary import COLOR_BYS, FLAME_HIERARCHIES, GROUP_BYS
from .._query.filters_codec import empty_filters
from .baseline import SHOWING
from .clocks import CLOCKS, PER_TILE
from .state import default_tracks
from .traits import Integer, OptionalText

__all__ = ["SyncedTraits"]


class SyncedTraits(anywidget.AnyWidget):
    """The synced traits of `ProfileWidget`, set from Python or from the browser, checked either way."""

    filters = traitlets.Dict(default_value=empty_filters()).tag(sync=True)
    """dict: ``kind``, ``kernel``, ``operation_contains`` (str or None), ``tiles``, ``phases``
    (lists of int), ``metadata``, ``operation`` (exact operation names, any of them: what a
    flame-graph focus sets) and ``window`` (``[start, end]`` or None), all ANDed. ``metadata``
    holds ``[name, value]`` pairs (value None: "has an entry named name"); ``"name"`` and
    ``"name=value"`` strings are accepted and split at the first ``=`` as the CLI does, so
    names containing ``=`` need a pair. Values are stored normalised (pairs, sorted lists)."""
    at = Integer(None, allow_none=True).tag(sync=True)
    """int or None: the cursor, an offset in cycles on `clock`, ``0 <= at <= 2**53 - 1`` (what the
    browser holds exactly; default None). An offset at or beyond the span is allowed and, as
    with ``--at``, nothing is active there: `at_slice` and the panel are empty."""
    view = traitlets.List(Integer(), default_value=[0, 1], minlen=2, maxlen=2).tag(sync=True)
    """[start, end]: the visible range of offsets, ``0 <= start < end <= max(span, 8)``
    (default: the whole profile)."""
    selected = Integer(None, allow_none=True).tag(sync=True)
    """int or None: id of the inspected sample, one of ``profile.samples["sample"]`` (default None)."""
    group_by = traitlets.Enum(GROUP_BYS, default_value="kernel").tag(sync=True)
    """str: grouping of `groups` (kind, kernel, operation, phase, tile or metadata); ``"metadata"``
    needs `metadata_key` set first, or both set inside ``widget.hold_trait_notifications()``."""
    metadata_key = OptionalText(None).tag(sync=True)
    """str or None: the key for ``group_by="metadata"`` (not None while grouping by metadata)."""
    color_by = traitlets.Enum(COLOR_BYS, default_value="kind").tag(sync=True)
    """str: timeline colours, "kind" (default), "kernel" or "activity" (exchange samples split into the
    newest runtime's activities: boundary wait, send, receive, both, partner busy, exchange idle)."""
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
    ``"baseline"`` (needs ``baseline=``); flipping keeps the view, rows and filters (key ``B``), the
    whole profile staying the whole profile (`ipu_nb._widget.flip`)."""
    marker_rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    """list: the markers (notes on the timeline), ``{"start": int, "end": int, "label": str}`` sorted by
    time (``start == end``: a point); key ``M`` in the browser or `add_marker` adds one, `markers` reads
    them as a DataFrame. Offsets lie within the profile, labels are at most 200 characters, 500 markers
    at most (`ipu_nb._widget.markers`)."""
    flame_hierarchy = traitlets.Enum(FLAME_HIERARCHIES, default_value=FLAME_HIERARCHIES[0]).tag(sync=True)
    """str: the flame graph's levels below the root, outermost first: ``"kind/kernel/phase/operation"``
    (default), ``"kind/kernel/operation/phase"`` or ``"kind/operation/kernel"`` (the select in its panel)."""
    clock = traitlets.Enum(CLOCKS, default_value=PER_TILE).tag(sync=True)
    """str: the clock of every offset the widget shows and returns (`at`, `view`, `selection`, the
    markers, the frames' ``offset``): ``"tile"`` (each tile's first sample at 0, as
    ``ipu_nb.query``), or the newest runtime's one clock for every tile, ``"cropped"`` (its default,
    "crop initial sync": 0 where the last tile starts, the cycles before cut) or ``"shared"`` (the
    whole shared clock). A widget opens on its profile's writer's clock (``"cropped"`` for schema 4
    and up, else ``"tile"``: `ipu_nb._widget.clocks.default_clock`). Switching keeps the same part
    of the profile in view (`ipu_nb._widget.clock_switch`)."""
    finding_rows = traitlets.List(traitlets.Dict(), read_only=True).tag(sync=True)
    """list: the findings panel's entries, ``ipu_nb.findings`` of the shown profile, best first
    (each with the ``filters`` and ``view`` that show it; `show_finding` applies one)."""
