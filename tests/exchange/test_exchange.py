"""The newest runtime's exchange summary and role sweep against a plain reference (tests/helpers/head_reference.py)."""

from __future__ import annotations

from typing import Any

import head_reference as ref
import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles
from head_golden import TILES
from hypothesis import given
from hypothesis import strategies as st

import ipu_nb
from ipu_nb._exchange import (
    ANATOMY_PARTS,
    PHASE_COLUMNS,
    SUMMARY_FIELDS,
    anatomy_frame,
    exchange_phases,
    exchange_summary,
    role_cycles,
    summary_line,
)
from ipu_nb._model.vocabulary import camel

ACTIVITY = st.tuples(
    st.sampled_from(["send", "receive", "partnerBusy"]),
    st.one_of(st.integers(0, 80), st.integers(2**32 - 3, 2**32 - 1)),
    st.one_of(st.integers(0, 80), st.integers(2**32 - 3, 2**32 - 1)),
)


@st.composite
def exchange_sample(draw: Any) -> S:
    start = draw(st.one_of(st.integers(0, 60), st.integers(2**32 - 40, 2**32 - 1)))
    length = draw(st.integers(0, 90))
    return S(
        start,
        (start + length) % 2**32,
        kind=draw(st.sampled_from(["exchange", "exchange", "exchange", "compute", "synchronization"])),
        phase=draw(st.integers(0, 2)),
        epoch=draw(st.integers(0, 1)),
        activities=draw(st.lists(ACTIVITY, max_size=5)),
        exchange_event_cycles=draw(st.sampled_from([0, 1, 30, 60, 2**32 - 1])),
    )


@st.composite
def exchange_tiles(draw: Any) -> list[T]:
    ids = draw(st.lists(st.integers(0, 4000), max_size=4))
    return [T(i, draw(st.lists(exchange_sample(), max_size=5))) for i in ids]


def _summary(tile_list: list[T]) -> dict[str, int]:
    return exchange_summary(profile_from_tiles(tile_list, schema_version=5))


@given(tile_list=exchange_tiles())
def test_the_summary_matches_the_reference(tile_list: list[T]) -> None:
    expected = ref.exchange_summary(tile_list, 1_500_000_000)
    summary = _summary(tile_list)
    assert {camel(k): v for k, v in summary.items()} == expected
    assert summary_line(summary) == ref.summary_line(expected)


@given(tile_list=exchange_tiles())
def test_the_phases_add_up_to_the_summary_and_the_anatomy_to_each_window(tile_list: list[T]) -> None:
    profile = profile_from_tiles(tile_list, schema_version=5)
    phases, summary = exchange_phases(profile), exchange_summary(profile)
    assert tuple(phases.columns) == PHASE_COLUMNS
    assert phases.select("epoch", "phase").rows() == sorted(phases.select("epoch", "phase").rows())
    assert int(phases.get_column("send_work_cycles").sum()) == summary["estimated_send_work_cycles"]
    assert int(phases.get_column("boundary_cycles").sum()) == summary["exchange_phase_boundary_cycles"]
    anatomy = anatomy_frame(profile)
    described = profile.exchange_activities.get_column("sample").unique().implode()
    windows = profile.samples.filter(
        (pl.col("kind") == "exchange") & (pl.col("exchange_event_cycles") > 0) & pl.col("sample").is_in(described)
    )
    split = anatomy.filter(pl.col("part") != "boundary wait").get_column("cycles").sum()
    assert split == windows.get_column("exchange_event_cycles").cast(pl.Int64).sum()  # each described cycle once


@given(activities=st.lists(ACTIVITY, max_size=8), window=st.integers(0, 90))
def test_the_role_sweep_matches_the_reference(activities: list[tuple[str, int, int]], window: int) -> None:
    tile_list = [T(0, [S(0, 100, "exchange", activities=activities, exchange_event_cycles=window)])]
    roles = role_cycles(profile_from_tiles(tile_list, schema_version=5), np.array([0]), np.array([window]))
    expected = ref.roles(activities, window)
    got = roles.row(0, named=True)
    assert got["send_cycles"] == expected["send"] and got["receive_cycles"] == expected["receive"]
    assert got["simultaneous_cycles"] == expected["simultaneous"] and got["idle_cycles"] == expected["idle"]
    assert got["partner_busy_cycles"] == expected["partnerBusy"]
    assert got["partner_busy_only_cycles"] == expected["partnerBusyOnly"]
    parts = (
        "send_only_cycles",
        "receive_only_cycles",
        "simultaneous_cycles",
        "partner_busy_only_cycles",
        "idle_cycles",
    )
    assert sum(got[p] for p in parts) == window


def test_activities_outside_their_window_clamp_to_it() -> None:
    # window 50: [40,90) keeps [40,50); [60,70) and the empty [5,5) are dropped (still counted as intervals)
    acts = [("send", 40, 90), ("receive", 60, 70), ("partnerBusy", 5, 5), ("receive", 4294967295, 3)]
    tile_list = [T(0, [S(0, 100, "exchange", activities=acts, exchange_event_cycles=50)])]
    summary = _summary(tile_list)
    assert (summary["send_intervals"], summary["receive_intervals"], summary["partner_busy_intervals"]) == (1, 2, 1)
    assert summary["estimated_send_work_cycles"] == 10
    assert summary["estimated_receive_work_cycles"] == 0
    assert summary["estimated_exchange_idle_work_cycles"] == 40


def test_samples_without_a_window_or_activities() -> None:
    tile_list = [
        T(0, [S(0, 10, "exchange", activities=[("send", 0, 5)]), S(10, 30, "exchange", exchange_event_cycles=7)]),
        T(1, [S(3, 40, "exchange", exchange_event_cycles=12), S(40, 50, "compute", exchange_event_cycles=9)]),
    ]
    summary = _summary(tile_list)
    assert summary["exchange_samples"] == 3  # the windowless one counts here only
    assert summary["described_exchange_samples"] == 0
    assert summary["estimated_exchange_idle_work_cycles"] == 0  # only described samples are swept
    # one phase: entries 10 and 3 (tile 0's origin), exits 30 and 40; windows 7 and 12
    assert summary["measured_exchange_phase_cycles"] == 40 - 10
    assert summary["scheduled_exchange_event_cycles"] == 12
    assert summary["exchange_arrival_wait_cycles"] == 7
    assert summary["exchange_phase_boundary_cycles"] == 30 - 12


def test_the_golden_profile_s_phases() -> None:
    phases = exchange_phases(profile_from_tiles(TILES, schema_version=5))
    assert phases.select("phase", "epoch", "measured_cycles", "scheduled_cycles", "boundary_cycles").rows() == [
        (0, 0, 80, 70, 10),
        (0, 1, 60, 30, 30),
    ]
    assert phases.get_column("idle_work_cycles").to_list() == [5, 15]


def test_the_summary_keys_and_an_empty_profile() -> None:
    summary = exchange_summary(profile_from_tiles([T(3, [])]))
    assert tuple(summary) == SUMMARY_FIELDS
    assert summary == {**dict.fromkeys(SUMMARY_FIELDS, 0), "clock_hz": 1_500_000_000, "tiles": 1}
    assert exchange_phases(profile_from_tiles([])).height == 0
    assert anatomy_frame(profile_from_tiles([])).height == 0


def test_a_generated_v5_profile_has_every_role(tmp_path: pytest.TempPathFactory) -> None:
    path = ipu_nb.generate_profile(tmp_path / "v5.capnp", tiles=16, phases=6, schema_version=5)  # type: ignore[operator]
    summary = ipu_nb.exchange_summary(path)
    for field in (
        "estimated_send_work_cycles",
        "estimated_receive_work_cycles",
        "estimated_simultaneous_work_cycles",
        "estimated_partner_busy_work_cycles",
        "estimated_exchange_idle_work_cycles",
        "exchange_phase_boundary_cycles",
    ):
        assert summary[field] > 0, field
    parts = anatomy_frame(path).group_by("part").agg(pl.col("cycles").sum())
    assert set(parts.get_column("part").to_list()) == {part for part, _, _ in ANATOMY_PARTS}
    assert (parts.get_column("cycles") > 0).all()
