"""Altair charts of a profile, aggregated in polars first.

Every builder reduces the samples to a frame sized by groups, tiles or bins
(see `ipu_nb._charts_data`) before Altair sees it, so a million-sample profile
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
>>> from ipu_nb import charts  # doctest: +SKIP
>>> charts.breakdown(profile, by="kernel")  # doctest: +SKIP
>>> charts.tile_heatmap(profile, kind="compute")  # doctest: +SKIP
>>> charts.save(charts.active_tiles(profile), "active.png")  # doctest: +SKIP
"""

from __future__ import annotations

import altair as alt

from ._charts.common import KIND_COLORS, SelectionTooLargeError
from ._charts.export import save, to_spec, vegalite_version
from ._charts.groups import breakdown, phase_waterfall
from ._charts.samples import active_tiles, duration_distribution, gantt, tile_heatmap

__all__ = [
    "KIND_COLORS",
    "SelectionTooLargeError",
    "active_tiles",
    "breakdown",
    "duration_distribution",
    "enable_offline",
    "gantt",
    "phase_waterfall",
    "save",
    "tile_heatmap",
    "to_spec",
    "vegalite_version",
]


def enable_offline() -> None:
    """Render charts in notebooks without a CDN: Altair's Jupyter widget with vl-convert's bundled Vega."""
    alt.renderers.enable("jupyter", offline=True)


if alt.renderers.active == "default":
    enable_offline()
