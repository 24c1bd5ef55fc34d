"""The widget's ``clock``: offsets on the per-tile clock or the newest runtime's (cropped or shared), everywhere.

The references are plain Python on the builders' tiles: `spec_reference.flatten` for the
per-tile offsets (docs/reference/format.md), `head_reference.cropped_samples` for the
newest runtime's (cycle_origin with wrapping counters, the crop as the largest first raw
offset of any tile). The profile is made so that the clocks all differ: its counters wrap,
its tiles start at different cycles, one has no samples, and samples lie wholly before the
crop or straddle it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import head_reference
import polars as pl
import pytest
import spec_reference
import traitlets
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp

import ipu_nb
from ipu_nb._widget.clocks import CLOCKS
from ipu_nb._widget.handlers import handle
from ipu_nb._widget.widget import ProfileWidget

W = 2**32
TILES = [
    T(5, [S(W - 600, W - 400), S(W - 400, W + 200, kind="exchange"), S(200, 1200)]),  # wraps
    T(2, [S(-1000, -900, kind="synchronization"), S(-900, 500), S(500, 1500, operation="late")]),  # first
    T(4, []),
    T(9, [S(100, 700), S(700, 1300, kernel="k9")]),  # last to start: the crop
]
CROP = 1100  # tile 9's first start, 100, is 1,100 cycles after tile 2's, 2**32 - 1000


class Sent:
    """What the widget sends its front end."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.messages: list[dict[str, Any]] = []
        widget.send = lambda content, buffers=None: self.messages.append(content)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]


def reference(clock: str) -> tuple[dict[int, tuple[int, int, int]], int]:
    """sample id → (tile, offset, duration) on `clock`, and the span, from the references."""
    if clock == "tile":
        flat = spec_reference.flatten(TILES)
        return {s.index: (s.tile, s.offset, s.duration) for s in flat}, max(s.offset + s.duration for s in flat)
    ids = {id(s): i for i, s in enumerate(s for t in TILES for s in t.samples)}
    kept, span = head_reference.cropped_samples(TILES, shared_clock=clock == "shared")
    return {ids[id(c["sample"])]: (c["tile"], c["offset"], c["duration"]) for c in kept}, span


def active(clock: str, x: int, tile: int | None = None) -> set[int]:
    rows, _ = reference(clock)
    return {i for i, (t, o, d) in rows.items() if o <= x < o + d and tile in (None, t)}


@pytest.fixture(scope="module")
def profile() -> ipu_nb.Profile:
    return profile_from_tiles(TILES)


def widget_on(profile: ipu_nb.Profile, clock: str, **traits: Any) -> ProfileWidget:
    w = ProfileWidget(profile, clock=clock, **traits)
    Sent(w)  # sent nowhere (no front end)
    return w


def test_the_reference_clocks_differ_as_the_profile_was_made() -> None:
    assert head_reference.crop(TILES, shared_clock=False) == CROP
    cropped, _ = reference("cropped")
    assert len(cropped) == len(reference("tile")[0]) - 2  # tile 2's first and tile 5's first are cut away
    assert reference("shared")[0][4] == (2, 100, 1400)


@pytest.mark.parametrize("clock", CLOCKS)
def test_the_profile_shown_has_the_offsets_and_span_of_its_clock(profile: ipu_nb.Profile, clock: str) -> None:
    w = widget_on(profile, clock)
    rows, span = reference(clock)
    got = {r["sample"]: (r["tile"], r["offset"], r["duration"]) for r in w.profile.samples.iter_rows(named=True)}
    assert got == rows
    assert w.info["span"] == span and w.view == [0, span]


@pytest.mark.parametrize("clock", CLOCKS)
def test_the_cursor_and_a_click_read_offsets_on_the_clock(profile: ipu_nb.Profile, clock: str) -> None:
    w = widget_on(profile, clock)
    sent = Sent(w)
    row_tiles = w.info["rows"]
    for x in (0, 99, 100, 450, 1099, 1100, 1250, 2299):
        w.at = x
        assert set(w.at_slice["sample"].to_list()) == active(clock, x), (clock, x)
        for row, tile in enumerate(row_tiles):
            handle(w, {"type": "pick", "row": row, "x": x})
            assert w.at == x
            expected = active(clock, x, tile)
            assert ({w.selected} if w.selected is not None else set()) == expected, (clock, x, tile)
            panel = sent.of("panel")[-1]
            assert panel["at"]["at"] == x
            if expected:
                assert panel["selected"]["offset"] == reference(clock)[0][w.selected][1]


@pytest.mark.parametrize("clock", CLOCKS)
def test_an_area_holds_the_samples_of_its_offsets_on_the_clock(profile: ipu_nb.Profile, clock: str) -> None:
    w = widget_on(profile, clock)
    rows, _ = reference(clock)
    start, end = 300, 1150
    w.selection = {"start": start, "end": end, "tiles": None}
    expected = {i: min(o + d, end) - max(o, start) for i, (_, o, d) in rows.items() if o < end and o + d > start}
    got = w.selection_samples
    assert dict(zip(got["sample"].to_list(), got["clipped_cycles"].to_list(), strict=True)) == expected


def test_switching_moves_every_offset_by_the_crop_and_back(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "cropped")
    with w.hold_trait_notifications():
        w.view, w.at = [100, 900], 300
        w.selection = {"start": 200, "end": 800, "tiles": [9]}
        w.filters = {"window": [100, 1000]}
    w.add_marker(150, 250, "note")
    w.clock = "shared"
    assert w.view == [100 + CROP, 900 + CROP] and w.at == 300 + CROP
    assert w.selection == {"start": 200 + CROP, "end": 800 + CROP, "tiles": [9]}
    assert w.filters["window"] == [100 + CROP, 1000 + CROP]
    assert w.markers.rows() == [(150 + CROP, 250 + CROP, "note")]
    assert w.info["span"] == reference("shared")[1]
    assert set(w.at_slice["sample"].to_list()) == active("shared", 300 + CROP) == active("cropped", 300)
    w.clock = "cropped"
    assert (w.view, w.at, w.filters["window"]) == ([100, 900], 300, [100, 1000])
    assert w.selection == {"start": 200, "end": 800, "tiles": [9]}
    assert w.markers.rows() == [(150, 250, "note")]


def test_switching_keeps_the_whole_profile_and_drops_what_the_crop_cuts(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "shared")
    first = 3  # tile 2's first sample: wholly before the crop
    with w.hold_trait_notifications():
        w.at, w.selected = 50, first
        w.selection = {"start": 10, "end": 90, "tiles": None}
    w.clock = "cropped"
    assert w.view == [0, reference("cropped")[1]]  # the whole profile stays the whole profile
    assert w.at == 0 and w.selected is None and w.selection is None
    w.clock = "tile"
    assert w.view == [0, reference("tile")[1]]


def test_the_clock_is_kept_in_state_and_code(profile: ipu_nb.Profile, tmp_path: Path) -> None:
    path = write_with_pycapnp(columns_from_tiles(TILES), tmp_path / "clocks.capnp")
    opened = ipu_nb.open_profile(path, progress=False)
    for clock in ("shared", "cropped"):
        w = widget_on(opened, clock, at=1250)
        w.selection = {"start": 300, "end": 1300, "tiles": None}
        state = w.state
        assert state["clock"] == clock
        again = ProfileWidget(opened, state=state)
        assert again.clock == clock and again.state == state
        namespace: dict[str, Any] = {}
        exec(w.to_code(), namespace)
        assert namespace["widget"].state == state
        assert set(namespace["at_slice"]["sample"].to_list()) == active(clock, 1250)
        for name, frame in (("at_slice", w.at_slice), ("samples", w.filtered)):
            assert namespace[name].select("sample", "offset").equals(frame.select("sample", "offset")), name
        assert (
            namespace["selection_samples"]
            .select("sample", "clipped_cycles")
            .equals(w.selection_samples.select("sample", "clipped_cycles"))
        )
    tile = widget_on(opened, "tile")
    assert "on_clock" not in tile.to_code()  # the per-tile clock needs no conversion
    assert "head_clock" not in w.to_code() and "on_clock" in w.to_code()  # the newest runtime's clocks, public API only


def test_setting_the_clock_in_a_state_does_not_move_the_states_offsets(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "tile")
    w.state = {"clock": "shared", "view": [100, 700], "at": 120}
    assert (w.clock, w.view, w.at) == ("shared", [100, 700], 120)


def test_a_bad_clock_is_refused_with_its_values_and_changes_nothing(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "cropped")
    sent = Sent(w)
    w.view = [10, 500]
    with pytest.raises(traitlets.TraitError, match=r"'clock'.*'tile', 'cropped', 'shared'"):
        w.clock = "utc"
    assert w.clock == "cropped" and w.view == [10, 500]
    with pytest.raises(traitlets.TraitError, match="clock"):
        ProfileWidget(profile, clock="shared clock")
    with pytest.raises(traitlets.TraitError, match="clock"):
        w.state = {**w.state, "clock": 3}
    assert w.clock == "cropped"
    w.set_state({"clock": "Shared"})  # from the browser: an error reply, nothing set
    assert w.clock == "cropped"
    assert "clock" in sent.of("error")[-1]["message"]


def test_blocks_asked_for_on_another_clock_are_stale(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "shared")
    sent = Sent(w)
    request = {"type": "blocks", "id": 7, "level": 0, "bins": 64, "blocks": [0], "filters": w.filters}
    request.update(color_by="kind", start=0, end=100)
    handle(w, {**request, "clock": "shared"})
    assert sent.of("blocks")[-1]["stale"] is False
    w.clock = "cropped"
    before = len(sent.messages)
    handle(w, {**request, "clock": "shared"})
    assert [m["type"] for m in sent.messages[before:]] == ["blocks"]
    assert sent.of("blocks")[-1]["stale"] is True
    handle(w, {**request, "clock": "UTC"})
    assert "clock must be one of tile, cropped, shared" in sent.of("error")[-1]["message"]


def test_a_highlight_follows_a_switch(profile: ipu_nb.Profile) -> None:
    w = widget_on(profile, "tile")
    marked = pl.DataFrame({"sample": [5, 7]})
    assert w.highlight(marked) == 2
    w.clock = "shared"
    marks = w._marks
    assert marks is not None
    side = w._shown_now().side
    assert sorted(side.index.sample[marks.positions].tolist()) == [5, 7]


def test_a_flip_keeps_the_clock_and_a_bad_clock_in_a_state_flips_nothing(profile: ipu_nb.Profile) -> None:
    before = profile_from_tiles(TILES[1:])  # tiles 2, 4 and 9: fewer samples, other ids
    w = ProfileWidget(profile, baseline=before, clock="shared")
    Sent(w)
    with pytest.raises(traitlets.TraitError, match="clock"):
        w.state = {"showing": "baseline", "clock": "utc"}
    assert (w.showing, w.clock) == ("after", "shared")
    w.showing = "baseline"
    kept, _ = head_reference.cropped_samples(TILES[1:], shared_clock=True)
    ids = {id(s): i for i, s in enumerate(s for t in TILES[1:] for s in t.samples)}
    expected = {ids[id(c["sample"])]: c["offset"] for c in kept}
    assert dict(zip(w.profile.samples["sample"].to_list(), w.profile.samples["offset"].to_list(), strict=True)) == (
        expected
    )


def rows_of(samples: pl.DataFrame) -> dict[int, tuple[int, int, int]]:
    """sample id → (tile, offset, duration) of a samples frame, as `reference` gives them."""
    return {s: (t, o, d) for s, t, o, d in samples.select("sample", "tile", "offset", "duration").iter_rows()}


@pytest.mark.parametrize(("schema_version", "clock"), [(1, "tile"), (3, "tile"), (4, "cropped"), (5, "cropped")])
def test_a_widget_opens_on_the_clock_of_the_runtime_that_wrote_the_file(schema_version: int, clock: str) -> None:
    """Files the ba7339c runtime reads open per tile; a newer runtime's on its default, the cropped clock."""
    profile = profile_from_tiles(TILES, schema_version=schema_version)
    w = ProfileWidget(profile)
    rows, span = reference(clock)
    assert w.clock == clock and w.view == [0, span]
    assert rows_of(w.filtered) == rows
    assert ProfileWidget(profile, clock="tile").clock == "tile"  # a trait given wins


def test_profile_on_clock_gives_the_references_offsets(profile: ipu_nb.Profile) -> None:
    for clock in CLOCKS:
        assert rows_of(profile.on_clock(clock).samples) == reference(clock)[0], clock
    assert profile.on_clock("tile") is profile
    with pytest.raises(ValueError, match=r"on_clock: clock must be one of 'tile', 'cropped', 'shared', got 'utc'"):
        profile.on_clock("utc")


def test_the_delta_columns_compare_both_profiles_on_the_widgets_clock(profile: ipu_nb.Profile) -> None:
    """A ``window`` is offsets on the widget's clock, so the comparison reads both profiles there."""
    before = profile_from_tiles(TILES[1:])
    w = ProfileWidget(profile, baseline=before, clock="tile", filters={"window": [600, 1300]})
    Sent(w)
    seen = {}
    for clock in CLOCKS:
        w.clock = clock
        w.filters = {"window": [600, 1300]}  # the same offsets, on this clock
        expected = ipu_nb.compare(before.on_clock(clock), profile.on_clock(clock), by="kernel", window=(600, 1300))
        assert w.comparison.groups.equals(expected.groups), clock
        seen[clock] = w.comparison.groups
    assert not seen["tile"].equals(seen["shared"]), "the clocks select different samples in this window"
