"""A failing profile is one row of `Fleet.errors` (path, one-line reason); the batch loses nothing else."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fleet_sweep import PATTERN
from fleet_tasks import polars_threads, size_or_die, unpicklable
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb import Fleet
from ipu_nb._fleet.errors import failure_of
from ipu_nb._fleet.runner import Job, LocalPool, run_jobs


@pytest.fixture(scope="module")
def pool() -> Iterator[LocalPool]:
    """Two worker processes shared by the runner tests that do not kill them."""
    workers = LocalPool()
    yield workers
    workers.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_corrupt_and_missing_files_are_rows_of_errors(
    sweep: list[Path], corrupt: Path, missing: Path, workers: int
) -> None:
    fleet = Fleet([sweep[0], corrupt, sweep[1], missing, sweep[2]], labels=PATTERN, workers=workers)
    frame = fleet.query(group_by="phase", limit=0)
    assert fleet.errors.columns == ["path", "error", "reason"]
    rows = fleet.errors.rows()
    assert [r[0] for r in rows] == [str(corrupt), str(missing)]
    assert rows[1] == (str(missing), "FileNotFoundError", f"profile not found: {missing.absolute()}")
    assert rows[0][1] == "ProfileFormatError"
    assert rows[0][2].startswith(str(corrupt.absolute())) and "\n" not in rows[0][2]
    with pytest.raises(ipu_nb.ProfileFormatError) as raised:
        ipu_nb.open_profile(corrupt, cache=False)
    assert rows[0][2] == str(raised.value)  # exactly the loader's own one-line message
    # Every other profile is complete, and the labels of the broken ones never appear.
    assert frame.get_column("path").unique(maintain_order=True).to_list() == [str(p) for p in sweep[:3]]
    for path in sweep[:3]:
        expected = ipu_nb.query(ipu_nb.open_profile(path), group_by="phase", limit=0).groups
        assert_frame_equal(frame.filter(path=str(path)).select(expected.columns), expected)


def test_errors_describe_the_last_run(sweep: list[Path], missing: Path) -> None:
    fleet = Fleet([sweep[0], missing], workers=1)
    assert fleet.errors.is_empty()
    fleet.query()
    assert fleet.errors.height == 1
    missing.parent.mkdir(exist_ok=True)
    missing.write_bytes(sweep[0].read_bytes())
    try:
        fleet.query()
        assert fleet.errors.is_empty()  # it exists now
    finally:
        missing.unlink()
    assert repr(fleet) == "<Fleet: 2 profiles, no labels>"


def test_a_worker_that_dies_costs_only_its_profile(sweep: list[Path]) -> None:
    victim = str(sweep[2])
    jobs = [Job(f"shown-{i}", str(p), (victim,)) for i, p in enumerate(sweep)]
    results = run_jobs(size_or_die, jobs, workers=2)
    died = results[2]
    assert (died.path, died.error) == ("shown-2", "BrokenProcessPool")
    assert died.reason.startswith("the worker process died while loading or querying it")
    assert [r for i, r in enumerate(results) if i != 2] == [p.stat().st_size for i, p in enumerate(sweep) if i != 2]


def test_a_result_that_cannot_travel_is_an_error_not_a_crash(sweep: list[Path], pool: LocalPool) -> None:
    results = run_jobs(unpicklable, [Job(str(p), str(p), ()) for p in sweep[:2]], workers=2, pool=pool)
    assert [r.path for r in results] == [str(p) for p in sweep[:2]]
    assert all("pickle" in r.reason.lower() for r in results)


def test_workers_share_the_cpus_among_polars_threads(sweep: list[Path], pool: LocalPool) -> None:
    jobs = [Job(str(p), str(p), ()) for p in sweep[:2]]
    cpus = len(os.sched_getaffinity(0))
    before = os.environ.get("POLARS_MAX_THREADS")
    assert run_jobs(polars_threads, jobs, workers=2, pool=pool) == [max(1, cpus // 2)] * 2
    assert os.environ.get("POLARS_MAX_THREADS") == before  # set only while the workers start


def test_failure_reasons_are_one_line() -> None:
    assert failure_of("a.capnp", FileNotFoundError(2, "No such file or directory", "a.capnp")).reason == (
        "a.capnp: No such file or directory"
    )
    assert failure_of("a.capnp", ValueError("first\nsecond")).reason == "first"
    assert failure_of("a.capnp", MemoryError()).reason == "out of memory"
    bug = failure_of("a.capnp", KeyError("k"))
    assert (bug.error, bug.reason) == ("KeyError", "internal error: KeyError: 'k' (please report it)")
