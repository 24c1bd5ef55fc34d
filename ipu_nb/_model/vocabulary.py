"""The names every layer shares: kinds, group-bys, sort keys, colourings, placeholders and report fields.

One list each, read by the query core, the CLI, the widget (which sends `widget_vocabulary`
to the front end), the charts and the analyses, so a new group-by or a renamed field
changes here and nowhere else.
"""

from __future__ import annotations

from typing import Literal, TypedDict, get_args

from .palette import ACTIVITY_LABELS, KERNEL_PALETTE, WINDOW_PALETTE, palette

__all__ = [
    "ACCOUNTING_PARTS",
    "COLOR_BYS",
    "COLOR_BY_LABELS",
    "FLAME_HIERARCHIES",
    "GROUP_BYS",
    "GROUP_FIELDS",
    "KINDS",
    "MISSING",
    "NO_KERNEL",
    "SAMPLE_FIELDS",
    "SCALAR_FIELDS",
    "SEMANTICS",
    "SORT_BYS",
    "SORT_COLUMNS",
    "STEP_KINDS",
    "GroupBy",
    "Kind",
    "Semantics",
    "SortBy",
    "VocabularyInfo",
    "camel",
    "widget_vocabulary",
]

#: A step kind, in the order `profile-query --kind` documents them.
Kind = Literal["compute", "exchange", "synchronization", "idle"]
GroupBy = Literal["kind", "kernel", "operation", "phase", "tile", "metadata"]
SortBy = Literal["phase-cycles", "work-cycles", "maximum-cycles", "samples", "name"]

#: ``--kind`` values (the values of `Kind`).
KINDS: tuple[str, ...] = get_args(Kind)
#: The same kinds in the file's `StepKind` enumerant order (the loader's Enum dtype, the timeline's colour classes).
STEP_KINDS: tuple[str, ...] = ("exchange", "compute", "synchronization", "idle")

#: ``--group-by`` values (the values of `GroupBy`).
GROUP_BYS: tuple[str, ...] = get_args(GroupBy)
#: ``--sort-by`` values (the values of `SortBy`; descending, except ``name``).
SORT_BYS: tuple[str, ...] = get_args(SortBy)
#: The `QueryResult.groups` column each numeric sort key orders by.
SORT_COLUMNS: dict[str, str] = {
    "phase-cycles": "phase_cycles",
    "work-cycles": "work_cycles",
    "maximum-cycles": "maximum_cycles",
    "samples": "sample_count",
}
#: Whose `profile-query` a query reproduces: ``ba7339c`` (the default, docs/reference/query.md) or
#: ``head``, the newest runtime (docs/reference/head.md).
Semantics = Literal["ba7339c", "head"]
#: The values of `Semantics`, the default first.
SEMANTICS: tuple[str, ...] = get_args(Semantics)
#: What the timeline can colour samples by ("activity": exchange windows split as the newest runtime draws them).
COLOR_BYS: tuple[str, ...] = ("kind", "kernel", "activity")
#: The newest runtime's accounting parts of an exchange sample: (name, kind it counts as). The flame graph
#: of colour mode "activity" shows the parts counted as another kind under that kind, by this name.
ACCOUNTING_PARTS: tuple[tuple[str, str], ...] = (
    ("exchange boundary wait", "synchronization"),
    ("exchange", "exchange"),
    ("exchange boundary sampling", "synchronization"),
)
#: How the front end names each colouring.
COLOR_BY_LABELS: dict[str, str] = {"kind": "kind", "kernel": "kernel", "activity": "exchange activity"}
#: The widget's flame-graph hierarchies: the level keys below the root, outermost first, "/" between
#: (the first is the default).
FLAME_HIERARCHIES: tuple[str, ...] = (
    "kind/kernel/phase/operation",
    "kind/kernel/operation/phase",
    "kind/operation/kernel",
)

#: The group name of samples with an empty kernel.
NO_KERNEL = "(no kernel)"
#: The group name of samples without the ``--metadata-key`` entry.
MISSING = "(missing)"

#: `QueryResult.groups` columns and the report's field for each, in the report's order.
GROUP_FIELDS: dict[str, str] = {
    "name": "name",
    "dimensions": "dimensions",
    "sample_count": "sampleCount",
    "tile_count": "tileCount",
    "phase_count": "phaseCount",
    "phase_cycles": "phaseCycles",
    "phase_ms": "phaseMs",
    "work_cycles": "workCycles",
    "average_active_tiles": "averageActiveTiles",
    "mean_cycles": "meanCycles",
    "p50_cycles": "p50Cycles",
    "p95_cycles": "p95Cycles",
    "maximum_cycles": "maximumCycles",
    "first_offset": "firstOffset",
    "last_offset": "lastOffset",
}
#: `QueryResult.samples` columns and the report's field for each, in the report's order.
#: ``clipped_cycles`` is there only for a clipped query (an ipu-nb extension).
SAMPLE_FIELDS: dict[str, str] = {
    "tile": "physicalTile",
    "offset": "offset",
    "duration": "duration",
    "clipped_cycles": "clippedCycles",
    "phase": "phase",
    "epoch": "epoch",
    "kind": "kind",
    "operation": "operation",
    "kernel": "kernel",
    "metadata": "metadata",
}
#: `QueryResult` attributes and the report's top-level field for each, in the report's order.
SCALAR_FIELDS: dict[str, str] = {
    "clock_hz": "clockHz",
    "tile_count": "tileCount",
    "sample_count": "sampleCount",
    "matched_sample_count": "matchedSampleCount",
    "profile_span_cycles": "profileSpanCycles",
    "profile_span_ms": "profileSpanMs",
    "at_offset": "atOffset",
}


def camel(name: str) -> str:
    """A column name as a report's JSON key: ``span_cycles`` -> ``spanCycles``, ``p50_cycles`` -> ``p50Cycles``."""
    head, *rest = name.split("_")
    return head + "".join(word.capitalize() for word in rest)


class VocabularyInfo(TypedDict):
    """The widget's ``info["vocabulary"]``."""

    kinds: list[str]
    group_bys: list[str]
    sort_bys: list[str]
    color_bys: list[str]
    flame_hierarchies: list[str]
    no_kernel: str
    missing: str
    #: ``{name: kind}``: the `ACCOUNTING_PARTS` counted as another kind than exchange (the flame graph's
    #: kernel name for them), so that focusing one selects the exchange samples they come from.
    accounting_parts: dict[str, str]
    #: ``{kind: "#rrggbb"}``: `palette.KIND_PALETTE`, the colours the front end draws kinds in (and darkens from).
    palette: dict[str, str]
    #: ``["#rrggbb", ...]``: `palette.KERNEL_PALETTE`, the colours of colour mode "kernel", class 1 first.
    kernel_palette: list[str]
    #: ``{part: "#rrggbb"}``: `palette.WINDOW_PALETTE`, what an exchange window holds in colour mode "activity".
    activity_palette: dict[str, str]
    #: The legend's name of each class of colour mode "activity" that has one (`palette.ACTIVITY_LABELS`).
    activity_labels: dict[str, str]
    #: How the controls name each of `color_bys`.
    color_by_labels: dict[str, str]


def widget_vocabulary() -> VocabularyInfo:
    """The lists and colours the widget's front end shows, sent in its ``info`` trait (TypeScript copies none)."""
    return {
        "kinds": list(KINDS),
        "group_bys": list(GROUP_BYS),
        "sort_bys": list(SORT_BYS),
        "color_bys": list(COLOR_BYS),
        "flame_hierarchies": list(FLAME_HIERARCHIES),
        "no_kernel": NO_KERNEL,
        "missing": MISSING,
        "accounting_parts": {name: kind for name, kind in ACCOUNTING_PARTS if kind != "exchange"},
        "palette": palette(),
        "kernel_palette": list(KERNEL_PALETTE),
        "activity_palette": dict(WINDOW_PALETTE),
        "activity_labels": dict(ACTIVITY_LABELS),
        "color_by_labels": dict(COLOR_BY_LABELS),
    }
