"""Shared pytest set-up: `tests/helpers/` importable, a private frame cache, both text paths, the small demo."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "helpers"))


@pytest.fixture(scope="session", autouse=True)
def private_frame_cache() -> Iterator[Path]:
    """Point ``$IPU_NB_CACHE`` at a temporary directory for the whole run, removed at the end.

    Set in ``os.environ`` (before any other session fixture starts a process), so the CLI
    and notebook subprocesses, Jupyter servers and their kernels inherit it: the suite
    never reads or fills the user's ``~/.cache/ipu-nb/frames``. Tests that need an empty
    cache of their own still set one with ``monkeypatch``.
    """
    root = Path(tempfile.mkdtemp(prefix="ipu-nb-test-cache-"))
    saved = {name: os.environ.get(name) for name in ("IPU_NB_CACHE", "IPU_NB_CACHE_SIZE")}
    os.environ["IPU_NB_CACHE"] = str(root)
    os.environ.pop("IPU_NB_CACHE_SIZE", None)  # the documented default cap, whatever the user's shell says
    try:
        yield root
    finally:
        from ipu_nb._load._cache import wait_for_writes

        wait_for_writes()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache of the test's own (not yet created), at the default size cap."""
    root = tmp_path / "cache"
    monkeypatch.setenv("IPU_NB_CACHE", str(root))
    monkeypatch.delenv("IPU_NB_CACHE_SIZE", raising=False)
    return root


@pytest.fixture(params=["native", "numpy"])
def text_path(request: pytest.FixtureRequest) -> str:
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
