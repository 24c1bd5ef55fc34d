"""Parquet datasets: `Profile.to_parquet` and `Fleet.to_parquet` round trip through scan_parquet, DuckDB reads them."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import polars as pl
import pytest
from duckdb_sql import HIVE, relation
from fleet_sweep import PATTERN
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb import Fleet, FleetError

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


def _profile_of(data: ipu_nb.ParquetDataset, label: str, frame: str) -> pl.DataFrame:
    return getattr(data, frame).filter(pl.col("profile") == label).drop("profile").collect()


def test_round_trip_equals_the_in_memory_frames(sweep: list[Path], tmp_path: Path) -> None:
    newer = tmp_path / "newer.capnp"  # schema 4: exchange activities and event cycles are not empty
    ipu_nb.generate_profile(newer, "mlp", tiles=8, phases=4, schema_version=4, progress=False)
    profiles = {"run-1-0": ipu_nb.open_profile(sweep[0]), "newer": ipu_nb.open_profile(newer)}
    for profile in profiles.values():
        assert profile.to_parquet(tmp_path / "ds") == tmp_path / "ds"  # the label: the file name's stem
    data = ipu_nb.scan_parquet(tmp_path / "ds")
    assert profiles["newer"].exchange_activities.height > 0
    for label, profile in profiles.items():
        for frame in FRAMES:
            assert_frame_equal(_profile_of(data, label, frame), getattr(profile, frame))  # dtypes included
    rows = data.profiles.sort("profile").collect()
    assert rows.columns == [
        "path",
        "clock_hz",
        "schema_version",
        "granularity",
        "tile_count",
        "sample_count",
        "span_cycles",
        "profile",
    ]
    p = profiles["newer"]
    assert rows.row(0) == (
        str(newer),
        p.clock_hz,
        4,
        p.granularity,
        p.tile_count,
        p.sample_count,
        p.span_cycles,
        "newer",
    )


def test_every_frame_has_the_label_column_last(sweep: list[Path], tmp_path: Path) -> None:
    profile = ipu_nb.open_profile(sweep[0])
    profile.to_parquet(tmp_path, label="a")
    data = ipu_nb.scan_parquet(tmp_path)
    for frame in FRAMES:
        schema = getattr(data, frame).collect_schema()
        assert list(schema) == [*getattr(profile, frame).columns, "profile"]
        assert schema["profile"] == pl.String


def test_writing_a_label_again_replaces_it(sweep: list[Path], tmp_path: Path) -> None:
    first, second = ipu_nb.open_profile(sweep[0]), ipu_nb.open_profile(sweep[5])
    first.to_parquet(tmp_path, label="x", labels={"batch": 1})
    second.to_parquet(tmp_path, label="x", labels={"batch": 4})
    data = ipu_nb.scan_parquet(tmp_path)
    assert_frame_equal(_profile_of(data, "x", "samples"), second.samples)
    assert data.profiles.select("batch", "path").collect().rows() == [(4, str(sweep[5]))]
    leftovers = [p.name for p in tmp_path.rglob("*") if p.is_file() and not p.name.endswith(".parquet")]
    assert leftovers == []  # no temporary files left behind


@pytest.mark.parametrize("label", ["a b", "x=y/z", "50%", "ünï", "8", "a,b"])
def test_labels_are_percent_encoded_and_read_back(sweep: list[Path], tmp_path: Path, label: str) -> None:
    ipu_nb.open_profile(sweep[0]).to_parquet(tmp_path, label=label)
    assert [p.name for p in (tmp_path / "samples").iterdir()] == [f"profile={urllib.parse.quote(label, safe='')}"]
    data = ipu_nb.scan_parquet(tmp_path)
    assert data.samples.select("profile").unique().collect().item() == label
    assert data.profiles.select("profile").collect().item() == label
    where = tmp_path / "samples" / "*" / "*.parquet"
    found = relation(f"SELECT DISTINCT profile FROM read_parquet('{where}', {HIVE})").fetchall()
    assert found == [(label,)]


def test_bad_labels_and_datasets(sweep: list[Path], tmp_path: Path) -> None:
    profile = ipu_nb.open_profile(sweep[0])
    with pytest.raises(FleetError, match="non-empty string"):
        profile.to_parquet(tmp_path, label="")
    with pytest.raises(FleetError, match="too long"):
        profile.to_parquet(tmp_path, label="é" * 100)
    with pytest.raises(FleetError, match="clashes with a column of the profiles table"):
        profile.to_parquet(tmp_path, label="a", labels={"clock_hz": 1})
    with pytest.raises(FileNotFoundError, match="not a directory"):
        ipu_nb.scan_parquet(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError, match="no profile written there"):
        ipu_nb.scan_parquet(tmp_path)


def test_a_fleet_writes_every_profile_with_its_labels(sweep: list[Path], corrupt: Path, tmp_path: Path) -> None:
    fleet = Fleet([*sweep[:3], corrupt], labels=PATTERN, workers=2)
    assert fleet.to_parquet(tmp_path / "ds", label="b{batch}-s{seed}") == tmp_path / "ds"
    assert fleet.errors.get_column("path").to_list() == [str(corrupt)]
    data = ipu_nb.scan_parquet(tmp_path / "ds")
    rows = data.profiles.select("profile", "batch", "seed", "path").sort("profile").collect().rows()
    assert rows == [("b1-s0", 1, 0, str(sweep[0])), ("b1-s1", 1, 1, str(sweep[1])), ("b2-s0", 2, 0, str(sweep[2]))]
    for label, path in (("b1-s0", sweep[0]), ("b2-s0", sweep[2])):
        assert_frame_equal(_profile_of(data, label, "metadata"), ipu_nb.open_profile(path).metadata)
    # Ad-hoc analysis over the whole sweep, with the labels joined in.
    per_batch = (
        data.samples.join(data.profiles.select("profile", "batch"), on="profile")
        .group_by("batch")
        .agg(pl.col("duration").cast(pl.Int64).sum())
        .sort("batch")
        .collect()
    )
    expected = [
        (1, sum(ipu_nb.open_profile(p).samples["duration"].cast(pl.Int64).sum() for p in sweep[:2])),
        (2, ipu_nb.open_profile(sweep[2]).samples["duration"].cast(pl.Int64).sum()),
    ]
    assert per_batch.rows() == expected


def test_fleet_partition_labels(sweep: list[Path], tmp_path: Path) -> None:
    twin = tmp_path / "other" / sweep[0].name
    twin.parent.mkdir()
    twin.write_bytes(sweep[0].read_bytes())
    fleet = Fleet([sweep[0], twin], workers=1)
    with pytest.raises(FleetError, match="has no label 'batch'"):
        fleet.to_parquet(tmp_path / "ds", label="{batch}")
    with pytest.raises(FleetError, match="would both be written as label 'same'"):
        fleet.to_parquet(tmp_path / "ds", label="same")
    fleet.to_parquet(tmp_path / "ds")  # two files named alike: labelled by their paths below the common directory
    labels = ipu_nb.scan_parquet(tmp_path / "ds").profiles.select("profile").collect().to_series().sort().to_list()
    common = Path(*[a for a, b in zip(sweep[0].parts, twin.parts, strict=False) if a == b])
    assert labels == sorted(str(p.relative_to(common).with_suffix("")) for p in (sweep[0], twin))


def test_duckdb_reads_the_dataset_unchanged(sweep: list[Path], tmp_path: Path) -> None:
    Fleet(sweep, labels=PATTERN, workers=1).to_parquet(tmp_path)
    data = ipu_nb.scan_parquet(tmp_path)

    def table(name: str) -> str:
        return f"read_parquet('{tmp_path / name / '*' / '*.parquet'}', {HIVE})"

    sql = f"""
        SELECT p.batch, s.kind, count(*) AS samples, sum(s.duration) AS work
        FROM {table("samples")} s JOIN {table("profiles")} p USING (profile)
        GROUP BY ALL ORDER BY p.batch, s.kind
    """
    from_duckdb = relation(sql).pl()
    from_polars = (
        data.samples.join(data.profiles.select("profile", "batch"), on="profile")
        .group_by("batch", pl.col("kind").cast(pl.String))
        .agg(samples=pl.len(), work=pl.col("duration").cast(pl.Int64).sum())
        .sort("batch", "kind")
        .collect()
    )
    assert from_duckdb.rows() == from_polars.rows()
    # The columns keep their meaning: unsigned offsets, kinds as text, metadata names and values.
    types = {row[0]: row[1] for row in relation(f"DESCRIBE SELECT * FROM {table('samples')}").fetchall()}
    assert types["offset"] == "UBIGINT" and types["kind"] == "VARCHAR" and types["profile"] == "VARCHAR"
    count = relation(f"SELECT count(*) FROM {table('metadata')} WHERE name = 'role'").fetchall()
    assert count == [(data.metadata.filter(pl.col("name") == "role").select(pl.len()).collect().item(),)]
