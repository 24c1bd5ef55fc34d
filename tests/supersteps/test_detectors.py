"""`findings()`: each category on a profile built to show it, numbers reproduced from the public API, escaping."""

from __future__ import annotations

import json
import math
from typing import Any

import polars as pl
import pytest
import superstep_strategies as strat
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings

from ipu_nb import Finding, Findings, Query, QueryError, findings, query, supersteps
from ipu_nb._supersteps.detectors import CATEGORIES, drained, finding_steps


def _straggler_tiles() -> list[T]:
    """8 tiles, 10 compute phases of 100 cycles; tile 5 takes 150 in phases 0–5."""
    tiles = []
    for tile in range(8):
        start, samples = 0, []
        for phase in range(10):
            cycles = 150 if tile == 5 and phase < 6 else 100
            samples.append(S(start, start + cycles, kernel="gemm", operation=f"block {phase}", phase=phase))
            start += cycles
        tiles.append(T(tile, samples))
    return tiles


def test_a_straggler_and_its_phases() -> None:
    found = findings(profile_from_tiles(_straggler_tiles()))
    assert isinstance(found, Findings) and all(isinstance(f, Finding) for f in found)
    # per phase 0-5: critical 150, mean (7·100 + 150) / 8 = 106.25, recoverable 43.75; 6 × 43.75 = 262.5 -> 262
    assert [(f.category, f.subject, f.cycles) for f in found] == [
        ("straggler-tile", "tile 5", 262),
        ("imbalanced-kernel", 'kernel "gemm"', 262),
        *[("imbalanced-phase", f"phase {p}/0", 44) for p in range(5)],  # five of six: the per-category cap
    ]
    straggler = found[0]
    assert straggler.message == (
        "tile 5 is critical in 60% of compute phases (6 of 10); balancing them would save 262 cycles "
        "(0.000175 ms, 20% of the profile span)"  # span: tile 5 ends at 6·150 + 4·100 = 1300
    )
    assert straggler.query == Query(kind="compute", tiles=(5,))
    assert straggler.flags == "--kind compute --tile 5"
    assert straggler.view == (0, 900)
    assert straggler.state == {
        "filters": {
            "kind": "compute",
            "kernel": None,
            "operation_contains": None,
            "tiles": [5],
            "phases": [],
            "metadata": [],
            "operation": [],  # the filters added to the query core after the widget's own keys
            "window": None,
        },
        "view": [0, 900],
    }
    assert (straggler.share, straggler.ms) == (262 / 1300, 262 * 1000.0 / 1_500_000_000)
    assert found[2].message == (
        'phase 0/0 (kernel "gemm") is imbalanced: tile 5 computes for 150 cycles against a mean of 106 over 8 '
        "tiles; balancing would save 44 cycles (0.0000293 ms, 3.4% of the profile span)"
    )
    assert found[2].flags == "--kind compute --phase 0"
    # tile 0 is critical (by the tie) in phases 6–9 with nothing to recover: no finding
    assert "tile 0" not in {f.subject for f in found}


def test_thresholds_select_and_cap() -> None:
    profile = profile_from_tiles(_straggler_tiles())
    assert len(findings(profile, per_category=0)) == 2 + 6
    assert len(findings(profile, limit=3)) == 3
    assert next(f.category for f in findings(profile, straggler_share=0.7)) == "imbalanced-kernel"
    assert next(f.category for f in findings(profile, min_critical_phases=7)) == "imbalanced-kernel"
    assert len(findings(profile, min_share=0.1)) == 2  # 130 cycles: the two 262s pass, the 44s do not
    assert len(findings(profile, min_share=1.0)) == 0
    for bad in (
        {"min_share": -0.1},
        {"min_share": 2},
        {"straggler_share": float("nan")},
        {"tail_ratio": 0.5},
        {"tail_ratio": math.inf},
        {"per_category": 1.5},
        {"limit": -1},
        {"min_critical_phases": 0},
        {"dominated_share": "half"},
        {"limit": True},
    ):
        with pytest.raises(QueryError):
            findings(profile, **bad)


def test_idle_tiles_exchange_stretch_and_long_tail() -> None:
    # tiles 0, 1 compute 100 in phase 0 while 2, 3 idle; phases 1-3 only exchange (200 each);
    # phase 4: kernel "t" on every tile, plus 16 more phases of "t" at 10 cycles on tile 0.
    tiles = []
    for tile in range(4):
        samples = [
            S(0, 100, kernel="k", phase=0) if tile < 2 else S(0, 5, "idle", kernel="", phase=0),
            *[S(100 + 200 * i, 300 + 200 * i, "exchange", kernel="", operation="x", phase=1 + i) for i in range(3)],
            S(700, 800, kernel="t", phase=4),
        ]
        if tile == 0:
            samples += [S(800 + 10 * i, 810 + 10 * i, kernel="t", phase=5 + i) for i in range(16)]
        tiles.append(T(tile, samples))
    profile = profile_from_tiles(tiles)
    found = {f.category: f for f in findings(profile, per_category=1)}
    idle = found["idle-tiles"]
    # phase 0: 200 cycles of compute over 2 tiles instead of 4: 100 − 50
    assert idle.cycles == 50 and idle.query == Query(kind="idle")
    assert idle.message.startswith("on average 2 of 4 tiles are idle while others compute, in 1 of 18 compute phases")
    stretch = found["exchange-dominated"]
    assert (stretch.subject, stretch.cycles, stretch.view) == ("phases 1/0 to 3/0", 600, (100, 700))
    assert stretch.message.startswith("phases 1/0 to 3/0 (3 supersteps) spend 100% of their time in exchange: 600")
    assert stretch.query == Query(kind="exchange", phases=(1, 2, 3))
    tail = found["long-tail-kernel"]
    # "t": 4 × 100 and 16 × 10; n = 20: p50 = d[9] = 10, p95 = d[18] = 100; phase 4's longest is 100
    assert tail.subject == 'kernel "t"' and tail.cycles == 100 - 10 and tail.view == (700, 800)
    assert tail.message.startswith('kernel "t" has a long tail: p95 100 cycles is 10.0× its p50 of 10; ')
    assert "sync-dominated" not in found


def test_nothing_to_find() -> None:
    balanced = profile_from_tiles([T(t, [S(0, 100, kernel="k")]) for t in range(4)])
    found = findings(balanced)
    assert len(found) == 0 and found.frame.height == 0
    assert found.to_markdown() == "No findings above the thresholds.\n"
    assert json.loads(found.to_json())["findings"] == []
    assert findings(profile_from_tiles([T(0, [])])).frame.columns == findings(balanced).frame.columns


def test_frame_markdown_and_repr() -> None:
    found = findings(profile_from_tiles(_straggler_tiles()))
    frame = found.frame
    assert frame.get_column("rank").to_list() == list(range(1, len(found) + 1))
    assert frame.row(0, named=True) | {"ms": None} == {
        "rank": 1,
        "category": "straggler-tile",
        "subject": "tile 5",
        "cycles": 262,
        "ms": None,
        "share": 262 / 1300,
        "message": found[0].message,
        "flags": "--kind compute --tile 5",
        "view_start": 0,
        "view_end": 900,
    }
    markdown = found.to_markdown().splitlines()
    assert markdown[0] == "| # | finding | cycles | ms | share | query |"
    assert markdown[2].startswith("| 1 | tile 5 is critical in 60% of compute phases \\(6 of 10\\); balancing")
    assert markdown[2].endswith("| 262 | 0.000175 | 20% | ` --kind compute --tile 5 ` |")
    assert len(markdown) == 2 + len(found)
    assert repr(found).splitlines()[1] == f"  1. [straggler-tile] {found[0].message}"


HOSTILE = "<img src=x onerror=alert(1)>|`*_[a](javascript:x)\t\n$x$"


def test_profile_strings_are_quoted_and_escaped() -> None:
    tiles = [T(t, [S(0, 100 if t else 200, kernel=HOSTILE, phase=p) for p in range(3)]) for t in range(4)]
    found = findings(profile_from_tiles(tiles))
    kernel = next(f for f in found if f.category == "imbalanced-kernel")
    assert '"<img src=x onerror=alert(1)>|`*_[a](javascript:x)\\t\\n$x$"' in kernel.message
    assert kernel.flags == "--kind compute --kernel $'<img src=x onerror=alert(1)>|`*_[a](javascript:x)\\x09\\x0a$x$'"
    markdown = found.to_markdown()
    for line in markdown.splitlines()[2:]:
        cells = line.replace("\\|", "").split("|")
        assert len(cells) == 8, line  # the pipes of the name never split a cell
        prose, code = "|".join(cells[:-2]), cells[-2].strip()
        assert "<" not in prose and "](" not in prose.replace("\\](", "") and "`" not in prose.replace("\\`", "")
        fence = code[: len(code) - len(code.lstrip("`"))]
        assert code.endswith(fence) and fence not in code[len(fence) : -len(fence)]  # one code span, inert
    text = found.to_text().splitlines()
    assert all(line.count("\t") == 6 for line in text[1:])
    assert len(text) == 2 + len(found)
    state = json.loads(found.to_json())["findings"][0]["state"]
    assert state["filters"]["kernel"] in (HOSTILE, None)


def test_widget_accepts_every_state() -> None:
    from ipu_nb._query.filters_codec import FILTER_KEYS, normalise_filters

    tiles = [
        T(t, [S(0, 100 + 50 * (t == 2), kernel="k", phase=p, metadata=[("layer", "1")]) for p in range(4)])
        for t in range(4)
    ]
    profile = profile_from_tiles(tiles)
    found = findings(profile, min_share=0, per_category=0)
    assert {f.category for f in found} >= {"straggler-tile", "imbalanced-phase"}
    for f in found:
        assert set(f.state["filters"]) == set(FILTER_KEYS)
        assert normalise_filters(f.state["filters"]) == f.state["filters"]
    from ipu_nb import ProfileWidget

    widget = ProfileWidget(profile, **found[0].state)
    assert (widget.filters, widget.view) == (found[0].state["filters"], found[0].state["view"])
    assert ProfileWidget(profile).filtered.height > widget.filtered.height == profile.filter(found[0].query).height


# --------------------------------------------------------------------------- numbers, from the public API


def _reproduce(profile: Any, f: Finding) -> float:
    """The finding's cycles at stake, recomputed from `supersteps()` and `query()` with its own query."""
    if f.category == "straggler-tile":
        steps = supersteps(profile, kind="compute")
        return float(steps.filter(pl.col("critical_tile") == f.query.tiles[0]).get_column("recoverable_cycles").sum())
    if f.category == "imbalanced-kernel":
        return float(supersteps(profile, f.query).get_column("recoverable_cycles").sum())
    if f.category == "imbalanced-phase":
        phase, epoch = map(int, f.subject.removeprefix("phase ").split("/"))
        steps = supersteps(profile, f.query).filter((pl.col("phase") == phase) & (pl.col("epoch") == epoch))
        return float(steps.get_column("recoverable_cycles").item())
    if f.category == "idle-tiles":
        present = supersteps(profile).select("phase", "epoch", everyone="tile_count")
        busy = supersteps(profile, kind="compute").join(present, on=["phase", "epoch"])
        return sum(
            r["compute_cycles"] / r["tile_count"] - r["compute_cycles"] / r["everyone"]
            for r in busy.iter_rows(named=True)
        )
    if f.category in ("exchange-dominated", "sync-dominated"):
        inside = supersteps(profile, f.query).filter((pl.col("start") >= f.view[0]) & (pl.col("end") <= f.view[1]))
        return float(inside.get_column("span_cycles").sum())
    assert f.category == "long-tail-kernel"
    p50 = query(profile, kind="compute", kernel=f.query.kernel, group_by="kernel").groups.get_column("p50_cycles")
    per_phase = query(profile, f.query, group_by="phase", limit=0).groups.get_column("maximum_cycles")
    return float((per_phase - p50.item()).clip(0).sum())


def _check_findings(profile: Any) -> None:
    found = findings(profile, min_share=0, per_category=0)
    span = profile.span_cycles
    cycles = [f.cycles for f in found]
    assert cycles == sorted(cycles, reverse=True)
    for f in found:
        assert f.category in CATEGORIES and f.cycles >= 1
        assert 0 <= f.view[0] < f.view[1] <= max(span, 1)
        assert f.ms == profile.ms(float(f.cycles)) and f.share == (f.cycles / span if span else 0.0)
        expected = _reproduce(profile, f)
        if f.category in ("exchange-dominated", "sync-dominated"):
            assert f.cycles <= expected + 0.5  # the stretch is inside the view; other epochs may add
        elif f.category == "idle-tiles":
            assert abs(f.cycles - expected) <= 0.5 + 1e-6 * expected  # "up to": a float sum
        else:
            assert abs(f.cycles - expected) <= 0.5 + 1e-9 * abs(expected), (f, expected)


@settings(max_examples=examples(120))
@given(tiles=strat.PROFILES)
def test_numbers_reproduce_on_random_profiles(tiles: list[T]) -> None:
    _check_findings(profile_from_tiles(tiles))


def test_numbers_reproduce_on_the_generated_profile(demo_small: tuple[Any, list[T]]) -> None:
    profile, _ = demo_small
    _check_findings(profile)
    found = findings(profile)
    assert {"idle-tiles", "imbalanced-kernel"} <= {f.category for f in found}


def test_the_findings_in_steps_are_the_findings(demo_small: tuple[Any, list[T]]) -> None:
    profile, _ = demo_small
    steps = finding_steps(profile)
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            stepped = done.value
            break
        count += 1
    assert count >= 3  # the superstep structure, the per-kind spans, the compute structure, the detectors
    assert stepped.frame.equals(findings(profile).frame) and len(stepped)
    assert drained(finding_steps(profile)).frame.equals(stepped.frame)
