"""`charts.exchange_anatomy`: stacked parts that add up, the runtime's colours from one table, bounded data."""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from chart_fixtures import spec_rows
from head_golden import TILES

import ipu_nb
from ipu_nb import charts
from ipu_nb._exchange import anatomy_frame
from ipu_nb._model.palette import ACTIVITY_LABELS, ACTIVITY_PALETTE, KIND_PALETTE


def _rows(spec: dict) -> list[dict]:
    return [row for rows in spec["datasets"].values() for row in rows]


def test_the_activity_palette_is_the_runtime_s_beside_the_kinds() -> None:
    assert ACTIVITY_PALETTE == {
        "synchronization": "#c58b24",
        "send": "#17854c",
        "receive": "#287db2",
        "sendReceive": "#6b5596",
        "partnerBusy": "#9a547f",
        "exchangeIdle": "#8ebeb4",
    }
    assert list(ACTIVITY_LABELS.values()) == ["sync", "tx", "rx", "tx/rx", "partner bus", "exchange idle"]
    assert set(KIND_PALETTE) == {"compute", "exchange", "synchronization", "idle"}  # a table of its own


def test_each_phase_stacks_its_parts_bottom_up_in_the_palette_s_colours() -> None:
    spec = charts.to_spec(charts.exchange_anatomy(profile_from_tiles(TILES, schema_version=5)))
    scale = spec["encoding"]["color"]["scale"]
    assert scale["domain"] == ["boundary wait", "send", "receive", "send + receive", "partner busy", "idle"]
    assert scale["range"] == [ACTIVITY_PALETTE[k] for k in ACTIVITY_PALETTE]
    rows = _rows(spec)
    by_phase: dict[str, list[dict]] = {}
    for row in sorted(rows, key=lambda r: (r["bar"], r["stack"])):
        by_phase.setdefault(row["label"], []).append(row)
    assert list(by_phase) == ["phase 0/0", "phase 0/1"]
    for parts in by_phase.values():
        assert parts[0]["start"] == 0
        assert all(a["to"] == b["start"] for a, b in itertools.pairwise(parts))
    cycles = {r["part"]: r["cycles"] for r in by_phase["phase 0/0"]}
    # b: send only 20, both 20, receive only 30, partner busy 0 (its stretch is during a receive);
    # e: idle 5, receive only 35, both 20; boundary wait: e entered 50 cycles after b
    assert cycles == {
        "boundary wait": 50,
        "send": 20,
        "receive": 65,
        "send + receive": 40,
        "partner busy": 0,
        "idle": 5,
    }


def test_many_phases_are_merged_into_runs() -> None:
    tile_list = [
        T(t, [S(100 * p, 100 * p + 50, "exchange", phase=p, activities=[("send", 0, 9)], exchange_event_cycles=40)
              for p in range(30)])
        for t in range(3)
    ]  # fmt: skip
    profile = profile_from_tiles(tile_list, schema_version=5)
    spec = charts.to_spec(charts.exchange_anatomy(profile, max_bars=7))
    rows = _rows(spec)
    assert len({r["bar"] for r in rows}) == 6 and spec_rows(spec) == 6 * 6  # 30 phases in runs of 5
    assert "runs of 5 phases" in spec["title"]
    total = anatomy_frame(profile).get_column("cycles").sum()
    assert sum(r["cycles"] for r in rows) == total
    assert {r["label"] for r in rows} >= {"phase 0/0 … phase 4/0"}


def test_sources_and_bad_arguments(tmp_path) -> None:
    frame = anatomy_frame(profile_from_tiles(TILES, schema_version=5))
    assert charts.to_spec(charts.exchange_anatomy(frame))["title"].startswith("exchange anatomy (2 exchange phases")
    assert charts.to_spec(charts.exchange_anatomy(profile_from_tiles([])))["title"].startswith(
        "exchange anatomy (0 exchange phases"
    )
    with pytest.raises(ValueError, match="max_bars must be at least 1"):
        charts.exchange_anatomy(frame, max_bars=0)
    with pytest.raises(TypeError, match="expected a Profile, a path or an anatomy frame"):
        charts.exchange_anatomy(3)  # type: ignore[arg-type]
    assert isinstance(frame, pl.DataFrame)


def test_the_group_charts_take_a_head_query_result() -> None:
    result = ipu_nb.query(profile_from_tiles(TILES, schema_version=5), semantics="head")
    rows = _rows(charts.to_spec(charts.breakdown(result)))
    assert {r["name"] for r in rows} == {"gemm", "layer_norm_é", "(no kernel)"}
    assert {r["phaseCycles"] for r in rows} == {326, 210, 150}  # the newest runtime's whole-group unions
