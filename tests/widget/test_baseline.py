"""ProfileWidget(after, baseline=before): the Δ columns (from `compare`), the `showing` flip, the findings panel."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
import traitlets
from builders import S, T, profile_from_tiles

import ipu_nb
from ipu_nb._compare import ComparisonError
from ipu_nb._widget.widget import ProfileWidget

HOSTILE = "<b>\u202egemm</b>"


def pair_profile(gemm: int, extra: bool = False, clock_hz: int = 1_500_000_000) -> Any:
    """Four tiles of sync / compute phases; `gemm` cycles per gemm sample, tile 66 a straggler."""
    tiles = []
    for t, phys in enumerate([66, 2, 0, 64]):
        samples, cursor = [], 1_000 + 10 * t
        for p in range(6):
            samples.append(S(cursor, cursor + 50, kind="synchronization", operation="sync", kernel="", phase=2 * p))
            cursor += 50
            width = gemm * (3 if phys == 66 else 1)
            op = f"op {p}"
            samples.append(S(cursor, cursor + width, kind="compute", operation=op, kernel="gemm", phase=2 * p + 1))
            cursor += width
            if extra and p == 2:
                new = S(cursor, cursor + 80, kind="compute", operation="new op", kernel=HOSTILE, phase=2 * p + 1)
                samples.append(new)
                cursor += 80
        tiles.append(T(phys, samples))
    return profile_from_tiles(tiles, clock_hz=clock_hz)


@pytest.fixture(scope="module")
def before():
    return pair_profile(200)


@pytest.fixture(scope="module")
def after():
    return pair_profile(300, extra=True)


class Recorder:
    def __init__(self, widget: ProfileWidget) -> None:
        self.sent: list[dict[str, Any]] = []
        widget.send = lambda content, buffers=None: self.sent.append(content)

    def last(self, kind: str) -> dict[str, Any]:
        return next(c for c in reversed(self.sent) if c.get("type") == kind)


@pytest.fixture
def widget(before, after):
    w = ProfileWidget(after, baseline=before)
    w.recorder = Recorder(w)
    return w


def groups_reply(widget: ProfileWidget) -> dict[str, Any]:
    widget._handle_custom_msg({"type": "groups", "id": 1}, [])
    return widget.recorder.last("groups")


def test_delta_columns_are_compares_rows(widget, before, after):
    for by in ("kernel", "phase", "tile"):
        widget.group_by = by
        reply = groups_reply(widget)
        expected = ipu_nb.compare(before, after, by=by).groups
        rows = {r["name"]: r for r in expected.iter_rows(named=True)}
        assert len(reply["deltas"]) == len(reply["rows"]) > 0
        for row, delta in zip(reply["rows"], reply["deltas"], strict=True):
            e = rows[row["name"]]
            assert delta == {
                "status": e["status"],
                "before": e["phase_cycles_before"],
                "after": e["phase_cycles_after"],
                "delta": e["phase_cycles_delta"],
                "ratio": e["phase_cycles_ratio"],
            }
            assert delta["after"] == row["phase_cycles"]  # the table shows the after side


def test_delta_columns_follow_the_filters(widget, before, after):
    widget.filters = {"phases": [5], "kind": "compute"}
    reply = groups_reply(widget)
    expected = ipu_nb.compare(before, after, by="kernel", phases=[5], kind="compute").groups
    by_name = dict(zip(expected["name"], expected["phase_cycles_delta"], strict=True))
    assert {r["name"]: d["delta"] for r, d in zip(reply["rows"], reply["deltas"], strict=True)} == by_name
    assert by_name[HOSTILE] > 0  # added on the after side only
    assert reply["deltas"][[r["name"] for r in reply["rows"]].index(HOSTILE)]["status"] == "added"
    assert widget.comparison.groups.equals(expected)


def test_no_baseline_no_deltas(after):
    w = ProfileWidget(after)
    w.recorder = Recorder(w)
    assert "deltas" not in groups_reply(w)
    with pytest.raises(traitlets.TraitError, match="needs a baseline"):
        w.showing = "baseline"
    with pytest.raises(ValueError, match="no baseline"):
        w.comparison  # noqa: B018


def test_baseline_is_checked_like_compare(after, tmp_path):
    with pytest.raises(ComparisonError, match=r"different clocks.*allow_clock_mismatch"):
        ProfileWidget(after, baseline=pair_profile(200, clock_hz=1_000_000_000))
    w = ProfileWidget(after, baseline=pair_profile(200, clock_hz=1_000_000_000), allow_clock_mismatch=True)
    assert w.baseline is not None
    with pytest.raises(TypeError, match="Profile or a path"):
        ProfileWidget(after, baseline=42)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        ProfileWidget(after, baseline=tmp_path / "missing.capnp")


def test_showing_flips_the_profile_at_the_same_view(widget, before, after):
    view = [1_200, 2_400]
    widget.view = view
    widget.filters = {"kind": "compute"}
    widget.showing = "baseline"
    assert widget.profile is before and widget.view == view and widget.filters["kind"] == "compute"
    assert widget.info["span"] == before.span_cycles and widget.info["baseline"] is True
    assert widget.groups.equals(ipu_nb.query(before, widget.query).groups)
    # The timeline's blocks now come from the baseline: compute ends earlier there.
    header, _ = widget.window_answer(*view, 256)
    widget.showing = "after"
    header_after, _ = widget.window_answer(*view, 256)
    assert widget.profile is after and header != header_after
    # The Δ columns stay baseline → after whichever is shown.
    widget.showing = "baseline"
    assert groups_reply(widget)["deltas"][0]["after"] is not None


def test_findings_panel_rows_and_jump(widget, after):
    widget._handle_custom_msg({"type": "hello"}, [])
    rows = widget.finding_rows
    found = ipu_nb.findings(after)
    assert [r["message"] for r in rows] == [f.message for f in found] and rows
    assert rows[0]["cycles"] == found[0].cycles and rows[0]["filters"] == found[0].state["filters"]
    view = widget.show_finding(1)
    assert widget.filters == found[0].state["filters"]
    assert view == widget.view == list(found[0].view)
    with pytest.raises(ValueError, match="rank"):
        widget.show_finding(len(rows) + 1)
    widget.showing = "baseline"
    assert [r["message"] for r in widget.finding_rows] == [f.message for f in ipu_nb.findings(widget.baseline)]


def path_cycles(profile: Any, path: dict[str, Any], filters: dict[str, Any]) -> int:
    """Plain reference: summed durations of the samples matching `filters` (kind, phases) on a flame path."""
    frame = profile.samples
    if "kind" in filters:
        frame = frame.filter(pl.col("kind").cast(pl.String) == filters["kind"])
    if "phases" in filters:
        frame = frame.filter(pl.col("phase").is_in(filters["phases"]))
    for key, value in path.items():
        frame = frame.filter(pl.col(key).cast(pl.String if key != "phase" else pl.Int64) == value)
    return int(frame.get_column("duration").cast(pl.Int64).sum())


@pytest.mark.parametrize("filters", [{}, {"kind": "compute", "phases": [3, 5]}])
def test_flame_deltas_are_after_minus_before_on_each_path(widget, before, after, filters):
    widget.filters = filters
    widget._handle_custom_msg({"type": "hello"}, [])
    for showing in ("after", "baseline"):
        widget.showing = showing
        widget._views.send("flame")
        push = widget.recorder.last("flame")
        assert len(push["deltas"]) == len(push["nodes"])
        checked = 0
        for node, delta in zip(push["nodes"], push["deltas"], strict=True):
            if node["path"] is None:
                assert delta is None
                continue
            assert delta == path_cycles(after, node["path"], filters) - path_cycles(before, node["path"], filters)
            checked += 1
        assert checked > 5 and any(push["deltas"])
    # The added kernel is all delta; the area's flame graph has none (its cycles are clipped).
    widget.showing = "after"
    widget._views.send("flame")
    push = widget.recorder.last("flame")
    if not filters:
        added = next(i for i, n in enumerate(push["nodes"]) if n["name"] == HOSTILE)
        assert push["deltas"][added] == push["nodes"][added]["value"]
    widget.selection = {"start": 0, "end": 2_000, "tiles": None}
    widget._views.send("flame")
    assert "deltas" not in widget.recorder.last("flame")


def test_blocks_for_the_other_profile_are_stale(widget):
    """A flip from Python while a request was on its way: the request's blocks are refused, not mixed up."""
    request = {"type": "blocks", "id": 7, "level": 0, "bins": 64, "blocks": [0], "filters": widget.filters}
    request.update(color_by="kind", start=0, end=100)
    widget._handle_custom_msg({**request, "showing": "after"}, [])
    assert widget.recorder.last("blocks")["stale"] is False
    widget.showing = "baseline"
    sent = len(widget.recorder.sent)
    widget._handle_custom_msg({**request, "showing": "after"}, [])
    assert widget.recorder.sent[sent:] == [widget.recorder.last("blocks")]  # no window reply, no error
    assert widget.recorder.last("blocks")["stale"] is True
    widget._handle_custom_msg({**request, "showing": "baseline"}, [])
    assert widget.recorder.last("blocks")["stale"] is False
    widget._handle_custom_msg({**request, "showing": "before"}, [])
    assert "showing must be" in widget.recorder.last("error")["message"]


def test_the_state_holds_which_profile_is_shown(widget, before, after):
    widget.view = [1_200, 2_400]
    widget.showing = "baseline"
    state = widget.state
    assert state["showing"] == "baseline"
    copy = ProfileWidget(after, baseline=before, state=state)
    assert copy.profile is before and copy.state == state
    other = ProfileWidget(after, baseline=before)
    other.state = state
    assert other.profile is before and other.state == state
    other.state = {**state, "showing": "after"}
    assert other.profile is after and other.view == [1_200, 2_400]


def test_a_state_that_fails_after_its_flip_changes_nothing(widget, after):
    widget.view = [1_200, 2_400]
    kept = widget.state
    with pytest.raises(traitlets.TraitError):
        widget.state = {**kept, "showing": "baseline", "group_by": "metadata", "metadata_key": None}
    assert widget.state == kept and widget.profile is after
    alone = ProfileWidget(after)
    with pytest.raises(traitlets.TraitError, match="needs a baseline"):
        alone.state = {**kept, "showing": "baseline"}
    with pytest.raises(traitlets.TraitError, match="needs a baseline"):
        ProfileWidget(after, state={**kept, "showing": "baseline"})


@pytest.fixture(scope="module")
def pair_files(doctest_profiles: Any) -> tuple[Any, Any]:
    """The doctests' before/after pair (conftest.py), opened from their files."""

    def opened(side: str) -> Any:
        return ipu_nb.open_profile(doctest_profiles / f"{side}.capnp", progress=False)

    return opened("before"), opened("after")


@pytest.mark.parametrize("showing", ["after", "baseline"])
def test_to_code_opens_both_profiles_and_reproduces_the_shown_one(pair_files, showing):
    before, after = pair_files
    widget = ProfileWidget(after, baseline=before)
    widget.send = lambda content, buffers=None: None
    widget.showing = showing
    widget.filters = {"kind": "compute"}
    widget.at = widget.filtered.row(0, named=True)["offset"]
    code = widget.to_code()
    assert f"baseline = ipu_nb.open_profile({str(before.path)!r})" in code
    assert f"after = ipu_nb.open_profile({str(after.path)!r})" in code
    namespace: dict[str, Any] = {}
    exec(compile(code, "<to_code>", "exec"), namespace)
    shown = before if showing == "baseline" else after
    assert namespace["profile"].path == shown.path
    assert namespace["groups"].equals(widget.groups) and namespace["at_slice"].equals(widget.at_slice)
    rebuilt = namespace["widget"]
    assert rebuilt.state == widget.state and rebuilt.baseline is not None
    assert rebuilt.profile.path == shown.path


def test_to_code_keeps_allow_clock_mismatch(after):
    other = pair_profile(200, clock_hz=1_000_000_000)
    widget = ProfileWidget(after, baseline=other, allow_clock_mismatch=True)
    code = widget.to_code()
    assert "baseline=baseline, allow_clock_mismatch=True, state=state" in code
    assert "bind `after`" in code and "bind `baseline`" in code


def activity_pair_profile(spread: int) -> Any:
    """Three tiles entering one exchange phase `spread` cycles apart (the first waits longest at the boundary)."""
    acts = [("send", 0, 30), ("receive", 10, 50)]
    tiles = []
    for t in range(3):
        a = 100 + t * spread
        tiles.append(
            T(
                t,
                [
                    S(0, a, "compute", kernel=f"k{t}", phase=0),
                    S(a, 260, "exchange", kernel="x", phase=1, activities=acts, exchange_event_cycles=60),
                    S(260, 300, "synchronization", phase=2),
                ],
            )
        )
    return profile_from_tiles(tiles, schema_version=5)


def flame_values(widget: ProfileWidget) -> dict[tuple[tuple[str, Any], ...], int]:
    """Each node's value by its path, as the widget's flame graph shows it."""
    recorder = Recorder(widget)
    widget._views.send("flame")
    return {tuple(n["path"].items()): n["value"] for n in recorder.last("flame")["nodes"] if n["path"] is not None}


@pytest.mark.parametrize("clock", ["tile", "shared"])
def test_the_activity_flame_deltas_count_both_sides_as_the_tree_does(clock: str) -> None:
    """In colour mode "activity" both sides are split into accounting parts, on the widget's clock."""
    before, after = activity_pair_profile(15), activity_pair_profile(30)
    widget = ProfileWidget(after, baseline=before, color_by="activity", clock=clock)
    recorder = Recorder(widget)
    widget._views.send("flame")
    push = recorder.last("flame")
    mine = flame_values(ProfileWidget(after, color_by="activity", clock=clock))
    theirs = flame_values(ProfileWidget(before, color_by="activity", clock=clock))
    for node, delta in zip(push["nodes"], push["deltas"], strict=True):
        path = tuple(node["path"].items())
        assert delta == mine[path] - theirs.get(path, 0), path
    boundary = (("kind", "synchronization"), ("kernel", "exchange boundary wait"))
    assert mine[boundary] - theirs[boundary] > 0  # the wider spread waits longer
