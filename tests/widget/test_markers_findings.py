"""Markers (``marker_rows``, ``markers``, ``add_marker``) and findings that show their culprit tile."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
import traitlets
from builders import S, T, profile_from_tiles

import ipu_nb
from ipu_nb._widget.markers import MAX_LABEL, MAX_MARKERS
from ipu_nb._widget.widget import ProfileWidget

HOSTILE = "<img src=x onerror=alert(1)>\x1b[31m"


@pytest.fixture(scope="module")
def profile() -> Any:
    tiles = []
    for phys in (0, 2, 64):
        tiles.append(T(phys, [S(0, 500, kind="compute", operation="op", kernel="k", phase=1)]))
    return profile_from_tiles(tiles)


def test_add_marker_fills_the_frame_the_state_and_the_code(profile: Any) -> None:
    w = ProfileWidget(profile)
    w.add_marker(300, label=HOSTILE)
    frame = w.add_marker(100, 200, label="warm-up")
    assert frame.schema == {"start": pl.Int64, "end": pl.Int64, "label": pl.String}
    assert frame.rows() == [(100, 200, "warm-up"), (300, 300, HOSTILE)]
    assert w.markers.equals(frame)
    assert w.state["marker_rows"] == [
        {"start": 100, "end": 200, "label": "warm-up"},
        {"start": 300, "end": 300, "label": HOSTILE},
    ]
    again = ProfileWidget(profile, state=w.state)
    assert again.markers.equals(frame)
    code = w.to_code()
    assert repr(HOSTILE) in code and HOSTILE not in code.replace(repr(HOSTILE), "")
    namespace: dict[str, Any] = {}
    exec(code.split("# The same view in a widget:")[1].split("widget = ")[0], namespace)  # the state literal
    assert namespace["state"]["marker_rows"] == w.state["marker_rows"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1,), "within the profile"),
        ((10**12,), "within the profile"),
        ((True,), "integer"),
        ((5.0,), "integer"),
        ((50, 10), "before start"),
        ((5, None, 7), "label must be a str"),
        ((5, None, "x" * (MAX_LABEL + 1)), f"at most {MAX_LABEL}"),
    ],
)
def test_add_marker_refuses_bad_values_with_a_typed_error(profile: Any, args: tuple[Any, ...], message: str) -> None:
    w = ProfileWidget(profile)
    with pytest.raises(traitlets.TraitError, match=message):
        w.add_marker(*args)
    assert w.marker_rows == []


def test_marker_rows_from_the_browser_are_checked_like_python(profile: Any) -> None:
    w = ProfileWidget(profile)
    errors: list[str] = []
    w._send_error = lambda error, address=None: errors.append(str(error))  # type: ignore[method-assign]
    w._resync = lambda keys: None  # type: ignore[method-assign]
    w.set_state({"marker_rows": [{"start": 40, "label": "from the browser"}]})
    assert w.markers.rows() == [(40, 40, "from the browser")]
    for bad in (
        [{"start": 1, "end": 0, "label": ""}],
        [{"start": 1, "label": "", "script": 1}],
        ["not a dict"],
        [{"start": 1, "label": ""}] * (MAX_MARKERS + 1),
    ):
        w.set_state({"marker_rows": bad})
        assert w.markers.rows() == [(40, 40, "from the browser")]
    assert len(errors) == 4


def test_show_finding_pins_and_highlights_the_named_tile() -> None:
    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"), progress=False)
    w = ProfileWidget(profile)
    named = [(rank, f) for rank, f in enumerate(w.findings, 1) if f.tile is not None]
    assert {f.category for _, f in named} >= {"straggler-tile", "imbalanced-phase"}
    for rank, finding in named:
        w.tracks = {"order": "physical", "pinned": [], "rows": 15, "scroll": 0}  # rows 0-14 on screen
        view = w.show_finding(rank)
        assert w.tracks["pinned"][0] == finding.tile  # pinned rows are on screen whatever the scroll
        assert w.timeline_tiles[0] == finding.tile
        assert w.finding_rows == [] or w.finding_rows[rank - 1]["tile"] == finding.tile
        # Highlighted: exactly the finding's samples on that tile within the view.
        q = finding.query
        start, end = view
        expected = profile.filter(q).filter(
            (pl.col("tile") == finding.tile)
            & (pl.col("offset").cast(pl.Int64) < end)
            & (pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64) > start)
        )
        assert w._marks is not None and len(w._marks.positions) == expected.height > 0


def test_a_finding_click_from_the_browser_is_show_finding() -> None:
    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"), progress=False)
    w = ProfileWidget(profile)
    rank = next(rank for rank, f in enumerate(w.findings, 1) if f.tile is not None)
    w._handle_custom_msg({"type": "finding", "rank": rank}, [])
    assert w.tracks["pinned"][0] == w.findings[rank - 1].tile
    assert w.view == w.findings[rank - 1].state["view"]
    errors: list[str] = []
    w._send_error = lambda error, address=None: errors.append(str(error))  # type: ignore[method-assign]
    w._handle_custom_msg({"type": "finding", "rank": 10_000}, [])
    assert errors and "rank" in errors[0]


@pytest.mark.parametrize("clock", ["cropped", "shared"])
def test_findings_are_made_on_the_widgets_clock_and_shown_exactly_there(clock: str) -> None:
    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"), progress=False)
    w = ProfileWidget(profile, clock=clock)
    on_clock = profile.on_clock(clock)
    expected = ipu_nb.findings(on_clock)
    assert [(f.category, f.tile, f.state["view"]) for f in w.findings] == [
        (f.category, f.tile, f.state["view"]) for f in expected
    ]
    rank = next(rank for rank, f in enumerate(expected, 1) if f.tile is not None)
    assert w.show_finding(rank) == expected[rank - 1].state["view"]  # no conversion between clocks
    w.clock = "tile"
    assert [f.state["view"] for f in w.findings] == [f.state["view"] for f in ipu_nb.findings(profile)]
