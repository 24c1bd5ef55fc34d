"""The kind colours: one table for the charts, the reports and the widget (which derives its dark theme from it).

The colours were chosen for the timeline: apart from each other in both themes and from the
greys the widget keeps for samples that do not match the filters.
"""

from __future__ import annotations

from .vocabulary import KINDS

__all__ = ["KIND_PALETTE", "palette"]

#: ``{kind: "#rrggbb"}`` for every kind, in `KINDS` order.
KIND_PALETTE: dict[str, str] = {
    "compute": "#3478c6",
    "exchange": "#e87a2c",
    "synchronization": "#d63e52",
    "idle": "#96ba78",
}
assert tuple(KIND_PALETTE) == KINDS


def palette() -> dict[str, str]:
    """Each sample kind's colour as ``"#rrggbb"``, the same in every chart, report and widget.

    A new dict each call, so changing it changes nothing else.

    >>> palette()["compute"]
    '#3478c6'
    >>> sorted(palette()) == sorted(["compute", "exchange", "synchronization", "idle"])
    True
    """
    return dict(KIND_PALETTE)
