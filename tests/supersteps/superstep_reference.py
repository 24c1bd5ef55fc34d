"""A plain, obviously-correct superstep analysis in pure Python, for property tests.

Built on `spec_reference` (docs/reference/format.md#normalisation, docs/reference/query.md#filters,
docs/reference/query.md#phase-cycles), with
dictionaries and loops instead of polars. Floats use the same operations in the same
order as the documented definitions, so single values compare exactly.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import spec_reference as ref
from builders import T

KINDS = ("compute", "exchange", "synchronization", "idle")


def ms(value: float, clock_hz: int) -> float:
    return (float(value) * 1000.0) / float(clock_hz) if clock_hz else 0.0


def picked(tiles: Sequence[T], q: dict[str, Any]) -> list[ref.Flat]:
    return [s for s in ref.flatten(tiles) if ref.matches(s, q)]


def _dominant(sums: dict[Any, int], key: Any) -> tuple[Any, int]:
    best = min(sums, key=lambda name: (-sums[name], key(name)))
    return best, sums[best]


def supersteps(tiles: Sequence[T], clock_hz: int, q: dict[str, Any]) -> list[dict[str, Any]]:
    """The `supersteps()` rows for filters `q`, in execution order (start, phase, epoch)."""
    logical: dict[int, int] = {}
    for index, t in enumerate(tiles):
        logical.setdefault(t.tile, index)
    steps: dict[tuple[int, int], list[ref.Flat]] = defaultdict(list)
    for s in picked(tiles, q):
        steps[(s.phase, s.epoch)].append(s)
    rows = []
    for (phase, epoch), members in steps.items():
        per_tile: dict[int, int] = defaultdict(int)
        for s in members:
            per_tile[s.tile] += s.duration
        critical_tile = min(per_tile, key=lambda t: (-per_tile[t], t))
        critical = per_tile[critical_tile]
        work = sum(per_tile.values())
        mean = float(work) / float(len(per_tile))
        recoverable = float(critical) - mean
        kinds = {k: sum(s.duration for s in members if s.kind == k) for k in KINDS}
        present = {s.kind for s in members}
        kernels: dict[str, int] = defaultdict(int)
        operations: dict[str, int] = defaultdict(int)
        for s in members:
            kernels[s.kernel] += s.duration
            operations[s.operation] += s.duration
        kernel, kernel_cycles = _dominant(kernels, lambda k: k.encode())
        operation, operation_cycles = _dominant(operations, lambda o: o.encode())
        span = ref.union_length([(s.offset, s.offset + s.duration) for s in members])
        rows.append(
            {
                "phase": phase,
                "epoch": epoch,
                "start": min(s.offset for s in members),
                "end": max(s.offset + s.duration for s in members),
                "span_cycles": span,
                "span_ms": ms(span, clock_hz),
                "sample_count": len(members),
                "tile_count": len(per_tile),
                "critical_tile": critical_tile,
                "critical_cycles": critical,
                "mean_tile_cycles": mean,
                "recoverable_cycles": recoverable,
                "recoverable_ms": ms(recoverable, clock_hz),
                "imbalance": float(critical) / mean if critical else 1.0,
                "work_cycles": work,
                **{f"{k}_cycles": kinds[k] for k in KINDS},
                "dominant_kind": min(present, key=lambda k: (-kinds[k], KINDS.index(k))),
                "dominant_kernel": kernel,
                "dominant_kernel_cycles": kernel_cycles,
                "dominant_operation": operation,
                "dominant_operation_cycles": operation_cycles,
            }
        )
    rows.sort(key=lambda r: (r["start"], r["phase"], r["epoch"]))
    return rows


def tile_balance(tiles: Sequence[T], clock_hz: int, q: dict[str, Any]) -> list[dict[str, Any]]:
    """The `tile_balance()` rows: critical count descending, then tile."""
    logical: dict[int, int] = {}
    for index, t in enumerate(tiles):
        logical.setdefault(t.tile, index)
    steps = {(r["phase"], r["epoch"]): r for r in supersteps(tiles, clock_hz, q)}
    own: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    kinds: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(KINDS, 0))
    for s in picked(tiles, q):
        own[s.tile][(s.phase, s.epoch)] += s.duration
        kinds[s.tile][s.kind] += s.duration
    rows = []
    for tile, per_step in own.items():
        critical = [k for k in per_step if steps[k]["critical_tile"] == tile]
        busy = sum(per_step.values())
        span = sum(steps[k]["span_cycles"] for k in per_step)
        rows.append(
            {
                "tile": tile,
                "tile_index": logical[tile],
                "phase_count": len(per_step),
                "critical_count": len(critical),
                "critical_share": float(len(critical)) / float(len(steps)),
                "recoverable_cycles": math.fsum(steps[k]["recoverable_cycles"] for k in critical),
                "busy_cycles": busy,
                "span_cycles": span,
                "busy_share": float(busy) / float(span) if span else 0.0,
                "slack_cycles": sum(steps[k]["critical_cycles"] - c for k, c in per_step.items()),
                **{f"{k}_cycles": kinds[tile][k] for k in KINDS},
            }
        )
    rows.sort(key=lambda r: (-r["critical_count"], r["tile"]))
    return rows


def replayed(tiles: Sequence[T], scale: dict[str, float], q: dict[str, Any]) -> dict[tuple[int, int], dict[str, int]]:
    """Per superstep: the what-if span and critical tile, replaying each tile's samples one by one."""
    members: dict[tuple[int, int], dict[int, list[ref.Flat]]] = defaultdict(lambda: defaultdict(list))
    for s in picked(tiles, q):  # file order: each tile's samples in execution order
        members[(s.phase, s.epoch)][s.tile].append(s)
    out = {}
    for key, per_tile in members.items():
        intervals, sums = [], {}
        for tile, samples in per_tile.items():
            shift, total = 0, 0
            for s in samples:
                duration = round(s.duration * scale[s.kernel]) if s.kernel in scale else s.duration
                start = s.offset + shift
                intervals.append((start, start + duration))
                shift += duration - s.duration
                total += duration
            sums[tile] = total
        critical = min(sums, key=lambda t: (-sums[t], t))
        out[key] = {
            "estimated_cycles": ref.union_length(intervals),
            "estimated_critical_tile": critical,
            "estimated_critical_cycles": sums[critical],
        }
    return out
