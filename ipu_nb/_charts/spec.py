"""A chart's Vega-Lite spec as ipu-nb hands it on: without URLs, sanitised, and the Vega-Lite version to render it.

The one step every export and every report takes, so the HTML report (`ipu_nb._report.report`)
and the file export (`ipu_nb._report.export`) share it without importing each other.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from .._markup.sanitize import safe_spec

__all__ = ["Chart", "to_spec", "vegalite_version"]

Chart = alt.TopLevelMixin


def to_spec(chart: Chart) -> dict[str, Any]:
    """The chart's Vega-Lite spec as a dict, without the ``$schema`` URL (nothing to fetch), safe to render."""
    spec = chart.to_dict()
    spec.pop("$schema", None)
    return safe_spec(spec)


def vegalite_version() -> str | None:
    """The Vega-Lite version Altair writes, as vl-convert spells it (``"v6.4"``), if vl-convert has it."""
    import vl_convert as vlc

    major_minor = "v" + ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known = {f"v{v}" for v in vlc.get_vegalite_versions()}
    return major_minor if major_minor in known else None
