"""A widget's view as report items: the timeline chart of its view, the selected area's summary and groups.

`ipu_nb.save_report` expands a `ProfileWidget` into these, in order: ``charts.timeline(widget)``
(its window, filters, rows and colouring),
when an area is selected a line saying where it is and its ``selection_groups``, then the
``groups`` table, and the markers when there are any.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_widget", "view_items"]


def is_widget(item: object) -> bool:
    """Whether `item` is a `ProfileWidget` (by name: a report never loads the widget module itself)."""
    return any(t.__name__ == "ProfileWidget" for t in type(item).__mro__)


def _area_line(widget: Any) -> str:
    selection = widget.selection
    tiles = selection["tiles"]
    on = "every tile" if tiles is None else f"{len(tiles):,} tile{'s' if len(tiles) != 1 else ''}"
    rows = widget.selection_samples.height
    return (
        f"Selected area: offsets {selection['start']:,}–{selection['end']:,} on {on}, "
        f"{rows:,} samples; its groups by {widget.group_by}:"
    )


def view_items(widget: Any) -> list[object]:
    """The report items showing `widget`'s current view (see the module docstring)."""
    from .._charts.timeline import timeline

    start, end = widget.view
    items: list[object] = [f"Timeline of offsets {start:,}–{end:,}:", timeline(widget, color_by=widget.color_by)]
    if widget.selection is not None:
        items += [_area_line(widget), widget.selection_groups]
    items += [f"Groups by {widget.group_by}:", widget.groups]
    if widget.marker_rows:
        items += ["Markers:", widget.markers]
    return items
