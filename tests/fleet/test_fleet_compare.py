"""`Fleet.compare`: each profile against a baseline, exactly as `ipu_nb.compare(baseline, profile)` reports it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from fleet_sweep import PATTERN
from polars.testing import assert_frame_equal
from untyped import untyped

import ipu_nb
from ipu_nb import ComparisonError, Fleet, FleetError


def _expected_groups(baseline: Path, paths: list[Path], **options: Any) -> pl.DataFrame:
    frames = []
    for path in paths:
        groups = ipu_nb.compare(baseline, path, **options).groups
        frames.append(groups.select(pl.lit(str(path)).alias("path"), *groups.columns))
    return pl.concat(frames)


@pytest.mark.parametrize(
    "options",
    [{}, {"by": "phase"}, {"by": "kernel", "kind": "compute"}, {"by": "metadata", "metadata_key": "role"}],
    ids=["kernel", "phase", "compute-kernels", "metadata"],
)
def test_each_comparison_is_compares_own(sweep: list[Path], options: dict[str, Any]) -> None:
    fleet = Fleet(sweep, labels=PATTERN, workers=1)
    result = fleet.compare({"batch": 1, "seed": 0}, **options)
    assert result.baseline == sweep[0]
    others = sweep[1:]  # the baseline is not compared with itself
    assert_frame_equal(result.groups.drop("batch", "seed"), _expected_groups(sweep[0], others, **options))
    assert result.groups.columns[:3] == ["batch", "seed", "path"]
    assert result.summary.select("batch", "seed").rows() == [(1, 1), (2, 0), (2, 1), (4, 0), (4, 1)]
    for row, path in zip(result.summary.iter_rows(named=True), others, strict=True):
        s = ipu_nb.compare(sweep[0], path, **options).summary
        assert row["path"] == str(path)
        assert (row["phase_cycles_before"], row["phase_cycles_after"], row["phase_cycles_delta"]) == (
            s.phase_cycles_before,
            s.phase_cycles_after,
            s.phase_cycles_delta,
        )
        assert row["overlap_term"] == s.overlap_term and row["span_cycles_delta"] == s.span_cycles_delta
        assert row["phase_cycles_ratio"] == s.phase_cycles_after / s.phase_cycles_before
        assert {k: row[f"groups_{k}"] for k in s.status_counts} == s.status_counts


def test_worker_processes_compare_the_same(sweep: list[Path]) -> None:
    local = Fleet(sweep[:4], labels=PATTERN, workers=1).compare(sweep[3], by="tile")
    pooled = Fleet(sweep[:4], labels=PATTERN, workers=2).compare(sweep[3], by="tile")
    assert_frame_equal(local.groups, pooled.groups)
    assert_frame_equal(local.summary, pooled.summary)


def test_baselines_by_path_profile_label_value_or_labels(sweep: list[Path], tmp_path: Path) -> None:
    outside = tmp_path / "outside.capnp"
    outside.write_bytes(sweep[5].read_bytes())
    names = {
        path: {"run": f"r{i}", "batch": b} for i, (path, b) in enumerate(zip(sweep, [1, 1, 2, 2, 4, 4], strict=True))
    }
    fleet = Fleet(sweep[:3], labels={p: names[p] for p in sweep[:3]}, workers=1)
    assert fleet.compare("r1").baseline == sweep[1]  # a label value
    assert fleet.compare({"run": "r2"}).summary.height == 2
    assert fleet.compare(ipu_nb.open_profile(sweep[0])).baseline == sweep[0]
    external = fleet.compare(outside)
    assert external.baseline == outside and external.summary.height == 3  # not a member: every profile compared
    with pytest.raises(FleetError, match="2 profiles have a label equal to 1"):
        fleet.compare(1)
    with pytest.raises(FleetError, match="no profile of the fleet has labels"):
        fleet.compare({"run": "r9"})
    with pytest.raises(FleetError, match="is neither a profile file nor the value of any profile's label"):
        fleet.compare("r9")
    with pytest.raises(FleetError, match="no such profile"):
        fleet.compare(tmp_path / "gone.capnp")
    assert repr(external).startswith("<FleetComparison by=kernel against ")


def test_bad_requests_are_refused_before_running(sweep: list[Path], corrupt: Path) -> None:
    fleet = Fleet(sweep[:2], workers=1)
    with pytest.raises(ComparisonError, match="by must be one of"):
        fleet.compare(sweep[0], by="colour")
    with pytest.raises(ComparisonError, match="unknown filter 'limit'"):
        untyped(fleet.compare)(sweep[0], limit=3)
    with pytest.raises(ipu_nb.QueryError, match="group_by='metadata' requires metadata_key='NAME'"):
        fleet.compare(sweep[0], by="metadata")
    with pytest.raises(ipu_nb.ProfileFormatError):
        fleet.compare(corrupt)  # an unreadable baseline: one error, not one per profile
    with pytest.raises(FleetError, match="label 'status' has the name of a result column"):
        Fleet(sweep[:2], labels={sweep[0]: {"status": "x"}, sweep[1]: {}}).compare(sweep[0])


def test_a_profile_that_cannot_be_compared_is_an_error_row(sweep: list[Path], tmp_path: Path) -> None:
    other_clock = write_with_pycapnp(
        columns_from_tiles([T(0, [S(0, 100, kernel="gemm")])], clock_hz=1000), tmp_path / "slow.capnp"
    )
    fleet = Fleet([sweep[0], other_clock, sweep[1]], workers=1)
    result = fleet.compare(sweep[0])
    assert result.summary.get_column("path").to_list() == [str(sweep[1])]
    ((path, error, reason),) = fleet.errors.rows()
    assert (path, error) == (str(other_clock), "ComparisonError")
    assert reason.startswith(
        "cannot compare profiles with different clocks: before clockHz=1500000000, after clockHz=1000"
    )
    assert fleet.compare(sweep[0], allow_clock_mismatch=True).summary.height == 2


def test_renames_reach_every_comparison(sweep: list[Path]) -> None:
    renames = {"gemm_f32_init_large_rows": "gemm_f32_init_large_rows"}
    result = Fleet(sweep[:3], workers=1).compare(sweep[0], renames=renames)
    assert_frame_equal(result.groups, _expected_groups(sweep[0], sweep[1:3], renames=renames))


def test_a_worker_loads_the_baseline_once_and_drops_it_when_idle(
    sweep: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipu_nb._fleet import tasks

    opened: list[str] = []
    real_open = tasks._open

    def counting_open(path: str) -> Any:
        opened.append(path)
        return real_open(path)

    monkeypatch.setattr(tasks, "_open", counting_open)
    monkeypatch.setattr(tasks, "_baseline", {})  # not the one an earlier test left in this process
    monkeypatch.setattr(tasks, "_BASELINE_IDLE_SECONDS", 3600.0)
    Fleet(sweep[:4], workers=1).compare(sweep[0])  # in this process: the same code a worker runs
    assert sorted(opened) == sorted(str(p.absolute()) for p in sweep[:4])  # the baseline once, then each other
    assert len(tasks._baseline) == 1  # kept for the next comparison...
    timer = tasks._baseline_timer
    assert timer is not None and timer.is_alive() and timer.interval == 3600.0  # armed as the last one ended
    timer.cancel()
    timer.function()  # what the timer runs once the hour is up
    assert tasks._baseline == {}  # ...and dropped once none came
