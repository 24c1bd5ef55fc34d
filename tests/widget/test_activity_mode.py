"""Colour mode "activity": the timeline's share planes hold each display piece's cycles, against the plain reference.

The reference pieces come from tests/widget/test_activity_segments.py (written from
docs/reference/head.md#exchange-activity-on-the-timeline), on the device-wide clock for the
bounds and drawn on each tile's offsets; every cell's share per class must be the exact
overlap of those pieces within a 255th, as for the kind classes.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from builders import S, T, profile_from_tiles
from test_activity_segments import _records, ref_segments
from test_shares import assert_shares_match

import ipu_nb
from ipu_nb._exchange.display import DISPLAY_CLASSES
from ipu_nb._model.vocabulary import COLOR_BYS
from ipu_nb._query.filters_codec import empty_filters
from ipu_nb._query.head.clock import cycle_origin
from ipu_nb._synth import generate_profile
from ipu_nb._widget import lod
from ipu_nb._widget.answers import Answers
from ipu_nb._widget.lod import GREY
from ipu_nb._widget.pushes import info
from ipu_nb._widget.shown import Sides


def _clock(profile: Any) -> list[int]:
    origin = cycle_origin(profile)
    return [(s - origin) % 2**32 for s in profile.samples.get_column("start").to_list()]


def reference(
    profile: Any, start: int, end: int, bins: int, matched: set[int] | None
) -> dict[tuple[int, int, int], Fraction]:
    """``{(class, row, bin): exact share}`` of the reference pieces (a filtered-out sample's pieces are `GREY`)."""
    rows = sorted(profile.tiles.get_column("tile").to_list())
    tile_of = dict(zip(profile.samples["sample"].to_list(), profile.samples["tile"].to_list(), strict=True))
    width = Fraction(end - start, bins)
    out: dict[tuple[int, int, int], Fraction] = {}
    for sid, a, b, name in ref_segments(_records(profile.samples, profile.exchange_activities, _clock(profile))):
        if b <= start or a >= end or a == b:
            continue
        cls = DISPLAY_CLASSES.index(name) + 1 if matched is None or sid in matched else GREY
        r = rows.index(tile_of[sid])
        for j in range(bins):
            lo, hi = start + j * width, start + (j + 1) * width
            o = max(Fraction(0), min(Fraction(b), hi) - max(Fraction(a), lo)) / width
            if o > 0:
                out[(cls, r, j)] = out.get((cls, r, j), Fraction(0)) + o
    return out


def random_tiles(seed: int) -> list[T]:
    rng = random.Random(seed)
    tiles = []
    for tile in range(rng.randint(2, 5)):
        at = rng.randint(1000, 1040)  # different bases: the per-tile offsets differ from the device clock
        samples = []
        for phase in range(4):
            for kind in ("compute", "synchronization", "exchange"):
                length = rng.randint(0, 60)
                acts = [
                    (rng.choice(["send", "receive", "partnerBusy"]), rng.randint(0, 50), rng.randint(0, 60))
                    for _ in range(rng.randint(0, 4) if kind == "exchange" else 0)
                ]
                window = rng.choice([0, 30, 50]) if kind == "exchange" else 0
                samples.append(
                    S(at, at + length, kind=kind, phase=phase, activities=acts, exchange_event_cycles=window)
                )
                at += length
        tiles.append(T(tile * 3, samples))
    return tiles


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("start", "end", "bins"), [(0, 1024, 64), (0, 1000, 37), (100, 356, 256)])
def test_activity_planes_conserve_each_pieces_cycles(seed: int, start: int, end: int, bins: int) -> None:
    profile = profile_from_tiles(random_tiles(seed), schema_version=5)
    sides = Sides(profile, None)
    side = sides.side("after")
    ids = profile.samples.get_column("sample").to_list()
    for matched_ids in (None, set(ids[::2])):
        mask = None if matched_ids is None else np.isin(np.arange(max(ids) + 1), sorted(matched_ids))
        index = side.activity_index
        matched = None if mask is None else mask[index.sample]
        got = lod.share_window(index, start, end, bins, matched, "activity")
        assert_shares_match(got, reference(profile, start, end, bins, matched_ids), index.rows)


def test_blocks_in_activity_mode_hold_the_window_classes(tmp_path: Path) -> None:
    path = tmp_path / "v5.capnp"
    generate_profile(path, tiles=8, phases=4, schema_version=5, progress=False)
    profile = ipu_nb.open_profile(path)
    sides = Sides(profile, None)
    answers = Answers(sides)
    shown = sides.shown("after", empty_filters(), "activity", "kind", None)
    span = shown.side.facts.span
    level = max(0, (span // 64).bit_length())
    got = list(answers.blocks(shown, level, 64, [0]))
    assert [k for k, *_ in got] == [0]
    # The whole profile in one summary: each class's cycles are the reference pieces' (within a 255th a cell).
    window = lod.share_window(shown.side.activity_index, 0, 64 << level, 64, None, "activity")
    expected = reference(profile, 0, 64 << level, 64, None)
    assert_shares_match(window, expected, shown.side.facts.rows)
    names = {DISPLAY_CLASSES[c - 1] for c, _, _ in expected}
    assert {"send", "receive", "synchronization"} <= names
    # Colour mode "kind" still draws exchange whole.
    kind = lod.share_window(shown.side.index, 0, 64 << level, 64, None, "kind")
    assert set(kind.classes.tolist()) <= {1, 2, 3, 4}


def test_a_profile_without_activities_draws_exchange_as_exchange() -> None:
    tiles = [T(0, [S(0, 10, kind="exchange", exchange_event_cycles=8), S(10, 20, kind="compute")])]
    profile = profile_from_tiles(tiles, schema_version=3)
    side = Sides(profile, None).side("after")
    assert side.activity_index is side.index
    got = lod.share_window(side.activity_index, 0, 32, 32, None, "activity")
    assert got.classes.tolist() == [DISPLAY_CLASSES.index("exchange") + 1, DISPLAY_CLASSES.index("compute") + 1]


def test_info_has_a_legend_for_every_colouring() -> None:
    profile = profile_from_tiles([T(0, [S(0, 10)])], schema_version=5)
    facts = info(Sides(profile, None).side("after"), False)
    assert set(facts["legend"]) == set(COLOR_BYS)
    assert facts["legend"]["activity"] == list(DISPLAY_CLASSES)
    vocabulary = facts["vocabulary"]
    assert set(vocabulary["activity_palette"]) == set(DISPLAY_CLASSES[4:])
    assert vocabulary["activity_labels"]["sendReceive"] == "tx/rx"
    assert vocabulary["color_by_labels"]["activity"] == "exchange activity"


def test_the_inspector_lists_a_samples_activities_roles_and_parts() -> None:
    from test_activity_segments import ref_accounting

    from ipu_nb._exchange.roles import ROLE_COLUMNS
    from ipu_nb._widget.inspector import detail

    tiles = [
        T(
            0,
            [
                S(0, 20, kind="compute"),
                S(20, 100, kind="exchange", activities=[("send", 0, 10), ("receive", 5, 30)], exchange_event_cycles=60),
            ],
        ),
        T(
            1,
            [
                S(0, 50, kind="compute"),
                S(50, 100, kind="exchange", activities=[("partnerBusy", 0, 5)], exchange_event_cycles=50),
            ],
        ),
    ]
    profile = profile_from_tiles(tiles, schema_version=5)
    shown = Sides(profile, None).shown("after", empty_filters(), "activity", "kind", None)
    sid = int(profile.samples.get_column("sample")[1])
    got = detail(shown, sid)
    assert got["activities"] == [["send", 0, 10], ["receive", 5, 30]]
    # Window of 60: send 10, receive 25, both 5, no partner busy, idle 60 - 30.
    roles = got["roles"]
    assert set(roles) == set(ROLE_COLUMNS)
    assert (roles["send_cycles"], roles["receive_cycles"], roles["simultaneous_cycles"], roles["idle_cycles"]) == (
        10,
        25,
        5,
        30,
    )
    expected = [
        [name, lo, hi]
        for s, name, lo, hi in ref_accounting(_records(profile.samples, profile.exchange_activities, _clock(profile)))
        if s == sid
    ]
    assert got["parts"] == expected
    assert [p[0] for p in got["parts"]] == ["exchange boundary wait", "exchange"]
    # A compute sample has none of them.
    other = detail(shown, int(profile.samples.get_column("sample")[0]))
    assert (other["activities"], other["roles"], other["parts"]) == ([], {}, [])


@pytest.mark.parametrize("seed", range(3))
def test_the_flame_graph_in_activity_mode_counts_the_accounting_parts(seed: int) -> None:
    from test_activity_segments import ref_accounting

    profile = profile_from_tiles(random_tiles(seed), schema_version=5)
    sides = Sides(profile, None)
    answers = Answers(sides)
    parts = ref_accounting(_records(profile.samples, profile.exchange_activities, _clock(profile)))
    split = {sid for sid, *_ in parts}
    # Per kind (level 1) and per boundary part (a synchronization kernel, level 2): the reference's cycles.
    expected: dict[str, int] = {}
    for _, name, lo, hi in parts:
        for key in {name, "exchange" if name == "exchange" else "synchronization"}:
            expected[key] = expected.get(key, 0) + hi - lo
    for row in profile.samples.iter_rows(named=True):
        if row["sample"] not in split:
            expected[row["kind"]] = expected.get(row["kind"], 0) + row["duration"]
    tree = answers.flame(sides.shown("after", empty_filters(), "activity", "kind", None))
    got: dict[str, int] = {}
    for node in tree["nodes"]:
        if node["path"] is None:
            continue
        if node["level"] == 1 or (node["level"] == 2 and str(node["name"]).startswith("exchange boundary")):
            got[node["name"]] = node["value"]
    assert tree["total"] == sum(profile.samples["duration"].to_list())
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}
    assert any(k.startswith("exchange boundary") and v > 0 for k, v in got.items())
    # Colour mode "kind" keeps the samples whole.
    plain = answers.flame(sides.shown("after", empty_filters(), "kind", "kind", None))
    assert all(not str(n["name"]).startswith("exchange boundary") for n in plain["nodes"])


def test_hover_in_activity_mode_names_the_piece_and_the_accounting_part() -> None:
    from ipu_nb._widget.inspector import hover_reply
    from ipu_nb._widget.messages import Hover

    tiles = [
        T(0, [S(0, 20, kind="compute"), _exchange(20, 100, [("send", 0, 10), ("receive", 5, 30)], 60)]),
        T(1, [S(0, 50, kind="compute"), _exchange(50, 100, [("partnerBusy", 0, 5)], 50)]),
    ]
    profile = profile_from_tiles(tiles, schema_version=5)
    sides = Sides(profile, None)
    shown = sides.shown("after", empty_filters(), "activity", "kind", None)
    # Tile 0's exchange: sync [20, 50) (tile 1 enters at 50); the event starts at 100 - 60 = 40, so its
    # send [40, 50) lies before the entry (gone) and its receive [45, 70) is clamped to [50, 70).
    expected = {
        30: (["synchronization", 20, 50], ["exchange boundary wait", 20, 50]),
        60: (["receive", 50, 70], ["exchange", 50, 100]),
        80: (["exchangeIdle", 70, 100], ["exchange", 50, 100]),
    }
    for x, (piece, part) in expected.items():
        reply = hover_reply(shown, Hover(view="v", id=1, row=0, x=x))
        assert reply["sample"] is not None and reply["sample"]["kind"] == "exchange"
        assert (reply.get("piece"), reply.get("part")) == (piece, part), x
    plain = hover_reply(sides.shown("after", empty_filters(), "kind", "kind", None), Hover("v", 1, 0, 60))
    assert "piece" not in plain and "part" not in plain


def _exchange(start: int, end: int, acts: list[tuple[str, int, int]], window: int) -> S:
    return S(start, end, kind="exchange", activities=acts, exchange_event_cycles=window)


def test_drawn_gives_the_overview_the_pieces_of_activity_mode() -> None:
    profile = profile_from_tiles(random_tiles(0), schema_version=5)
    sides = Sides(profile, None)
    ids = profile.samples.get_column("sample").to_list()
    filters = {**empty_filters(), "kind": "exchange"}
    matching = sides.matching("after", filters)
    index, mask = matching.drawn("activity")
    assert index is matching.side.activity_index and index.size > profile.samples.height
    assert mask is not None and len(mask) == index.size
    exchange = set(profile.samples.filter(kind="exchange").get_column("sample").to_list())
    assert mask.tolist() == [int(s) in exchange for s in index.sample]
    plain, plain_mask = matching.drawn("kind")
    assert plain is matching.side.index and plain_mask is not None and len(plain_mask) == len(ids)
    assert set(index.classes("activity").tolist()) > set(plain.classes("kind").tolist()) - {0}


def test_an_areas_flame_graph_in_activity_mode_counts_the_parts_inside_the_area() -> None:
    from test_activity_segments import ref_accounting

    profile = profile_from_tiles(random_tiles(1), schema_version=5)
    sides = Sides(profile, None)
    answers = Answers(sides)
    tiles = sorted(profile.tiles.get_column("tile").to_list())[:2]
    start, end = 300, 1500
    area = {"start": start, "end": end, "tiles": tiles}
    tile_of = dict(zip(profile.samples["sample"].to_list(), profile.samples["tile"].to_list(), strict=True))
    expected: dict[str, int] = {}
    for sid, name, lo, hi in ref_accounting(_records(profile.samples, profile.exchange_activities, _clock(profile))):
        inside = max(0, min(hi, end) - max(lo, start))
        if tile_of[sid] in tiles and name != "exchange":
            expected[name] = expected.get(name, 0) + inside
    tree = answers.area_flame(sides.shown("after", empty_filters(), "activity", "kind", None), area)
    got: dict[str, int] = {}
    for node in tree["nodes"]:
        if node["level"] == 2 and str(node["name"]).startswith("exchange boundary"):
            got[node["name"]] = got.get(node["name"], 0) + node["value"]
    assert got == {k: v for k, v in expected.items() if v}
    assert got
    whole = answers.area_flame(sides.shown("after", empty_filters(), "kind", "kind", None), area)
    assert whole["total"] == tree["total"]
