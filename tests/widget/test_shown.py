"""What the widget shows is one value: every answer follows a flip or a filter change, none is served stale.

Two profiles of different spans and sample counts (the baseline the shorter); every answer
after a flip or a filter change is compared with one made from scratch for the value shown
(a fresh widget on that profile alone, or the query core), never with the widget's own
earlier answers.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

import numpy as np
import polars as pl
import pytest
from builders import S, T, profile_from_tiles

import ipu_nb
from ipu_nb._widget import flip, handlers, views
from ipu_nb._widget.flip import fitted_traits, flipped_view
from ipu_nb._widget.kept import Kept
from ipu_nb._widget.messages import MESSAGE_TYPES
from ipu_nb._widget.widget import ProfileWidget


def _profile(phases: int, width: int) -> Any:
    tiles = []
    for tile in (0, 1, 2):
        samples, cursor = [], 100 + 7 * tile
        for p in range(phases):
            kind = "compute" if p % 2 else "exchange"
            kernel = "gemm" if p % 3 else "conv"
            samples.append(S(cursor, cursor + width + 5 * tile, kind=kind, operation=f"op {p}", kernel=kernel, phase=p))
            cursor += width + 5 * tile + 3
        tiles.append(T(tile, samples))
    return profile_from_tiles(tiles)


@pytest.fixture(scope="module")
def after() -> Any:
    return _profile(12, 90)


@pytest.fixture(scope="module")
def before() -> Any:
    return _profile(8, 60)


class Sent:
    """What the widget sends: messages with their buffers, and the trait names of each state update."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.messages: list[tuple[dict[str, Any], list[bytes]]] = []
        self.states: list[set[str]] = []
        widget.send = lambda content, buffers=None: self.messages.append((content, list(buffers or [])))
        widget.send_state = lambda key=None: self.states.append(set([key] if isinstance(key, str) else key or ()))

    def last(self, kind: str) -> dict[str, Any]:
        return next(c for c, _ in reversed(self.messages) if c["type"] == kind)

    def of(self, kind: str) -> list[tuple[dict[str, Any], list[bytes]]]:
        return [(c, b) for c, b in self.messages if c["type"] == kind]


@pytest.fixture
def widget(after: Any, before: Any) -> ProfileWidget:
    w = ProfileWidget(after, baseline=before)
    w.sent = Sent(w)
    return w


def _span(profile: Any) -> int:
    return ProfileWidget(profile).info["span"]


def _top_groups(profile: Any, **flags: Any) -> list[tuple[str, int, int]]:
    groups = ipu_nb.query(profile, **flags).groups.head(12)
    return groups.select("name", "sample_count", "phase_cycles").rows()


def test_the_two_profiles_differ_where_a_stale_answer_would_show(after: Any, before: Any) -> None:
    assert _span(before) < _span(after) and before.sample_count < after.sample_count


# ---- the flip ------------------------------------------------------------------------------------


def test_five_flips_each_show_the_whole_of_the_profile_shown(widget: ProfileWidget, after: Any, before: Any) -> None:
    spans = {"after": _span(after), "baseline": _span(before)}
    assert widget.view == [0, spans["after"]]
    for turn in range(5):
        showing = "baseline" if turn % 2 == 0 else "after"
        widget.showing = showing
        assert widget.view == [0, spans[showing]] and widget.info["span"] == spans[showing]
        assert widget.profile is (before if showing == "baseline" else after)


def test_a_flip_keeps_a_zoomed_view_and_cuts_one_past_the_shorter_span(widget: ProfileWidget, before: Any) -> None:
    widget.view = [100, 400]
    widget.showing = "baseline"
    assert widget.view == [100, 400]
    widget.showing = "after"
    widget.view = [200, _span(before) + 300]
    widget.showing = "baseline"
    assert widget.view == [200, _span(before)]


def test_flipped_views_follow_each_profiles_own_span() -> None:
    assert flipped_view([0, 500], 500, 800) == [0, 800] and flipped_view([0, 800], 800, 500) == [0, 500]
    assert flipped_view([0, 499], 500, 800) == [0, 499]  # not the whole: kept
    assert flipped_view([600, 700], 800, 500) == [492, 500]  # past the end: the last cycles, at least 8 wide
    assert flipped_view([3, 9], 10, 6) == [0, 6]


def test_a_flip_drops_what_the_other_profile_does_not_have(widget: ProfileWidget, after: Any, before: Any) -> None:
    long, short = widget._sides.side("after"), widget._sides.side("baseline")
    far = after.sample_count - 1  # an id past the baseline's samples
    assert far >= before.sample_count
    area = {"start": _span(before) + 10, "end": _span(before) + 50, "tiles": None}
    changes = fitted_traits(long, short, view=[0, long.limits.end], selected=far, selection=area)
    assert changes == {"view": [0, short.limits.end], "selected": None, "selection": None}
    assert fitted_traits(short, long, view=[5, 50], selected=0, selection={**area, "start": 0, "end": 40}) == {}


def test_a_flip_from_python_reaches_the_front_end_in_one_update(widget: ProfileWidget) -> None:
    widget.sent.states.clear()
    widget.showing = "baseline"
    (update,) = widget.sent.states
    assert {"showing", "info", "view"} <= update


def test_groups_flame_panel_and_overview_after_each_flip_are_the_shown_profiles(
    widget: ProfileWidget, after: Any, before: Any
) -> None:
    widget.filters = {"kind": "compute"}
    widget.at = 300
    for showing in ("baseline", "after", "baseline", "after", "baseline"):
        widget.showing = showing
        profile = before if showing == "baseline" else after
        widget._handle_custom_msg({"type": "groups", "id": 4}, [])
        rows = widget.sent.last("groups")["rows"]
        assert [(r["name"], r["sample_count"], r["phase_cycles"]) for r in rows] == _top_groups(
            profile, kind="compute", group_by="kernel"
        )
        compute = profile.samples.filter(pl.col("kind") == "compute")
        assert widget.sent.last("flame")["total"] == int(compute.get_column("duration").sum())
        active = compute.filter((pl.col("offset") <= 300) & (pl.col("offset") + pl.col("duration") > 300))
        assert widget.sent.last("panel")["at"]["count"] == active.height
        assert widget.sent.last("overview")["span"] == _span(profile)


def test_windows_and_blocks_after_a_flip_are_a_fresh_widgets_on_that_profile(
    widget: ProfileWidget, after: Any, before: Any
) -> None:
    end = _span(after)
    for showing in ("after", "baseline", "after", "baseline"):
        widget.showing = showing
        profile = before if showing == "baseline" else after
        alone = ProfileWidget(profile)
        stop = min(end, alone.info["span"])
        assert widget.window_answer(0, stop, 64) == alone.window_answer(0, stop, 64)
        blocks = [(k, header, buffers) for k, header, buffers, _ in widget.block_answers(3, 16, [0, 1])]
        assert blocks == [(k, header, buffers) for k, header, buffers, _ in alone.block_answers(3, 16, [0, 1])]


def test_highlights_belong_to_the_profile_they_were_made_on(widget: ProfileWidget, after: Any) -> None:
    assert widget.highlight(after.samples.head(4)) == 4
    widget.showing = "baseline"
    assert widget.sent.last("highlight")["count"] == 0
    widget.showing = "after"
    assert widget.sent.last("highlight")["count"] == 4


# ---- filters, colouring, grouping ------------------------------------------------------------------


def test_answers_after_a_filter_change_are_for_the_new_filters(widget: ProfileWidget, after: Any) -> None:
    for filters, flags in (({}, {}), ({"kind": "exchange"}, {"kind": "exchange"}), ({}, {})):
        widget.filters = filters
        header, _ = widget.window_answer(0, 500, 32)
        assert ProfileWidget(after, filters=filters).window_answer(0, 500, 32)[0] == header
        widget._handle_custom_msg({"type": "groups", "id": 1}, [])
        rows = widget.sent.last("groups")["rows"]
        assert [(r["name"], r["sample_count"], r["phase_cycles"]) for r in rows] == _top_groups(
            after, group_by="kernel", **flags
        )


def test_the_value_shown_changes_whole_and_only_when_a_trait_defining_it_does(widget: ProfileWidget) -> None:
    first = widget._shown_now()
    widget.at, widget.view = 120, [10, 200]  # view traits: the same value
    assert widget._shown_now() is first
    widget.color_by = "kernel"
    coloured = widget._shown_now()
    assert coloured is not first and coloured.matching is first.matching  # the masks are not made again
    widget.color_by = "kind"
    assert widget._shown_now().key == first.key
    with widget.hold_trait_notifications():
        widget.group_by, widget.metadata_key = "phase", None
    assert widget._shown_now().query.group_by == "phase" == widget.query.group_by


def test_a_job_that_outlives_its_value_answers_for_the_one_shown_now(
    widget: ProfileWidget, after: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = views.VIEWS["flame"]
    seen: list[str] = []

    def build(shown: Any, *rest: Any) -> Any:
        seen.append(shown.matching.filters)
        if len(seen) == 1:
            widget.filters = {"kind": "exchange"}  # the main thread swaps the value while the job computes
        return original.build(shown, *rest)

    monkeypatch.setitem(views.VIEWS, "flame", dataclasses.replace(original, build=build))
    widget.sent.messages.clear()
    widget._views.send("flame")
    (flame,) = [c for c, _ in widget.sent.of("flame")]
    exchange = after.samples.filter(pl.col("kind") == "exchange")
    assert len(seen) == 2 and flame["total"] == int(exchange.get_column("duration").sum())


def test_a_thread_reading_the_value_while_it_is_swapped_sees_one_whole_value(
    widget: ProfileWidget, after: Any, before: Any
) -> None:
    """A reader sees each profile with its own filters and mask, never parts of two values."""
    profiles = {"after": after, "baseline": before}
    kinds = {"after": "exchange", "baseline": "compute"}
    stop = threading.Event()
    seen: list[Any] = []

    def read() -> None:
        while not stop.is_set():
            shown = widget._shown_now()
            if not seen or shown is not seen[-1]:
                seen.append(shown)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(10):
            for showing in ("baseline", "after"):
                with widget.hold_trait_notifications():  # both traits at once: one new value
                    widget.showing, widget.filters = showing, {"kind": kinds[showing]}
    finally:
        stop.set()
        reader.join()
    assert len({shown.side.which for shown in seen}) == 2
    for shown in seen[1:]:  # the first is the constructor's (no filters)
        which = shown.side.which
        expected = profiles[which].filter(kind=kinds[which]).get_column("sample").to_numpy()
        assert shown.profile is profiles[which] and f'"kind": "{kinds[which]}"' in shown.matching.filters
        assert shown.matching.mask is not None
        assert np.flatnonzero(shown.matching.mask).tolist() == sorted(expected.tolist())


# ---- the rooms ---------------------------------------------------------------------------------------


def test_every_message_type_has_one_handler() -> None:
    assert sorted(cls.__name__.lower() for cls in handlers.HANDLERS) == sorted(MESSAGE_TYPES)


def test_the_widget_is_what_the_handlers_views_and_flip_ask_for(widget: ProfileWidget) -> None:
    for protocol in (handlers.Host, views.ViewsHost, flip.FlipHost):
        members = set(protocol.__annotations__)
        members |= {n for n, v in vars(protocol).items() if callable(v) or isinstance(v, property)}
        asked = {name for name in members if not name.startswith("__")}
        assert {"_shown_now", "_push"} <= asked or protocol is not views.ViewsHost
        missing = sorted(name for name in asked if not hasattr(widget, name))
        assert not missing, (protocol.__name__, missing)


def test_kept_answers_are_bounded_and_made_once_per_key() -> None:
    kept: Kept[int] = Kept(3)
    made: list[int] = []
    for key in [1, 2, 1, 3, 4, 1, 2]:

        def make(k: int = key) -> int:
            made.append(k)
            return k * 10

        assert kept.get(key, make) == key * 10
    assert made == [1, 2, 3, 4, 2] and len(kept) == 3  # 2 was the least recently used when 4 came
    assert kept.peek(1) == 10 and kept.peek(3) is None
    kept.forget()
    assert len(kept) == 0


def test_masks_agree_with_the_query_core_on_each_side(widget: ProfileWidget, after: Any, before: Any) -> None:
    widget.filters = {"kind": "compute", "phases": [1, 3, 5]}
    for showing, profile in (("baseline", before), ("after", after)):
        widget.showing = showing
        shown = widget._shown_now()
        expected = profile.filter(kind="compute", phases=[1, 3, 5]).get_column("sample").to_numpy()
        assert shown.matching.mask is not None
        assert np.flatnonzero(shown.matching.mask).tolist() == sorted(expected.tolist())
