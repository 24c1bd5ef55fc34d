"""Altair charts of a profile, aggregated in polars first.

Every builder reduces the samples to a frame sized by groups, tiles or bins
(see `ipu_nb._charts.data`) before Altair sees it, so a million-sample profile
never meets Altair's row limit and no chart embeds raw samples (the Gantt
chart, which draws samples, refuses large selections instead).

Sources: a `Profile` (with optional filters, typed keywords as in `ipu_nb.query`, such
as ``kind="compute"`` or ``phases=(3,)``; the group charts take ``clip`` too), a
`ProfileWidget` (its profile under its current filters), a `QueryResult`, or a polars
DataFrame — the samples of a selection (``profile.filter(...)``, ``widget.filtered``) or
a groups table.

Importing this module switches Altair's CDN-loading ``default`` renderer to the
offline Jupyter renderer (Vega bundled by vl-convert); `save` and
`ipu_nb.save_report` never reference a URL either.

Examples
--------
>>> from ipu_nb import charts
>>> charts.breakdown(profile, by="kernel")
alt.LayerChart(...)
>>> charts.tile_heatmap(profile, kind="compute")
alt.Chart(...)
>>> charts.save(charts.active_tiles(profile), "active.png").read_bytes()[1:4]
b'PNG'

The widget's timeline as a chart (tile rows × time bins, the widget's colours; a `ProfileWidget`
source draws its current view, filters and row order):

>>> charts.timeline(profile, window=(0, 200_000), width=400)
alt.Chart(...)

Two profiles compared (`ipu_nb.compare`) and the superstep analytics have charts too
(`delta_distribution(before, after, kernel=...)` and `what_if(ipu_nb.what_if(...))` as well):

>>> charts.delta_waterfall(ipu_nb.compare("before.capnp", "after.capnp"))
alt...Chart(...)
>>> charts.delta_heatmap(ipu_nb.compare("before.capnp", "after.capnp", by="tile"))
alt...Chart(...)
>>> charts.recoverable_cycles(profile), charts.critical_tiles(profile)
(alt...Chart(...), alt...Chart(...))

A schema 4-5 profile's exchange phases, as the newest runtime reads their activities:

>>> charts.exchange_anatomy(ipu_nb.generate_profile("v5.capnp", tiles=8, phases=4, schema_version=5))
alt.Chart(...)
"""

from __future__ import annotations

import altair as alt

from ._charts.common import KIND_COLORS, SelectionTooLargeError
from ._charts.deltas import DELTA_COLORS, delta_distribution, delta_heatmap, delta_waterfall
from ._charts.exchange import exchange_anatomy
from ._charts.groups import breakdown, phase_waterfall
from ._charts.samples import active_tiles, duration_distribution, gantt, tile_heatmap
from ._charts.spec import to_spec, vegalite_version
from ._charts.steps import critical_tiles, recoverable_cycles, what_if
from ._charts.timeline import timeline
from ._report.export import save

__all__ = [
    "DELTA_COLORS",
    "KIND_COLORS",
    "SelectionTooLargeError",
    "active_tiles",
    "breakdown",
    "critical_tiles",
    "delta_distribution",
    "delta_heatmap",
    "delta_waterfall",
    "duration_distribution",
    "enable_offline",
    "exchange_anatomy",
    "gantt",
    "phase_waterfall",
    "recoverable_cycles",
    "save",
    "tile_heatmap",
    "timeline",
    "to_spec",
    "vegalite_version",
    "what_if",
]


def enable_offline() -> None:
    """Render charts in notebooks without a CDN: Altair's Jupyter widget with vl-convert's bundled Vega."""
    alt.renderers.enable("jupyter", offline=True)


if alt.renderers.active == "default":
    enable_offline()
