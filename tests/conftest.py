"""Shared pytest set-up: `tests/helpers/` importable, both text paths, the small demo (the private frame
cache is in the root conftest.py, shared with the doctests)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ipu_nb._load._wire import TextPath

sys.path.insert(0, str(Path(__file__).parent / "helpers"))


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache of the test's own (not yet created), at the default size cap."""
    root = tmp_path / "cache"
    monkeypatch.setenv("IPU_NB_CACHE", str(root))
    monkeypatch.delenv("IPU_NB_CACHE_SIZE", raising=False)
    return root


@pytest.fixture(params=["native", "numpy"])
def text_path(request: pytest.FixtureRequest) -> TextPath:
    """A loader test's ``text_path`` argument: once the C text interner, once the numpy path."""
    from ipu_nb._load import _intern

    if request.param == "native" and not _intern.NATIVE:
        pytest.skip("the C interner is not built (tests/load/test_load_intern.py fails for that)")
    return request.param


@pytest.fixture(scope="session")
def demo_small() -> tuple[Any, list[Any]]:
    """The generator's small demo profile (64 tiles, ~64k samples) and the same data as builder tiles."""
    import polars as pl
    from builders import S, T

    import ipu_nb
    from ipu_nb._query import filter_samples

    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path("small"), progress=False)
    rows = filter_samples(profile).with_columns(pl.col("operation", "kernel").cast(pl.String))
    per_tile: dict[int, list[S]] = {i: [] for i in range(profile.tile_count)}
    for r in rows.iter_rows(named=True):
        per_tile[r["tile_index"]].append(
            S(
                r["start"],
                r["end"],
                r["kind"],
                r["operation"],
                r["kernel"],
                r["phase"],
                r["epoch"],
                metadata=[(str(e["name"]), str(e["value"])) for e in r["metadata"]],
            )
        )
    tiles = [T(t, per_tile[i]) for i, t in enumerate(profile.tiles.get_column("tile").to_list())]
    return profile, tiles
