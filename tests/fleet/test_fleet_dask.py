"""On a real Dask cluster (a `LocalCluster` of two worker processes) a fleet gives exactly the local answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cli_run import run_cli
from fleet_sweep import PATTERN
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb import Fleet
from ipu_nb._query.keywords import QueryFlags

if TYPE_CHECKING:
    from distributed import Client

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def test_dask_equals_local(sweep: list[Path], corrupt: Path, missing: Path, client: Client) -> None:
    fleet = Fleet([*sweep, corrupt, missing], labels=PATTERN, workers=1)
    cases: list[QueryFlags] = [{}, {"group_by": "phase", "limit": 0}, {"group_by": "metadata", "metadata_key": "role"}]
    for flags in cases:
        on_dask = fleet.query(client=client, **flags)
        dask_errors = fleet.errors
        local = fleet.query(**flags)
        assert_frame_equal(on_dask, local)
        assert_frame_equal(dask_errors, fleet.errors)
        assert dask_errors.get_column("path").to_list() == [str(corrupt), str(missing)]
    compared_on_dask = fleet.compare({"batch": 2, "seed": 1}, by="tile", client=client)
    compared_locally = fleet.compare({"batch": 2, "seed": 1}, by="tile")
    assert_frame_equal(compared_on_dask.groups, compared_locally.groups)
    assert_frame_equal(compared_on_dask.summary, compared_locally.summary)
    results = fleet.query_results(samples=2, client=client)
    assert [r.to_json() for r in results.values()] == [
        ipu_nb.query(ipu_nb.open_profile(p), samples=2).to_json() for p in sweep
    ]


def test_a_dataset_written_on_dask(sweep: list[Path], tmp_path: Path, client: Client) -> None:
    Fleet(sweep[:2], labels=PATTERN).to_parquet(tmp_path, client=client)
    data = ipu_nb.scan_parquet(tmp_path)
    assert data.profiles.select("batch", "seed").sort("seed").collect().rows() == [(1, 0), (1, 1)]
    assert_frame_equal(
        data.samples.filter(profile="run-1-1").drop("profile").collect(), ipu_nb.open_profile(sweep[1]).samples
    )


def test_profile_batch_on_a_scheduler(sweep: list[Path], client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    assert client.scheduler is not None
    address = client.scheduler.address
    assert isinstance(address, str)
    on_dask = run_cli(capsys, "profile-batch", *map(str, sweep), "--label-from", PATTERN, "--dask", address)
    local = run_cli(capsys, "profile-batch", *map(str, sweep), "--label-from", PATTERN, "--workers", "1")
    assert on_dask == local and on_dask[0] == 0


def test_not_a_client(sweep: list[Path]) -> None:
    with pytest.raises(ipu_nb.FleetError, match=r"client must be a dask\.distributed\.Client, got str"):
        Fleet(sweep[:2]).query(client="tcp://nowhere:8786")
