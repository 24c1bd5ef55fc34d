"""A deliberately plain, obviously-correct implementation of docs/reference/format.md#normalisation
and docs/reference/query.md, for property tests.

It works on the test builders' `T`/`S` objects directly (no polars, no `build_profile`)
and uses different algorithms from the query core on purpose: classic interval
merging for phaseCycles, Python sorting with key tuples, `decimal` for float layout
and the standard `json` module for the JSON skeleton. It also covers the ipu-nb
extensions (docs/reference/query.md#ipu-nb-extensions): ``operation``, ``window``
and ``clip``, written from their documented wording, cycle by cycle where that is
plainer.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from builders import T

MASK = 2**32


@dataclass
class Flat:
    index: int
    tile: int
    offset: int
    duration: int
    phase: int
    epoch: int
    kind: str
    operation: str
    kernel: str
    metadata: list[tuple[str, str]]


def flatten(tiles: Sequence[T]) -> list[Flat]:
    out: list[Flat] = []
    for t in tiles:
        if not t.samples:
            continue
        base = t.samples[0].start % MASK
        for s in t.samples:
            start, end = s.start % MASK, s.end % MASK
            out.append(
                Flat(
                    len(out),
                    t.tile,
                    (start - base) % MASK,
                    (end - start) % MASK,
                    s.phase,
                    s.epoch,
                    s.kind,
                    s.operation,
                    s.kernel,
                    list(s.metadata),
                )
            )
    return out


def ms(cycles: int, clock_hz: int) -> float:
    return (float(cycles) * 1000.0) / float(clock_hz) if clock_hz else 0.0


def overlaps(s: Flat, window: tuple[int, int]) -> bool:
    """Some cycle of the sample is in the window: it starts inside the window, or the window starts inside it."""
    lo, hi = window
    return s.duration > 0 and (lo <= s.offset < hi or s.offset <= lo < s.offset + s.duration)


def inside(s: Flat, window: tuple[int, int]) -> tuple[int, int]:
    """The part of an overlapping sample inside the window: its interval less what sticks out on either side."""
    lo, hi = window
    before = max(0, lo - s.offset)
    after = max(0, s.offset + s.duration - hi)
    return s.offset + before, s.offset + s.duration - after


def matches(s: Flat, q: dict[str, Any]) -> bool:
    if q.get("kind") is not None and s.kind != q["kind"]:
        return False
    if q.get("kernel") is not None and s.kernel != q["kernel"]:
        return False
    operations = q.get("operation")
    if isinstance(operations, str):
        operations = [operations]
    if operations and s.operation not in operations:
        return False
    if q.get("window") is not None and not overlaps(s, q["window"]):
        return False
    if q.get("operation_contains") is not None and q["operation_contains"] not in s.operation:
        return False
    if q.get("tiles") and s.tile not in q["tiles"]:
        return False
    if q.get("phases") and s.phase not in q["phases"]:
        return False
    for name, value in q.get("metadata", ()):
        if not any(n == name and (value is None or v == value) for n, v in s.metadata):
            return False
    at = q.get("at")
    return at is None or s.offset <= at < s.offset + s.duration


def group_of(s: Flat, q: dict[str, Any]) -> tuple[str, dict[str, str]]:
    by = q.get("group_by", "kernel")
    if by == "kind":
        return s.kind, {}
    if by == "kernel":
        return (s.kernel or "(no kernel)"), {}
    if by == "operation":
        return s.operation, {}
    if by == "phase":
        return f"phase {s.phase}/{s.epoch}", {"epoch": str(s.epoch), "phase": str(s.phase)}
    if by == "tile":
        return f"tile {s.tile}", {"physicalTile": str(s.tile)}
    key = q["metadata_key"]
    value = next((v for n, v in s.metadata if n == key), "(missing)")
    return value, {"metadataKey": key, "metadataValue": value}


def union_length(intervals: list[tuple[int, int]]) -> int:
    """Total length of the union, by merging sorted intervals (touching ones merge)."""
    total = 0
    current: list[int] | None = None
    for lo, hi in sorted(intervals):
        if hi <= lo:
            continue
        if current is None or lo > current[1]:
            if current is not None:
                total += current[1] - current[0]
            current = [lo, hi]
        else:
            current[1] = max(current[1], hi)
    if current is not None:
        total += current[1] - current[0]
    return total


def run(tiles: Sequence[T], clock_hz: int, q: dict[str, Any]) -> dict[str, Any]:
    """The whole report as the runtime's JSON object (plain Python values)."""
    flat = flatten(tiles)
    picked = [s for s in flat if matches(s, q)]
    window = q.get("window")
    clip = bool(q.get("clip"))

    def interval(s: Flat) -> tuple[int, int]:
        """What the statistics measure: the sample's interval, or with clip its part inside the window."""
        if not clip:
            return (s.offset, s.offset + s.duration)
        assert window is not None, "clip needs a window"
        return inside(s, window)

    def length(s: Flat) -> int:
        lo, hi = interval(s)
        return hi - lo

    groups: dict[str, dict[str, Any]] = {}
    for s in picked:
        name, dims = group_of(s, q)
        groups.setdefault(name, {"dims": dims, "samples": []})["samples"].append(s)
    rows: list[dict[str, Any]] = []
    for name, g in groups.items():
        members: list[Flat] = g["samples"]
        by_phase: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for s in members:
            by_phase.setdefault((s.phase, s.epoch), []).append(interval(s))
        phase_cycles = sum(union_length(v) for v in by_phase.values())
        work = sum(length(s) for s in members)
        d = sorted(length(s) for s in members)
        n = len(d)
        rows.append(
            {
                "name": name,
                "dimensions": dict(sorted(g["dims"].items())),
                "sampleCount": n,
                "tileCount": len({s.tile for s in members}),
                "phaseCount": len(by_phase),
                "phaseCycles": phase_cycles,
                "phaseMs": ms(phase_cycles, clock_hz),
                "workCycles": work,
                "averageActiveTiles": float(work) / float(phase_cycles) if phase_cycles else 0.0,
                "meanCycles": float(work) / float(n),
                "p50Cycles": d[(n - 1) * 50 // 100],
                "p95Cycles": d[(n - 1) * 95 // 100],
                "maximumCycles": d[n - 1],
                "firstOffset": min(interval(s)[0] for s in members),
                "lastOffset": max(interval(s)[1] for s in members),
            }
        )
    sort_by = q.get("sort_by", "phase-cycles")
    names = {"phase-cycles": "phaseCycles", "work-cycles": "workCycles", "maximum-cycles": "maximumCycles"}
    if sort_by == "name":
        rows.sort(key=lambda r: (r["name"].encode(), r["firstOffset"]))
    else:
        field = names.get(sort_by, "sampleCount")
        rows.sort(key=lambda r: (-r[field], r["firstOffset"], r["name"].encode()))
    limit = q.get("limit", 20)
    if limit:
        rows = rows[:limit]
    longest = sorted(picked, key=lambda s: (-length(s), s.tile, s.offset, s.index))[: q.get("samples", 0)]
    span = max((s.offset + s.duration for s in flat), default=0)
    report: dict[str, Any] = {
        "clockHz": clock_hz,
        "tileCount": len(tiles),
        "sampleCount": len(flat),
        "matchedSampleCount": len(picked),
        "profileSpanCycles": span,
        "profileSpanMs": ms(span, clock_hz),
        "atOffset": q.get("at"),
    }
    if window is not None:
        report["window"] = {"start": window[0], "end": window[1], "clip": clip}
    return {
        **report,
        "groups": rows,
        "samples": [
            {
                "physicalTile": s.tile,
                "offset": s.offset,
                "duration": s.duration,
                **({"clippedCycles": length(s)} if clip else {}),
                "phase": s.phase,
                "epoch": s.epoch,
                "kind": s.kind,
                "operation": s.operation,
                "kernel": s.kernel,
                "metadata": [{"name": n, "value": v} for n, v in s.metadata],
            }
            for s in longest
        ],
    }


# --- rendering: docs/reference/query.md#json-output, docs/reference/query.md#text-output


def float_text(x: float) -> str:
    """serde_json's float layout via `decimal`: plain for 1e-5 <= |x| < 1e16, else `de±x`."""
    if x == 0:
        return "0.0"
    d = Decimal(repr(x)).normalize()
    if Decimal("1e-5") <= abs(d) < Decimal("1e16"):
        text = format(d, "f")
        return text if "." in text else text + ".0"
    return format(d, "e").replace("E", "e")


def to_json(report: dict[str, Any]) -> str:
    marks: dict[str, str] = {}

    def mark(value: Any) -> Any:
        if isinstance(value, float):
            key = f"@@float{len(marks)}@@"
            marks[key] = float_text(value)
            return key
        if isinstance(value, dict):
            return {k: mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    text = json.dumps(mark(report), indent=2, ensure_ascii=False)
    return re.sub(r'"(@@float\d+@@)"', lambda m: marks[m.group(1)], text) + "\n"


_SHORT = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", '"': '\\"', "\\": "\\\\"}


def debug_str(text: str) -> str:
    """Rust `{:?}` for the characters the property tests generate."""
    out = []
    for c in text:
        if c in _SHORT:
            out.append(_SHORT[c])
        elif unicodedata.category(c)[0] in "CZM" and c != " ":
            out.append("\\u{%x}" % ord(c))  # noqa: UP031
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def to_text(report: dict[str, Any]) -> str:
    at = report["atOffset"]
    window = report.get("window")
    shown = ""
    if window is not None:
        shown = " window=%d:%d clip=%s" % (window["start"], window["end"], "true" if window["clip"] else "false")  # noqa: UP031
    lines = [
        "tiles=%d samples=%d/%d spanCycles=%d spanMs=%.6f clockHz=%d at=%s%s"  # noqa: UP031  (C printf, docs/reference/query.md#header-line)
        % (
            report["tileCount"],
            report["matchedSampleCount"],
            report["sampleCount"],
            report["profileSpanCycles"],
            report["profileSpanMs"],
            report["clockHz"],
            "-" if at is None else str(at),
            shown,
        ),
        "name\tphases\ttiles\tsamples\tphaseCycles\tphaseMs\tworkCycles\tavgActiveTiles\tmean\tp50\tp95\tmax",
    ]
    for g in report["groups"]:
        lines.append(
            "%s\t%d\t%d\t%d\t%d\t%.6f\t%d\t%.2f\t%.2f\t%d\t%d\t%d"  # noqa: UP031
            % (
                g["name"],
                g["phaseCount"],
                g["tileCount"],
                g["sampleCount"],
                g["phaseCycles"],
                g["phaseMs"],
                g["workCycles"],
                g["averageActiveTiles"],
                g["meanCycles"],
                g["p50Cycles"],
                g["p95Cycles"],
                g["maximumCycles"],
            )
        )
    for s in report["samples"]:
        meta = json.dumps(s["metadata"], ensure_ascii=False, separators=(",", ":"))
        clipped = f" clippedCycles={s['clippedCycles']}" if "clippedCycles" in s else ""
        lines.append(
            f"sample tile={s['physicalTile']} offset={s['offset']} duration={s['duration']}{clipped} "
            f"phase={s['phase']}/{s['epoch']} kind={s['kind']} kernel={debug_str(s['kernel'])} "
            f"operation={debug_str(s['operation'])} metadata={meta}"
        )
    return "\n".join(lines) + "\n"
