"""`ipu_nb.calibrate`: the newest runtime's calibration database against a plain reference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import head_reference as ref
import polars as pl
import pytest
from budget import examples
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp
from head_golden import EXTRA, TILES
from hypothesis import given, settings
from hypothesis import strategies as st
from query_properties import TEXT

import ipu_nb
from ipu_nb import Calibration, CalibrationError

GOLDEN = Path(__file__).parents[1] / "golden"
INVOCATIONS = st.sampled_from(["2", "+3", "0", "007", "x", "", "-1", "+", "4294967295", "4294967296", " 2", "٣"])
NAMES = st.sampled_from(["invocations", "reason", "value", "layer", "", "é", "layer"])


@st.composite
def call(draw: Any) -> S:
    start = draw(st.one_of(st.integers(0, 50), st.integers(2**32 - 20, 2**32 - 1)))
    length = draw(st.one_of(st.integers(0, 100), st.integers(2**32 - 5, 2**32 - 1)))
    names = draw(st.lists(NAMES, max_size=4))
    metadata = [(n, draw(INVOCATIONS if n == "invocations" else st.one_of(st.sampled_from(["0", "1"]), TEXT)))
                for n in names]  # fmt: skip
    return S(
        start,
        (start + length) % 2**32,
        kind=draw(st.sampled_from(["compute", "compute", "idle", "exchange"])),
        kernel=draw(st.sampled_from(["gemm", "", "gémm", "a\nb"])),
        metadata=metadata,
    )


PROFILES = st.lists(st.builds(T, st.integers(0, 9), st.lists(call(), max_size=5)), max_size=3)


@settings(max_examples=examples(50))  # each example runs several polars plans per profile
@given(profiles=st.lists(PROFILES, min_size=1, max_size=3), build_id=TEXT)
def test_the_database_matches_the_reference(profiles: list[list[T]], build_id: str) -> None:
    calibration = ipu_nb.calibrate([profile_from_tiles(p) for p in profiles], build_id=build_id)
    assert calibration.to_json() == ref.calibration([(p, 1_500_000_000) for p in profiles], "ipu21", build_id)
    assert calibration.profile_count == len(profiles)


def test_the_golden_database(tmp_path: Path) -> None:
    paths = [
        write_with_pycapnp(columns_from_tiles(TILES, schema_version=5), tmp_path / "g.capnp"),
        write_with_pycapnp(columns_from_tiles(EXTRA), tmp_path / "x.capnp"),
    ]
    calibration = ipu_nb.calibrate(paths, build_id='build "7"')
    out = calibration.write(tmp_path / "db.json")
    assert out.read_bytes() == (GOLDEN / "head_calibration.json").read_bytes()
    assert calibration.columns == [
        "kernel",
        "dimensions",
        "samples",
        "minimum_cycles",
        "median_cycles",
        "p95_cycles",
        "maximum_cycles",
    ]
    first = calibration.row(1, named=True)
    assert first["dimensions"] == [{"name": "", "value": "x"}, {"name": "layer", "value": "1"}]
    assert (first["samples"], first["median_cycles"]) == (1, 150)
    # The measurements are the DataFrame itself; polars operations on it give plain frames.
    assert isinstance(calibration, pl.DataFrame) and calibration.height == 4
    assert calibration.equals(calibration.measurements) and type(calibration.measurements) is pl.DataFrame
    assert type(calibration.sort("samples")) is pl.DataFrame
    assert (calibration.target, calibration.build_id) == ("ipu21", 'build "7"')


def test_errors() -> None:
    fast, slow = profile_from_tiles([T(0, [S(0, 5)])]), profile_from_tiles([T(0, [S(0, 5)])], clock_hz=7)
    with pytest.raises(CalibrationError, match="at least one profile is required"):
        ipu_nb.calibrate([], build_id="b")
    with pytest.raises(CalibrationError, match="profile clock frequencies differ"):
        ipu_nb.calibrate([fast, slow], build_id="b")
    with pytest.raises(TypeError, match="not one path"):
        ipu_nb.calibrate("a.capnp", build_id="b")
    with pytest.raises(TypeError, match="strings"):
        ipu_nb.calibrate([fast], build_id=3)  # type: ignore[arg-type]
    empty = ipu_nb.calibrate([fast], target="ipu2", build_id="b")
    assert isinstance(empty, Calibration) and empty.height == 1
    assert empty.to_json().startswith('{\n  "schemaVersion": 1,\n  "target": "ipu2",\n  "buildId": "b",\n')
    none = ipu_nb.calibrate([profile_from_tiles([T(0, [S(0, 5, kernel="")])])], build_id="b")
    assert none.to_json().endswith('"clockHz": 1500000000,\n  "measurements": []\n}')
