"""``ipu_nb.save_report(path, widget)``: the timeline of the view, the area's summary, the groups, escaped."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import altair as alt
from builders import S, T, profile_from_tiles

import ipu_nb

HOSTILE = "<script>alert(1)</script>"


def _profile() -> Any:
    tiles = [
        T(phys, [S(0, 400, kind="compute", operation=HOSTILE, kernel=HOSTILE, phase=1), S(400, 600, kind="idle")])
        for phys in (0, 2)
    ]
    return profile_from_tiles(tiles)


def test_report_of_a_widget_holds_chart_summary_groups_escaped(tmp_path: Path) -> None:
    widget = ipu_nb.ProfileWidget(_profile())
    widget.add_marker(100, label=HOSTILE)
    plain = ipu_nb.save_report(tmp_path / "plain.html", widget, static=True).read_text(encoding="utf-8")
    assert "<svg" in plain and "Timeline of offsets 0–600" in plain
    assert "Selected area" not in plain
    assert "Groups by kernel" in plain and "Markers:" in plain
    assert HOSTILE not in plain and html.escape(HOSTILE) in plain

    widget.selection = {"start": 100, "end": 300, "tiles": [2]}
    selected = ipu_nb.save_report(tmp_path / "area.html", widget).read_text(encoding="utf-8")
    assert "Selected area: offsets 100–300 on 1 tile, 1 samples" in selected
    assert selected.count('class="ipu-nb-table"') >= 3  # the area's groups, the groups, the markers
    assert 'class="ipu-nb-spec"' in selected
    assert HOSTILE not in selected


def test_the_report_chart_follows_the_widget_colouring_where_the_chart_draws_it() -> None:
    from ipu_nb import charts
    from ipu_nb._report.view import view_items

    widget = ipu_nb.ProfileWidget(_profile())
    widget.color_by = "kernel"
    caption, chart = view_items(widget)[:2]
    assert caption == "Timeline of offsets 0–600:" and isinstance(chart, alt.Chart)
    assert chart.to_dict() == charts.timeline(widget, color_by="kernel").to_dict()
    assert chart.to_dict() != charts.timeline(widget, color_by="kind").to_dict()

    widget.color_by = "activity"
    caption, chart = view_items(widget)[:2]
    assert caption == "Timeline of offsets 0–600:" and isinstance(chart, alt.Chart)
    assert chart.to_dict() == charts.timeline(widget, color_by="activity").to_dict()
