"""The widget's area selection, highlights, `to_code()` and `state`, against plain references.

The area's samples are checked against a brute-force pass over the rows (the window rule
written out again), its groups against `ipu_nb.query` called as the issue writes it, and
the code `to_code()` returns is executed and compared with the widget's frames.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import traitlets
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb._query import window_samples
from ipu_nb._widget.selection import area_longest, area_query, normalise_selection, selection_samples
from ipu_nb._widget.state import TILE_ORDERS, normalise_tracks
from ipu_nb._widget.widget import ProfileWidget

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> ipu_nb.Profile:
    path = tmp_path_factory.mktemp("selection") / "mlp.capnp"
    ipu_nb.generate_profile(path, "mlp", "phase", phases=6)
    return ipu_nb.open_profile(path, progress=False)


class Sent:
    """What the widget sends to the front end."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.messages: list[tuple[dict[str, Any], list[bytes]]] = []
        widget.send = lambda content, buffers=None: self.messages.append((content, list(buffers or [])))

    def last(self, kind: str) -> tuple[dict[str, Any], list[bytes]]:
        for content, buffers in reversed(self.messages):
            if content["type"] == kind:
                return content, buffers
        raise AssertionError(f"no {kind!r} among {[c['type'] for c, _ in self.messages]}")

    def types(self) -> list[str]:
        return [c["type"] for c, _ in self.messages]


@pytest.fixture
def widget(profile: ipu_nb.Profile) -> ProfileWidget:
    w = ProfileWidget(profile)
    w.sent = Sent(w)
    return w


def brute_area(profile: ipu_nb.Profile, start: int, end: int, tiles: list[int] | None, keep: Any = None) -> dict:
    """sample id -> cycles inside [start, end), for samples on `tiles` that `keep(row)` accepts, row by row."""
    out = {}
    for row in profile.samples.select("sample", "tile", "offset", "duration", "kind").iter_rows(named=True):
        lo, hi = row["offset"], row["offset"] + row["duration"]
        if not (lo < end and hi > start and hi > lo):
            continue
        if tiles is not None and row["tile"] not in tiles:
            continue
        if keep is not None and not keep(row):
            continue
        out[row["sample"]] = min(hi, end) - max(lo, start)
    return out


# ---- the trait ------------------------------------------------------------------------------


def test_selection_is_normalised_and_bad_values_are_refused_with_what_is_wrong(widget):
    span = widget.view[1]
    widget.selection = {"start": np.int64(10), "end": 500, "tiles": (9, 3, 9)}
    assert widget.selection == {"start": 10, "end": 500, "tiles": [3, 9]}
    widget.selection = {"start": 0, "end": span}
    assert widget.selection == {"start": 0, "end": span, "tiles": None}
    bad = [
        ({"start": 5, "end": 5}, "start < end"),
        ({"start": 9, "end": 5}, "start < end"),
        ({"start": True, "end": 5}, "integer offset"),
        ({"start": 1.5, "end": 5}, "integer offset"),
        ({"start": -1, "end": 5}, "0.."),
        ({"start": 0, "end": span + 10}, "timeline's range"),
        ({"start": 0}, "needs 'end'"),
        ({"start": 0, "end": 9, "rows": [1]}, "unknown selection key"),
        ({"start": 0, "end": 9, "tiles": []}, "None selects every tile"),
        ({"start": 0, "end": 9, "tiles": [99_999]}, "no tile of this profile: 99999"),
        ({"start": 0, "end": 9, "tiles": ["3"]}, "integer tile ids"),
        ({"start": 0, "end": 9, "tiles": "3"}, "list of tile ids"),
        ([0, 9], "a dict"),
    ]
    for value, says in bad:
        with pytest.raises(traitlets.TraitError, match=re.escape(says)):
            widget.selection = value
        assert widget.selection == {"start": 0, "end": span, "tiles": None}  # unchanged
    widget.selection = None
    assert widget.selection is None


def test_a_bad_selection_from_the_browser_is_answered_and_set_back(widget):
    widget.selection = {"start": 0, "end": 100, "tiles": None}
    resent = []
    widget.send_state = lambda keys=None: resent.append(keys)
    widget.set_state({"selection": {"start": 50, "end": 10, "tiles": None}})
    error, _ = widget.sent.last("error")
    assert error["request"] == "update" and "start < end" in error["message"]
    assert widget.selection == {"start": 0, "end": 100, "tiles": None} and resent == [["selection"]]


def test_tracks_are_checked_against_the_tiles(widget):
    rows = widget.info["rows"]
    widget.tracks = {"order": "grid", "pinned": [rows[5], rows[2], rows[5]], "rows": 64}
    assert widget.tracks == {"order": "grid", "pinned": [rows[5], rows[2]], "rows": 64, "scroll": 0}
    for value, says in [
        ({"order": "random"}, "one of physical, logical, grid"),
        ({"pinned": [99_999]}, "tile ids of this profile"),
        ({"rows": -1}, "0..1472"),
        ({"scroll": 1.0}, "integer"),
        ({"zoom": 2}, "unknown tracks key"),
    ]:
        with pytest.raises(traitlets.TraitError, match=re.escape(says)):
            widget.tracks = value
    assert normalise_tracks(None, {1}) == {"order": "physical", "pinned": [], "rows": 0, "scroll": 0}


def test_tile_orders_are_the_front_ends():
    text = (ROOT / "js" / "timeline" / "tracks.ts").read_text()
    listed = re.search(r"TILE_ORDERS = \[([^\]]*)\]", text)
    assert listed and re.findall(r'"(\w+)"', listed.group(1)) == list(TILE_ORDERS)


# ---- what an area holds -----------------------------------------------------------------------


def test_selection_samples_are_the_overlapping_samples_with_their_clipped_cycles(widget, profile):
    span = widget.view[1]
    tiles = widget.info["rows"][3:40:3]
    start, end = span // 5, span // 5 + span // 7
    widget.selection = {"start": start, "end": end, "tiles": tiles}
    frame = widget.selection_samples
    assert frame.columns == [*profile.samples.columns, "clipped_cycles"]
    assert frame.schema["clipped_cycles"] == pl.Int64
    expected = brute_area(profile, start, end, tiles)
    assert len(expected) > 20
    assert dict(zip(frame["sample"].to_list(), frame["clipped_cycles"].to_list(), strict=True)) == expected
    assert frame["sample"].to_list() == sorted(expected)  # file order
    # Each row is the sample's own row of profile.samples.
    own = profile.samples.filter(pl.col("sample").is_in(frame["sample"].implode()))
    assert_frame_equal(frame.drop("clipped_cycles"), own)


def test_the_area_narrows_the_filters_never_replaces_them(widget, profile):
    span = widget.view[1]
    rows = widget.info["rows"]
    widget.filters = {"kind": "compute", "tiles": rows[:30], "window": [span // 4, span // 2]}
    widget.selection = {"start": span // 3, "end": span, "tiles": rows[20:60]}
    expected = brute_area(profile, span // 3, span // 2, rows[20:30], keep=lambda r: r["kind"] == "compute")
    frame = widget.selection_samples
    assert len(expected) > 5
    assert dict(zip(frame["sample"].to_list(), frame["clipped_cycles"].to_list(), strict=True)) == expected
    q = area_query(widget.query, widget.selection)
    assert q is not None and q.window == (span // 3, span // 2) and q.tiles == tuple(rows[20:30]) and q.clip
    # An area missing the filters' tiles or window holds nothing, and says so in its groups.
    widget.selection = {"start": span // 3, "end": span, "tiles": rows[40:60]}
    assert widget.selection_samples.height == 0 and widget.selection_groups.height == 0
    widget.selection = {"start": 0, "end": span // 5, "tiles": None}
    assert widget.selection_samples.height == 0
    assert widget.selection_groups.columns == widget.groups.columns


@settings(max_examples=examples(30))
@given(st.data())
def test_selection_groups_equal_the_clipped_query(profile, data):
    widget = ProfileWidget(profile)
    widget.send = lambda content, buffers=None: (
        setattr(widget, "sent_groups", content["rows"]) if content["type"] == "groups" else None
    )
    span = widget.view[1]
    rows = widget.info["rows"]
    start = data.draw(st.integers(0, span - 1))
    end = data.draw(st.integers(start + 1, span))
    tiles = data.draw(st.none() | st.lists(st.sampled_from(rows[:200]), min_size=1, max_size=40))
    kind = data.draw(st.sampled_from([None, "compute", "exchange", "synchronization"]))
    group_by = data.draw(st.sampled_from(["kernel", "kind", "tile", "operation", "phase", "metadata"]))
    with widget.hold_trait_notifications():
        widget.filters = {"kind": kind}
        widget.metadata_key = "layer"
        widget.group_by = group_by
    widget.selection = {"start": start, "end": end, "tiles": tiles}
    flags: dict[str, Any] = {"kind": kind} if kind else {}
    if tiles is not None:
        flags["tiles"] = sorted(set(tiles))
    key = "layer" if group_by == "metadata" else None  # the widget keeps its key; a query uses it only so
    expected = ipu_nb.query(
        profile, window=(start, end), clip=True, **flags, group_by=group_by, metadata_key=key
    ).groups
    assert_frame_equal(widget.selection_groups, expected)
    # The side panel's rows are its top 12.
    widget._views.send("groups")
    shown = [(r["name"], r["phase_cycles"], r["work_cycles"], r["sample_count"]) for r in widget.sent_groups]
    top = expected.head(12).select("name", "phase_cycles", "work_cycles", "sample_count").rows()
    assert shown == top
    frame = widget.selection_samples
    keep = (lambda r: r["kind"] == kind) if kind else None
    assert frame["sample"].to_list() == sorted(brute_area(profile, start, end, tiles, keep))


@settings(max_examples=examples(40))
@given(st.data())
def test_the_widgets_area_samples_are_the_query_cores_window_samples(profile, data):
    # The widget finds an area's rows in its timeline index; the query core scans every sample.
    widget = ProfileWidget(profile)
    widget.send = lambda content, buffers=None: None
    span = widget.view[1]
    rows = widget.info["rows"]
    start = data.draw(st.integers(0, span - 1))
    end = data.draw(st.integers(start + 1, span + 50))
    tiles = data.draw(st.none() | st.lists(st.sampled_from(rows), min_size=1, max_size=60))
    filters: dict[str, Any] = {}
    if data.draw(st.booleans()):
        filters["kind"] = data.draw(st.sampled_from(["compute", "exchange", "synchronization"]))
    if data.draw(st.booleans()):
        filters["tiles"] = data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=80, unique=True))
    if data.draw(st.booleans()):
        lo = data.draw(st.integers(0, span - 1))
        filters["window"] = [lo, data.draw(st.integers(lo + 1, span))]
    widget.filters = filters
    widget.selection = {"start": start, "end": min(end, span), "tiles": tiles}
    assert_frame_equal(widget.selection_samples, selection_samples(profile, widget.query, widget.selection))


@settings(max_examples=examples(40))
@given(st.data())
def test_area_longest_is_the_whole_areas_order_cut_to_n(profile, data):
    # Narrow windows clip many samples to the same length: ties at the n-th place are common.
    span = int((profile.samples["offset"] + profile.samples["duration"]).max())
    start = data.draw(st.integers(0, span - 1))
    end = data.draw(st.integers(start + 1, min(span, start + data.draw(st.sampled_from([2, 50, 5_000, span])))))
    n = data.draw(st.integers(1, 15))
    frame = window_samples(profile, None, (start, end))
    rows = frame.select("sample", "tile", "offset", "duration", "clipped_cycles").rows(named=True)
    # The query core's order of a clipped query's longest: cycles inside desc, tile, offset, file order.
    expected = sorted(rows, key=lambda r: (-r["clipped_cycles"], r["tile"], r["offset"], r["sample"]))[:n]
    got = area_longest(frame, (start, end), n)
    assert [(r["sample"], r["clipped_cycles"], r["offset"], r["duration"]) for r in got] == [
        (r["sample"], r["clipped_cycles"], r["offset"], r["duration"]) for r in expected
    ]


def test_selection_groups_by_metadata(widget, profile):
    span = widget.view[1]
    with widget.hold_trait_notifications():
        widget.metadata_key = "layer"
        widget.group_by = "metadata"
    widget.selection = {"start": 0, "end": span // 2, "tiles": None}
    expected = ipu_nb.query(profile, window=(0, span // 2), clip=True, group_by="metadata", metadata_key="layer").groups
    assert expected.height > 1
    assert_frame_equal(widget.selection_groups, expected)


# ---- the side panel ---------------------------------------------------------------------------


def test_selecting_an_area_sends_its_summary_groups_and_flame_graph(widget, profile):
    span = widget.view[1]
    tiles = widget.info["rows"][:64]
    widget.selection = {"start": span // 3, "end": span // 2, "tiles": tiles}
    assert widget.sent.types()[-3:] == ["area", "flame", "groups"]  # the flame graph draws while groups compute
    area, _ = widget.sent.last("area")
    frame = widget.selection_samples
    assert area["selection"] == widget.selection
    assert area["window"] == [span // 3, span // 2] and area["tiles"] == tiles
    assert area["count"] == frame.height and area["cycles"] == frame["clipped_cycles"].sum()
    assert area["tiles_hit"] == frame["tile"].n_unique()
    top = frame.sort("clipped_cycles", descending=True).head(10)
    assert [s["clipped_cycles"] for s in area["longest"]] == top["clipped_cycles"].to_list()
    first = area["longest"][0]
    own = profile.samples.filter(pl.col("sample") == first["sample"]).row(0, named=True)
    assert (first["offset"], first["duration"], first["operation"]) == (
        own["offset"],
        own["duration"],
        own["operation"],
    )
    groups, _ = widget.sent.last("groups")
    assert groups["area"] is True
    assert [r["name"] for r in groups["rows"]] == widget.selection_groups["name"].head(12).to_list()
    assert [r["phase_cycles"] for r in groups["rows"]] == widget.selection_groups["phase_cycles"].head(12).to_list()
    flame, _ = widget.sent.last("flame")
    assert flame["area"] is True and flame["total"] == frame["clipped_cycles"].sum()
    # A flame node's value is its samples' clipped cycles.
    kinds = {n["name"]: n["value"] for n in flame["nodes"] if n["level"] == 1}
    by_kind = frame.group_by(pl.col("kind").cast(pl.String)).agg(pl.col("clipped_cycles").sum())
    assert kinds == dict(by_kind.iter_rows())
    # Cleared: the whole profile's groups and flame graph again.
    widget.selection = None
    area, _ = widget.sent.last("area")
    assert area["selection"] is None and area["count"] == 0 and area["longest"] == []
    assert widget.sent.last("groups")[0]["area"] is False
    flame, _ = widget.sent.last("flame")
    assert flame["area"] is False and flame["total"] == profile.samples["duration"].sum()


def test_a_filter_change_sends_the_area_again_after_the_timeline(widget):
    span = widget.view[1]
    widget.selection = {"start": 0, "end": span // 2, "tiles": None}
    before, _ = widget.sent.last("area")
    widget.filters = {"kind": "exchange"}
    blocks = {"type": "blocks", "id": 3, "level": 10, "bins": 8, "blocks": [0], "start": 0, "end": span}
    widget._on_message(widget, {**blocks, "filters": widget.filters, "color_by": widget.color_by}, [])
    after, _ = widget.sent.last("area")
    assert after["count"] == widget.selection_samples.height < before["count"]


def test_a_new_view_gets_the_area_and_the_highlight(widget, profile):
    widget.selection = {"start": 0, "end": 1000, "tiles": None}
    widget.highlight(profile.samples.head(5))
    widget.sent.messages.clear()
    widget._on_message(widget, {"type": "hello"}, [])
    assert {"area", "highlight", "flame"} <= set(widget.sent.types())


# ---- highlights -------------------------------------------------------------------------------


def test_highlight_sends_the_ids_and_places_of_any_frames_samples(widget, profile):
    chosen = profile.samples.filter(pl.col("kind") == "exchange").sample(50, seed=1)
    assert widget.highlight(chosen.select("sample", "tile")) == 50
    push, buffers = widget.sent.last("highlight")
    assert push == {"type": "highlight", "count": 50, "sent": 50}
    start, end = np.frombuffer(buffers[0], "<f8"), np.frombuffer(buffers[1], "<f8")
    rows, ids = np.frombuffer(buffers[2], "<u2"), np.frombuffer(buffers[3], "<u4")
    assert sorted(ids.tolist()) == sorted(chosen["sample"].to_list())
    own = {r["sample"]: r for r in chosen.iter_rows(named=True)}
    tiles = np.array(widget.info["rows"])[rows]
    for i, sid in enumerate(ids.tolist()):
        assert (start[i], end[i], tiles[i]) == (
            own[sid]["offset"],
            own[sid]["offset"] + own[sid]["duration"],
            own[sid]["tile"],
        )
    assert list(start) == sorted(start)  # by offset
    # Lazy frames, repeats and other integer types are fine; None clears.
    lazy = pl.LazyFrame({"sample": pl.Series([3, 3, 7], dtype=pl.Int32)})
    assert widget.highlight(lazy) == 2
    assert widget.highlight(None) == 0
    push, buffers = widget.sent.last("highlight")
    assert push["count"] == 0 and all(len(b) == 0 for b in buffers)


def test_highlight_refuses_what_is_not_a_frame_of_samples(widget, profile):
    n = profile.sample_count
    for value, error, says in [
        ([1, 2], TypeError, "DataFrame with a 'sample' column"),
        (pl.DataFrame({"id": [1]}), ValueError, "no 'sample' column (its columns: id)"),
        (pl.DataFrame({"sample": [1.0]}), ValueError, "integer sample ids"),
        (pl.DataFrame({"sample": [1, None]}), ValueError, "1 nulls"),
        (pl.DataFrame({"sample": [1, n, n + 5, -2]}), ValueError, f"3 ids are no sample of this profile (e.g. -2, {n}"),
        (pl.DataFrame({"sample": pl.Series([2**64 - 1], dtype=pl.UInt64)}), ValueError, "18446744073709551615"),
    ]:
        with pytest.raises(error, match=re.escape(says)):
            widget.highlight(value)


# ---- the view as code ---------------------------------------------------------------------------


def run(code: str, **names: Any) -> dict[str, Any]:
    namespace: dict[str, Any] = dict(names)
    exec(compile(code, "<to_code>", "exec"), namespace)
    return namespace


def test_to_code_reproduces_every_frame_the_widget_shows(widget, profile):
    span = widget.view[1]
    rows = widget.info["rows"]
    widget.filters = {"kind": "compute", "metadata": [["role", "matmul"]], "tiles": rows[:300]}
    inside = widget.filtered.filter(pl.col("duration") > 2).row(0, named=True)
    with widget.hold_trait_notifications():
        widget.metadata_key = "layer"
        widget.group_by = "metadata"
        widget.at = inside["offset"] + inside["duration"] // 2
        widget.selection = {"start": span // 4, "end": span // 2, "tiles": rows[100:400]}
        widget.view = [span // 8, span // 2]
        widget.tracks = {"order": "grid", "pinned": [rows[7]], "rows": 128, "scroll": 4}
    code = widget.to_code()
    assert f"ipu_nb.open_profile({str(profile.path)!r})" in code
    assert "'tiles': list(range(0, 300))" in code and len(code.splitlines()) < 40  # tile lists as ranges
    ns = run(code)
    assert_frame_equal(ns["groups"], widget.groups)
    assert_frame_equal(ns["samples"], widget.filtered)
    assert_frame_equal(ns["at_slice"], widget.at_slice)
    assert_frame_equal(ns["selection_groups"], widget.selection_groups)
    assert_frame_equal(ns["selection_samples"], widget.selection_samples)
    assert widget.selection_samples.height > 0 and ns["at_slice"].height > 0
    assert ns["widget"].state == widget.state


def test_to_code_takes_hostile_strings_as_data(profile, tmp_path):
    widget = ProfileWidget(profile)
    widget.send = lambda content, buffers=None: None
    marker = tmp_path / "pwned"
    nasty = f"x'); open({str(marker)!r}, 'w'); ('\n\u202e\"\"\"#"
    widget.filters = {"operation_contains": nasty, "metadata": [[nasty, None]]}
    widget.selection = {"start": 0, "end": 100, "tiles": None}
    ns = run(widget.to_code())
    assert not marker.exists()
    assert ns["filters"] == {"operation_contains": nasty, "metadata": [(nasty, None)]}
    assert ns["samples"].height == 0
    assert "\u202e" not in widget.to_code()  # escaped, so the code reads as it runs


def test_to_code_without_a_file_asks_for_the_profile(profile):
    from dataclasses import replace

    widget = ProfileWidget(replace(profile, path=None))
    code = widget.to_code()
    assert "open_profile" not in code and "bind `profile`" in code
    assert_frame_equal(run(code, profile=widget.profile)["groups"], widget.groups)


def test_to_code_writes_tile_lists_with_ranges():
    from ipu_nb._widget.code import _ints

    assert _ints([0, 1, 2, 3, 9, 11, 12, 13, 14, 20]) == "[*range(0, 4), 9, *range(11, 15), 20]"
    assert _ints([4, 5, 6, 7]) == "list(range(4, 8))"
    assert _ints([1, 2, 3]) == "[1, 2, 3]"
    for values in ([0, 1, 2, 3, 9, 11, 12, 13, 14, 20], [4, 5, 6, 7], [1, 2, 3], [7]):
        assert eval(_ints(values)) == values


def test_the_code_request_answers_to_code(widget):
    widget._on_message(widget, {"type": "code", "id": 4}, [])
    reply, _ = widget.sent.last("code")
    assert reply == {"type": "code", "id": 4, "code": widget.to_code()}


# ---- the view as state ------------------------------------------------------------------------


def test_state_round_trips_through_json_and_a_new_widget(widget, profile):
    span = widget.view[1]
    rows = widget.info["rows"]
    with widget.hold_trait_notifications():
        widget.filters = {"kernel": "", "phases": [3, 1]}
        widget.view = [100, span // 2]
        widget.at = 1234
        widget.selected = 17
        widget.selection = {"start": 200, "end": 9000, "tiles": rows[:4]}
        widget.color_by = "kernel"
        widget.group_by = "tile"
        widget.tracks = {"order": "logical", "pinned": [rows[9]], "rows": 100, "scroll": 20}
        widget.add_marker(300, 900, label="a <note>")
    state = widget.state
    assert json.loads(json.dumps(state)) == state
    assert set(state) == {"version", "view", "tracks", "filters", "at", "selected", "selection"} | {
        "group_by",
        "metadata_key",
        "color_by",
        "showing",
        "clock",
        "marker_rows",
        "flame_hierarchy",
    }
    assert state["showing"] == "after"  # no baseline: the one profile
    copy = ProfileWidget(profile, state=json.loads(json.dumps(state)))
    assert copy.state == state
    assert copy.filters["phases"] == [1, 3] and copy.selection == widget.selection
    # Setting it on a live widget applies all of it.
    other = ProfileWidget(profile)
    other.state = state
    assert other.state == state
    # A part of a state sets that part.
    other.state = {"color_by": "kind"}
    assert other.color_by == "kind" and other.view == [100, span // 2]


def test_a_bad_state_is_refused_and_changes_nothing(widget, profile):
    before = widget.state
    for value, error, says in [
        ("view", traitlets.TraitError, "state must be a dict"),
        ({"version": 2}, traitlets.TraitError, "version 2 is not supported"),
        ({"zoom": 3}, traitlets.TraitError, "unknown state key(s) 'zoom'"),
        ({"view": [5, 1], "color_by": "kernel"}, traitlets.TraitError, "view"),
        ({"selection": {"start": 0, "end": 9, "tiles": [99_999]}, "at": 5}, traitlets.TraitError, "no tile"),
        ({"group_by": "metadata"}, traitlets.TraitError, "needs a metadata_key"),
    ]:
        with pytest.raises(error, match=re.escape(says)):
            widget.state = value
        assert widget.state == before
    with pytest.raises(TypeError, match="view given both in state and as keywords"):
        ProfileWidget(profile, state={"view": [0, 10]}, view=[0, 20])
    with pytest.raises(traitlets.TraitError, match="unknown state key"):
        ProfileWidget(profile, state={"colour": "kind"})


def test_normalise_selection_is_pure():
    assert normalise_selection(None, {1}, 10) is None
    assert normalise_selection({"start": 0, "end": 10, "tiles": [1]}, {1}, 10) == {"start": 0, "end": 10, "tiles": [1]}
