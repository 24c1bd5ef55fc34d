"""The timeline's colours (kinds, kernels, exchange activities): one table for the charts, the reports and the widget.

The colours were chosen for the timeline: apart from each other in both themes and from the
greys the widget keeps for samples that do not match the filters.
"""

from __future__ import annotations

__all__ = [
    "ACTIVITY_LABELS",
    "ACTIVITY_PALETTE",
    "KERNEL_PALETTE",
    "KIND_PALETTE",
    "NO_KERNEL_COLOUR",
    "WINDOW_PALETTE",
    "palette",
]

#: ``{kind: "#rrggbb"}`` for every kind, in `ipu_nb._model.vocabulary.KINDS` order (a test holds them equal).
KIND_PALETTE: dict[str, str] = {
    "compute": "#3478c6",
    "exchange": "#e87a2c",
    "synchronization": "#d63e52",
    "idle": "#96ba78",
}

#: The colours of colour mode "kernel", class 1 first (`ipu_nb._model.kernel_classes` ranks the kernels): 31
#: chromatic colours, no two closer than ΔE*ab 24, none near grey or either theme's plot background (the
#: greys are "not matching" and "(no kernel)"). The first nine are Tableau 10's; the rest were picked
#: greedily for distance. The widget's dark theme draws them as they are.
# fmt: off
KERNEL_PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#7766dd", "#bb1177", "#ff99ff",
    "#776600", "#00ddaa", "#cccc88", "#00ccff", "#0099ff", "#994400",
    "#bbbbff", "#aacc44", "#eeaa77", "#007755", "#994455", "#aa55aa",
    "#ff6699", "#665599", "#446622", "#66dd77", "#00dddd", "#88cc99",
    "#668800",
)
# fmt: on
#: The light theme's colour of samples without a kernel in colour mode "kernel" (js/common/colors.ts
#: `GREYS.light.noKernel`, which a test holds equal).
NO_KERNEL_COLOUR = "#76767e"

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
#: What an exchange window holds (`ACTIVITY_PALETTE` without the synchronization, which the widget draws in
#: its kind colour): the colours of the widget's colour mode "activity".
WINDOW_PALETTE: dict[str, str] = {k: v for k, v in ACTIVITY_PALETTE.items() if k != "synchronization"}
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
