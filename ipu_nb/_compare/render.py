"""`profile-diff` output: a stable tab-separated text table and pretty JSON (docs/reference/compare.md).

Conventions follow `profile-query` (ipu_nb/_query/render.py): integers plain, ``%.6f`` ms,
``%.2f`` means, group names raw in the table, camelCase JSON keys, floats written as
serde_json writes them. Added here: deltas always signed (``+0``), ratios ``%.4f``, and
``-`` for a value a side does not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._model.vocabulary import camel
from .._query.render import pretty_json, rust_debug_str
from .align import FIELDS, STATUSES

if TYPE_CHECKING:
    import polars as pl

    from .comparison import Comparison

__all__ = ["TABLE_COLUMNS", "comparison_json", "comparison_records", "comparison_text"]

#: The text table's columns: (heading, groups column, format).
TABLE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("name", "name", "raw"),
    ("status", "status", "raw"),
    ("phaseCyclesBefore", "phase_cycles_before", "int"),
    ("phaseCyclesAfter", "phase_cycles_after", "int"),
    ("phaseCyclesDelta", "phase_cycles_delta", "signed"),
    ("phaseCyclesRatio", "phase_cycles_ratio", "4f"),
    ("workCyclesBefore", "work_cycles_before", "int"),
    ("workCyclesAfter", "work_cycles_after", "int"),
    ("workCyclesDelta", "work_cycles_delta", "signed"),
    ("phasesBefore", "phase_count_before", "int"),
    ("phasesAfter", "phase_count_after", "int"),
    ("tilesBefore", "tile_count_before", "int"),
    ("tilesAfter", "tile_count_after", "int"),
    ("samplesBefore", "sample_count_before", "int"),
    ("samplesAfter", "sample_count_after", "int"),
    ("meanBefore", "mean_cycles_before", "2f"),
    ("meanAfter", "mean_cycles_after", "2f"),
    ("p50Before", "p50_cycles_before", "int"),
    ("p50After", "p50_cycles_after", "int"),
    ("p95Before", "p95_cycles_before", "int"),
    ("p95After", "p95_cycles_after", "int"),
    ("maxBefore", "maximum_cycles_before", "int"),
    ("maxAfter", "maximum_cycles_after", "int"),
)
_FLOAT_FIELDS = frozenset(("mean_cycles", "phase_ms"))


def _cell(value: Any, fmt: str) -> str:
    if value is None:
        return "-"
    if fmt == "signed":
        return f"{int(value):+d}"
    if fmt == "4f":
        return f"{float(value):.4f}"
    if fmt == "2f":
        return f"{float(value):.2f}"
    return str(value)


def _side(c: Comparison, side: str) -> dict[str, Any]:
    s = c.summary

    def get(name: str) -> Any:
        return getattr(s, f"{name}_{side}")

    return {
        "clockHz": get("clock_hz"),
        "tileCount": get("tile_count"),
        "sampleCount": get("sample_count"),
        "matchedSampleCount": get("matched_sample_count"),
        "profileSpanCycles": get("span_cycles"),
        "profileSpanMs": float(get("span_ms")),
        "phaseCycles": get("phase_cycles"),
        "groupPhaseCycles": get("group_phase_cycles"),
        "overlapCycles": get("overlap_cycles"),
    }


def _group(row: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "name": row["name"],
        "nameBefore": row["name_before"],
        "status": row["status"],
        "dimensions": {d["name"]: d["value"] for d in sorted(row["dimensions"], key=lambda d: d["name"])},
    }
    for field in (*FIELDS[:4], "phase_ms", *FIELDS[4:]):
        for side in ("before", "after"):
            value = row[f"{field}_{side}"]
            record[camel(f"{field}_{side}")] = float(value) if value is not None and field in _FLOAT_FIELDS else value
    record["phaseCyclesDelta"] = row["phase_cycles_delta"]
    record["workCyclesDelta"] = row["work_cycles_delta"]
    ratio = row["phase_cycles_ratio"]
    record["phaseCyclesRatio"] = None if ratio is None else float(ratio)
    return record


def comparison_records(c: Comparison, *, limit: int, sort_by: str) -> tuple[dict[str, Any], pl.DataFrame]:
    """The report object (JSON key order) and the listed groups, shared by the text and JSON renderings."""
    listed = c.top(limit, sort_by)
    s = c.summary
    unlisted = s.group_phase_cycles_delta - sum(int(v) for v in listed.get_column("phase_cycles_delta").to_list())
    report = {
        "by": c.by,
        "metadataKey": c.query.metadata_key if c.by == "metadata" else None,
        "atOffset": c.query.at,
        "renames": [{"from": old, "to": new} for old, new in c.renames],
        "before": _side(c, "before"),
        "after": _side(c, "after"),
        "delta": {
            "sampleCount": s.sample_count_delta,
            "matchedSampleCount": s.matched_sample_count_delta,
            "profileSpanCycles": s.span_cycles_delta,
            "phaseCycles": s.phase_cycles_delta,
            "groupPhaseCycles": s.group_phase_cycles_delta,
            "overlapTerm": s.overlap_term,
            "unlistedPhaseCycles": unlisted,
        },
        "groupCount": c.groups.height,
        "statusCounts": {name: s.status_counts[name] for name in STATUSES},
        "groups": [_group(row) for row in listed.iter_rows(named=True)],
    }
    return report, listed


def comparison_json(c: Comparison, *, limit: int = 20, sort_by: str = "phase-cycles") -> str:
    """Pretty JSON (2-space indent, serde_json floats), with its trailing newline."""
    report, _ = comparison_records(c, limit=limit, sort_by=sort_by)
    return pretty_json(report)


def _side_line(label: str, side: dict[str, Any]) -> str:
    return (
        f"{label} tiles={side['tileCount']} samples={side['matchedSampleCount']}/{side['sampleCount']} "
        f"spanCycles={side['profileSpanCycles']} spanMs={side['profileSpanMs']:.6f} clockHz={side['clockHz']} "
        f"phaseCycles={side['phaseCycles']} overlapCycles={side['overlapCycles']}"
    )


def comparison_text(c: Comparison, *, limit: int = 20, sort_by: str = "phase-cycles") -> str:
    """Header lines, any rename lines, the tab-separated table of the listed groups; trailing newline."""
    report, listed = comparison_records(c, limit=limit, sort_by=sort_by)
    d, counts = report["delta"], report["statusCounts"]
    key = f" metadataKey={rust_debug_str(report['metadataKey'])}" if report["metadataKey"] is not None else ""
    at = report["atOffset"]
    lines = [
        _side_line("before", report["before"]),
        _side_line("after", report["after"]),
        f"delta samples={d['matchedSampleCount']:+d}/{d['sampleCount']:+d} spanCycles={d['profileSpanCycles']:+d} "
        f"phaseCycles={d['phaseCycles']:+d} groupCycles={d['groupPhaseCycles']:+d} "
        f"overlapTerm={d['overlapTerm']:+d} unlistedCycles={d['unlistedPhaseCycles']:+d}",
        f"by={report['by']}{key} at={'-' if at is None else at} groups={report['groupCount']} "
        f"listed={listed.height} " + " ".join(f"{name}={counts[name]}" for name in STATUSES),
    ]
    lines += [f"rename from={rust_debug_str(r['from'])} to={rust_debug_str(r['to'])}" for r in report["renames"]]
    lines.append("\t".join(heading for heading, _, _ in TABLE_COLUMNS))
    for row in listed.iter_rows(named=True):
        lines.append("\t".join(_cell(row[column], fmt) for _, column, fmt in TABLE_COLUMNS))
    return "\n".join(lines) + "\n"
