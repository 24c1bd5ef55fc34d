"""The frame builder's whole-column passes split over threads, and the budget a dense valid file needs.

The split is forced on small profiles by lowering `_passes.PARALLEL_ROWS`, so every range
boundary case runs here; each result is compared with a plain numpy reference or with the
pycapnp decoder's frames.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from builders import S, T, columns_from_tiles

from ipu_nb import write_columns
from ipu_nb._load import _passes, open_profile
from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._load._wire import decode_file
from ipu_nb._model.columns import Columns, Strings

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


@pytest.fixture(params=["native", "numpy"])
def passes_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each pass in C and in numpy, split into ranges of a few rows."""
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 3)
    if request.param == "numpy":
        monkeypatch.setattr(_passes, "_LIB", None)
    elif _passes._LIB is None:
        pytest.skip("the C library is not built")
    return str(request.param)


@pytest.mark.parametrize("counts", [[], [0], [5], [0, 0, 3, 0], [1, 2, 3, 4, 5, 0, 7], [0, 9, 0, 0, 1, 1, 1, 30]])
def test_owner_positions_match_a_plain_reference(passes_path: str, counts: list[int]) -> None:
    array = np.array(counts, dtype=np.int64)
    owners = [g for g, c in enumerate(counts) for _ in range(c)]
    positions = [j for c in counts for j in range(c)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        owner, position = _passes.owner_positions(array, pool)
    assert owner.tolist() == owners
    assert position.tolist() == positions
    assert owner.dtype == position.dtype == np.uint32


def test_remap_codes_matches_a_plain_reference(passes_path: str) -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 50, 1001).astype(np.uint32)
    table = rng.permutation(1000)[:50].astype(np.uint32)
    expected = table[codes]
    with ThreadPoolExecutor(max_workers=2) as pool:
        _passes.remap_codes(codes, table, pool)
    assert codes.tolist() == expected.tolist()


def test_remap_codes_refuses_a_code_out_of_range(passes_path: str) -> None:
    codes = np.array([0, 1, 2, 9, 1, 0, 1], dtype=np.uint32)
    with pytest.raises(ValueError, match="code 9 at row 3 is out of range"):
        _passes.remap_codes(codes, np.array([5, 6, 7], dtype=np.uint32))


def _profile_file(path: Path) -> Path:
    tiles = [
        T(
            t,
            [
                S(
                    i,
                    i + 1 + t,
                    "compute" if i % 3 else "exchange",
                    f"op{(i * 7 + t) % 5}",
                    f"k{i % 4}",
                    metadata=[(f"name{j}", "false" if j == 0 and i % 2 else f"v{(i + j) % 6}") for j in range(i % 5)]
                    + [("active", "false" if i % 4 == 1 else "true")],
                    activities=[("send", i, i + 2)] if i % 6 == 0 else [],
                )
                for i in range(40 + 13 * t)
            ],
        )
        for t in range(6)
    ] + [T(77, [])]
    return write_columns(columns_from_tiles(tiles, schema_version=4), path)


def test_frames_built_in_split_passes_equal_the_reference_decoders(tmp_path: Path, passes_path: str) -> None:
    path = _profile_file(tmp_path / "p.capnp")
    reference = build_profile(decode_reference_bytes(path.read_bytes()))
    built = build_profile(decode_file(path), reuse=True)
    assert built.metadata.height > 100 and int(built.samples.get_column("inactive").sum()) > 0
    for name in FRAMES:
        assert getattr(built, name).schema == getattr(reference, name).schema, name
        assert getattr(built, name).equals(getattr(reference, name)), name


def test_build_profile_leaves_the_columns_as_they_were_unless_told(tmp_path: Path) -> None:
    path = _profile_file(tmp_path / "p.capnp")
    columns = decode_file(path)
    before = columns.metadata_value.codes.copy()
    pl.Series(["something registered first", "so ids and codes differ"]).cast(pl.Categorical)
    profile = build_profile(columns)
    assert columns.metadata_value.codes.tolist() == before.tolist()
    assert profile.metadata.get_column("value").cast(pl.String).to_list() == columns.metadata_value.to_list()


def _dense(heavy_samples: int, entries: int, long_samples: int) -> Columns:
    """Tile 0: `heavy_samples` samples, the first with `entries` metadata entries of distinct values;
    tile 1: `long_samples` plain samples. Valid, and as the runtime would write it."""
    n = heavy_samples + long_samples
    u32 = np.uint32
    start = np.arange(n, dtype=np.int64) * 10
    counts = np.zeros(n, dtype=np.int64)
    counts[0] = entries
    return Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=np.array([0, 2], dtype=u32),
        tile_sample_counts=np.array([heavy_samples, long_samples], dtype=np.int64),
        local_index=np.concatenate([np.arange(heavy_samples), np.arange(long_samples)]).astype(u32),
        phase=np.zeros(n, dtype=u32),
        epoch=np.zeros(n, dtype=u32),
        kind=np.ones(n, dtype=np.uint16),
        start=start.astype(u32),
        end=(start + 10).astype(u32),
        operation=Strings(np.zeros(n, dtype=u32), pa.array(["matmul"])),
        kernel=Strings(np.zeros(n, dtype=u32), pa.array(["gemm"])),
        metadata_counts=counts,
        metadata_name=Strings(np.zeros(entries, dtype=u32), pa.array(["address"])),
        metadata_value=Strings(np.arange(entries, dtype=u32), pa.array([f"0x{i:012x}" for i in range(entries)])),
        exchange_event_cycles=np.zeros(n, dtype=u32),
        activity_counts=np.zeros(n, dtype=np.int64),
    )


@pytest.mark.timeout(300)
def test_a_dense_valid_profile_is_not_refused_by_the_memory_budget(tmp_path: Path) -> None:
    # 8,192 samples, the first carrying a million entries of distinct values, then a million
    # plain samples: once refused ("memory budget exceeded ... (distinct texts)") at a fraction of
    # the memory it was allowed, as the budget charged far more than rows and texts cost.
    path = write_columns(_dense(8192, 1_000_000, 1_000_000), tmp_path / "dense.capnp")
    assert path.stat().st_size > 130_000_000
    profile = open_profile(path, cache=False, progress=False)
    assert profile.samples.height == 1_008_192
    values = profile.metadata.get_column("value")
    assert values.n_unique() == 1_000_000
    assert values.gather([0, 999_999]).cast(pl.String).to_list() == ["0x000000000000", f"0x{999_999:012x}"]


def test_entry_ids_filled_as_chunks_finish_equal_the_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Chunks of a few samples: the decoder hands every chunk's entries to `EntryIds` as it finishes.
    from ipu_nb._load import _wire

    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 7)
    path = _profile_file(tmp_path / "p.capnp")
    reference = build_profile(decode_reference_bytes(path.read_bytes()))
    ids = _passes.EntryIds()
    columns = decode_file(path, entry_ids=ids)
    taken = ids.take()
    if _passes._LIB is not None:
        assert taken is not None and len(taken[0]) == reference.metadata.height
    opened = open_profile(path, cache=False, progress=False)
    for profile in (build_profile(columns, reuse=True, entry_ids=taken), opened):
        for name in FRAMES:
            assert getattr(profile, name).equals(getattr(reference, name)), name
