"""ProfileWidget's Python side: messages in, replies and traits out, DataFrames equal to the query core's."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl
import pytest
import traitlets
from builders import S, T, profile_from_tiles
from untyped import untyped

import ipu_nb
from ipu_nb._query import Query, filter_mask, filter_samples
from ipu_nb._query.filters_codec import filters_query, normalise_filters
from ipu_nb._widget.flame import flame_tree
from ipu_nb._widget.lod import unpack_cells
from ipu_nb._widget.widget import ProfileWidget

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def profile():
    tiles = []
    for t, phys in enumerate([66, 2, 0, 64]):
        samples = []
        cursor = 4_294_960_000 + 100 * t  # wraps mid-profile
        for p in range(6):
            samples.append(S(cursor, cursor + 50, kind="synchronization", operation="sync", kernel="", phase=2 * p))
            cursor += 50
            busy = (p + t) % 3 != 0
            kind = "compute" if busy else "idle"
            meta = [("layer", str(p % 2)), ("role", "gemm" if busy else HOSTILE)]
            # Names and values with "=": "a=b" -> "c" and "a" -> "b=c" read the same joined.
            meta.append(("a=b", "c") if p % 2 else ("a", "b=c"))
            if not busy and t == 1:
                kind, meta = "compute", [*meta, ("active", "false")]
            kernel = "gemm_f32" if busy else ""
            op = f"MLP layer {p % 2}: block {t}" if busy else HOSTILE
            samples.append(
                S(cursor, cursor + 300 + 40 * t, kind=kind, operation=op, kernel=kernel, phase=2 * p + 1, metadata=meta)
            )
            cursor += 300 + 40 * t
        tiles.append(T(phys, samples))
    tiles.append(T(5, []))
    return profile_from_tiles(tiles)


class Recorder:
    """Captures what the widget sends to the front end."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.sent: list[tuple[dict[str, Any], list[bytes]]] = []
        widget.send = lambda content, buffers=None: self.sent.append((content, list(buffers or [])))

    def last(self, kind: str) -> tuple[dict[str, Any], list[bytes]]:
        for content, buffers in reversed(self.sent):
            if content.get("type") == kind:
                return content, buffers
        raise AssertionError(f"no {kind!r} message among {[c.get('type') for c, _ in self.sent]}")


@pytest.fixture
def widget(profile):
    w = ProfileWidget(profile)
    w.recorder = Recorder(w)
    return w


def msg(widget: ProfileWidget, content: dict[str, Any]) -> None:
    widget._handle_custom_msg(content, [])


def test_initial_state_covers_the_whole_profile(widget, profile):
    assert widget.view == [0, profile.span_cycles]
    assert widget.info["rows"] == [0, 2, 5, 64, 66]
    assert widget.info["samples"] == profile.sample_count
    assert widget.filters == normalise_filters({})
    assert widget.at is None and widget.selected is None
    assert widget.at_slice.height == 0
    assert widget.selected_sample.height == 0


def test_window_request_answers_with_binary_intervals(widget, profile):
    msg(widget, {"type": "window", "view": "v1", "id": 7, "start": 0, "end": widget.view[1], "pixels": 500})
    content, buffers = widget.recorder.last("window")
    assert content["id"] == 7 and content["view"] == "v1" and content["mode"] == "raw"
    ids = np.frombuffer(buffers[4], "<u4")
    assert sorted(ids.tolist()) == profile.samples.filter(pl.col("duration") > 0).get_column("sample").to_list()
    rows = np.frombuffer(buffers[2], "<u2")
    tiles = np.array(widget.info["rows"])[rows]
    expected = dict(zip(*profile.samples.select("sample", "tile").to_dict(as_series=False).values(), strict=True))
    assert [expected[int(i)] for i in ids] == tiles.tolist()


def test_window_labels_name_each_interval_operation(widget, profile):
    msg(widget, {"type": "window", "id": 2, "start": 0, "end": widget.view[1], "pixels": 500, "labels": True})
    content, buffers = widget.recorder.last("window")
    ids = np.frombuffer(buffers[4], "<u4")
    codes = np.frombuffer(buffers[5], "<u4")
    names = dict(
        zip(
            *profile.samples.select("sample", pl.col("operation").cast(pl.String)).to_dict(as_series=False).values(),
            strict=True,
        )
    )
    assert [content["labels"][c] for c in codes] == [names[int(i)] for i in ids]
    assert HOSTILE in content["labels"]


def test_window_summaries_when_raw_is_too_big(widget, monkeypatch):
    import ipu_nb._widget.lod as lod

    original = lod.window
    monkeypatch.setattr(lod, "window", lambda *a, **k: original(*a, **{**k, "raw_limit": 3}))
    msg(widget, {"type": "window", "id": 1, "start": 0, "end": widget.view[1], "pixels": 40})
    content, buffers = widget.recorder.last("window")
    assert content["mode"] == "lod" and content["bins"] == 40
    planes = content["planes"]
    cells = unpack_cells(planes * 5, 40, content["runs"], buffers).reshape(planes, 5, 40)
    assert (cells[:, 2] == 0).all()  # tile 5 has no samples
    assert cells.sum(axis=0, dtype=int)[[0, 1, 3, 4]].max() == 255  # some cell covered whole


def test_pick_sets_at_and_selected_and_matches_profile_filter(widget, profile):
    seen = []
    widget.observe(lambda c: seen.append(c["name"]), names=["at", "selected"])
    row = widget.info["rows"].index(64)
    msg(widget, {"type": "pick", "row": row, "x": 120})
    assert widget.at == 120
    assert [c["type"] for c, _ in widget.recorder.sent].count("panel") == 1  # one for both traits
    expected_id = (
        profile.samples.filter(
            (pl.col("tile") == 64) & (pl.col("offset") <= 120) & (pl.col("offset") + pl.col("duration") > 120)
        )
        .get_column("sample")
        .item()
    )
    assert widget.selected == expected_id
    assert set(seen) == {"at", "selected"}
    assert widget.at_slice.equals(profile.filter(at=120))
    assert widget.at_slice.equals(filter_samples(profile, Query(at=120)))
    selected = widget.selected_sample
    assert selected.height == 1 and selected.get_column("sample").item() == expected_id
    assert selected.equals(profile.filter(tiles=[64], at=120))
    panel, _ = widget.recorder.last("panel")
    assert panel["at"]["count"] == widget.at_slice.height
    assert panel["selected"]["sample"] == expected_id
    names = [n for n, _ in panel["selected"]["metadata"]]
    assert names == selected.get_column("metadata").item().struct.field("name").to_list()


def test_pick_in_a_gap_clears_selected(widget):
    widget.selected = 0
    msg(widget, {"type": "pick", "row": widget.info["rows"].index(5), "x": 10})
    assert widget.at == 10 and widget.selected is None


FILTER_CASES = [
    {"kind": "compute"},
    {"kernel": "gemm_f32", "phases": [1, 3]},
    {"operation_contains": "layer 1"},
    {"metadata": ["layer=1", "role"]},
    {"metadata": [f"role={HOSTILE}"]},
    {"metadata": [["a=b", "c"]]},
    {"metadata": ["a=b=c"]},
    {"metadata": [("a=b", None), ["layer", "0"]]},
    {"tiles": [0, 66], "kind": "idle"},
    {"kernel": ""},
]


@pytest.mark.parametrize("filters", FILTER_CASES)
def test_views_equal_query_core(widget, profile, filters):
    widget.filters = filters
    q = widget.query
    assert isinstance(q, Query)
    assert widget.filtered.equals(profile.filter(q))
    assert widget.groups.equals(ipu_nb.query(profile, q).groups)
    widget.at = 400
    assert widget.at_slice.equals(profile.filter(dataclasses.replace(q, at=400)))
    # The greying mask is the same set as the query core's filter.
    assert (
        np.flatnonzero(filter_mask(profile, filters_query(widget.filters))).tolist()
        == widget.filtered.get_column("sample").to_list()
    )


def test_query_mirrors_traits(widget):
    widget.filters = {"kind": "compute", "metadata": ["layer=1", "role"], "tiles": [64, 2], "phases": [3]}
    assert widget.filters["metadata"] == [["layer", "1"], ["role", None]]
    with widget.hold_trait_notifications():  # grouping by metadata needs its key: set together
        widget.group_by = "metadata"
        widget.metadata_key = "layer"
    assert widget.query == Query(
        group_by="metadata",
        metadata_key="layer",
        kind="compute",
        tiles=(2, 64),
        phases=(3,),
        metadata=(("layer", "1"), ("role", None)),
    )
    assert widget.groups.get_column("name").to_list() == ["1"]


def test_filter_change_greys_the_window_and_pushes_views(widget, profile):
    msg(widget, {"type": "window", "id": 1, "start": 0, "end": widget.view[1], "pixels": 100})
    _, before = widget.recorder.last("window")
    widget.recorder.sent.clear()
    widget.filters = {"metadata": ["layer=1"]}
    assert widget.recorder.sent == []  # the other views wait for the timeline's next window
    msg(widget, {"type": "window", "id": 2, "start": 0, "end": widget.view[1], "pixels": 100})
    _, after = widget.recorder.last("window")
    assert [c["type"] for c, _ in widget.recorder.sent] == ["window", "overview", "panel", "flame"]
    ids = np.frombuffer(after[4], "<u4")
    matched = (np.frombuffer(after[3], np.uint8) & 0x80) > 0
    layer1 = set(profile.filter(metadata=["layer=1"]).get_column("sample").to_list())
    assert {int(i) for i, m in zip(ids, matched, strict=True) if m} == layer1
    assert before[3] != after[3]


def test_flame_sums_filtered_durations(widget, profile):
    widget.filters = {"kind": "compute"}
    msg(widget, {"type": "window", "id": 1, "start": 0, "end": 10, "pixels": 10})
    flame, _ = widget.recorder.last("flame")
    compute = profile.samples.filter(kind="compute")
    assert flame["total"] == compute.get_column("duration").sum()
    nodes = flame["nodes"]
    for node in nodes[1:]:
        assert node["value"] <= nodes[node["parent"]]["value"]
    kernels = {n["name"]: n["value"] for n in nodes if n["level"] == 2}
    by_kernel = compute.group_by(pl.col("kernel").cast(pl.String)).agg(pl.col("duration").sum())
    expected = {k or "(no kernel)": v for k, v in by_kernel.iter_rows()}
    assert kernels == expected
    phase_node = next(n for n in nodes if n["level"] == 3)
    assert set(phase_node["path"]) == {"kind", "kernel", "phase"}


def test_flame_lists_metadata_once_an_operation_is_focused(profile):
    assert flame_tree(profile, None, Query())["metadata"] == []
    mask = filter_mask(profile, operation_contains="layer 1")
    tree = flame_tree(profile, mask, Query(operation_contains="layer 1"))
    layer = next(m for m in tree["metadata"] if m["name"] == "layer")
    assert layer["value"] == "1"
    focused = profile.samples.filter(pl.Series(mask))
    assert layer["cycles"] == focused.get_column("duration").sum()
    assert layer["samples"] == focused.height


def test_hover_describes_the_sample_under_the_cursor(widget, profile):
    row = widget.info["rows"].index(0)
    msg(widget, {"type": "hover", "id": 3, "row": row, "x": 0})
    content, _ = widget.recorder.last("hover")
    first = profile.samples.filter(tile=0).row(0, named=True)
    assert content["id"] == 3 and content["sample"]["sample"] == first["sample"]
    assert content["sample"]["operation"] == first["operation"]
    msg(widget, {"type": "hover", "id": 4, "row": row, "x": profile.span_cycles})  # nothing ends beyond the span
    assert widget.recorder.last("hover")[0]["sample"] is None


def test_python_trait_changes_validate(widget):
    with pytest.raises(traitlets.TraitError, match="unknown filters key"):
        widget.filters = {"knd": "compute"}
    with pytest.raises(traitlets.TraitError, match="metadata name must be at most 65536 characters"):
        widget.filters = {"metadata": ["x" * 65_537]}
    with pytest.raises(traitlets.TraitError, match="kind"):
        widget.filters = {"kind": "bogus"}
    with pytest.raises(traitlets.TraitError, match="start < end"):
        widget.view = [10, 10]
    with pytest.raises(traitlets.TraitError, match="selected"):
        widget.selected = 10**9
    widget.view = [5, 50]
    assert widget.view == [5, 50]


def test_bad_messages_reply_with_an_error_not_a_traceback(widget):
    msg(widget, {"type": "window", "id": 5, "start": "x", "end": 1, "pixels": 10})
    error = widget.recorder.last("error")[0]
    assert error["id"] == 5 and error["request"] == "window"
    assert error["message"] == "MessageError: window start must be an integer, got str 'x'"
    msg(widget, {"type": "pick", "row": 0, "x": -5})
    assert "pick x must be in 0.." in widget.recorder.last("error")[0]["message"]
    assert widget.at is None
    msg(widget, {"type": "unknown"})
    assert "unknown message type 'unknown'" in widget.recorder.last("error")[0]["message"]
    widget._handle_custom_msg("not a dict", [])
    assert "must be a JSON object" in widget.recorder.last("error")[0]["message"]


def test_rejects_non_profiles():
    with pytest.raises(TypeError, match=r"expected an ipu_nb\.Profile"):
        untyped(ProfileWidget)("profile.capnp")


def test_missing_bundle_names_the_fix(monkeypatch, profile, tmp_path):
    monkeypatch.setattr("ipu_nb._widget.widget._BUNDLE", tmp_path / "widget.js")
    with pytest.raises(FileNotFoundError, match="npm run build"):
        ProfileWidget(profile)


def test_esm_points_at_the_built_bundle():
    from ipu_nb._widget.widget import _BUNDLE

    assert _BUNDLE.exists(), "run `npm run build`"
    assert "render" in _BUNDLE.read_text()
    assert str(ProfileWidget._esm).strip()


def test_groups_message_is_the_query_core_aggregation(widget, profile):
    widget.filters = {"kind": "compute"}
    widget.group_by = "phase"
    msg(widget, {"type": "groups"})
    content, _ = widget.recorder.last("groups")
    expected = ipu_nb.query(profile, dataclasses.replace(widget.query, limit=12)).groups
    assert [r["name"] for r in content["rows"]] == expected.get_column("name").to_list()
    assert [r["phase_cycles"] for r in content["rows"]] == expected.get_column("phase_cycles").to_list()
    assert content["rows"][0]["dimensions"].keys() == {"phase", "epoch"}
    widget.metadata_key = "a=b"
    widget.group_by = "metadata"
    msg(widget, {"type": "groups", "id": 8})
    content, _ = widget.recorder.last("groups")
    assert content["id"] == 8 and content["error"] is None
    assert [r["dimensions"] for r in content["rows"]] == [
        {"metadataKey": "a=b", "metadataValue": v} for v in ipu_nb.query(profile, widget.query).groups["name"]
    ]


def test_side_views_on_the_worker_thread_follow_the_latest_state(profile):
    """In a kernel the side views go to a worker thread; they still arrive, once per request, for the last state."""
    widget = ProfileWidget(profile)
    recorder = Recorder(widget)
    widget._side.threaded = True
    row = widget.info["rows"].index(64)
    msg(widget, {"type": "hello"})
    msg(widget, {"type": "pick", "row": row, "x": 120})
    msg(widget, {"type": "groups", "id": 7})
    msg(widget, {"type": "window", "id": 1, "start": 0, "end": widget.view[1], "pixels": 100})
    assert widget._side.wait()
    kinds = [c["type"] for c, _ in recorder.sent]
    assert {"window", "overview", "flame", "panel", "groups"} <= set(kinds)
    assert kinds.count("overview") == kinds.count("flame") == 1
    panel, _ = recorder.last("panel")
    assert panel["at"]["at"] == 120 and panel["selected"]["sample"] == widget.selected
    assert recorder.last("groups")[0]["id"] == 7
    widget.filters = {"kind": "compute"}
    recorder.sent.clear()
    msg(widget, {"type": "window", "id": 2, "start": 0, "end": widget.view[1], "pixels": 100})
    assert widget._side.wait()
    assert sorted(c["type"] for c, _ in recorder.sent) == ["flame", "overview", "panel", "window"]
    assert recorder.last("flame")[0]["total"] == profile.samples.filter(kind="compute").get_column("duration").sum()
    widget.filters = {}  # back to a state seen before: its kept flame graph is the fresh one
    msg(widget, {"type": "window", "id": 3, "start": 0, "end": widget.view[1], "pixels": 100})
    assert widget._side.wait()

    def nodes(tree: Mapping[str, Any]) -> list[tuple]:  # sibling order among equal values is arbitrary
        return sorted((n["level"], n["name"], n["value"], str(n["path"])) for n in tree["nodes"])

    flame, fresh = recorder.last("flame")[0], flame_tree(profile, None, Query())
    assert flame["total"] == fresh["total"] and nodes(flame) == nodes(fresh)
    assert 0 not in recorder.last("overview")[1][0]  # no plane of samples not matching the filters
    sent = len(recorder.sent)
    widget.close()
    widget._views.send("panel")  # closed: nothing more is sent
    assert widget._side.wait() and len(recorder.sent) == sent


# ---- traits set from Python: a bad value names the trait and the fix, and changes nothing ----------

STATE = ("filters", "at", "view", "selected", "group_by", "metadata_key", "color_by")


def state(widget: ProfileWidget) -> dict[str, Any]:
    return {name: getattr(widget, name) for name in STATE}


BAD_TRAITS = [
    ("at", 2**63 - 1, "at must be None or an offset"),
    ("at", 2**53, "at must be None or an offset"),
    ("at", -1, "at must be None or an offset"),
    ("at", True, "'at' trait"),
    ("at", 1.5, "'at' trait"),
    ("at", float("inf"), "'at' trait"),
    ("at", "120", "'at' trait"),
    ("view", [50, 10], "view must have start < end"),
    ("view", [10, 10], "view must have start < end"),
    ("view", [-1, 10], "view start must be in 0.."),
    ("view", [0, 10**15], "view end must be in 0.."),
    ("view", [0, 2**63], "view end must be in 0.."),
    ("view", [True, 10], "'view' trait"),
    ("view", [0.0, float("nan")], "'view' trait"),
    ("view", [0], "'view' trait"),
    ("view", "0-10", "'view' trait"),
    ("selected", -1, "selected must be None or a sample id"),
    ("selected", 10**9, "selected must be None or a sample id"),
    ("selected", True, "'selected' trait"),
    ("selected", np.True_, "'selected' trait"),
    ("color_by", "phase", "'color_by' trait"),
    ("color_by", None, "'color_by' trait"),
    ("group_by", "layer", "'group_by' trait"),
    ("group_by", "metadata", "group_by='metadata' needs a metadata_key"),
    ("metadata_key", 5, "'metadata_key' trait"),
    ("filters", {"tiles": [True]}, "filters['tiles']"),
    ("filters", {"tiles": [-1]}, "filters['tiles']"),
    ("filters", {"tiles": [2**40]}, "filters['tiles']"),
    ("filters", {"tiles": ["3"]}, "filters['tiles']"),
    ("filters", {"tiles": 3.0}, "filters['tiles']"),
    ("filters", {"phases": [False]}, "filters['phases']"),
    ("filters", {"phases": [1.5]}, "filters['phases']"),
    ("filters", {"kind": "bogus"}, "filters['kind']"),
    ("filters", {"kind": 1}, "filters['kind']"),
    ("filters", {"kernel": ["gemm"]}, "filters['kernel']"),
    ("filters", {"operation_contains": 5}, "filters['operation_contains']"),
    ("filters", {"metadata": 5}, "filters['metadata']"),
    ("filters", {"metadata": [5]}, "filters['metadata']"),
    ("filters", {"metadata": [["a", 5]]}, "filters['metadata']"),
    ("filters", {"metadata": [["a", "b", "c"]]}, "filters['metadata']"),
    ("filters", {"metadata": [["x" * 65_537, None]]}, "filters['metadata']"),
    ("filters", {"metadata": [f"n{i}" for i in range(1_001)]}, "filters['metadata']"),
    ("filters", {"knd": "compute"}, "unknown filters key"),
    ("filters", ["kind"], "'filters' trait"),
    ("filters", None, "'filters' trait"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD_TRAITS, ids=[f"{n}={v!r}"[:40] for n, v, _ in BAD_TRAITS])
def test_bad_trait_values_raise_naming_the_trait_and_keep_the_old_value(widget, name, value, message):
    widget.filters = {"kind": "compute", "metadata": [["a=b", "c"]]}
    widget.at, widget.selected, widget.view = 120, 3, [10, 500]
    before = state(widget)
    with pytest.raises(traitlets.TraitError) as raised:
        setattr(widget, name, value)
    assert message in str(raised.value)
    assert name.split("_")[0] in str(raised.value)  # names the trait
    assert state(widget) == before
    assert widget.query.kind == "compute" and widget.groups.height >= 0  # still a usable state


def test_grouping_by_metadata_needs_its_key_in_either_order(widget, profile):
    with pytest.raises(traitlets.TraitError, match="group_by='metadata' needs a metadata_key"):
        widget.group_by = "metadata"
    assert widget.group_by == "kernel"
    with widget.hold_trait_notifications():  # both at once, group_by first
        widget.group_by = "metadata"
        widget.metadata_key = "layer"
    assert sorted(widget.groups.get_column("name").to_list()) == ["(missing)", "0", "1"]
    with pytest.raises(traitlets.TraitError, match="metadata_key cannot be None while group_by='metadata'"):
        widget.metadata_key = None
    assert (widget.group_by, widget.metadata_key) == ("metadata", "layer")
    with pytest.raises(traitlets.TraitError), widget.hold_trait_notifications():  # a bad pair rolls back whole
        widget.metadata_key = None
        widget.color_by = "kernel"
    assert (widget.group_by, widget.metadata_key, widget.color_by) == ("metadata", "layer", "kind")
    widget.group_by = "tile"
    widget.metadata_key = None  # fine once not grouping by metadata
    widget.metadata_key = "role"  # the reverse order: key first, then the grouping
    widget.group_by = "metadata"
    assert widget.query.metadata_key == "role"
    assert widget.groups.equals(ipu_nb.query(profile, widget.query).groups)
    with pytest.raises(traitlets.TraitError, match="needs a metadata_key"):
        ProfileWidget(profile, group_by="metadata")
    assert ProfileWidget(profile, group_by="metadata", metadata_key="layer").query.group_by == "metadata"


def test_traits_take_numpy_integers(widget):
    widget.at = np.int64(7)
    widget.view = [np.uint32(0), 100.0]  # integral floats are integers, as traitlets.Int takes them
    widget.filters = {"tiles": np.array([64, 2]), "phases": [np.int16(3)]}
    assert (widget.at, widget.view, widget.filters["tiles"], widget.filters["phases"]) == (7, [0, 100], [2, 64], [3])
    assert type(widget.at) is int and all(type(v) is int for v in widget.view)


def test_at_beyond_the_span_matches_nothing_in_the_panel_and_at_slice(widget, profile):
    span = profile.span_cycles
    for at in (span - 1, span, span + 1, 2**32, 2**40, 2**40 + 120, 2**53 - 1):
        widget.at = at
        panel, _ = widget.recorder.last("panel")
        assert panel["at"]["at"] == at
        assert panel["at"]["count"] == widget.at_slice.height == profile.filter(at=at).height
        assert widget.at_slice.equals(profile.filter(at=at))
    assert widget.at_slice.height == 0
    widget.at = span - 1
    assert widget.recorder.last("panel")[0]["at"]["count"] > 0


def test_metadata_filters_are_pairs_and_names_may_hold_equals(widget, profile):
    widget.filters = {"metadata": [["a=b", "c"]]}
    assert widget.filters["metadata"] == [["a=b", "c"]]
    pair = profile.filter(metadata=[("a=b", "c")])
    joined = profile.filter(metadata=["a=b=c"])  # split at the first "=": name "a", value "b=c"
    assert pair.height and joined.height and set(pair["sample"]).isdisjoint(joined["sample"])
    assert widget.filtered.equals(pair)
    assert widget.query.metadata == (("a=b", "c"),)
    widget.filters = {"metadata": ["a=b=c", "role", ["a=b", None], ["a=b", None]]}  # strings convert, repeats go
    assert widget.filters["metadata"] == [["a", "b=c"], ["role", None], ["a=b", None]]
    assert widget.filtered.equals(profile.filter(metadata=[("a", "b=c"), ("role", None), ("a=b", None)]))
    widget.filters = {"metadata": {"a=b": "c"}}  # a mapping is name -> value
    assert widget.filters["metadata"] == [["a=b", "c"]]
    # The cursor summary lists its entries as (name, value, count), never joined.
    widget.filters = {}
    widget.at = 400
    listed = {(n, v): c for n, v, c in widget.recorder.last("panel")[0]["at"]["metadata"]}
    at = profile.filter(at=400)
    expected = at.explode("metadata").select(pl.col("metadata").struct.unnest()).group_by("name", "value").len()
    assert listed == {(n, v): c for n, v, c in expected.iter_rows() if (n, v) in listed}
    assert ("a=b", "c") in listed or ("a", "b=c") in listed


def test_non_contiguous_sample_ids_bound_selected(profile):
    subset = dataclasses.replace(profile, samples=profile.samples.filter(pl.col("sample") % 2 == 1))
    widget = ProfileWidget(subset)
    Recorder(widget)
    widget.selected = 3
    with pytest.raises(traitlets.TraitError, match="selected must be None or a sample id"):
        widget.selected = 2  # not a sample of this profile
    assert widget.selected == 3
    assert widget.selected_sample.get_column("sample").to_list() == [3]
