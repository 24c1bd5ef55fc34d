"""Windows, clipping and the exact operation filter (docs/reference/query.md#ipu-nb-extensions).

Hand-computed cases first, then property tests against `spec_reference` whose windows
start and end exactly on the drawn samples' boundaries (and one cycle either side),
then `window_samples` against the same reference, then the refusals.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import polars as pl
import pytest
import spec_reference as ref
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from query_properties import QUERIES, WINDOWS, check_against_reference, tiles
from untyped import untyped

from ipu_nb._query import (
    FILTERS,
    Query,
    QueryError,
    filter_mask,
    filter_samples,
    index_of,
    make_query,
    query,
    window_samples,
)
from ipu_nb._query.plan import aggregate
from ipu_nb._query.predicate import filtered
from ipu_nb._query.window import clip_to_window

# Offsets (per tile, first sample = 0):
#   tile 7: a [0,100) p0 · b [100,100) p0 zero length · c [100,400) p1 · d [400,450) p1
#   tile 9 (counter wraps): e [0,30) p0 · f [30,330) p1 (start 2**32 - 10, end 290)
#   tile 3: no samples
_TILES = [
    T(
        7,
        [
            S(1000, 1100, kernel="k", operation="op a", phase=0),
            S(1100, 1100, kernel="k", operation="op a", phase=0),
            S(1100, 1400, kernel="gemm", operation="op ab", phase=1),
            S(1400, 1450, kind="idle", kernel="", operation="", phase=1),
        ],
    ),
    T(9, [S(2**32 - 40, 2**32 - 10, kernel="k", operation="op b"), S(2**32 - 10, 290, kernel="gemm", phase=1)]),
    T(3, []),
]


@pytest.fixture(scope="module")
def profile() -> Any:
    return profile_from_tiles(_TILES, clock_hz=1000)


def _ids(profile: Any, **flags: Any) -> list[int]:
    return filter_samples(profile, **flags).get_column("sample").to_list()


def test_window_keeps_samples_sharing_a_cycle_with_it(profile: Any) -> None:
    assert _ids(profile, window=(0, 1)) == [0, 4]
    assert _ids(profile, window=(99, 101)) == [0, 2, 5]  # a's last cycle, c's first; f is [30, 330)
    assert _ids(profile, window=(100, 101)) == [2, 5]  # a ends at 100 (end exclusive); b has no cycle
    assert _ids(profile, window=(330, 400)) == [2]  # f ends at 330; d starts at 400 = the window's end
    assert _ids(profile, window=(400, 2**64 - 1)) == [3]
    assert _ids(profile, window=(450, 2**64 - 1)) == []  # beyond the span
    assert _ids(profile, window=(0, 2**64 - 1)) == [0, 2, 3, 4, 5]  # all but the zero-length sample
    assert _ids(profile, window=(30, 31)) == [0, 5]  # the wrapped counter: f starts at offset 30, e ends there
    # window=(n, n + 1) is at=n
    for n in (0, 29, 30, 99, 100, 329, 330, 449, 450):
        assert _ids(profile, window=(n, n + 1)) == _ids(profile, at=n)


def test_window_combines_with_every_filter(profile: Any) -> None:
    assert _ids(profile, window=(50, 420), kernel="gemm") == [2, 5]
    assert _ids(profile, window=(50, 420), tiles=7) == [0, 2, 3]
    assert _ids(profile, window=(50, 420), phases=[1], kind="idle") == [3]
    assert _ids(profile, window=(50, 420), operation_contains="op a") == [0, 2]
    assert _ids(profile, window=(50, 420), at=200) == [2, 5]
    assert _ids(profile, window=(50, 420), at=10) == [0]  # a runs at 10 and has cycles in the window
    assert _ids(profile, window=(50, 420), at=449) == [3]
    assert _ids(profile, window=(50, 420), operation=["op ab", "op"]) == [2, 5]
    assert _ids(profile, window=(0, 40), operation="op b") == [4]


def test_clip_aggregates_the_parts_inside_the_window(profile: Any) -> None:
    result = query(profile, window=(50, 420), clip=True, group_by="kernel", samples=3, limit=0)
    # inside [50, 420): a [50,100) p0/0; c [100,400) p1/0; d [400,420) p1/0; e none; f [50,330) p1/0
    # gemm: c and f in p1/0 -> union [50,400) = 350; work 300 + 280 = 580; durations [280, 300]
    # k: a -> 50; (no kernel): d -> 20
    groups = result.groups.select(
        "name",
        "sample_count",
        "tile_count",
        "phase_count",
        "phase_cycles",
        "work_cycles",
        "p50_cycles",
        "p95_cycles",
        "maximum_cycles",
        "first_offset",
        "last_offset",
    ).rows()
    assert groups == [
        ("gemm", 2, 2, 1, 350, 580, 280, 280, 300, 50, 400),
        ("k", 1, 1, 1, 50, 50, 50, 50, 50, 50, 100),
        ("(no kernel)", 1, 1, 1, 20, 20, 20, 20, 20, 400, 420),
    ]
    gemm = result.groups.row(0, named=True)
    assert (gemm["average_active_tiles"], gemm["mean_cycles"], gemm["phase_ms"]) == (580 / 350, 290.0, 350.0)
    assert result.matched_sample_count == 4
    # the longest samples are those with the most cycles inside, shown with their own interval
    assert result.samples.select("tile", "offset", "duration", "clipped_cycles").rows() == [
        (7, 100, 300, 300),
        (9, 30, 300, 280),
        (7, 0, 100, 50),
    ]
    unclipped = query(profile, window=(50, 420), group_by="kernel", samples=3, limit=0)
    assert unclipped.groups.select("name", "phase_cycles", "work_cycles").rows() == [
        ("gemm", 370, 600),  # [100, 400) ∪ [30, 330) in p1/0, whole
        ("k", 100, 100),
        ("(no kernel)", 50, 50),
    ]
    assert "clipped_cycles" not in unclipped.samples.columns
    assert unclipped.samples.select("tile", "offset", "duration").rows() == [(7, 100, 300), (9, 30, 300), (7, 0, 100)]


def test_clip_takes_the_union_of_the_cut_intervals_per_phase() -> None:
    # Two tiles, one phase each; the window cuts both; phase cycles are the union per (phase, epoch).
    profile = profile_from_tiles([T(0, [S(0, 100, phase=2)]), T(1, [S(0, 60, phase=2), S(60, 200, phase=3)])])
    result = query(profile, window=(40, 150), clip=True, group_by="phase", limit=0)
    assert result.groups.select("name", "phase_cycles", "work_cycles", "sample_count").rows() == [
        ("phase 3/0", 90, 90, 1),  # [60, 150)
        ("phase 2/0", 60, 80, 2),  # [40, 100) ∪ [40, 60)
    ]


def test_report_says_which_window(profile: Any) -> None:
    text = query(profile, window=(50, 420), clip=True, samples=1).to_text().splitlines()
    assert text[0] == "tiles=3 samples=4/6 spanCycles=450 spanMs=450.000000 clockHz=1000 at=- window=50:420 clip=true"
    assert text[-1].startswith("sample tile=7 offset=100 duration=300 clippedCycles=300 phase=1/0 ")
    assert query(profile, window=(0, 9)).to_text().splitlines()[0].endswith(" at=- window=0:9 clip=false")
    json = query(profile, window=(50, 420), clip=True, samples=1).to_json()
    assert '"atOffset": null,\n  "window": {\n    "start": 50,\n    "end": 420,\n    "clip": true\n  },\n' in json
    assert '"duration": 300,\n      "clippedCycles": 300,\n      "phase": 1,' in json
    plain = query(profile, samples=1)
    assert "window" not in plain.to_json() and "window" not in plain.to_text()
    assert "clipped" not in plain.to_json() and "clipped" not in plain.to_text()
    assert "clipped_cycles" not in plain.samples.columns


def test_empty_results_keep_their_shape(profile: Any) -> None:
    result = query(profile, window=(10_000, 20_000), clip=True, samples=5)
    assert result.matched_sample_count == 0 and result.groups.height == 0
    assert result.samples.columns == [
        *("sample", "tile", "offset", "duration", "clipped_cycles"),
        *("phase", "epoch", "kind", "operation", "kernel", "metadata"),
    ]
    assert query(profile, window=(0, 5), clip=True).samples.schema["clipped_cycles"] == pl.Int64
    assert query(profile_from_tiles([]), window=(0, 5), clip=True, samples=2).samples.height == 0


def test_filter_samples_with_clip_has_clipped_cycles(profile: Any) -> None:
    frame = profile.filter(window=(50, 420), clip=True)
    assert frame.columns == [*profile.samples.columns, "clipped_cycles", "metadata"]
    assert frame.select("sample", "clipped_cycles").rows() == [(0, 50), (2, 300), (3, 20), (5, 280)]
    assert profile.filter(window=(50, 420)).columns == [*profile.samples.columns, "metadata"]


def test_filter_mask_sees_the_new_filters(profile: Any) -> None:
    for flags in ({"window": (50, 420)}, {"operation": ["op a", ""]}, {"window": (0, 40), "operation": "op b"}):
        assert np.flatnonzero(filter_mask(profile, **flags)).tolist() == _ids(profile, **flags)


# --------------------------------------------------------------------------- exact operation


def test_operation_selects_names_exactly(profile: Any) -> None:
    assert _ids(profile, operation="op a") == [0, 1]  # not "op ab"
    assert _ids(profile, operation_contains="op a") == [0, 1, 2]
    assert _ids(profile, operation=["op ab", "op b"]) == [2, 4]
    assert _ids(profile, operation="") == [3]  # the empty operation is a name like any other
    assert _ids(profile, operation=["op a", "nope"], operation_contains="b") == []
    assert _ids(profile, operation=["op ab", "op b"], operation_contains="ab") == [2]
    assert _ids(profile, operation="nope") == []
    assert _ids(profile, operation=[]) == _ids(profile)  # no names: no filter, as tiles=[]
    assert query(profile, operation="op ab", group_by="operation").groups.get_column("name").to_list() == ["op ab"]


def test_operation_on_string_columns(profile: Any) -> None:
    plain = dataclasses.replace(profile, samples=profile.samples.with_columns(pl.col("operation").cast(pl.String)))
    for flags in ({"operation": "op a"}, {"operation": ["", "op b"]}, {"operation": "op a", "window": (0, 50)}):
        assert _ids(plain, **flags) == _ids(profile, **flags)


# --------------------------------------------------------------------------- properties


@st.composite
def _profile_and_edge_window(draw: Any) -> tuple[list[T], tuple[int, int]]:
    """A profile and a window whose ends sit on its samples' starts and ends, or one cycle off."""
    tile_list = draw(tiles())
    edges = {0, 1}
    for s in ref.flatten(tile_list):
        for edge in (s.offset, s.offset + s.duration):
            edges.update((max(edge - 1, 0), edge, edge + 1))
    start, end = sorted(draw(st.lists(st.sampled_from(sorted(edges)), min_size=2, max_size=2, unique=True)))
    return tile_list, (start, end)


@settings(max_examples=examples(200))
@given(case=_profile_and_edge_window(), flags=QUERIES, clip=st.booleans())
def test_edge_windows_match_reference(case: tuple[list[T], tuple[int, int]], flags: dict[str, Any], clip: bool) -> None:
    tile_list, window = case
    check_against_reference(tile_list, 1_500_000_000, {**flags, "window": window, "clip": clip})


def _reference_area(
    tile_list: list[T], flags: dict[str, Any], window: tuple[int, int], area: list[int] | None
) -> list[tuple[int, int]]:
    """(sample, cycles inside the window) of the samples the flags pick in the window and the area's tiles."""
    rows = []
    for s in ref.flatten(tile_list):
        if ref.matches(s, flags) and ref.overlaps(s, window) and (area is None or s.tile in area):
            start, end = ref.inside(s, window)
            rows.append((s.index, end - start))
    return rows


@settings(max_examples=examples(150))
@given(
    case=_profile_and_edge_window(),
    flags=QUERIES,
    area=st.one_of(st.none(), st.lists(st.integers(0, 8), max_size=3)),
    data=st.data(),
)
def test_window_samples_match_reference(
    case: tuple[list[T], tuple[int, int]], flags: dict[str, Any], area: list[int] | None, data: st.DataObject
) -> None:
    tile_list, window = case
    if data.draw(st.booleans()):
        window = data.draw(WINDOWS)
    profile = profile_from_tiles(tile_list)
    frame = window_samples(profile, make_query(**flags), window, area)
    assert frame.columns == [*profile.samples.columns, "clipped_cycles"]
    assert frame.schema["clipped_cycles"] == pl.Int64
    assert frame.select("sample", "clipped_cycles").rows() == _reference_area(tile_list, flags, window, area)
    rows = profile.samples.filter(pl.col("sample").is_in(frame.get_column("sample").implode()))
    assert frame.drop("clipped_cycles").equals(rows)  # the rows of profile.samples, as they are


def test_window_samples_by_hand(profile: Any) -> None:
    assert window_samples(profile, None, (50, 420)).select("sample", "clipped_cycles").rows() == [
        (0, 50),
        (2, 300),
        (3, 20),
        (5, 280),
    ]
    assert window_samples(profile, None, (50, 420), tiles=[9, 3]).get_column("sample").to_list() == [5]
    assert window_samples(profile, None, (50, 420), tiles=[]).height == 0  # no tiles: nothing
    # the query's own filters still hold, its window included; its clip and grouping do not matter
    q = make_query(kernel="gemm", window=(0, 120), clip=True, group_by="tile", limit=1)
    assert window_samples(profile, q, (110, 420)).select("sample", "clipped_cycles").rows() == [(2, 290), (5, 220)]
    assert window_samples(profile, make_query(tiles=[7]), (50, 420), tiles=[9]).height == 0


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ({"window": 5}, "window must be a (start, end) pair"),
        ({"window": "0:5"}, "window must be a (start, end) pair"),
        ({"window": (1,)}, "window must be a (start, end) pair"),
        ({"window": (1, 2, 3)}, "window must be a (start, end) pair"),
        ({"window": {"start": 0, "end": 5}}, "window must be a (start, end) pair"),
        ({"window": ("a", 5)}, "window start must be an integer"),
        ({"window": (0, 5.0)}, "window end must be an integer"),
        ({"window": (True, 5)}, "window start must be an integer"),
        ({"window": (-1, 5)}, "window start must be between 0 and"),
        ({"window": (0, 2**64)}, "window end must be between 0 and"),
        ({"window": (5, 5)}, "window start must be less than its end, got (5, 5)"),
        ({"window": (9, 3)}, "window start must be less than its end, got (9, 3)"),
        ({"clip": True}, "clip=True requires a window: pass window=(start, end)"),
        ({"clip": "yes", "window": (0, 5)}, "clip must be True or False"),
        ({"clip": 1, "window": (0, 5)}, "clip must be True or False"),
        ({"operation": 5}, "operation must be a string or a list of strings"),
        ({"operation": ["a", 1]}, "operation must be a string or a list of strings"),
        ({"operation": b"a"}, "operation must be a string or a list of strings"),
    ],
)
def test_bad_values_are_usage_errors_naming_the_keyword(profile: Any, flags: dict[str, Any], words: str) -> None:
    runs = [lambda: query(profile, **flags), lambda: profile.filter(**flags)]
    if "clip" not in flags:  # a mask selects; it takes the filters alone
        runs.append(lambda: filter_mask(profile, **flags))
    for run in runs:
        with pytest.raises(QueryError) as info:
            run()
        assert words in str(info.value) and info.value.usage is True


def test_convenient_forms_normalise() -> None:
    q = untyped(make_query)(window=[np.int64(3), 9], operation="x", clip=np.bool_(True))
    assert (q.window, q.operation, q.clip) == ((3, 9), ("x",), True)
    assert make_query(operation=("a", "b")).operation == ("a", "b")
    assert make_query(window=range(2, 4)).window == (2, 3)
    assert Query().window is None and Query().operation == () and Query().clip is False
    assert {"operation", "window"} <= set(FILTERS) and "clip" not in FILTERS


@pytest.mark.parametrize("window", [5, (3, 3), (1, 2, 3), None])
def test_window_samples_refuses_a_bad_window(profile: Any, window: Any) -> None:
    with pytest.raises(QueryError, match="window"):
        window_samples(profile, None, window)


@pytest.mark.parametrize("area", [5.5, ["a"], [-1], "7"])
def test_window_samples_refuses_bad_tiles(profile: Any, area: Any) -> None:
    with pytest.raises(QueryError, match="tiles"):
        window_samples(profile, None, (0, 10), area)


@settings(max_examples=examples(60))
@given(tile_list=tiles(), window=WINDOWS, flags=QUERIES)
def test_clipped_query_aggregates_the_area(tile_list: list[T], window: tuple[int, int], flags: dict[str, Any]) -> None:
    """query(window=w, clip=True) counts the samples window_samples(w) returns; their clipped cycles are its work."""
    profile = profile_from_tiles(tile_list)
    q = make_query(**{name: value for name, value in flags.items() if name not in ("window", "clip")})
    area = window_samples(profile, q, window)
    result = query(profile, q, window=window, clip=True, group_by="kind", metadata_key=None, limit=0)
    assert result.matched_sample_count == area.height
    assert result.groups.get_column("work_cycles").sum() == area.get_column("clipped_cycles").sum()


@settings(max_examples=examples(80))
@given(tile_list=tiles(), window=WINDOWS, flags=QUERIES, clip=st.booleans())
def test_an_aggregate_without_percentiles_is_the_rest_of_the_whole(
    tile_list: list[T], window: tuple[int, int], flags: dict[str, Any], clip: bool
) -> None:
    """aggregate(percentiles=False) leaves out p50, p95 and maximum (kept when the order needs it), nothing else."""
    profile = profile_from_tiles(tile_list)
    q = make_query(**{**flags, "window": window, "clip": clip})
    index = index_of(profile)
    extra = (index.first_values(q.metadata_key),) if q.group_by == "metadata" and q.metadata_key is not None else ()
    matching = filtered(profile, q, extra)
    if clip:
        matching = clip_to_window(matching, window)
    whole = aggregate(profile, matching, q).collect()
    rest = aggregate(profile, matching, q, percentiles=False).collect()
    dropped = [] if q.sort_by == "maximum-cycles" else ["p50_cycles", "p95_cycles", "maximum_cycles"]
    assert_frame_equal(rest, whole.drop(dropped))
