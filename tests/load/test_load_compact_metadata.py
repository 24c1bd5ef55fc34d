"""Metadata held as pair codes (`CompactMetadata`): the long frame built from them equals a plain pycapnp reading.

Every profile here is written to a file, then opened through the loader (several chunks,
both decoder threads), through the frame cache (a memory-mapped reopen) and against a
reference that reads the same file entry by entry with pycapnp and builds the rows by hand.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from builders import S, T, columns_from_tiles
from hostile_inputs import load_in_subprocess, rss_bound

from ipu_nb import write_columns
from ipu_nb._load import _pairs, _wire, open_profile
from ipu_nb._load._cache import cache_key, load_cached, wait_for_writes
from ipu_nb._load._stored import PAIRS_FRAME, assemble, stored_frames
from ipu_nb._load._wire import TextPath
from ipu_nb._model.columns import Columns, Strings
from ipu_nb._model.index import index_of
from ipu_nb._model.profile import ProfileData
from ipu_nb._profile.profile import Profile
from ipu_nb._query import filter_mask
from ipu_nb._schema import load_schema


def _pycapnp_entries(path: Path) -> list[tuple[int, int, str, str]]:
    """(sample, position, name, value) of every entry, read with pycapnp alone."""
    rows = []
    sample = 0
    with load_schema().Profile.from_bytes(path.read_bytes(), traversal_limit_in_words=1 << 40) as root:
        for tile in root.tiles:
            for cycle in tile.samples:
                for position, entry in enumerate(cycle.step.metadata):
                    rows.append((sample, position, entry.name, entry.value))
                sample += 1
    return rows


def _tiles() -> list[T]:
    """Four tiles of varied metadata: no entries, repeated pairs, several names, an empty value."""
    tiles = []
    for t in range(4):
        samples = []
        for i in range(40):
            meta = [("layer", str(i % 5)), ("active", "false" if i % 7 == 0 else "true")][: i % 3]
            if t == 2 and i % 4 == 0:
                meta = [*meta, ("note", ""), ("layer", "9")]
            samples.append(S(i * 10, i * 10 + 5 + t, "compute", f"op{i % 3}", f"k{t}", metadata=meta))
        tiles.append(T(t, samples))
    return tiles


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few samples, decoded by both worker threads."""
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 7)


def _check_long_frame(profile: ProfileData, path: Path) -> None:
    frame = profile.metadata
    assert frame.columns == ["sample", "position", "name", "value"]
    assert frame.schema == pl.Schema(
        {"sample": pl.UInt32(), "position": pl.UInt32(), "name": pl.Categorical(), "value": pl.Categorical()}
    )
    assert frame.rows() == _pycapnp_entries(path)


@pytest.mark.parametrize("text_path", ["native", "numpy"])
def test_the_lazily_built_frame_equals_pycapnp(tmp_path: Path, small_chunks: None, text_path: TextPath) -> None:
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    profile = open_profile(path, cache=False, text_path=text_path)
    compact = profile.compact_metadata
    assert compact is not None and compact.codes is not None and compact.codes.dtype == np.uint16
    assert compact.pairs.height == len(set(compact.pairs.rows())) < compact.entry_count
    assert "_metadata_built" not in profile.__dict__  # nothing built the long frame yet
    _check_long_frame(profile, path)
    assert profile.metadata is profile.metadata  # built once


def test_a_memory_mapped_reopen_holds_the_same_compact_metadata(tmp_path: Path, cache_root: Path) -> None:
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    fresh = open_profile(path)
    wait_for_writes()
    reopened = load_cached(path, cache_key(path), cache_root)
    assert reopened is not None
    compact, first = reopened.compact_metadata, fresh.compact_metadata
    assert compact is not None and first is not None and compact.codes is not None
    assert not compact.codes.flags.writeable  # straight from the mapped file
    assert compact.starts.tolist() == first.starts.tolist()
    assert compact.names_values().rows() == first.names_values().rows()
    _check_long_frame(reopened, path)
    assert reopened.samples.equals(fresh.samples)


def test_filters_and_groups_on_codes_match_the_long_frame(tmp_path: Path, small_chunks: None) -> None:
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    profile = Profile.of(open_profile(path, cache=False))
    # The same profile with its metadata as a plain frame: the frame path of the query core.
    plain = dataclasses.replace(
        profile,
        metadata=pl.DataFrame(_pycapnp_entries(path), orient="row", schema=["sample", "position", "name", "value"]),
    )
    assert plain.compact_metadata is None
    for wanted in (
        [("layer", "3")],
        [("layer", None)],
        [("layer", "9"), ("note", "")],
        [("active", "false")],
        [("layer", "nope")],
        [("missing", None)],
    ):
        assert filter_mask(profile, metadata=wanted).tolist() == filter_mask(plain, metadata=wanted).tolist(), wanted
    for key in ("layer", "note", "missing"):
        assert index_of(profile).first_values(key).cast(pl.String).to_list() == (
            index_of(plain).first_values(key).cast(pl.String).to_list()
        )
    ids = np.array([3, 0, 85, 999, 85])
    assert index_of(profile).metadata_of(ids).rows() == index_of(plain).metadata_of(ids).rows()
    by_layer = profile.query(group_by="metadata", metadata_key="layer")
    assert by_layer.groups.equals(plain.query(group_by="metadata", metadata_key="layer").groups)
    filtered = profile.filter(metadata="layer=2")
    assert filtered.equals(plain.filter(metadata="layer=2"))
    assert "_metadata_built" not in profile.__dict__  # none of it needed the long frame


def test_past_the_pair_limit_each_entry_keeps_its_codes(
    tmp_path: Path, cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_pairs, "PAIRS", 3)  # the numpy path's limit; the C one is fixed at 65536
    monkeypatch.setattr(_pairs, "_LIB", None)
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    profile = open_profile(path)
    compact = profile.compact_metadata
    assert compact is not None and compact.codes is None
    assert compact.pairs.height == compact.entry_count
    assert filter_mask(profile, metadata=[("layer", "9"), ("note", "")]).sum() == 10
    wait_for_writes()
    reopened = load_cached(path, cache_key(path), cache_root)
    assert reopened is not None and reopened.compact_metadata is not None
    assert reopened.compact_metadata.codes is None
    for each in (profile, reopened):
        _check_long_frame(each, path)


def _distinct_values_on_one_tile(count: int) -> Columns:
    """One tile of `count` samples, each with one entry of a value no other has (past the u16 pair codes)."""
    n = count
    u32 = np.zeros(n, dtype=np.uint32)
    values = Strings(np.arange(n, dtype=np.uint32), pl.Series([f"v{i}" for i in range(n)]).to_arrow())
    return Columns(
        schema_version=3,
        clock_hz=1_000_000,
        tiles=np.array([0], dtype=np.uint32),
        tile_sample_counts=np.array([n], dtype=np.int64),
        local_index=u32,
        phase=u32,
        epoch=u32,
        kind=np.ones(n, dtype=np.uint16),
        start=np.arange(n, dtype=np.uint32),
        end=np.arange(n, dtype=np.uint32) + 1,
        operation=Strings(u32, pl.Series(["op"]).to_arrow()),
        kernel=Strings(u32, pl.Series(["k"]).to_arrow()),
        metadata_counts=np.ones(n, dtype=np.int64),
        metadata_name=Strings(u32, pl.Series(["id"]).to_arrow()),
        metadata_value=values,
        exchange_event_cycles=u32,
        activity_counts=np.zeros(n, dtype=np.int64),
    )


@pytest.mark.timeout(600)
def test_a_million_distinct_values_on_one_tile_load_within_the_budget(tmp_path: Path) -> None:
    path = write_columns(_distinct_values_on_one_tile(1_000_000), tmp_path / "distinct.capnp")
    result = load_in_subprocess(path)
    assert result["accepted"] == [1_000_000, 1_000_000, 0]
    assert result["peak"] <= rss_bound(path.stat().st_size)
    profile = open_profile(path, cache=False)
    compact = profile.compact_metadata
    assert compact is not None and compact.codes is None  # a million pairs: no u16 codes
    assert filter_mask(profile, metadata=[("id", "v999999")]).tolist() == [False] * 999_999 + [True]
    assert profile.metadata.tail(1).rows() == [(999_999, 0, "id", "v999999")]


def test_stored_frames_whose_ends_disagree_are_refused(tmp_path: Path) -> None:
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    frames, pairs = stored_frames(open_profile(path, cache=False))
    assert pairs is not None
    good = {**frames, PAIRS_FRAME: pairs}
    assert assemble(good) is not None
    ends = frames["samples"].get_column("_metadata_end")
    for bad_ends in (ends.reverse(), ends + 1, ends.set(pl.Series([True] + [False] * (len(ends) - 1)), 10**6)):
        assert assemble({**good, "samples": frames["samples"].with_columns(bad_ends)}) is None
    codes = frames["metadata"].get_column("pair")
    past = codes.set(pl.Series([True] + [False] * (len(codes) - 1)), pairs.height)
    assert assemble({**good, "metadata": frames["metadata"].with_columns(past)}) is None
