"""Messages and trait updates from the browser are untrusted: each bad one gets an error reply and changes nothing."""

from __future__ import annotations

import json
import math
from typing import Any

import polars as pl
import pytest
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st
from widget_sent import Sent

from ipu_nb._widget import handlers, inspector
from ipu_nb._widget.messages import (
    MAX_PIXELS,
    MAX_SAFE_INTEGER,
    MESSAGE_TYPES,
    Groups,
    Hello,
    Hover,
    Limits,
    MessageError,
    Pick,
    Window,
    parse_message,
    reply_address,
    view_limit,
)
from ipu_nb._widget.widget import ProfileWidget

STATE = ("filters", "at", "view", "selected", "group_by", "metadata_key", "color_by", "info")


@pytest.fixture(scope="module")
def profile():
    tiles = []
    for t in range(6):
        cursor = 4_294_967_000 + 7 * t  # wraps mid-profile
        samples = []
        for p in range(8):
            d = 100 + 30 * ((t + p) % 4)
            meta = [("layer", str(p % 2)), ("a=b", "c") if p % 3 else ("a", "b=c")]
            samples.append(
                S(cursor, cursor + d, kind="compute", operation=f"op {p}", kernel="k", phase=p, metadata=meta)
            )
            cursor += d + 5
        tiles.append(T(3 * t, samples))
    return profile_from_tiles(tiles)


@pytest.fixture
def widget(profile):
    w = ProfileWidget(profile)
    w.sent = Sent(w)
    w.filters = {"metadata": [["a=b", "c"]]}
    w.at, w.selected, w.view = 200, 5, [100, 900]
    w.sent.messages.clear()
    return w


def snapshot(widget: ProfileWidget) -> str:
    return json.dumps({name: getattr(widget, name) for name in STATE}, sort_keys=True)


def refused(widget: ProfileWidget, content: Any) -> dict[str, Any]:
    """Send `content`; assert it raised nothing, was answered by one error reply and changed no trait."""
    before = snapshot(widget)
    widget.sent.messages.clear()
    widget._on_message(widget, content, [])  # straight in: anywidget's dispatcher would log and swallow a raise
    assert widget.sent.types() == ["error"], (content, widget.sent.messages)
    assert snapshot(widget) == before
    return widget.sent.messages[0]


# ---- parse_message: every field of every message type ---------------------------------------------------

LIMITS = Limits(end=1000, rows=6)
GOOD: dict[str, dict[str, Any]] = {
    "window": {"type": "window", "view": "1-abc", "id": 3, "start": 10, "end": 500, "pixels": 800, "labels": True},
    "hover": {"type": "hover", "view": "1-abc", "id": 4, "row": 2, "x": 250},
    "pick": {"type": "pick", "row": 5, "x": 1000},
    "groups": {"type": "groups", "id": 9},
    "hello": {"type": "hello"},
    "blocks": {
        **{"type": "blocks", "view": "1-abc", "id": 6, "level": 2, "bins": 16, "blocks": [0, 1], "labels": True},
        **{"filters": {}, "color_by": "kind", "start": 10, "end": 500},
    },
    "search": {"type": "search", "id": 7, "text": "op", "case_sensitive": False},
    "fit": {"type": "fit", "id": 8, "by": "sample", "value": 3},
}
HOSTILE_NUMBERS = [
    math.nan,
    math.inf,
    -math.inf,
    1e30,
    2**63,
    2**63 - 1,
    2**64,
    -1,
    -(2**63),
    0.5,
    "12",
    "",
    True,
    False,
    None,
    [1],
    {"x": 1},
]


def test_good_messages_parse_to_their_dataclasses():
    assert parse_message(GOOD["window"], LIMITS) == Window("1-abc", 3, 10, 500, 800, True)
    assert parse_message(GOOD["hover"], LIMITS) == Hover("1-abc", 4, 2, 250)
    assert parse_message(GOOD["pick"], LIMITS) == Pick(5, 1000)
    assert parse_message(GOOD["groups"], LIMITS) == Groups(9)
    assert parse_message({"type": "groups"}, LIMITS) == Groups(None)
    assert parse_message(GOOD["hello"], LIMITS) == Hello()
    # Optional fields may be missing; integral floats are integers (JSON has one number type).
    assert parse_message({"type": "window", "start": 0.0, "end": 1e3, "pixels": 1}, LIMITS) == Window(
        None, None, 0, 1000, 1, False
    )
    assert parse_message({**GOOD["pick"], "extra": object()}, LIMITS) == Pick(5, 1000)  # unknown keys: ignored


NUMERIC_FIELDS = [
    ("window", "start"),
    ("window", "end"),
    ("window", "pixels"),
    ("window", "id"),
    ("hover", "row"),
    ("hover", "x"),
    ("hover", "id"),
    ("pick", "row"),
    ("pick", "x"),
    ("groups", "id"),
    ("blocks", "level"),
    ("blocks", "bins"),
    ("blocks", "start"),
    ("blocks", "end"),
    ("blocks", "id"),
    ("search", "id"),
    ("fit", "value"),
    ("fit", "id"),
]
HOSTILE_FIELDS = [
    pytest.param(kind, field, value, id=f"{kind}.{field}={value!r}")
    for kind, field in NUMERIC_FIELDS
    for value in HOSTILE_NUMBERS
    if not (field == "id" and value is None)  # id is optional: None means no id
]


@pytest.mark.parametrize(("kind", "field", "value"), HOSTILE_FIELDS)
def test_every_numeric_field_refuses_hostile_values(kind, field, value):
    content = {**GOOD[kind], field: value}
    with pytest.raises(MessageError, match=f"{kind} {field}|{kind}"):
        parse_message(content, LIMITS)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({**GOOD["window"], "start": 500, "end": 500}, "window must have start < end"),
        ({**GOOD["window"], "start": 600, "end": 500}, "window must have start < end"),
        ({**GOOD["window"], "end": 1001}, "window end must be in 0..1000"),
        ({**GOOD["window"], "pixels": 0}, "window pixels must be in 1.."),
        ({**GOOD["window"], "pixels": MAX_PIXELS + 1}, "window pixels"),
        ({**GOOD["window"], "labels": 1}, "window labels must be true or false"),
        ({**GOOD["window"], "labels": "yes"}, "window labels"),
        ({**GOOD["window"], "view": 5}, "window view must be a string"),
        ({**GOOD["window"], "view": "v" * 201}, "window view must be a string"),
        ({**GOOD["hover"], "row": 6}, "hover row must be in 0..5"),
        ({**GOOD["pick"], "x": 1001}, "pick x must be in 0..1000"),
        ({**GOOD["window"], "id": MAX_SAFE_INTEGER + 1}, "window id"),
        ({"type": "window", "start": 0, "end": 5}, "window message needs a 'pixels' field"),
        ({"type": "window", "end": 5, "pixels": 5}, "needs a 'start' field"),
        ({"type": "hover", "x": 5}, "hover message needs a 'row' field"),
        ({"type": "pick", "row": 0}, "pick message needs a 'x' field"),
        ({"type": "bogus"}, "unknown message type 'bogus'"),
        ({"type": None}, "unknown message type None"),
        ({"type": ["window"]}, "unknown message type"),
        ({}, "unknown message type"),
        ("window", "must be a JSON object"),
        ([GOOD["hello"]], "must be a JSON object"),
        (None, "must be a JSON object"),
    ],
)
def test_bad_messages_say_what_is_wrong(content, message):
    with pytest.raises(MessageError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_message(content, LIMITS)


def test_reply_address_keeps_only_well_formed_ids():
    assert reply_address({"type": "window", "id": 7, "view": "a"}) == {"request": "window", "id": 7, "view": "a"}
    assert reply_address({"type": "x", "id": True, "view": 5}) == {}
    assert reply_address({"type": "hover", "id": 2**63}) == {"request": "hover"}
    assert reply_address("junk") == {}


def test_view_limit_leaves_room_for_the_narrowest_view():
    assert view_limit(0) == view_limit(3) == 8
    assert view_limit(10**6) == 10**6


# ---- through the widget: an error reply, no state change, nothing raised ------------------------------


def test_issue_inputs_get_error_replies_and_leave_the_widget_working(widget, profile):
    span = profile.span_cycles
    for content in (
        {"type": "window", "id": 1, "start": 0, "end": math.inf, "pixels": 100},
        {"type": "window", "id": 2, "start": 0, "end": 2**63, "pixels": 100},
        {"type": "window", "id": 3, "start": 0, "end": 10**15, "pixels": 1000},
        {"type": "pick", "row": 0, "x": 1e30},
        {"type": "pick", "row": 0, "x": 2**40 + 5},
        {"type": "hover", "id": 4, "row": 0, "x": -math.inf},
    ):
        error = refused(widget, content)
        assert error["request"] == content["type"] and error.get("id") == content.get("id")
        assert error["message"].startswith("MessageError: ")
    # A refused pick sets the browser's optimistic cursor back to Python's values.
    assert ["at", "selected"] in widget.sent.states
    # Every later request still works.
    widget.sent.messages.clear()
    widget._handle_custom_msg({"type": "window", "id": 9, "start": 0, "end": span, "pixels": 300}, [])
    assert widget.sent.types() == ["window", "overview", "panel", "flame"]  # the filter change's views follow
    assert widget.sent.messages[0]["count"] == profile.samples.filter(pl.col("duration") > 0).height
    widget.sent.messages.clear()
    widget._handle_custom_msg({"type": "pick", "row": 1, "x": 150}, [])
    assert widget.sent.types() == ["panel"]
    assert widget.sent.messages[0]["at"]["count"] == widget.at_slice.height > 0


@pytest.mark.parametrize(("kind", "field", "value"), HOSTILE_FIELDS)
def test_hostile_fields_reach_the_widget_as_error_replies(widget, kind, field, value):
    good = {**GOOD[kind], "start": 0, "end": 1000} if kind == "window" else GOOD[kind]
    if kind in ("hover", "pick"):
        good = {**good, "x": 300}
    error = refused(widget, {**good, field: value})
    assert error["request"] == kind
    if field != "id":
        assert error.get("id") == good.get("id")


@pytest.mark.parametrize("content", [{"type": "bogus"}, {"type": 1}, {}, "hello", [1, 2], None, 5])
def test_unknown_messages_get_error_replies(widget, content):
    assert "MessageError" in refused(widget, content)["message"]


def test_any_exception_while_answering_becomes_an_error_reply(widget, monkeypatch):
    panic = pl.exceptions.PanicException  # a BaseException, not an Exception
    for error in (RuntimeError("boom"), OverflowError("big"), MemoryError(), panic("polars panicked")):

        def fail(*_args: Any, error: BaseException = error) -> Any:
            raise error

        monkeypatch.setattr(widget._answers, "window", fail)
        reply = refused(widget, {"type": "window", "id": 11, "view": "v", "start": 0, "end": 900, "pixels": 9})
        assert reply["id"] == 11 and reply["view"] == "v" and type(error).__name__ in reply["message"]
    monkeypatch.setattr(inspector, "describe", lambda *a, **k: 1 / 0)
    reply = refused(widget, {"type": "hover", "id": 12, "row": 1, "x": 150})
    assert reply["message"].startswith("ZeroDivisionError")
    assert reply["id"] == 12


def test_side_view_failures_are_reported_not_raised(widget, monkeypatch):
    monkeypatch.setattr(inspector, "at_summary", lambda *a: (_ for _ in ()).throw(pl.exceptions.PanicException("x")))
    widget.sent.messages.clear()
    widget.at = 300  # the panel fails on the way out
    assert widget.sent.messages == [{"type": "error", "request": "panel", "message": "PanicException: x"}]
    assert widget.at == 300


# A message fuzz: any JSON-like content, shaped like the real messages or not.
json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
field_value = st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.integers(-5, 2000), json_value)
message = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from([*GOOD, "bogus"])},
        optional={name: field_value for name in ("view", "id", "start", "end", "pixels", "labels", "row", "x")},
    ),
    json_value,
)


@settings(max_examples=examples(400))
@given(content=message)
def test_fuzzed_messages_never_raise_and_refused_ones_change_nothing(widget, content):
    before = snapshot(widget)
    widget.sent.messages.clear()
    try:
        parse_message(content, widget._limits)
    except MessageError:
        valid = False
    else:
        valid = True
    widget._on_message(widget, content, [])  # straight in: an escaping exception fails the test
    types = widget.sent.types()
    if not valid:
        assert types == ["error"]
        assert snapshot(widget) == before
    else:
        assert "error" not in types, widget.sent.messages


# ---- trait updates from the browser ---------------------------------------------------------------


def update(widget: ProfileWidget, state: Any) -> list[dict[str, Any]]:
    widget.sent.messages.clear()
    widget.set_state(state)
    return widget.sent.messages


@pytest.mark.parametrize(
    "state",
    [
        {"at": 1e30},
        {"at": 2**63},
        {"at": math.nan},
        {"at": True},
        {"at": "5"},
        {"view": [0, 10**15]},
        {"view": [500, 100]},
        {"view": [0, math.inf]},
        {"view": [0]},
        {"selected": 10**6},
        {"selected": -3},
        {"group_by": "metadata"},
        {"metadata_key": None, "group_by": "metadata"},
        {"color_by": "<script>"},
        {"filters": {"tiles": [True]}},
        {"filters": {"metadata": 5}},
        {"filters": {"metadata": [["a=b", 3]]}},
        {"filters": {"tiles": [0], "phases": "x"}},
        {"filters": "kind=compute"},
        {"info": {"span": 1}},
        {"at": 300, "view": [5, 1]},  # one bad value refuses the whole update
        ["at", 5],
    ],
    ids=repr,
)
def test_bad_trait_updates_from_the_browser_are_refused_and_resent(widget, state):
    before = snapshot(widget)
    replies = update(widget, state)
    assert [m["type"] for m in replies] == ["error"] and replies[0]["request"] == "update"
    assert snapshot(widget) == before
    if isinstance(state, dict):
        assert widget.sent.states[-1] == [k for k in state if k in widget.keys]  # the browser gets Python's values


def test_good_trait_updates_from_the_browser_apply(widget, profile):
    assert update(widget, {"group_by": "metadata", "metadata_key": "a=b"}) == []
    assert widget.query.group_by == "metadata" and widget.query.metadata_key == "a=b"
    assert update(widget, {"filters": {**widget.filters, "metadata": [["a=b", "c"], ["a", "b=c"]]}}) == []
    assert widget.filters["metadata"] == [["a=b", "c"], ["a", "b=c"]]
    assert widget.filtered.equals(profile.filter(metadata=[("a=b", "c"), ("a", "b=c")]))
    replies = update(widget, {"at": 2**40, "view": [0, 8]})  # beyond the span: nothing active
    assert widget.at_slice.height == 0 and widget.view == [0, 8]
    assert [(m["type"], m["at"]["at"], m["at"]["count"]) for m in replies] == [("panel", 2**40, 0)]


def test_windows_beyond_the_span_are_refused_but_the_whole_span_answers_exactly(widget, profile):
    span = profile.span_cycles
    refused(widget, {"type": "window", "start": 0, "end": span + 1_000, "pixels": 100})
    widget.sent.messages.clear()
    widget._handle_custom_msg({"type": "window", "start": 0, "end": span, "pixels": 100}, [])
    reply = widget.sent.messages[0]
    assert reply["type"] == "window" and reply["count"] == profile.samples.filter(pl.col("duration") > 0).height
    assert widget.window_answer(span - 1, span, 5)[0]["count"] > 0
    with pytest.raises(MessageError, match="window end must be in"):
        widget.window_answer(0, 10**15, 1000)


trait_value = st.one_of(
    field_value,
    st.lists(field_value, min_size=2, max_size=2),
    st.sampled_from(["metadata", "kernel", "kind", None, "layer", "a=b"]),
    st.fixed_dictionaries(
        {},
        optional={
            "kind": st.sampled_from([None, "", "compute", "bogus", 3]),
            "tiles": st.one_of(st.lists(field_value, max_size=3), field_value),
            "metadata": st.one_of(
                st.lists(
                    st.one_of(st.text(max_size=4), st.tuples(st.text(max_size=4), st.none() | st.text(max_size=3)))
                )
                | field_value
            ),
        },
    ),
)


@settings(max_examples=examples(300))
@given(state=st.dictionaries(st.sampled_from([*STATE, "nonsense"]), trait_value, max_size=3))
def test_fuzzed_trait_updates_never_raise_and_leave_a_usable_state(widget, state):
    before = snapshot(widget)
    replies = update(widget, state)
    errors = [m for m in replies if m["type"] == "error"]
    if errors:
        assert len(errors) == 1 and errors[0]["request"] == "update"
        assert snapshot(widget) == before
    widget.query, widget.groups, widget.at_slice, widget.filtered  # noqa: B018 - any state left must work
    widget.sent.messages.clear()
    widget._on_message(widget, {"type": "window", "start": 0, "end": widget.view[1], "pixels": 50}, [])
    assert widget.sent.types()[0] == "window" and "error" not in widget.sent.types()


# --------------------------------------------------------------------------- the typed protocol


def _tags(union: Any) -> list[str]:
    import typing

    return [typing.get_args(typing.get_type_hints(cls)["type"])[0] for cls in typing.get_args(union)]


def test_protocol_tags_are_the_message_types_the_widget_checks() -> None:
    from ipu_nb._widget import protocol

    assert _tags(protocol.FromFrontEnd) == list(protocol.REQUEST_TYPES) == list(MESSAGE_TYPES)
    assert _tags(protocol.ToFrontEnd) == list(protocol.REPLY_TYPES)


def test_requests_with_only_their_required_keys_are_accepted() -> None:
    import typing

    from ipu_nb._widget import protocol

    values = {
        **{"start": 1, "end": 9, "pixels": 100, "row": 0, "x": 3},
        **{"level": 0, "bins": 4, "blocks": [0], "filters": {}, "color_by": "kind", "text": "x", "by": "matching"},
        "rank": 1,
    }
    for cls in typing.get_args(protocol.FromFrontEnd):
        content = {key: values.get(key) for key in cls.__required_keys__}
        content["type"] = typing.get_args(typing.get_type_hints(cls)["type"])[0]
        assert type(parse_message(content, LIMITS)).__name__.lower() == content["type"]


def test_every_reply_the_widget_sends_has_its_protocol_keys(widget) -> None:
    import typing

    from ipu_nb._widget import protocol

    by_tag = {typing.get_args(typing.get_type_hints(c)["type"])[0]: c for c in typing.get_args(protocol.ToFrontEnd)}
    widget._on_message(widget, GOOD["window"], [])
    widget._on_message(widget, GOOD["hover"], [])
    widget._on_message(widget, GOOD["groups"], [])
    widget._on_message(widget, GOOD["hello"], [])
    widget._on_message(widget, {"type": "bogus"}, [])
    blocks = {"type": "blocks", "level": 4, "bins": 8, "blocks": [0, 1], "start": 0, "end": 900}
    widget._on_message(widget, {**blocks, "filters": widget.filters, "color_by": widget.color_by}, [])
    widget._on_message(widget, {**blocks, "filters": {}, "color_by": widget.color_by}, [])  # stale
    widget._on_message(widget, {"type": "search", "id": 1, "text": "op"}, [])
    widget._on_message(widget, {"type": "fit", "id": 1, "by": "matching"}, [])
    widget._on_message(widget, {"type": "code", "id": 1}, [])
    widget.selection = {"start": 0, "end": 900, "tiles": None}
    widget.highlight(widget.profile.samples.head(3))
    widget._side.wait()
    seen = set()
    for message in widget.sent.messages:
        cls = by_tag[message["type"]]
        assert cls.__required_keys__ <= set(message) <= cls.__required_keys__ | cls.__optional_keys__, message
        seen.add(message["type"])
    assert seen == set(protocol.REPLY_TYPES)


def test_info_carries_the_vocabulary_the_front_end_shows(profile) -> None:
    from ipu_nb import palette
    from ipu_nb._model import vocabulary
    from ipu_nb._model.palette import ACTIVITY_LABELS, KERNEL_PALETTE, WINDOW_PALETTE

    info = ProfileWidget(profile).info["vocabulary"]
    assert info == {
        "kinds": list(vocabulary.KINDS),
        "group_bys": list(vocabulary.GROUP_BYS),
        "sort_bys": list(vocabulary.SORT_BYS),
        "color_bys": list(vocabulary.COLOR_BYS),
        "flame_hierarchies": list(vocabulary.FLAME_HIERARCHIES),
        "no_kernel": "(no kernel)",
        "missing": "(missing)",
        "accounting_parts": {
            "exchange boundary wait": "synchronization",
            "exchange boundary sampling": "synchronization",
        },
        "palette": palette(),
        "kernel_palette": list(KERNEL_PALETTE),
        "activity_palette": WINDOW_PALETTE,
        "activity_labels": ACTIVITY_LABELS,
        "color_by_labels": vocabulary.COLOR_BY_LABELS,
    }


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_a_stop_is_not_swallowed_as_an_error_reply(widget, monkeypatch, stop) -> None:
    def interrupted(*args: Any) -> None:
        raise stop()

    monkeypatch.setitem(handlers.HANDLERS, Window, interrupted)
    with pytest.raises(stop):
        widget._on_message(widget, GOOD["window"], [])


def test_a_polars_panic_still_becomes_an_error_reply(widget, monkeypatch) -> None:
    from polars.exceptions import PanicException

    def panics(*args: Any) -> None:
        raise PanicException("boom")

    monkeypatch.setitem(handlers.HANDLERS, Window, panics)
    reply = refused(widget, GOOD["window"])
    assert "PanicException" in reply["message"]


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_every_last_resort_catch_lets_a_stop_through(widget, monkeypatch, stop) -> None:
    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise stop()

    with monkeypatch.context() as patch:  # a trait update from the browser
        patch.setattr(widget, "trait_metadata", stopped)
        with pytest.raises(stop):
            widget.set_state({"at": 250})
    with monkeypatch.context() as patch:  # a side view (run inline here, as outside a kernel)
        patch.setattr(inspector, "at_summary", stopped)
        with pytest.raises(stop):
            widget.at = 310
    with monkeypatch.context() as patch:  # the error reply itself fails to go out
        patch.setattr(widget, "send", stopped)
        with pytest.raises(stop):
            widget._send_error(RuntimeError("first"), {"request": "panel"})


def test_every_last_resort_catch_answers_a_polars_panic(widget, monkeypatch) -> None:
    panic = pl.exceptions.PanicException

    def panics(*args: Any, **kwargs: Any) -> Any:
        raise panic("boom")

    with monkeypatch.context() as patch:
        patch.setattr(widget, "trait_metadata", panics)
        widget.set_state({"at": 250})
    assert widget.sent.messages[-1] == {"type": "error", "request": "update", "message": "PanicException: boom"}
    assert widget.sent.states[-1] == ["at"], "Python's value is sent back to the browser"
    with monkeypatch.context() as patch:
        patch.setattr(widget, "send", panics)
        widget._send_error(RuntimeError("first"), {"request": "panel"})  # logged, not raised
