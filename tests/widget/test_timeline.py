"""The timeline's kernel side: cache blocks, search, zoom to fit, and the row facts the front end orders by."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles

import ipu_nb._widget.lod as lod
from ipu_nb._query.filters_codec import empty_filters
from ipu_nb._widget.lod import block_range, unpack_cells
from ipu_nb._widget.messages import Blocks, Fit, Limits, MessageError, Search, parse_message
from ipu_nb._widget.timeline import fit, grid_position
from ipu_nb._widget.widget import ProfileWidget

OPS = ["GEMM block", "sync", "copy Straße", "<b>x</b>"]


@pytest.fixture(scope="module")
def profile():
    tiles = []
    for t, phys in enumerate([66, 2, 0, 64, 1411]):
        cursor = 4_294_960_000 + 97 * t  # wraps mid-profile
        samples = []
        for p in range(12):
            d = 200 + 37 * ((t + p) % 5)
            op = OPS[(t + p) % len(OPS)]
            kernel = "gemm_f32" if "GEMM" in op else ("COPY_u64" if p % 3 == 0 else "")
            kind = "compute" if kernel else "synchronization"
            samples.append(S(cursor, cursor + d, kind=kind, operation=op, kernel=kernel, phase=p))
            cursor += d
        tiles.append(T(phys, samples))
    return profile_from_tiles(tiles)


class Recorder:
    def __init__(self, widget: ProfileWidget) -> None:
        self.sent: list[tuple[dict[str, Any], list[bytes]]] = []
        widget.send = lambda content, buffers=None: self.sent.append((content, list(buffers or [])))

    def of(self, kind: str) -> list[tuple[dict[str, Any], list[bytes]]]:
        return [(c, b) for c, b in self.sent if c.get("type") == kind]


@pytest.fixture
def widget(profile):
    w = ProfileWidget(profile)
    w.recorder = Recorder(w)
    return w


def blocks_message(widget: ProfileWidget, level: int, wanted: list[int], bins: int = 16, **extra: Any) -> dict:
    return {
        "type": "blocks",
        "view": "v",
        "id": 5,
        "level": level,
        "bins": bins,
        "blocks": wanted,
        "labels": True,
        "filters": widget.filters,
        "color_by": widget.color_by,
        "start": 0,
        "end": widget.view[1],
        **extra,
    }


def overlapping(profile, start: int, end: int, matching=None) -> set[int]:
    """Ids of the samples overlapping [start, end) (zero-length ones never drawn), in plain Python."""
    out = set()
    for s in profile.samples.iter_rows(named=True):
        a, b = s["offset"], s["offset"] + s["duration"]
        if a < end and b > start and b > a and (matching is None or matching(s)):
            out.add(s["sample"])
    return out


def test_blocks_come_as_window_replies_then_a_reply_closing_the_request(widget, profile):
    span = profile.span_cycles
    level = 6  # blocks of 16 bins × 64 cycles = 1,024 cycles
    wanted = [0, 3, span // 1024]
    widget._handle_custom_msg(blocks_message(widget, level, wanted), [])
    replies = widget.recorder.of("window")
    assert [(c["level"], c["block"], c["id"], c["view"]) for c, _ in replies] == [(level, k, 5, "v") for k in wanted]
    for content, buffers in replies:
        start, end = block_range(level, 16, content["block"])
        assert (content["start"], content["end"], content["mode"]) == (start, end, "raw")
        ids = set(np.frombuffer(buffers[4], "<u4").tolist())
        assert ids == overlapping(profile, start, end)
        assert content["count"] == len(ids)
        codes = np.frombuffer(buffers[5], "<u4")  # labels were asked for
        assert len(codes) == len(ids) and set(content["labels"]) <= set(OPS)
    (done, _), *rest = widget.recorder.of("blocks")
    assert not rest
    assert done == {
        "type": "blocks",
        "view": "v",
        "id": 5,
        "stale": False,
        "count": len(overlapping(profile, 0, span)),
        "matched": len(overlapping(profile, 0, span)),
        "cost_ms": done["cost_ms"],
    }
    assert len(done["cost_ms"]) == 3 and all(ms >= 0 for ms in done["cost_ms"])


def test_summary_blocks_hold_the_cells_of_the_windows_they_stand_for(widget, profile, monkeypatch):
    original = lod.blocks
    monkeypatch.setattr(lod, "blocks", lambda *a, **k: original(*a, **{**k, "raw_limit": 3}))
    widget.filters = {"kind": "compute"}
    level, bins = 4, 32  # blocks of 512 cycles, computed in runs of neighbours
    wanted = [0, 1, 2, 3, 4, 6]  # a run of four, one more, and one alone
    widget._handle_custom_msg(blocks_message(widget, level, wanted, bins), [])
    replies = widget.recorder.of("window")
    assert [c["block"] for c, _ in replies] == wanted
    mask, index = widget._shown_now().matching.sorted_mask, widget._shown_now().side.index
    for content, buffers in replies:
        start, end = block_range(level, bins, content["block"])
        assert content["mode"] == "lod" and content["filtered"] is True
        cells = unpack_cells(content["planes"] * content["rows"], content["bins"], content["runs"], buffers)
        alone = lod.encode_window(lod.window(index, start, end, bins, mask, "kind", raw_limit=3))
        assert alone[0]["classes"] == content["classes"]
        expected = unpack_cells(alone[0]["planes"] * content["rows"], bins, alone[0]["runs"], alone[1])
        assert np.array_equal(cells, expected), content["block"]
        assert content["count"] == len(overlapping(profile, start, end))
    done = widget.recorder.of("blocks")[-1][0]
    compute = overlapping(profile, 0, widget.view[1], lambda s: s["kind"] == "compute")
    assert (done["count"], done["matched"]) == (len(overlapping(profile, 0, widget.view[1])), len(compute))


def test_blocks_are_answered_once_per_state(widget, monkeypatch):
    calls: list[list[int]] = []
    original = lod.blocks

    def counted(index: Any, level: int, bins: int, wanted: list[int], *a: Any, **k: Any) -> Any:
        calls.append(list(wanted))
        return original(index, level, bins, wanted, *a, **k)

    monkeypatch.setattr(lod, "blocks", counted)
    for _ in range(2):
        widget._handle_custom_msg(blocks_message(widget, 6, [0, 1]), [])
    assert calls == [[0, 1]]  # the second time from the widget's cache, nothing computed
    widget.filters = {"kind": "compute"}
    widget._handle_custom_msg(blocks_message(widget, 6, [0, 1]), [])
    assert calls[-1] == [0, 1]  # a new state answers afresh


@pytest.mark.parametrize("change", [{"filters": {"kind": "compute"}}, {"color_by": "kernel"}])
def test_blocks_for_other_filters_or_colours_than_the_kernel_holds_are_stale(widget, change):
    message = blocks_message(widget, 6, [0])
    for name, value in change.items():
        setattr(widget, name, value)
    widget._handle_custom_msg(message, [])
    assert widget.recorder.of("window") == []
    ((done, _),) = widget.recorder.of("blocks")
    assert done["stale"] is True and done["cost_ms"] == [] and done["id"] == 5
    # Asked with what the kernel holds now, the same blocks come.
    widget._handle_custom_msg(blocks_message(widget, 6, [0]), [])
    assert len(widget.recorder.of("window")) == 1


def test_search_finds_operations_or_kernels_among_the_matching_samples(widget, profile):
    def reference(text: str, folded: bool, kind: str | None = None) -> list[int]:
        fold = str.casefold if folded else (lambda x: x)
        rows = [
            s
            for s in profile.samples.iter_rows(named=True)
            if (fold(text) in fold(str(s["operation"])) or fold(text) in fold(str(s["kernel"] or "")))
            and (kind is None or s["kind"] == kind)
        ]
        return [s["sample"] for s in sorted(rows, key=lambda s: (s["offset"], s["tile"]))]

    assert widget.search("copy").get_column("sample").to_list() == reference("copy", False)
    assert widget.search("COPY", case_sensitive=False).get_column("sample").to_list() == reference("COPY", True)
    widget.filters = {"kind": "compute"}
    for text, case in (("copy", True), ("STRASSE", False), ("<b>", True), ("none of these", True)):
        widget.recorder.sent.clear()
        widget._handle_custom_msg({"type": "search", "id": 3, "text": text, "case_sensitive": case}, [])
        widget._side.wait()
        ((reply, buffers),) = widget.recorder.of("search")
        expected = reference(text, not case, "compute")
        assert (reply["id"], reply["text"], reply["case_sensitive"]) == (3, text, case)
        assert reply["count"] == reply["sent"] == len(expected)
        assert np.frombuffer(buffers[3], "<u4").tolist() == expected  # by offset, then tile
        offsets = dict(zip(*profile.samples.select("sample", "offset").to_dict(as_series=False).values(), strict=True))
        assert np.frombuffer(buffers[0], "<f8").tolist() == [float(offsets[i]) for i in expected]


def test_search_sends_the_first_matches_by_offset_and_counts_them_all(widget, monkeypatch):
    import ipu_nb._widget.pushes as module

    monkeypatch.setattr(module, "SEARCH_LIMIT", 4)
    widget._handle_custom_msg({"type": "search", "id": 1, "text": "", "case_sensitive": True}, [])
    widget._side.wait()
    ((reply, buffers),) = widget.recorder.of("search")
    everything = widget.profile.samples.sort("offset", "tile")
    assert reply["count"] == widget.profile.sample_count and reply["sent"] == 4
    starts = np.frombuffer(buffers[0], "<f8")
    assert starts.tolist() == everything.get_column("offset").head(4).cast(pl.Float64).to_list()


def test_zoom_to_a_sample_a_phase_a_range_or_the_matching_samples(widget, profile):
    samples = profile.samples
    row = samples.filter(pl.col("phase") == 5).row(2, named=True)
    view = widget.zoom_to(sample=row["sample"])
    assert widget.view == view and widget.selected == row["sample"]
    width = row["duration"] * 1.1
    assert view[0] <= row["offset"] and row["offset"] + row["duration"] <= view[1]
    assert abs((view[1] - view[0]) - width) <= 1
    phase = samples.filter(pl.col("phase") == 7)
    first, last = phase.get_column("offset").min(), (phase.get_column("offset") + phase.get_column("duration")).max()
    view = widget.zoom_to(phase=7, margin=0)
    assert view == [first, last]
    assert widget.zoom_to(range=(100, 900)) == widget.view == [100, 900]
    widget.filters = {"kernel": "COPY_u64"}
    copies = samples.filter(pl.col("kernel") == "COPY_u64")
    view = widget.zoom_to(matching=True, margin=0)
    assert view == [
        copies.get_column("offset").min(),
        (copies.get_column("offset") + copies.get_column("duration")).max(),
    ]
    widget.filters = {}
    assert widget.zoom_to(matching=True, margin=0) == [0, profile.span_cycles]


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({}, "exactly one of sample=ID, phase=N, range=.start, end. or matching=True, got none"),
        ({"sample": 1, "phase": 2}, "got sample, phase"),
        ({"sample": 10**6}, "no sample with that id"),
        ({"sample": -1}, "no sample with that id"),
        ({"phase": 99}, "no sample has that phase"),
        ({"range": (5, 5)}, "zoom_to.range=.start, end.. needs integers"),
        ({"range": (0, 10**12)}, "needs integers"),
        ({"range": "0-5"}, "needs integers"),
        ({"matching": True, "margin": -1}, "margin must be a number"),
    ],
)
def test_zoom_to_refuses_what_it_cannot_show_and_changes_nothing(widget, keywords, message):
    before = list(widget.view)
    with pytest.raises(ValueError, match=message):
        widget.zoom_to(**keywords)
    assert widget.view == before


def test_zoom_to_fit_matching_nothing_says_so(widget):
    widget.filters = {"kernel": "no such kernel"}
    with pytest.raises(ValueError, match="no sample matches the filters"):
        widget.zoom_to(matching=True)


def test_fit_requests_answer_what_zoom_to_would_show_without_moving(widget, profile):
    sid = int(profile.samples.get_column("sample")[7])
    widget._handle_custom_msg({"type": "fit", "id": 2, "by": "sample", "value": sid}, [])
    widget._handle_custom_msg({"type": "fit", "id": 3, "by": "phase", "value": 99}, [])
    widget.filters = {"kind": "compute"}
    widget._handle_custom_msg({"type": "fit", "id": 4, "by": "matching"}, [])
    fits = [c for c, _ in widget.recorder.of("fit")]
    before = list(widget.view)
    assert [f["id"] for f in fits] == [2, 3, 4]
    assert fits[1]["view"] is None
    assert widget.view == before
    assert fits[0]["view"] == widget.zoom_to(sample=sid)
    assert fits[2]["view"] == widget.zoom_to(matching=True)


def test_info_has_each_rows_logical_tile_and_grid_position(widget, profile):
    info = widget.info
    entries = dict(zip(*profile.tiles.select("tile", "tile_index").to_dict(as_series=False).values(), strict=True))
    assert info["logical"] == [entries[t] for t in info["rows"]]
    assert info["grid"] == [[t % 64, t // 64] for t in info["rows"]]
    assert grid_position(1411) == (3, 22)  # docs/reference/workloads.md: logical 47 is physical 1411


LIMITS = Limits(end=10_000, rows=5)
FILTERS = empty_filters()


def test_block_search_and_fit_messages_parse_and_bad_ones_say_why():
    good = {
        "type": "blocks",
        "view": "v",
        "id": 1,
        "level": 3,
        "bins": 512,
        "blocks": [0, 1],
        "labels": True,
        "filters": {"tiles": [5, 2, 5]},
        "color_by": "kernel",
        "start": 0,
        "end": 9000,
    }
    parsed = parse_message(good, LIMITS)
    assert parsed == Blocks("v", 1, 3, 512, (0, 1), True, {**FILTERS, "tiles": [2, 5]}, "kernel", 0, 9000)
    assert parse_message({"type": "search", "id": 2, "text": "gemm"}, LIMITS) == Search(2, "gemm", True)
    assert parse_message({"type": "fit", "by": "matching"}, LIMITS) == Fit(None, "matching", None)
    assert parse_message({"type": "fit", "by": "phase", "value": 3.0}, LIMITS) == Fit(None, "phase", 3)
    for content, message in (
        ({**good, "level": 63}, "blocks level must be in 0..62"),
        ({**good, "bins": 0}, "blocks bins must be in 1..1280"),
        ({**good, "blocks": []}, "blocks must be a list of 1..64"),
        ({**good, "blocks": list(range(65))}, "blocks must be a list of 1..64"),
        ({**good, "blocks": [3]}, "block index must be in 0..2"),  # block 3 of 4,096 cycles starts past 10,000
        ({**good, "blocks": [True]}, "block index must be an integer"),
        ({**good, "filters": {"kind": "bogus"}}, "blocks filters: "),
        ({**good, "filters": "kind=compute"}, "blocks filters: "),
        ({**good, "color_by": "<x>"}, "blocks color_by must be one of kind, kernel"),
        ({**good, "end": 10_001}, "blocks view end must be in"),
        ({k: v for k, v in good.items() if k != "filters"}, "needs a 'filters' field"),
        ({"type": "search", "text": 5}, "search text must be a string"),
        ({"type": "search", "text": "x" * 1001}, "at most 1000 characters"),
        ({"type": "search", "text": "x", "case_sensitive": "no"}, "case_sensitive must be true or false"),
        ({"type": "fit", "by": "tile"}, "fit by must be one of matching, sample, phase"),
        ({"type": "fit", "by": "sample"}, "fit sample must be an integer"),
        ({"type": "fit", "by": "sample", "value": -1}, "fit sample must be in"),
    ):
        with pytest.raises(MessageError, match=message.replace("(", r"\(").replace(".", r"\.")):
            parse_message(content, LIMITS)


def test_fit_leaves_room_stays_inside_the_profile_and_is_never_narrower_than_eight():
    assert fit((100, 200), 0.05, 1000) == [95, 205]
    assert fit((0, 10), 0.5, 1000) == [0, 20]  # against the start
    assert fit((995, 1000), 0, 1000) == [992, 1000]  # eight cycles at least, against the end
    assert fit((0, 5000), 0.1, 1000) == [0, 1000]
    assert fit((7, 7), 0, 1000) == [3, 11]  # a zero-length sample
