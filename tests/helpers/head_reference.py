"""A plain, obviously-correct reading of the newest runtime's profile tools, for the tests of `--semantics head`.

Written from the wording of docs/reference/head.md, on the test builders' `T`/`S` objects
(no polars, no `ipu_nb` code): one loop per rule, Python integers masked to 32 bits where the
runtime's counters wrap, a cycle-range walk over the
distinct boundaries for the role sweep (not a running sum), dictionaries for the calibration.
The union, the milliseconds and the JSON layout reuse `spec_reference` (the default semantics'
reference, itself independent of the package).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

import spec_reference
from builders import T

MASK = 2**32


def duration(s: Any) -> int:
    return (s.end - s.start) % MASK


def origin(tiles: Sequence[T]) -> int:
    """The reference tile's first start, moved back by the most negative signed 32-bit difference."""
    firsts = [t.samples[0].start % MASK for t in tiles if t.samples]
    if not firsts:
        return 0
    reference = firsts[0]
    deltas = []
    for start in firsts:
        d = (start - reference) % MASK
        deltas.append(d - MASK if d >= 2**31 else d)
    return (reference + min(deltas)) % MASK


def raw_offset(s: Any, base: int) -> int:
    return (s.start % MASK - base) % MASK


def crop(tiles: Sequence[T], shared_clock: bool) -> int:
    if shared_clock:
        return 0
    base = origin(tiles)
    return max((raw_offset(t.samples[0], base) for t in tiles if t.samples), default=0)


def cropped_samples(tiles: Sequence[T], shared_clock: bool) -> tuple[list[dict[str, Any]], int]:
    """Every sample left with cycles after the crop (file order), and the profile span."""
    base, cut = origin(tiles), crop(tiles, shared_clock)
    kept: list[dict[str, Any]] = []
    span = 0
    for t in tiles:
        for s in t.samples:
            raw = raw_offset(s, base)
            end = max(raw + duration(s) - cut, 0)
            offset = max(raw - cut, 0)
            span = max(span, end)
            if end - offset == 0:
                continue
            kept.append(
                {
                    "index": len(kept),
                    "tile": t.tile,
                    "offset": offset,
                    "duration": end - offset,
                    "sample": s,
                }
            )
    return kept, span


def group_of(c: dict[str, Any], by: str) -> tuple[str, dict[str, str]]:
    s = c["sample"]
    if by == "kind":
        return s.kind, {}
    if by == "kernel":
        return (s.kernel if s.kernel else "(no kernel)"), {}
    if by == "operation":
        return s.operation, {}
    if by == "phase":
        return f"phase {s.phase}/{s.epoch}", {"phase": str(s.phase), "epoch": str(s.epoch)}
    if by == "tile":
        return f"tile {c['tile']}", {"physicalTile": str(c["tile"])}
    value = "(missing)"
    for name, v in s.metadata:
        if name == "":
            value = v
            break
    return value, {"metadataKey": "", "metadataValue": value}


def query(tiles: Sequence[T], clock_hz: int, q: dict[str, Any]) -> dict[str, Any]:
    """The report as the runtime's JSON object. ``q``: group_by, sort_by, kind, kernel, operation_contains,
    tiles, phases, at_offset, shared_clock, limit, samples (missing keys at the runtime's defaults)."""
    kept, span = cropped_samples(tiles, bool(q.get("shared_clock")))
    at = q.get("at_offset")
    picked = []
    for c in kept:
        s = c["sample"]
        if q.get("kind") is not None and s.kind != q["kind"]:
            continue
        if q.get("kernel") is not None and s.kernel != q["kernel"]:
            continue
        if q.get("operation_contains") is not None and q["operation_contains"] not in s.operation:
            continue
        if q.get("tiles") and c["tile"] not in q["tiles"]:
            continue
        if q.get("phases") and s.phase not in q["phases"]:
            continue
        if at is not None and not (c["offset"] <= at < c["offset"] + c["duration"]):
            continue
        picked.append(c)
    by = q.get("group_by", "kernel")
    groups: dict[str, dict[str, Any]] = {}
    for c in picked:
        name, dims = group_of(c, by)
        groups.setdefault(name, {"dims": dims, "members": []})["members"].append(c)
    rows = []
    for name, g in groups.items():
        members = g["members"]
        durations = sorted(c["duration"] for c in members)
        n = len(durations)
        phase_cycles = spec_reference.union_length([(c["offset"], c["offset"] + c["duration"]) for c in members])
        work = sum(durations)
        rows.append(
            {
                "name": name,
                "dimensions": dict(sorted(g["dims"].items())),
                "sampleCount": n,
                "tileCount": len({c["tile"] for c in members}),
                "phaseCount": len({(c["sample"].phase, c["sample"].epoch) for c in members}),
                "phaseCycles": phase_cycles,
                "phaseMs": spec_reference.ms(phase_cycles, clock_hz),
                "workCycles": work,
                "averageActiveTiles": float(work) / float(phase_cycles) if phase_cycles else 0.0,
                "meanCycles": float(work) / float(n),
                "p50Cycles": durations[(n - 1) * 50 // 100],
                "p95Cycles": durations[(n - 1) * 95 // 100],
                "maximumCycles": durations[-1],
                "firstOffset": min(c["offset"] for c in members),
                "lastOffset": max(c["offset"] + c["duration"] for c in members),
            }
        )
    key = {
        "phase-cycles": "phaseCycles",
        "work-cycles": "workCycles",
        "maximum-cycles": "maximumCycles",
        "samples": "sampleCount",
    }
    sort_by = q.get("sort_by", "phase-cycles")
    if sort_by == "name":
        rows.sort(key=lambda r: (r["name"].encode(), r["firstOffset"]))
    else:
        rows.sort(key=lambda r: (-r[key[sort_by]], r["firstOffset"], r["name"].encode()))
    limit = q.get("limit", 20)
    if limit:
        rows = rows[:limit]
    listed = sorted(picked, key=lambda c: (-c["duration"], c["tile"], c["offset"], c["index"]))[: q.get("samples", 0)]
    return {
        "clockHz": clock_hz,
        "tileCount": len(tiles),
        "sampleCount": sum(len(t.samples) for t in tiles),
        "matchedSampleCount": len(picked),
        "profileSpanCycles": span,
        "profileSpanMs": spec_reference.ms(span, clock_hz),
        "atOffset": at,
        "groups": rows,
        "samples": [
            {
                "physicalTile": c["tile"],
                "offset": c["offset"],
                "duration": c["duration"],
                "phase": c["sample"].phase,
                "epoch": c["sample"].epoch,
                "kind": c["sample"].kind,
                "operation": c["sample"].operation,
                "kernel": c["sample"].kernel,
                "metadata": [{"name": n, "value": v} for n, v in c["sample"].metadata],
            }
            for c in listed
        ],
    }


def to_json(report: dict[str, Any]) -> str:
    return spec_reference.to_json(report)


def to_text(report: dict[str, Any]) -> str:
    debug = spec_reference.debug_str
    lines = [
        "tiles=%d matched=%d/%d spanCycles=%d spanMs=%.6f"  # noqa: UP031
        % (
            report["tileCount"],
            report["matchedSampleCount"],
            report["sampleCount"],
            report["profileSpanCycles"],
            report["profileSpanMs"],
        )
    ]
    for g in report["groups"]:
        lines.append(
            f"name={debug(g['name'])} phases={g['phaseCount']} tiles={g['tileCount']} samples={g['sampleCount']} "
            f"timelineCycles={g['phaseCycles']} workCycles={g['workCycles']} "
            f"range={g['firstOffset']}..{g['lastOffset']} p95={g['p95Cycles']} max={g['maximumCycles']}"
        )
    for s in report["samples"]:
        lines.append(
            f"sample tile={s['physicalTile']} range={s['offset']}..{s['offset'] + s['duration']} "
            f"cycles={s['duration']} phase={s['phase']}/{s['epoch']} operation={debug(s['operation'])} "
            f"kernel={debug(s['kernel'])}"
        )
    return "\n".join(lines) + "\n"


# --- the role sweep and the exchange summary ---------------------------------------------------------


def roles(activities: Sequence[tuple[str, int, int]], window: int) -> dict[str, int]:
    """Cycles of each role in [0, window): each activity clamped to the window, then each stretch between two
    distinct boundaries (0, the window's end and the activities' ends) credited to the kinds covering it."""
    spans = []
    for kind, start, end in activities:
        lo, hi = min(start, window), min(end, window)
        if hi > lo:
            spans.append((kind, lo, hi))
    points = sorted({0, window, *(p for _, lo, hi in spans for p in (lo, hi))})
    out = {"send": 0, "receive": 0, "simultaneous": 0, "partnerBusy": 0, "idle": 0, "partnerBusyOnly": 0}
    for lo, hi in itertools.pairwise(points):
        open_kinds = {kind for kind, a, b in spans if a <= lo and hi <= b}
        length = hi - lo
        sending, receiving, waiting = "send" in open_kinds, "receive" in open_kinds, "partnerBusy" in open_kinds
        out["send"] += length * sending
        out["receive"] += length * receiving
        out["simultaneous"] += length * (sending and receiving)
        out["partnerBusy"] += length * waiting
        out["idle"] += length * (not (sending or receiving or waiting))
        out["partnerBusyOnly"] += length * (waiting and not (sending or receiving))
    return out


def exchange_summary(tiles: Sequence[T], clock_hz: int) -> dict[str, int]:
    base = origin(tiles)
    out = dict.fromkeys(
        (
            "exchangeSamples",
            "describedExchangeSamples",
            "sendIntervals",
            "receiveIntervals",
            "partnerBusyIntervals",
            "estimatedSendWorkCycles",
            "estimatedReceiveWorkCycles",
            "estimatedSimultaneousWorkCycles",
            "estimatedPartnerBusyWorkCycles",
            "estimatedExchangeIdleWorkCycles",
            "measuredExchangePhaseCycles",
            "scheduledExchangeEventCycles",
            "exchangeArrivalWaitCycles",
            "exchangePhaseBoundaryCycles",
        ),
        0,
    )
    phases: dict[tuple[int, int], list[int]] = {}
    for t in tiles:
        for s in t.samples:
            if s.kind != "exchange":
                continue
            out["exchangeSamples"] += 1
            if s.exchange_event_cycles == 0:
                continue
            start = raw_offset(s, base)
            end = start + duration(s)
            p = phases.setdefault((s.epoch, s.phase), [start, start, end, s.exchange_event_cycles])
            p[0], p[1], p[2], p[3] = (
                min(p[0], start),
                max(p[1], start),
                max(p[2], end),
                max(p[3], s.exchange_event_cycles),
            )
            if not s.activities:
                continue
            out["describedExchangeSamples"] += 1
            for kind, _, _ in s.activities:
                out[{"send": "sendIntervals", "receive": "receiveIntervals"}.get(kind, "partnerBusyIntervals")] += 1
            r = roles(s.activities, s.exchange_event_cycles)
            out["estimatedSendWorkCycles"] += r["send"]
            out["estimatedReceiveWorkCycles"] += r["receive"]
            out["estimatedSimultaneousWorkCycles"] += r["simultaneous"]
            out["estimatedPartnerBusyWorkCycles"] += r["partnerBusy"]
            out["estimatedExchangeIdleWorkCycles"] += r["idle"]
    for first, last, end, scheduled in phases.values():
        measured = max(end - last, 0)
        out["measuredExchangePhaseCycles"] += measured
        out["scheduledExchangeEventCycles"] += scheduled
        out["exchangeArrivalWaitCycles"] += last - first
        out["exchangePhaseBoundaryCycles"] += max(measured - scheduled, 0)
    head = {"clockHz": clock_hz, "tiles": len(tiles), "samples": sum(len(t.samples) for t in tiles)}
    return {**head, **out}


def summary_line(summary: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in summary.items()) + "\n"


# --- calibration ----------------------------------------------------------------------------------------

_U32 = re.compile(r"\+?[0-9]+")


def _parse_u32(text: str) -> int | None:
    if not _U32.fullmatch(text):
        return None
    value = int(text)
    return value if value < MASK else None


def calibration(profiles: Sequence[tuple[Sequence[T], int]], target: str, build_id: str) -> str:
    """The database file's text for (tiles, clock) profiles that share one clock."""
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[int]] = {}
    for tiles, _ in profiles:
        for t in tiles:
            for s in t.samples:
                if s.kind != "compute" or s.kernel == "":
                    continue
                invocations = 1
                for name, value in s.metadata:
                    if name == "invocations":
                        parsed = _parse_u32(value)
                        invocations = parsed if parsed is not None else 1
                        break
                invocations = max(invocations, 1)
                dims: dict[str, str] = {}
                for name, value in s.metadata:
                    if name not in ("reason", "value", "invocations"):
                        dims[name] = value
                cycles = -(-duration(s) // invocations)
                groups.setdefault((s.kernel, tuple(sorted(dims.items()))), []).append(cycles)
    measurements = []
    for (kernel, dimensions), all_cycles in sorted(
        groups.items(), key=lambda kv: (kv[0][0].encode(), _encoded(kv[0][1]))
    ):
        all_cycles.sort()
        n = len(all_cycles)
        measurements.append(
            {
                "key": {"kernel": kernel, "dimensions": dict(dimensions)},
                "samples": n,
                "minimumCycles": all_cycles[0],
                "medianCycles": all_cycles[(n - 1) * 50 // 100],
                "p95Cycles": all_cycles[(n - 1) * 95 // 100],
                "maximumCycles": all_cycles[-1],
            }
        )
    document = {
        "schemaVersion": 1,
        "target": target,
        "buildId": build_id,
        "clockHz": profiles[0][1],
        "measurements": measurements,
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _encoded(dims: tuple[tuple[str, str], ...]) -> list[tuple[bytes, bytes]]:
    return [(k.encode(), v.encode()) for k, v in dims]
