"""`ipu_nb.compare` by hand: the golden pair's every number, statuses, renames, clocks, arguments, ordering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp
from compare_reference import FIELDS
from golden_pair import AFTER, BEFORE, CLOCK_HZ

import ipu_nb
from ipu_nb import Comparison, ComparisonError, QueryError, compare, query

NINE = tuple(FIELDS)  # the nine reported fields, in the contract's column order


@pytest.fixture(scope="module")
def pair() -> tuple[Any, Any]:
    return profile_from_tiles(BEFORE, CLOCK_HZ), profile_from_tiles(AFTER, CLOCK_HZ)


def _row(c: Comparison, name: str) -> dict[str, Any]:
    rows = c.groups.filter(pl.col("name") == name).to_dicts()
    assert len(rows) == 1
    return rows[0]


def test_columns_in_contract_order(pair: tuple[Any, Any]) -> None:
    c = compare(*pair)
    expected = ["name", "status"]
    for field in NINE:
        expected += [f"{field}_before", f"{field}_after"]
    expected += ["phase_cycles_delta", "work_cycles_delta", "phase_cycles_ratio"]
    assert c.groups.columns[: len(expected)] == expected
    assert c.groups.columns[len(expected) :] == ["name_before", "dimensions", "phase_ms_before", "phase_ms_after"]
    assert c.groups.schema["status"] == pl.Enum(["added", "removed", "changed", "unchanged"])


def test_golden_pair_by_hand_with_rename(pair: tuple[Any, Any]) -> None:
    c = compare(*pair, renames={"A": "Ä"})
    g = c.groups
    assert g.get_column("name").to_list() == ["D", "Ä", "C", "B", "E"]
    assert g.get_column("status").cast(str).to_list() == ["added", "changed", "removed", "changed", "unchanged"]
    assert g.get_column("phase_cycles_delta").to_list() == [20, 20, -10, 0, 0]
    assert g.get_column("work_cycles_delta").to_list() == [20, 20, -10, -20, 0]
    assert g.get_column("phase_cycles_ratio").to_list() == [None, 1.2, 0.0, 1.0, 1.0]
    assert g.get_column("name_before").to_list() == [None, "A", "C", "B", "E"]
    a = _row(c, "Ä")
    assert [a[f"{f}_before"] for f in NINE] == [2, 2, 1, 100, 180, 90.0, 80, 80, 100]
    assert [a[f"{f}_after"] for f in NINE] == [2, 2, 1, 120, 200, 100.0, 80, 80, 120]
    d = _row(c, "D")
    assert [d[f"{f}_before"] for f in NINE] == [None] * 9
    assert [d[f"{f}_after"] for f in NINE] == [1, 1, 1, 20, 20, 20.0, 20, 20, 20]
    assert (d["phase_ms_before"], d["phase_ms_after"]) == (None, 20.0)
    removed = _row(c, "C")
    assert [removed[f"{f}_after"] for f in NINE] == [None] * 9
    b = _row(c, "B")
    assert (b["work_cycles_before"], b["work_cycles_after"], b["p50_cycles_after"]) == (100, 80, 30)


def test_golden_pair_summary_and_attribution(pair: tuple[Any, Any]) -> None:
    c = compare(*pair, renames={"A": "Ä"})
    s = c.summary
    assert (s.phase_cycles_before, s.phase_cycles_after, s.phase_cycles_delta) == (165, 175, 10)
    assert (s.group_phase_cycles_before, s.group_phase_cycles_after, s.group_phase_cycles_delta) == (185, 215, 30)
    assert (s.overlap_cycles_before, s.overlap_cycles_after, s.overlap_term) == (20, 40, -20)
    assert (s.sample_count_before, s.sample_count_after, s.matched_sample_count_delta) == (6, 6, 0)
    assert (s.span_cycles_before, s.span_cycles_after, s.span_cycles_delta) == (150, 150, 0)
    assert (s.span_ms_before, s.span_ms_after, s.clock_hz_before) == (150.0, 150.0, 1000)
    assert s.status_counts == {"added": 1, "removed": 1, "changed": 2, "unchanged": 1}
    full = s.attribution
    assert full.get_column("name").to_list() == ["D", "Ä", "C", "B", "E", "(overlap)"]
    assert full.get_column("cycles").to_list() == [20, 20, -10, 0, 0, -20]
    assert full.get_column("end").to_list() == [20, 40, 30, 30, 30, 10]
    assert full.get_column("start").to_list() == [0, 20, 40, 30, 30, 30]
    folded = c.attribution(2)
    assert folded.get_column("name").to_list() == ["D", "Ä", "(3 other groups)", "(overlap)"]
    assert folded.get_column("term").cast(str).to_list() == ["group", "group", "other", "overlap"]
    assert folded.get_column("cycles").to_list() == [20, 20, -10, -20]
    assert folded.get_column("status").to_list() == ["added", "changed", None, None]
    assert c.attribution(5).height == 6  # no "other" row when nothing is folded
    assert repr(c) == (
        "<Comparison by=kernel: 5 groups (1 added, 1 removed, 2 changed, 1 unchanged); phase cycles 165 -> 175 (+10)>"
    )


def test_without_renames_the_kernel_is_removed_and_added(pair: tuple[Any, Any]) -> None:
    c = compare(*pair)
    statuses = dict(zip(c.groups["name"].to_list(), c.groups["status"].cast(str).to_list(), strict=True))
    assert statuses == {"A": "removed", "Ä": "added", "B": "changed", "C": "removed", "D": "added", "E": "unchanged"}
    assert c.groups["name"].to_list()[:2] == ["Ä", "A"]  # |+120| then |-100|
    # renaming changes neither totals nor the sum of contributions
    assert c.summary.phase_cycles_delta == 10 and c.summary.group_phase_cycles_delta == 30


def test_every_number_is_what_query_reports(pair: tuple[Any, Any]) -> None:
    before, after = pair
    for by in ("kind", "kernel", "operation", "phase", "tile"):
        c = compare(before, after, by=by)
        for side, profile in (("before", before), ("after", after)):
            groups = {g["name"]: g for g in query(profile, group_by=by, limit=0).groups.to_dicts()}
            present = c.groups.filter(pl.col(f"sample_count_{side}").is_not_null())
            assert sorted(present["name"].to_list()) == sorted(groups)
            for row in present.to_dicts():
                assert [row[f"{f}_{side}"] for f in NINE] == [groups[row["name"]][f] for f in NINE]
                assert row[f"phase_ms_{side}"] == groups[row["name"]]["phase_ms"]


def test_filters_apply_to_both_sides(pair: tuple[Any, Any]) -> None:
    before, after = pair
    c = compare(before, after, by="tile", tiles=[0, 1], phases=[1])
    assert c.groups["name"].to_list() == ["tile 0", "tile 1"]
    assert c.groups["phase_cycles_before"].to_list() == [150, 130]
    assert c.summary.matched_sample_count_before == 4
    assert c.summary.sample_count_before == 6
    assert c.query.tiles == (0, 1) and c.query.limit == 0
    c = compare(before, after, kernel="B", at=100)
    # at=100: tile 0's B [100,150) before, nothing after ([120,150)); tile 1's B [80,130) on both
    assert c.groups.to_dicts()[0]["sample_count_before"] == 2
    assert c.groups.to_dicts()[0]["sample_count_after"] == 1


def test_dimensions_for_tiles_and_phases(pair: tuple[Any, Any]) -> None:
    c = compare(*pair, by="tile")
    dims = {r["name"]: r["dimensions"] for r in c.groups.to_dicts()}
    assert dims["tile 2"] == [{"name": "physicalTile", "value": "2"}]
    assert _row(c, "tile 2")["status"] == "unchanged"
    c = compare(*pair, by="phase")
    assert c.summary.overlap_term == 0 and c.summary.overlap_cycles_before == 0


def test_renames_are_validated(pair: tuple[Any, Any]) -> None:
    before, after = pair
    with pytest.raises(ComparisonError, match="before profile has no kernel group 'Z'") as info:
        compare(before, after, renames={"Z": "Ä"})
    assert info.value.usage is False
    with pytest.raises(ComparisonError, match="after profile has no kernel group 'Q'"):
        compare(before, after, renames={"A": "Q"})
    with pytest.raises(ComparisonError, match="collides with the before profile's own kernel group 'B'"):
        compare(before, after, renames={"A": "B"})
    with pytest.raises(ComparisonError, match="both map to 'Ä'") as info:
        compare(before, after, renames={"A": "Ä", "C": "Ä"})
    assert info.value.usage is True
    with pytest.raises(ComparisonError, match="mapping"):
        compare(before, after, renames=[("A", "Ä")])  # type: ignore[arg-type]
    with pytest.raises(ComparisonError, match="strings"):
        compare(before, after, renames={"A": 3})  # type: ignore[dict-item]
    # a filter that hides the old name makes the rename an error too (it would match nothing)
    with pytest.raises(ComparisonError, match="under these filters"):
        compare(before, after, renames={"A": "Ä"}, phases=[2])
    # swapping two names is a permutation: allowed, and exact
    c = compare(before, after, renames={"B": "E", "E": "B", "A": "Ä"})
    row = _row(c, "E")
    assert (row["name_before"], row["phase_cycles_before"], row["phase_cycles_after"]) == ("B", 70, 5)
    # old == new is a no-op
    assert compare(before, after, renames={"B": "B"}).groups.equals(compare(before, after).groups)
    # renames work for any key: tiles by their group names
    c = compare(before, after, by="tile", renames={"tile 2": "tile 0", "tile 0": "tile 2"})
    assert _row(c, "tile 0")["phase_cycles_before"] == 5


def test_clock_mismatch_is_refused_unless_allowed(pair: tuple[Any, Any]) -> None:
    before = pair[0]
    fast = profile_from_tiles(AFTER, clock_hz=2000)
    with pytest.raises(ComparisonError) as info:
        compare(before, fast)
    message = str(info.value)
    assert "before clockHz=1000" in message and "after clockHz=2000" in message
    assert "allow_clock_mismatch=True" in message and "\n" not in message
    assert "--allow-clock-mismatch" not in message and "--allow-clock-mismatch" in info.value.cli_message
    assert info.value.usage is False and isinstance(info.value, QueryError) and isinstance(info.value, ValueError)
    c = compare(before, fast, allow_clock_mismatch=True)
    row = _row(c, "D")
    assert (row["phase_cycles_after"], row["phase_ms_after"]) == (20, 10.0)  # ms at the after side's own clock
    assert (c.summary.span_ms_before, c.summary.span_ms_after) == (150.0, 75.0)
    assert c.summary.phase_cycles_delta == 10  # cycles compared as cycles


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"by": "bogus"}, ComparisonError, "by must be one of"),
        ({"group_by": "tile"}, ComparisonError, "by=..., not group_by"),
        ({"sort_by": "name"}, ComparisonError, "unknown filter 'sort_by'"),
        ({"limit": 3}, ComparisonError, "unknown filter 'limit'"),
        ({"kind": "bogus"}, QueryError, "kind must be one of"),
        ({"tiles": "x"}, QueryError, "tiles must be"),
    ],
)
def test_bad_arguments(pair: tuple[Any, Any], kwargs: dict[str, Any], error: type[QueryError], text: str) -> None:
    with pytest.raises(error, match=text) as info:
        compare(*pair, **kwargs)
    assert info.value.usage is True


def test_metadata_needs_a_key_with_query_s_message(pair: tuple[Any, Any]) -> None:
    with pytest.raises(QueryError) as info:
        compare(*pair, by="metadata")
    assert str(info.value) == "group_by='metadata' requires metadata_key='NAME', the metadata entry to group by"
    assert info.value.cli_message == "--group-by metadata requires --metadata-key NAME"  # what profile-diff says
    assert info.value.usage is False


def test_by_metadata() -> None:
    before = profile_from_tiles([T(0, [S(0, 10, metadata=[("layer", "0")]), S(10, 30, metadata=[("x", "1")])])])
    after = profile_from_tiles([T(0, [S(0, 12, metadata=[("layer", "0")]), S(12, 20, metadata=[("layer", "1")])])])
    c = compare(before, after, by="metadata", metadata_key="layer")
    assert c.groups["name"].to_list() == ["(missing)", "1", "0"]
    assert c.groups["status"].cast(str).to_list() == ["removed", "added", "changed"]
    assert _row(c, "1")["dimensions"] == [
        {"name": "metadataKey", "value": "layer"},
        {"name": "metadataValue", "value": "1"},
    ]
    with pytest.raises(ComparisonError, match="'layer' metadata group"):
        compare(before, after, by="metadata", metadata_key="layer", renames={"9": "1"})


def test_paths_are_opened(tmp_path: Path) -> None:
    b = write_with_pycapnp(columns_from_tiles(BEFORE, CLOCK_HZ), tmp_path / "before.capnp")
    a = write_with_pycapnp(columns_from_tiles(AFTER, CLOCK_HZ), tmp_path / "after.capnp")
    c = compare(b, str(a), renames={"A": "Ä"})
    assert c.before.path == b and c.summary.phase_cycles_delta == 10
    with pytest.raises(ComparisonError, match="before must be a Profile or a path"):
        compare(3, a)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        compare(tmp_path / "missing.capnp", a)


def test_names_order_by_code_point_on_ties() -> None:
    names = ["é", "Z", "a", "漢", "😀", "", "\x01", "(no kernel)"]
    before = profile_from_tiles([T(i, [S(0, 10, kernel=k)]) for i, k in enumerate(names)])
    after = profile_from_tiles([T(i, [S(0, 15, kernel=k)]) for i, k in enumerate(names)])
    c = compare(before, after)
    # the empty kernel is "(no kernel)" and merges with the one of that name: both +5 per sample union
    expected = sorted({k or "(no kernel)" for k in names}, key=lambda n: [ord(ch) for ch in n])
    assert c.groups["name"].to_list() == expected
    assert set(c.groups["phase_cycles_delta"].to_list()) == {5}


def test_top_sorts_by_each_key(pair: tuple[Any, Any]) -> None:
    c = compare(*pair, renames={"A": "Ä"})
    assert c.top(0)["name"].to_list() == c.groups["name"].to_list()
    assert c.top(2)["name"].to_list() == ["D", "Ä"]
    assert c.top(0, "name")["name"].to_list() == ["B", "C", "D", "E", "Ä"]
    # work: B -20, D +20, Ä +20, C -10, E 0 -> |20| ties by name
    assert c.top(0, "work-cycles")["name"].to_list() == ["B", "D", "Ä", "C", "E"]
    # maximum: D +20, Ä +20, C -10, B 0, E 0
    assert c.top(0, "maximum-cycles")["name"].to_list() == ["D", "Ä", "C", "B", "E"]
    # samples: D +1, C -1, then zeros
    assert c.top(0, "samples")["name"].to_list() == ["C", "D", "B", "E", "Ä"]
    with pytest.raises(ComparisonError, match="sort_by must be one of"):
        c.top(3, "cycles")
    with pytest.raises(ComparisonError, match="limit"):
        c.top(-1)


def test_empty_sides() -> None:
    empty = profile_from_tiles([T(0, [])])
    full = profile_from_tiles([T(0, [S(0, 10, kernel="k")])])
    c = compare(empty, full)
    assert c.groups["status"].cast(str).to_list() == ["added"]
    assert c.summary.phase_cycles_delta == 10 and c.attribution()["cycles"].sum() == 10
    c = compare(empty, empty)
    assert c.groups.height == 0 and c.summary.phase_cycles_delta == 0
    assert c.attribution()["name"].to_list() == ["(overlap)"]
    assert c.to_text().splitlines()[3] == "by=kernel at=- groups=0 listed=0 added=0 removed=0 changed=0 unchanged=0"


def test_public_api() -> None:
    assert ipu_nb.compare is compare
    for name in ("compare", "Comparison", "ComparisonError", "ComparisonSummary"):
        assert name in ipu_nb.__all__ and name in dir(ipu_nb)
    assert issubclass(ComparisonError, QueryError)
