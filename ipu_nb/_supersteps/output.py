"""The text, JSON and Markdown forms of superstep tables and findings (docs/reference/supersteps.md#profile-supersteps,
docs/reference/supersteps.md#profile-findings).

JSON is written like `profile-query --json` (two-space indent, serde_json floats, UTF-8
kept); text is tab-separated with a header line, profile strings quoted as Rust's
``{:?}`` does, so a table never breaks on a tab or a newline in a name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from .._model.vocabulary import camel
from .._query.render import pretty_json, rust_debug_str  # the serde_json writer `profile-query --json` uses
from .structure import ms_values
from .text import cycles_text, ms_text, percent_text

if TYPE_CHECKING:
    from .detectors import Findings

__all__ = [
    "StepsReport",
    "findings_html",
    "findings_json",
    "findings_markdown",
    "findings_text",
    "steps_json",
    "steps_text",
]

#: The order `profile-supersteps` text prints the superstep columns in, and how.
_STEP_TEXT = (
    ("phase", None),
    ("start", "%d"),
    ("end", "%d"),
    ("spanCycles", "%d"),
    ("spanMs", "%.6f"),
    ("tiles", "%d"),
    ("samples", "%d"),
    ("criticalTile", "%d"),
    ("criticalCycles", "%d"),
    ("meanTileCycles", "%.2f"),
    ("recoverableCycles", "%.2f"),
    ("imbalance", "%.4f"),
    ("compute", "%d"),
    ("exchange", "%d"),
    ("sync", "%d"),
    ("idle", "%d"),
    ("kind", "%s"),
    ("kernel", "debug"),
    ("operation", "debug"),
)
#: Text column -> frame column, where the text header is shorter.
_TEXT_SOURCE = {
    "spanCycles": "span_cycles",
    "spanMs": "span_ms",
    "tiles": "tile_count",
    "samples": "sample_count",
    "criticalTile": "critical_tile",
    "criticalCycles": "critical_cycles",
    "meanTileCycles": "mean_tile_cycles",
    "recoverableCycles": "recoverable_cycles",
    "compute": "compute_cycles",
    "exchange": "exchange_cycles",
    "sync": "synchronization_cycles",
    "idle": "idle_cycles",
    "kind": "dominant_kind",
    "kernel": "dominant_kernel",
    "operation": "dominant_operation",
}


@dataclass(frozen=True)
class StepsReport:
    """What `profile-supersteps` prints: the profile's scalars, the table's totals and the rows shown."""

    clock_hz: int
    tile_count: int
    sample_count: int
    matched_sample_count: int
    profile_span_cycles: int
    at_offset: int | None
    steps: pl.DataFrame  # every superstep, in execution order (the totals are over these)
    shown: pl.DataFrame  # the rows to print, sorted and cut

    def scalars(self) -> dict[str, Any]:
        total = int(self.steps.get_column("span_cycles").sum())
        ms = ms_values(pl.Series([self.profile_span_cycles, total], dtype=pl.Int64), self.clock_hz).to_list()
        return {
            "clockHz": self.clock_hz,
            "tileCount": self.tile_count,
            "sampleCount": self.sample_count,
            "matchedSampleCount": self.matched_sample_count,
            "profileSpanCycles": self.profile_span_cycles,
            "profileSpanMs": ms[0],
            "atOffset": self.at_offset,
            "superstepCount": self.steps.height,
            "stepCycles": total,
            "stepMs": ms[1],
            "recoverableCycles": float(self.steps.get_column("recoverable_cycles").sum()),
        }


def steps_json(report: StepsReport) -> str:
    """`profile-supersteps --json`: the scalars, then ``supersteps``: one object per row, camelCase keys."""
    rows = [{camel(k): v for k, v in row.items()} for row in report.shown.iter_rows(named=True)]
    return pretty_json({**report.scalars(), "supersteps": rows})


def steps_text(report: StepsReport) -> str:
    """`profile-supersteps` text: a header line, then a tab-separated table in `_STEP_TEXT` order."""
    s = report.scalars()
    at = "-" if s["atOffset"] is None else str(s["atOffset"])
    lines = [
        f"tiles={s['tileCount']} samples={s['matchedSampleCount']}/{s['sampleCount']} "
        f"supersteps={s['superstepCount']} shown={report.shown.height} spanCycles={s['profileSpanCycles']} "
        f"spanMs={s['profileSpanMs']:.6f} stepCycles={s['stepCycles']} "
        f"recoverableCycles={s['recoverableCycles']:.2f} clockHz={s['clockHz']} at={at}",
        "\t".join(name for name, _ in _STEP_TEXT),
    ]
    for row in report.shown.iter_rows(named=True):
        cells = []
        for name, style in _STEP_TEXT:
            if name == "phase":
                cells.append(f"{row['phase']}/{row['epoch']}")
                continue
            value = row[_TEXT_SOURCE.get(name, name)]
            cells.append(rust_debug_str(value) if style == "debug" else style % value)
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def _findings_scalars(found: Findings) -> dict[str, Any]:
    ms = ms_values(pl.Series([found.profile_span_cycles], dtype=pl.Int64), found.clock_hz).item()
    return {
        "clockHz": found.clock_hz,
        "tileCount": found.tile_count,
        "sampleCount": found.sample_count,
        "profileSpanCycles": found.profile_span_cycles,
        "profileSpanMs": ms,
    }


def findings_json(found: Findings) -> str:
    """`profile-findings --json`: scalars, thresholds, then one object per finding, best first."""
    items = [{**f.record(rank), "state": f.state} for rank, f in enumerate(found.items, 1)]
    thresholds: Mapping[str, Any] = {camel(k): v for k, v in found.thresholds.items()}
    return pretty_json({**_findings_scalars(found), "thresholds": thresholds, "findings": items})


def findings_text(found: Findings) -> str:
    """`profile-findings` text: a header line, then ``rank category cycles ms share finding query`` rows."""
    s = _findings_scalars(found)
    lines = [
        f"tiles={s['tileCount']} samples={s['sampleCount']} spanCycles={s['profileSpanCycles']} "
        f"spanMs={s['profileSpanMs']:.6f} clockHz={s['clockHz']} findings={len(found.items)}",
        "rank\tcategory\tcycles\tms\tshare\tfinding\tquery",
    ]
    for rank, f in enumerate(found.items, 1):
        lines.append(f"{rank}\t{f.category}\t{f.cycles}\t{f.ms:.6f}\t{f.share:.6f}\t{f.message}\t{f.flags}")
    return "\n".join(lines) + "\n"


_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_MARKUP = frozenset("\\`*_[]()|~!#$")


def markdown_text(text: str) -> str:
    """`text` as literal Markdown: HTML-special characters as entities, markup characters backslash-escaped."""
    return "".join(_ENTITIES.get(c) or ("\\" + c if c in _MARKUP else c) for c in text)


def markdown_code(text: str) -> str:
    """`text` as an inline code span (nothing inside is markup or HTML), safe in a table cell."""
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text.replace('|', chr(92) + '|')} {fence}"


def findings_markdown(found: Findings) -> str:
    """A Markdown table of the findings, best first, with the query flags that show each one."""
    if not found.items:
        return "No findings above the thresholds.\n"
    lines = ["| # | finding | cycles | ms | share | query |", "|---:|---|---:|---:|---:|---|"]
    for rank, f in enumerate(found.items, 1):
        lines.append(
            f"| {rank} | {markdown_text(f.message)} | {cycles_text(f.cycles)} | {ms_text(f.ms)} | "
            f"{markdown_text(percent_text(f.share))} | {markdown_code(f.flags)} |"
        )
    return "\n".join(lines) + "\n"


#: The columns of the findings table in HTML: (field, heading, cell format of `ipu_nb._markup.tables`).
_HTML_COLUMNS = (
    ("rank", "#", "int"),
    ("category", "category", "text"),
    ("message", "finding", "wrap"),
    ("cycles", "cycles at stake", "int"),
    ("ms", "ms", "text"),
    ("share", "of the span", "text"),
    ("flags", "profile-query flags", "code"),
)


def findings_html(found: Findings) -> str:
    """The findings as an escaped HTML block: a summary line, then one table row per finding, best first."""
    from .._markup.tables import STYLE, summary_html, table_html

    s = _findings_scalars(found)
    summary = summary_html(
        [
            ("findings", f"{len(found.items):,}"),
            ("tiles", f"{s['tileCount']:,}"),
            ("samples", f"{s['sampleCount']:,}"),
            ("spanCycles", f"{s['profileSpanCycles']:,}"),
            ("spanMs", f"{s['profileSpanMs']:.6f}"),
        ]
    )
    rows = [
        {**f.record(rank), "ms": ms_text(f.ms), "share": percent_text(f.share)} for rank, f in enumerate(found.items, 1)
    ]
    if not rows:
        body = '<div class="ipu-nb-note">No findings above the thresholds.</div>'
    else:
        body = table_html(rows, _HTML_COLUMNS, total=len(rows))
    return f'{STYLE}<div class="ipu-nb-repr ipu-nb-findings">{summary}{body}</div>'
