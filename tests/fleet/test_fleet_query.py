"""`Fleet.query`: the batch answer equals each profile's own `ipu_nb.query()`, row for row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fleet_sweep import PATTERN, SWEEP
from polars.testing import assert_frame_equal
from untyped import untyped

import ipu_nb
from ipu_nb import Fleet, FleetError, QueryError

QUERIES: list[dict[str, Any]] = [
    {},
    {"group_by": "phase", "limit": 0},
    {"group_by": "tile", "kind": "compute", "sort_by": "name"},
    {"group_by": "metadata", "metadata_key": "role", "limit": 0},
    {"group_by": "operation", "operation_contains": "GEMM", "tiles": [0, 2, 64]},
    {"group_by": "kind", "window": (20_000, 90_000), "clip": True},
    {"kind": "idle"},  # no idle samples in some profiles: they give no rows
]


def _per_profile(paths: list[Path], **flags: Any) -> pl.DataFrame:
    """The plain reference: one `ipu_nb.query` per profile, its groups with the labels and path in front."""
    frames = []
    for path in paths:
        batch, seed = (int(part) for part in path.stem.split("-")[1:])
        groups = ipu_nb.query(ipu_nb.open_profile(path), **flags).groups
        labels = [pl.lit(batch, pl.Int64).alias("batch"), pl.lit(seed, pl.Int64).alias("seed")]
        frames.append(groups.select(*labels, pl.lit(str(path)).alias("path"), *groups.columns))
    return pl.concat(frames)


@pytest.fixture(scope="module")
def pooled(sweep: list[Path]) -> Iterator[Fleet]:
    """The sweep on two spawned worker processes (kept between the tests of this module)."""
    with Fleet(sweep, labels=PATTERN, workers=2) as fleet:
        yield fleet


@pytest.mark.parametrize("flags", QUERIES, ids=lambda f: ",".join(f"{k}={v}" for k, v in f.items()) or "default")
def test_batch_equals_each_profiles_query(sweep: list[Path], flags: dict[str, Any]) -> None:
    fleet = Fleet(sweep, labels=PATTERN, workers=1)
    assert_frame_equal(fleet.query(**flags), _per_profile(sweep, **flags))
    assert fleet.errors.is_empty()


@pytest.mark.parametrize("flags", QUERIES[:4], ids=["default", "phase", "tile", "metadata"])
def test_worker_processes_give_the_same_frame(sweep: list[Path], pooled: Fleet, flags: dict[str, Any]) -> None:
    assert_frame_equal(pooled.query(**flags), _per_profile(sweep, **flags))


def test_columns_are_labels_then_path_then_the_groups(sweep: list[Path]) -> None:
    frame = Fleet(sweep, labels=PATTERN, workers=1).query(limit=1)
    groups = ipu_nb.query(ipu_nb.open_profile(sweep[0]), limit=1).groups
    assert frame.columns == ["batch", "seed", "path", *groups.columns]
    assert frame.schema["batch"] == pl.Int64 and frame.schema["path"] == pl.String
    assert frame.select("batch", "seed").rows() == SWEEP
    assert frame.get_column("path").to_list() == [str(p) for p in sweep]


def test_a_query_object_and_flags_combine_as_in_query(sweep: list[Path]) -> None:
    fleet = Fleet(sweep[:2], labels=PATTERN, workers=1)
    base = ipu_nb.Query(group_by="phase", limit=3)
    expected = _per_profile(sweep[:2], group_by="phase", limit=3, kind="compute")
    assert_frame_equal(fleet.query(base, kind="compute"), expected)


def test_query_results_hold_each_profiles_whole_result(sweep: list[Path]) -> None:
    results = Fleet(sweep, labels=PATTERN, workers=1).query_results(samples=3, group_by="kernel")
    assert list(results) == sweep
    for path, result in results.items():
        expected = ipu_nb.query(ipu_nb.open_profile(path), samples=3, group_by="kernel")
        assert result.to_json() == expected.to_json()


def test_no_rows_keeps_the_schema(sweep: list[Path]) -> None:
    frame = Fleet(sweep, labels=PATTERN, workers=1).query(kernel="no such kernel")
    expected = _per_profile(sweep[:1], kernel="no such kernel")
    assert frame.height == 0
    assert frame.schema == expected.schema


def test_labels_frame_and_repr(sweep: list[Path]) -> None:
    fleet = Fleet(sweep, labels=PATTERN)
    assert fleet.labels.columns == ["batch", "seed", "path"]
    assert fleet.labels.select("batch", "seed").rows() == SWEEP
    assert len(fleet) == 6 and list(fleet) == sweep
    assert repr(fleet) == "<Fleet: 6 profiles, labels batch, seed>"


def test_open_one_member(sweep: list[Path]) -> None:
    fleet = Fleet(sweep, labels=PATTERN)
    assert fleet.open(2).path == sweep[2]
    assert fleet.open({"batch": 4, "seed": 1}).path == sweep[5]
    assert fleet.open(str(sweep[1])).path == sweep[1]
    with pytest.raises(FleetError, match="no profile 6"):
        fleet.open(6)
    with pytest.raises(FleetError, match="2 profiles have"):
        fleet.open({"batch": 4})


def test_bad_queries_are_refused_before_anything_runs(sweep: list[Path], missing: Path) -> None:
    fleet = Fleet([*sweep, missing], workers=1)
    with pytest.raises(QueryError, match="unknown query flag 'grup_by'"):
        untyped(fleet.query)(grup_by="kernel")
    with pytest.raises(QueryError, match="group_by='metadata' requires metadata_key='NAME'"):
        fleet.query(group_by="metadata")
    with pytest.raises(QueryError, match="query_results"):
        fleet.query(samples=2)
    assert fleet.errors.is_empty()  # nothing ran, so the missing file was not reported yet


def test_bad_worker_counts(sweep: list[Path]) -> None:
    with pytest.raises(FleetError, match="workers must be a positive integer"):
        Fleet(sweep, workers=0)
    with pytest.raises(FleetError, match="workers must be a positive integer"):
        Fleet(sweep).query(workers=True)


def test_a_progress_bar_over_the_profiles(sweep: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    fleet = Fleet(sweep, labels=PATTERN, workers=1)
    fleet.query(progress=True)
    bar = capsys.readouterr().err
    assert "\rquerying 6 profiles: " in bar and bar.endswith("\r")  # drawn, then cleared when done
    fleet.query()  # None: only where someone watches, and the tests' stderr is no terminal
    assert capsys.readouterr().err == ""
