"""A plain-Python comparison of two builder profiles, on top of `spec_reference` (no polars, no ipu_nb).

It follows docs/reference/compare.md literally: groups keyed by name (before names
renamed), statuses from the nine fields, deltas with an absent side as 0, the ratio,
the sort (|phase delta| desc, then name by code point), totals as per-phase unions
summed, and the attribution terms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import spec_reference as ref
from builders import T

FIELDS = {
    "sample_count": "sampleCount",
    "tile_count": "tileCount",
    "phase_count": "phaseCount",
    "phase_cycles": "phaseCycles",
    "work_cycles": "workCycles",
    "mean_cycles": "meanCycles",
    "p50_cycles": "p50Cycles",
    "p95_cycles": "p95Cycles",
    "maximum_cycles": "maximumCycles",
}


def groups_by_name(tiles: Sequence[T], clock_hz: int, flags: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    report = ref.run(tiles, clock_hz, {**flags, "limit": 0, "samples": 0})
    return {g["name"]: g for g in report["groups"]}


def compare_rows(
    before: Mapping[str, dict[str, Any]], after: Mapping[str, dict[str, Any]], renames: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Expected ``Comparison.groups`` rows (the contract columns plus ``name_before``), in order."""
    renamed = {renames.get(name, name): (name, g) for name, g in before.items()}
    rows = []
    for name in set(renamed) | set(after):
        old, b = renamed.get(name, (None, None))
        a = after.get(name)
        row: dict[str, Any] = {"name": name}
        for field, key in FIELDS.items():
            row[f"{field}_before"] = None if b is None else b[key]
            row[f"{field}_after"] = None if a is None else a[key]
        if b is None:
            row["status"] = "added"
        elif a is None:
            row["status"] = "removed"
        elif all(b[key] == a[key] for key in FIELDS.values()):
            row["status"] = "unchanged"
        else:
            row["status"] = "changed"
        pb = 0 if b is None else b["phaseCycles"]
        pa = 0 if a is None else a["phaseCycles"]
        row["phase_cycles_delta"] = pa - pb
        row["work_cycles_delta"] = (0 if a is None else a["workCycles"]) - (0 if b is None else b["workCycles"])
        row["phase_cycles_ratio"] = float(pa) / float(pb) if pb else None
        row["name_before"] = old
        rows.append(row)
    rows.sort(key=lambda r: (-abs(r["phase_cycles_delta"]), [ord(c) for c in r["name"]]))
    return rows


def total_phase_cycles(tiles: Sequence[T], flags: Mapping[str, Any]) -> int:
    """Σ over (phase, epoch) of the union of every matching sample's interval, straight from the samples."""
    per_phase: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for s in ref.flatten(tiles):
        if ref.matches(s, dict(flags)):
            per_phase.setdefault((s.phase, s.epoch), []).append((s.offset, s.offset + s.duration))
    return sum(ref.union_length(v) for v in per_phase.values())
