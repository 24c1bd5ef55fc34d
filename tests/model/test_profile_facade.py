"""`ipu_nb.Profile`, the façade over `ProfileData`: every profile a user gets is one, wrapping costs no copy,
and it pickles, freezes and caches like the data it holds."""

from __future__ import annotations

import dataclasses
import os
import pickle
from pathlib import Path

import polars as pl
import pytest
from builders import S, T, columns_from_tiles, profile_from_tiles

import ipu_nb
import ipu_nb._load as _load
from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _cache
from ipu_nb._load import open_profile as read_profile
from ipu_nb._model.index import index_of
from ipu_nb._model.profile import ProfileData

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")
FACADE_METHODS = ("query", "filter", "to_trace", "to_parquet", "_repr_html_")
TILES = [
    T(0, [S(0, 10, metadata=[("layer", "0")]), S(10, 30, kind="exchange", operation="exchange", kernel="")]),
    T(1, [S(5, 25, metadata=[("layer", "1")])]),
]


@pytest.fixture
def profile_file(tmp_path: Path) -> Path:
    return write_columns(columns_from_tiles(TILES), tmp_path / "two-tiles.capnp", progress=False)


def same_data(a: ProfileData, b: ProfileData) -> bool:
    scalars = ("clock_hz", "schema_version", "granularity", "path")
    return all(getattr(a, f).equals(getattr(b, f)) for f in FRAMES) and all(
        getattr(a, s) == getattr(b, s) for s in scalars
    )


def test_the_data_class_offers_nothing_that_reaches_up() -> None:
    # The layers below the façade take ProfileData: it has no method that would import them.
    assert not [name for name in FACADE_METHODS if hasattr(ProfileData, name)]
    assert all(callable(getattr(ipu_nb.Profile, name)) for name in FACADE_METHODS)
    assert issubclass(ipu_nb.Profile, ProfileData)
    assert [f.name for f in dataclasses.fields(ipu_nb.Profile)] == [f.name for f in dataclasses.fields(ProfileData)]


def test_open_profile_wraps_the_loaders_frames(
    profile_file: Path, cache_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = read_profile(profile_file, cache=False)
    assert type(data) is ProfileData
    opened = [ipu_nb.open_profile(profile_file, cache=cache) for cache in (False, True)]  # the second is stored
    _cache.wait_for_writes()

    def refuse(*args: object) -> ProfileData:
        raise AssertionError("decoded again: the cached frames were not used")

    monkeypatch.setattr(_load, "_decode", refuse)
    opened.append(ipu_nb.open_profile(profile_file))  # from the frame cache
    for profile in opened:
        assert type(profile) is ipu_nb.Profile
        assert same_data(profile, data)
    assert opened[-1].query(group_by="tile").groups.height == 2


def test_wrapping_copies_nothing_and_wraps_once() -> None:
    data = ProfileData(**{f.name: getattr(profile_from_tiles(TILES), f.name) for f in dataclasses.fields(ProfileData)})
    profile = ipu_nb.Profile.of(data)
    assert type(profile) is ipu_nb.Profile
    assert all(getattr(profile, f) is getattr(data, f) for f in FRAMES)
    assert ipu_nb.Profile.of(profile) is profile  # a façade is its own: its per-profile index is kept
    assert index_of(ipu_nb.Profile.of(profile)) is index_of(profile)


def test_it_is_frozen_and_compared_by_identity() -> None:
    profile = profile_from_tiles(TILES)
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.clock_hz = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.anything = 1  # type: ignore[attr-defined]
    twin = ipu_nb.Profile.of(dataclasses.replace(profile))
    assert twin is not profile and twin != profile and len({profile, twin}) == 2
    assert type(dataclasses.replace(profile, path=Path("x.capnp"))) is ipu_nb.Profile
    assert repr(profile).startswith("<Profile: 2 tiles, 3 samples")


def test_it_pickles_as_a_profile(profile_file: Path) -> None:
    # Fleets hand profiles and results to other processes (and Dask workers).
    profile = ipu_nb.open_profile(profile_file, cache=False)
    back = pickle.loads(pickle.dumps(profile))
    assert type(back) is ipu_nb.Profile
    assert same_data(back, profile)
    assert back.query(group_by="tile").to_text() == profile.query(group_by="tile").to_text()
    assert back.filter(tiles=[1]).get_column("sample").to_list() == [2]


def test_every_profile_a_user_gets_is_a_profile(profile_file: Path, tmp_path: Path) -> None:
    other = write_columns(columns_from_tiles(TILES[:1]), tmp_path / "one-tile.capnp", progress=False)
    comparison = ipu_nb.compare(os.fspath(profile_file), other)
    assert type(comparison.before) is ipu_nb.Profile and type(comparison.after) is ipu_nb.Profile
    with ipu_nb.Fleet([profile_file, other], workers=1) as fleet:
        assert type(fleet.open(1)) is ipu_nb.Profile
    demo = ipu_nb.open_profile(ipu_nb.demo_profile_path("small", directory=tmp_path, progress=False))
    assert type(demo) is ipu_nb.Profile


def test_the_widget_takes_and_gives_profiles(profile_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("anywidget")
    profile = ipu_nb.open_profile(profile_file)
    widget = ipu_nb.ProfileWidget(profile, baseline=profile_file)
    assert widget.profile is profile
    assert type(widget.baseline) is ipu_nb.Profile
    with pytest.raises(TypeError, match=r"expected an ipu_nb\.Profile"):
        ipu_nb.ProfileWidget(read_profile(profile_file))  # type: ignore[arg-type]


def test_the_methods_answer_as_the_query_core_does(profile_file: Path, tmp_path: Path) -> None:
    profile = ipu_nb.open_profile(profile_file)
    assert profile.query(kind="compute").to_json() == ipu_nb.query(profile, kind="compute").to_json()
    trace = profile.to_trace(tmp_path / "t.json", ipu_nb.Query(tiles=(1,)))
    assert trace.read_text(encoding="utf-8").count('"ph":"X"') == 1
    folder = profile.to_parquet(tmp_path / "dataset", labels={"run": 1})
    rows = ipu_nb.scan_parquet(folder).samples.select(pl.len()).collect().item()
    assert rows == profile.sample_count
    assert "two-tiles.capnp" in profile._repr_html_()
