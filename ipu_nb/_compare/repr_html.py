"""The notebook repr of a `Comparison`: summary lines and tables built with ipu_nb._markup, every string escaped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .align import STATUSES

if TYPE_CHECKING:
    from .comparison import Comparison

__all__ = ["ATTRIBUTION_ROWS", "comparison_html"]

#: Groups listed in the repr's attribution before the rest is folded into one row.
ATTRIBUTION_ROWS = 10

_TOTAL_COLUMNS = (("what", "", "text"), ("before", "before", "int"), ("after", "after", "int"), ("delta", "Δ", "int"))
_ATTRIBUTION_COLUMNS = (
    ("name", "term", "text"),
    ("term", "kind", "text"),
    ("cycles", "Δ phaseCycles", "int"),
    ("end", "running total", "int"),
)
_GROUP_COLUMNS = (
    ("name", "name", "text"),
    ("status", "status", "text"),
    ("phase_cycles_before", "phaseCycles before", "int"),
    ("phase_cycles_after", "after", "int"),
    ("phase_cycles_delta", "Δ", "int"),
    ("phase_cycles_ratio", "ratio", "num"),
    ("work_cycles_before", "workCycles before", "int"),
    ("work_cycles_after", "after", "int"),
    ("work_cycles_delta", "Δ", "int"),
    ("sample_count_before", "samples before", "int"),
    ("sample_count_after", "after", "int"),
    ("maximum_cycles_before", "max before", "int"),
    ("maximum_cycles_after", "after", "int"),
    ("name_before", "name before", "text"),
)


def comparison_html(c: Comparison) -> str:
    """Sources and clocks, totals before/after/Δ, status counts, the attribution, the top groups."""
    from .._markup.sanitize import html_text
    from .._markup.tables import MAX_ROWS, STYLE, summary_html, table_html

    s = c.summary
    sources = "".join(
        f'<div class="ipu-nb-summary">{side} <code>{html_text(p.path or "(in memory)")}</code></div>'
        for side, p in (("before", c.before), ("after", c.after))
    )
    head: list[tuple[str, object]] = [("by", c.by)]
    if c.by == "metadata":
        head.append(("metadataKey", c.query.metadata_key))
    head += [("at", "-" if c.query.at is None else c.query.at), ("groups", f"{c.groups.height:,}")]
    head += [(name, f"{s.status_counts[name]:,}") for name in STATUSES]
    clocks: list[tuple[str, object]] = [
        ("clockHz before", f"{s.clock_hz_before:,}"),
        ("after", f"{s.clock_hz_after:,}"),
        ("spanMs before", f"{s.span_ms_before:.6f}"),
        ("after", f"{s.span_ms_after:.6f}"),
    ]
    totals: list[dict[str, Any]] = [
        _total("matched samples", s.matched_sample_count_before, s.matched_sample_count_after),
        _total("samples", s.sample_count_before, s.sample_count_after),
        _total("spanCycles", s.span_cycles_before, s.span_cycles_after),
        _total("phaseCycles (total)", s.phase_cycles_before, s.phase_cycles_after),
        _total("phaseCycles (Σ groups)", s.group_phase_cycles_before, s.group_phase_cycles_after),
        _total("overlapCycles", s.overlap_cycles_before, s.overlap_cycles_after),
    ]
    attribution = c.attribution(ATTRIBUTION_ROWS)
    renames = "".join(
        f'<div class="ipu-nb-note">renamed {html_text(old)} → {html_text(new)}</div>' for old, new in c.renames
    )
    parts = [
        sources,
        summary_html(head),
        summary_html(clocks),
        renames,
        table_html(totals, _TOTAL_COLUMNS, total=len(totals)),
        f"<div>attribution of the phase-cycle delta ({s.phase_cycles_delta:+,} = groups + overlap)</div>",
        table_html(attribution.to_dicts(), _ATTRIBUTION_COLUMNS, total=attribution.height),
        "<div>groups by |Δ phaseCycles|</div>",
        table_html(c.groups.head(MAX_ROWS).to_dicts(), _GROUP_COLUMNS, total=c.groups.height),
    ]
    return f'{STYLE}<div class="ipu-nb-repr">{"".join(parts)}</div>'


def _total(what: str, before: int, after: int) -> dict[str, Any]:
    return {"what": what, "before": before, "after": after, "delta": after - before}
