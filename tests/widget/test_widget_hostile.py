"""Hostile trait values, saved states and browser updates: each refused whole, leaving the widget as it was.

A refused value raises `traitlets.TraitError` from Python (an error reply for the browser)
and changes no trait and no mask: `state`, `filtered` and `groups` read as before, and the
constructor takes `state` back. The browser may set only the view's traits; the rest are
read-only to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import traitlets
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp
from polars.testing import assert_frame_equal
from widget_sent import Sent

import ipu_nb
from ipu_nb._query.flags import MAX_METADATA_CONDITIONS, MAX_TEXT
from ipu_nb._widget import shown as _shown
from ipu_nb._widget.state import MAX_DEPTH, STATE_KEYS
from ipu_nb._widget.widget import FRONT_END_WRITES, ProfileWidget

LONG = MAX_TEXT + 1


def _tiles() -> list[T]:
    tiles = []
    for t in range(4):
        samples = []
        cursor = 1_000 + 10 * t
        for p in range(6):
            meta = [("layer", str(p % 2)), ("", "blank" if p % 3 else "other")]
            kind = "compute" if (p + t) % 3 else "exchange"
            samples.append(S(cursor, cursor + 40 + t, kind=kind, operation=f"op {p % 3}", phase=p, metadata=meta))
            cursor += 50
        tiles.append(T(2 * t, samples))
    return tiles


@pytest.fixture(scope="module")
def profile() -> ipu_nb.Profile:
    return profile_from_tiles(_tiles())


@pytest.fixture
def widget(profile: ipu_nb.Profile) -> ProfileWidget:
    w = ProfileWidget(profile)
    w.sent = Sent(w)
    with w.hold_trait_notifications():
        w.filters = {"kind": "compute", "metadata": [["layer", "1"]]}
        w.metadata_key, w.group_by = "layer", "metadata"
        w.view, w.at = [100, 250], 150
    return w


def _deep(depth: int = 100_000) -> list[Any]:
    value: list[Any] = [0]
    for _ in range(depth):
        value = [value]
    return value


class _Before:
    """The widget's state, frames and mask, to compare with after a refused change."""

    def __init__(self, widget: ProfileWidget) -> None:
        self.widget = widget
        self.state = json.dumps(widget.state, sort_keys=True)
        self.filtered = widget.filtered
        self.groups = widget.groups
        self.shown = widget._shown_now()
        mask = self.shown.matching.mask
        self.mask = None if mask is None else mask.copy()

    def assert_unchanged(self) -> None:
        w = self.widget
        assert json.dumps(w.state, sort_keys=True) == self.state
        assert_frame_equal(w.filtered, self.filtered)
        assert_frame_equal(w.groups, self.groups)
        shown = w._shown_now()  # the one value shown: the very same one, its mask unchanged
        assert shown is self.shown
        assert (shown.matching.mask is None) == (self.mask is None)
        if self.mask is not None:
            assert (shown.matching.mask == self.mask).all()
        reopened = ProfileWidget(w.profile, state=w.state)  # the constructor takes the state back
        assert reopened.state == w.state
        assert_frame_equal(reopened.groups, self.groups)


def _case(key: str, value: Any, what: str) -> Any:
    return pytest.param(key, value, id=f"{key}={what}")


DEEP = "100000 deep"

# One hostile value per filter (each a value make_query refuses, or a selection too costly to make).
HOSTILE_FILTERS = [
    _case("kind", "bogus", "bogus"),
    _case("kernel", "k" * LONG, "too long"),
    _case("operation_contains", "a" * 400_000, "400000 characters"),
    _case("operation_contains", "a" * LONG, "too long"),
    _case("operation", ["op 1", "o" * LONG], "one too long"),
    _case("tiles", [2**32], "beyond u32"),
    _case("phases", [-1], "negative"),
    _case("metadata", [[f"n{i}", "v"] for i in range(MAX_METADATA_CONDITIONS + 1)], "one pair too many"),
    _case("metadata", [f"n{i}=v" for i in range(20_000)], "20000 pairs"),
    _case("metadata", [["n" * LONG, None]], "name too long"),
    _case("metadata", [["layer", "v" * LONG]], "value too long"),
    _case("window", [5, 1], "backwards"),
    *(_case(key, _deep(), DEEP) for key in ("kind", "kernel", "operation_contains", "operation", "metadata", "window")),
]

HOSTILE_TRAITS = [
    _case("view", [250, 100], "backwards"),
    _case("view", [0, _deep()], DEEP),
    _case("at", -1, "negative"),
    _case("at", _deep(), DEEP),
    _case("selected", 10**9, "no sample"),
    _case("selection", {"start": 5, "end": 1, "tiles": None}, "backwards"),
    _case("selection", {"start": _deep(), "end": 1}, DEEP),
    _case("tracks", {"order": "sideways"}, "bogus order"),
    _case("tracks", {"pinned": _deep()}, DEEP),
    _case("group_by", "bogus", "bogus"),
    _case("metadata_key", "m" * LONG, "too long"),
    _case("metadata_key", None, "None while grouping by metadata"),
    _case("color_by", "<script>", "bogus"),
    _case("showing", "baseline", "without a baseline"),
    _case("showing", _deep(), DEEP),
]


@pytest.mark.parametrize(("key", "value"), HOSTILE_FILTERS)
def test_a_refused_filter_leaves_every_trait_and_mask_as_before(widget: ProfileWidget, key: str, value: Any) -> None:
    before = _Before(widget)
    with pytest.raises(traitlets.TraitError):
        widget.filters = {**widget.filters, key: value}
    before.assert_unchanged()
    widget.sent.messages.clear()
    widget.set_state({"filters": {**widget.filters, key: value}})  # the same from the browser
    assert [m["request"] for m in widget.sent.errors()] == ["update"]
    before.assert_unchanged()
    with pytest.raises(traitlets.TraitError):  # and in a saved state
        ProfileWidget(widget.profile, state={**widget.state, "filters": {key: value}})
    with pytest.raises(traitlets.TraitError):
        widget.state = {**widget.state, "filters": {key: value}}
    before.assert_unchanged()


@pytest.mark.parametrize(("key", "value"), HOSTILE_TRAITS)
def test_a_refused_trait_leaves_every_trait_and_mask_as_before(widget: ProfileWidget, key: str, value: Any) -> None:
    before = _Before(widget)
    with pytest.raises(traitlets.TraitError):
        setattr(widget, key, value)
    before.assert_unchanged()
    with pytest.raises(traitlets.TraitError), widget.hold_trait_notifications():  # a good change beside it: undone
        widget.filters = {"kind": "exchange"}
        setattr(widget, key, value)
    before.assert_unchanged()
    widget.sent.messages.clear()
    widget.set_state({"filters": {"kind": "exchange"}, key: value})
    assert [m["request"] for m in widget.sent.errors()] == ["update"]
    before.assert_unchanged()


def test_filters_whose_selection_fails_are_refused_before_they_are_set(
    widget: ProfileWidget, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _Before(widget)

    def fails(*_: Any, **__: Any) -> Any:
        raise pl.exceptions.ComputeError("the selection failed")

    with monkeypatch.context() as patch:
        patch.setattr(_shown, "filter_mask", fails)
        with pytest.raises(traitlets.TraitError, match="filters: the selection failed"):
            widget.filters = {"kind": "exchange"}
        with pytest.raises(traitlets.TraitError, match="the selection failed"), widget.hold_trait_notifications():
            widget.view = [0, 50]
            widget.filters = {"kind": "exchange"}
        widget.sent.messages.clear()
        widget.set_state({"view": [0, 50], "filters": {"kind": "exchange"}})
        (error,) = widget.sent.errors()
        assert "the selection failed" in error["message"]
        assert widget.view == [100, 250]
    before.assert_unchanged()
    widget.filters = {"kind": "exchange"}  # the same filters work once their selection does
    assert_frame_equal(widget.filtered, widget.profile.filter(kind="exchange"))


# ---- metadata conditions: the limit, and the empty name ------------------------------------------


def test_a_thousand_metadata_pairs_are_accepted_and_one_more_is_refused(profile: ipu_nb.Profile) -> None:
    widget = ProfileWidget(profile)
    pairs = [["layer", "1"], *([f"n{i}", None] for i in range(MAX_METADATA_CONDITIONS - 1))]
    widget.filters = {"metadata": pairs}
    assert widget.filters["metadata"] == pairs and widget.filtered.height == 0
    assert ProfileWidget(profile, state=widget.state).filters == widget.filters
    with pytest.raises(traitlets.TraitError, match=f"at most {MAX_METADATA_CONDITIONS} are allowed"):
        widget.filters = {"metadata": [*pairs, ["layer", None]]}
    assert widget.filters["metadata"] == pairs


def test_metadata_named_the_empty_string_can_be_filtered(profile: ipu_nb.Profile) -> None:
    widget = ProfileWidget(profile)
    widget.filters = {"metadata": [["", "blank"]]}
    expected = [
        s
        for s, meta in profile.filter().select("sample", "metadata").iter_rows()
        if {"name": "", "value": "blank"} in meta
    ]
    assert widget.filtered.get_column("sample").to_list() == expected != []
    widget.filters = {"metadata": ["=other"]}  # the string form: split at the first "="
    assert widget.filters["metadata"] == [["", "other"]]
    assert ProfileWidget(profile, state=widget.state).filtered.height == widget.filtered.height > 0
    with widget.hold_trait_notifications():
        widget.metadata_key, widget.group_by = "", "metadata"
    assert widget.groups.get_column("name").to_list() == ["other"]


# ---- browser updates of traits it may not write ---------------------------------------------------


def test_the_browser_may_write_only_the_view_s_traits(widget: ProfileWidget) -> None:
    assert set(STATE_KEYS) == FRONT_END_WRITES
    assert {"info", "finding_rows", "_esm", "_css", "layout"} <= set(widget.keys) - FRONT_END_WRITES


@pytest.mark.parametrize(
    "update",
    [
        {"_esm": "export default { render() { fetch('https://evil.example') } }", "_css": "* { display: none }"},
        {"_esm": "x"},
        {"_css": "x"},
        {"info": {"span": 1}},
        {"finding_rows": []},
        {"layout": "IPY_MODEL_0000"},
        {"_model_name": "Other"},
        {"_view_module": "evil"},
        {"tabbable": True},
        {"view": [0, 50], "_esm": "x"},  # one refused trait refuses the whole update
        {"not_a_trait": 1},
    ],
    ids=lambda update: ",".join(update),
)
def test_browser_updates_of_other_traits_are_refused_with_an_error_reply(
    widget: ProfileWidget, update: dict[str, Any]
) -> None:
    before = {name: getattr(widget, name) for name in widget.keys}
    state = _Before(widget)
    widget.sent.messages.clear()
    widget.set_state(update)
    (error,) = widget.sent.errors()
    assert error["request"] == "update" and "the browser cannot set" in error["message"]
    assert {name: getattr(widget, name) for name in widget.keys} == before
    assert widget.sent.states[-1] == [k for k in update if k in widget.keys]
    state.assert_unchanged()


def test_every_trait_a_browser_writes_is_still_accepted(widget: ProfileWidget) -> None:
    update = {name: getattr(widget, name) for name in STATE_KEYS}
    update["view"], update["at"] = [10, 250], 20
    widget.sent.messages.clear()
    widget.set_state(update)
    assert widget.sent.errors() == []
    assert (widget.view, widget.at) == ([10, 250], 20)


# ---- saved states ---------------------------------------------------------------------------------


def test_a_deeply_nested_state_is_a_trait_error(widget: ProfileWidget, profile: ipu_nb.Profile) -> None:
    before = _Before(widget)
    for state in (
        {"view": _deep()},
        {"filters": {"metadata": _deep()}},
        {"selection": {"tiles": _deep(MAX_DEPTH)}},
        {"nonsense": _deep()},
    ):
        with pytest.raises(traitlets.TraitError, match=f"more than {MAX_DEPTH} levels deep"):
            widget.state = state
        with pytest.raises(traitlets.TraitError, match=f"more than {MAX_DEPTH} levels deep"):
            ProfileWidget(profile, state=state)
    with pytest.raises(traitlets.TraitError, match="state must be a dict"):
        widget.state = _deep()  # type: ignore[assignment]
    with pytest.raises(traitlets.TraitError, match=f"more than {MAX_DEPTH} levels deep"):
        ProfileWidget(profile, filters={"metadata": _deep()})
    widget.sent.messages.clear()
    widget.set_state({"filters": {"metadata": _deep()}})
    assert "levels deep" in widget.sent.errors()[0]["message"]
    before.assert_unchanged()


@pytest.mark.parametrize("version", [True, 1.0, "1", 2, None])
def test_a_state_version_must_be_the_integer_one(widget: ProfileWidget, version: Any) -> None:
    before = _Before(widget)
    with pytest.raises(traitlets.TraitError, match=r"state version .* is not supported"):
        widget.state = {**widget.state, "version": version}
    before.assert_unchanged()
    widget.state = {**widget.state, "version": 1}


def test_to_code_opens_the_profile_by_its_resolved_path_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    write_with_pycapnp(columns_from_tiles(_tiles()), folder / "p.capnp")
    monkeypatch.chdir(folder)
    opened = ipu_nb.open_profile("p.capnp", progress=False)
    widget = ProfileWidget(opened)
    widget.filters = {"metadata": [["", "blank"]], "kind": "compute"}
    code = widget.to_code()
    assert f"ipu_nb.open_profile({str((folder / 'p.capnp').resolve())!r})" in code
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    namespace: dict[str, Any] = {}
    exec(compile(code, "<to_code>", "exec"), namespace)
    assert_frame_equal(namespace["samples"], widget.filtered)
    assert namespace["widget"].state == widget.state
