"""The kind colours: one table for the charts, the reports and the widget (which derives its dark theme from it).

The colours were chosen for the timeline: apart from each other in both themes and from the
greys the widget keeps for samples that do not match the filters.
"""

from __future__ import annotations

__all__ = ["ACTIVITY_LABELS", "ACTIVITY_PALETTE", "KIND_PALETTE", "palette"]

#: ``{kind: "#rrggbb"}`` for every kind, in `ipu_nb._model.vocabulary.KINDS` order (a test holds them equal).
KIND_PALETTE: dict[str, str] = {
    "compute": "#3478c6",
    "exchange": "#e87a2c",
    "synchronization": "#d63e52",
    "idle": "#96ba78",
}

#: The newest runtime's report colours of what an exchange window holds (its renderer's table): a send
#: (the colour of exchange too), a receive, both at once, a busy partner, an idle window, and the
#: synchronization (boundary wait) before it. ``{activity: "#rrggbb"}``, bottom of a stack first.
ACTIVITY_PALETTE: dict[str, str] = {
    "synchronization": "#c58b24",
    "send": "#17854c",
    "receive": "#287db2",
    "sendReceive": "#6b5596",
    "partnerBusy": "#9a547f",
    "exchangeIdle": "#8ebeb4",
}
#: The renderer's legend for each of `ACTIVITY_PALETTE`'s activities.
ACTIVITY_LABELS: dict[str, str] = {
    "synchronization": "sync",
    "send": "tx",
    "receive": "rx",
    "sendReceive": "tx/rx",
    "partnerBusy": "partner bus",
    "exchangeIdle": "exchange idle",
}
assert tuple(ACTIVITY_LABELS) == tuple(ACTIVITY_PALETTE)


def palette() -> dict[str, str]:
    """Each sample kind's colour as ``"#rrggbb"``, the same in every chart, report and widget.

    A new dict each call, so changing it changes nothing else.

    >>> palette()["compute"]
    '#3478c6'
    >>> sorted(palette()) == sorted(["compute", "exchange", "synchronization", "idle"])
    True
    """
    return dict(KIND_PALETTE)
