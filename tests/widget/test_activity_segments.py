"""The renderer's display segments and accounting parts against a plain reference written from the spec.

The reference (`ref_segments`, `ref_accounting`) follows
docs/reference/head.md#exchange-activity-on-the-timeline (the runtime's renderer) sample by
sample in plain Python: boundary bounds per epoch:phase, sync up to the exchange start,
activities at event start + offsets clamped to the exchange part, a sweep labelling each
stretch, sync to the end. Pieces are cut at the sample's end (ipu-nb draws nothing past a
sample) and touching pieces of one class joined.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from ipu_nb._exchange.display import ACCOUNTING_PARTS, DISPLAY_CLASSES, accounting_parts, display_segments

Sample = dict[str, Any]
Piece = tuple[int, int, int, str]  # sample, start, end, class name


def _records(samples: pl.DataFrame, activities: pl.DataFrame, clock: list[int] | None = None) -> list[Sample]:
    acts: dict[int, list[tuple[str, int, int]]] = {}
    for a in activities.iter_rows(named=True):
        acts.setdefault(a["sample"], []).append((a["kind"], a["start"], a["end"]))
    out = []
    for i, s in enumerate(samples.iter_rows(named=True)):
        kind = "idle" if s["kind"] == "compute" and s["inactive"] else s["kind"]
        shift = 0 if clock is None else clock[i] - s["offset"]
        out.append({**s, "kind": kind, "at": s["offset"] + shift, "shift": shift, "acts": acts.get(s["sample"], [])})
    return out


def ref_bounds(samples: list[Sample]) -> dict[tuple[int, int], tuple[int, int, int]]:
    """Per epoch:phase over exchange samples with duration and eventCycles > 0: max start, max end, end - max window."""
    found: dict[tuple[int, int], list[int]] = {}
    for s in samples:
        if s["kind"] != "exchange" or s["duration"] <= 0 or s["exchange_event_cycles"] <= 0:
            continue
        key = (s["epoch"], s["phase"])
        b = found.setdefault(key, [s["at"], s["at"] + s["duration"], s["exchange_event_cycles"]])
        b[0] = max(b[0], s["at"])
        b[1] = max(b[1], s["at"] + s["duration"])
        b[2] = max(b[2], s["exchange_event_cycles"])
    return {k: (b[0], b[1], b[1] - b[2]) for k, b in found.items()}


def _sweep_name(send: int, receive: int, busy: int) -> str:
    if send and receive:
        return "sendReceive"
    if send:
        return "send"
    if receive:
        return "receive"
    if busy:
        return "partnerBusy"
    return "exchangeIdle"


def ref_sample(s: Sample, bounds: dict[tuple[int, int], tuple[int, int, int]]) -> list[tuple[int, int, str]]:
    offset, end = s["at"], s["at"] + s["duration"]
    b = bounds.get((s["epoch"], s["phase"]))
    if s["kind"] != "exchange" or not s["acts"] or s["exchange_event_cycles"] <= 0 or s["duration"] == 0 or b is None:
        return [(offset, end, s["kind"])]
    x_start, x_end = max(offset, b[0]), min(end, b[1])
    segments: list[tuple[int, int, str]] = []
    if offset < x_start:
        segments.append((offset, x_start, "synchronization"))
    events = []
    for kind, a, z in s["acts"]:
        lo = max(x_start, min(x_end, b[2] + a))
        hi = max(x_start, min(x_end, b[2] + z))
        if hi <= lo:
            continue
        d = [int(kind == "send"), int(kind == "receive"), int(kind == "partnerBusy")]
        events.append((lo, d))
        events.append((hi, [-v for v in d]))
    events.sort(key=lambda e: e[0])
    cursor, state, i = x_start, [0, 0, 0], 0
    while i < len(events):
        time = events[i][0]
        if time > cursor:
            segments.append((cursor, time, _sweep_name(*state)))
        while i < len(events) and events[i][0] == time:
            state = [u + v for u, v in zip(state, events[i][1], strict=True)]
            i += 1
        cursor = time
    if cursor < x_end:
        segments.append((cursor, x_end, _sweep_name(*state)))
    if x_end < end:
        segments.append((x_end, end, "synchronization"))
    # Cut at the sample's end; join touching pieces of one class.
    cut = [(lo, min(hi, end), k) for lo, hi, k in segments if min(hi, end) > lo]
    joined: list[tuple[int, int, str]] = []
    for lo, hi, k in cut:
        if joined and joined[-1][2] == k and joined[-1][1] == lo:
            joined[-1] = (joined[-1][0], hi, k)
        else:
            joined.append((lo, hi, k))
    return joined


def ref_segments(samples: list[Sample]) -> list[Piece]:
    bounds = ref_bounds(samples)
    return [
        (s["sample"], lo - s["shift"], hi - s["shift"], k)
        for s in samples
        for lo, hi, k in sorted(ref_sample(s, bounds), key=lambda p: p[0])
    ]


def ref_accounting(samples: list[Sample]) -> list[tuple[int, str, int, int]]:
    bounds = ref_bounds(samples)
    out = []
    for s in samples:
        b = bounds.get((s["epoch"], s["phase"]))
        if s["kind"] != "exchange" or b is None:
            continue
        offset, end = s["at"], s["at"] + s["duration"]
        parts = []
        before = max(offset, min(end, b[0]))
        if before > offset:
            parts.append(("exchange boundary wait", offset, before))
        xs, xe = max(offset, b[0]), min(end, b[1])
        if xe > xs:
            parts.append(("exchange", xs, xe))
        after = max(offset, b[1])
        if end > after:
            parts.append(("exchange boundary sampling", after, end))
        if not parts:
            parts.append(("exchange", offset, end))
        out += [(s["sample"], name, lo - s["shift"], hi - s["shift"]) for name, lo, hi in parts]
    return out


def _ours(samples: pl.DataFrame, activities: pl.DataFrame, clock: list[int] | None = None) -> list[Piece]:
    frame = display_segments(samples, activities, None if clock is None else np.array(clock))
    return [
        (s, o, o + d, DISPLAY_CLASSES[c - 1])
        for s, o, d, c in frame.select("sample", "offset", "duration", "cls").iter_rows()
    ]


def _frames(tiles: list[T]) -> tuple[pl.DataFrame, pl.DataFrame]:
    p = profile_from_tiles(tiles, schema_version=5)
    return p.samples, p.exchange_activities


def _check(tiles: list[T], clock: list[int] | None = None) -> list[Piece]:
    samples, activities = _frames(tiles)
    ours = _ours(samples, activities, clock)
    assert ours == ref_segments(_records(samples, activities, clock))
    return ours


def _x(start: int, end: int, acts: list[tuple[str, int, int]], window: int = 40, phase: int = 0, **kw: Any) -> S:
    return S(start, end, kind="exchange", activities=acts, exchange_event_cycles=window, phase=phase, **kw)


def test_sync_then_activities_then_idle_tail() -> None:
    # Tile 0 enters at 0, tile 1 at 20: bounds [20, 100), event start 100 - 60 = 40.
    tiles = [
        T(0, [S(0, 0, kind="compute"), _x(0, 100, [("send", 0, 10), ("receive", 5, 30)], window=60)]),
        T(1, [S(0, 20, kind="compute"), _x(20, 100, [("partnerBusy", 0, 5)], window=50)]),
    ]
    pieces = _check(tiles)
    samples, _ = _frames(tiles)
    first = int(samples.get_column("sample")[1])
    assert [p for p in pieces if p[0] == first] == [
        (first, 0, 20, "synchronization"),
        (first, 20, 40, "exchangeIdle"),
        (first, 40, 45, "send"),
        (first, 45, 50, "sendReceive"),
        (first, 50, 70, "receive"),
        (first, 70, 100, "exchangeIdle"),
    ]


def test_activities_outside_their_window_clamp_or_vanish() -> None:
    # Bounds [10, 50): event start 50 - 40 = 10; an activity at 0..100 fills the window, one at 60.. is gone.
    tiles = [
        T(0, [_x(0, 50, [("send", 0, 100), ("receive", 60, 70)])]),
        T(1, [S(0, 10, kind="compute"), _x(10, 50, [("receive", 0, 0)])]),
    ]
    pieces = _check(tiles)
    assert pieces[0][1:] == (0, 10, "synchronization")
    assert pieces[1][1:] == (10, 50, "send")
    # A zero-length activity leaves the window idle.
    assert pieces[3][1:] == (10, 50, "exchangeIdle")


def test_sample_ending_before_the_last_entry_is_sync_to_its_end() -> None:
    tiles = [T(0, [_x(0, 10, [("send", 0, 5)])]), T(1, [S(0, 30, kind="compute"), _x(30, 60, [("send", 0, 5)])])]
    pieces = _check(tiles)
    assert pieces[0][1:] == (0, 10, "synchronization")


def test_samples_kept_whole() -> None:
    # No activities, a zero window, a compute sample, inactive compute, a zero-length exchange: one piece each.
    tiles = [
        T(
            0,
            [
                _x(0, 10, []),
                _x(10, 20, [("send", 0, 5)], window=0, phase=1),
                S(20, 30, kind="compute", metadata=[("active", "false")]),
                S(30, 40, kind="synchronization"),
                _x(40, 40, [("send", 0, 5)], phase=2),
            ],
        )
    ]
    pieces = _check(tiles)
    assert [p[3] for p in pieces] == ["exchange", "exchange", "idle", "synchronization", "exchange"]
    assert pieces[-1][1] == pieces[-1][2] == 40


def test_clock_shift_moves_bounds_not_pieces() -> None:
    # On the samples' offsets both tiles start at 0; on the clock tile 1 entered 30 cycles later.
    tiles = [T(0, [_x(0, 60, [("send", 0, 10)], window=20)]), T(1, [_x(0, 30, [("send", 0, 10)], window=20)])]
    samples, _ = _frames(tiles)
    clock = [0, 30]
    pieces = _check(tiles, clock)
    assert pieces[0][1:] == (0, 30, "synchronization")
    assert pieces[1][1:] == (30, 40, "exchangeIdle")
    assert pieces[2][1:] == (40, 50, "send")
    # Tile 1's pieces stay on its own offsets: its whole sample is the window.
    assert sum(p[2] - p[1] for p in pieces if p[0] == int(samples.get_column("sample")[1])) == 30


ACT = st.tuples(st.sampled_from(["send", "receive", "partnerBusy"]), st.integers(0, 90), st.integers(0, 90))


@st.composite
def tiles_of(draw: Any) -> list[T]:
    out = []
    for tile in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, 30))
        samples = []
        for _ in range(draw(st.integers(0, 4))):
            length = draw(st.integers(0, 70))
            samples.append(
                S(
                    at,
                    at + length,
                    kind=draw(st.sampled_from(["exchange", "exchange", "compute", "synchronization", "idle"])),
                    phase=draw(st.integers(0, 2)),
                    activities=draw(st.lists(ACT, max_size=5)),
                    exchange_event_cycles=draw(st.sampled_from([0, 1, 20, 60])),
                    metadata=[("active", "false")] if draw(st.booleans()) else [],
                )
            )
            at += length + draw(st.integers(0, 5))
        out.append(T(tile, samples))
    return out


@settings(max_examples=150, deadline=None)
@given(tiles_of(), st.lists(st.integers(0, 40), min_size=4, max_size=4))
def test_segments_match_reference(tiles: list[T], shifts: list[int]) -> None:
    samples, _ = _frames(tiles)
    pieces = _check(tiles)
    # Every sample's pieces tile it exactly: the same cycles, inside the sample.
    total = {s: 0 for s in samples.get_column("sample").to_list()}
    for s, lo, hi, _ in pieces:
        total[s] += hi - lo
    assert total == dict(
        zip(samples.get_column("sample").to_list(), samples.get_column("duration").to_list(), strict=True)
    )
    tile_of = samples.get_column("tile").to_list()
    clock = [o + shifts[t] for o, t in zip(samples.get_column("offset").to_list(), tile_of, strict=True)]
    _check(tiles, clock)


@settings(max_examples=100, deadline=None)
@given(tiles_of())
def test_accounting_matches_reference(tiles: list[T]) -> None:
    samples, activities = _frames(tiles)
    frame = accounting_parts(samples)
    ours = [(s, ACCOUNTING_PARTS[p][0], o, o + d) for s, p, o, d in frame.iter_rows()]
    assert ours == ref_accounting(_records(samples, activities))
