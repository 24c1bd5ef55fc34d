"""Set-up shared by the test suite and the doctests (not shipped: the wheel and sdist hold ``ipu_nb/``).

pytest runs the docstring examples of ``ipu_nb`` (``--doctest-modules``, see pyproject.toml)
against small generated profiles: each example runs in an empty temporary directory holding
``mlp.capnp`` (16 tiles, 8 phases of the MLP workload) and ``before.capnp``/``after.capnp``
(the same knobs, seeds 0 and 1), with ``ipu_nb``, ``charts``, ``pl`` and ``profile`` (the
opened ``mlp.capnp``) in its namespace. Files an example writes land in that directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

import pytest
from _pytest.doctest import DoctestItem
from hypothesis import HealthCheck, settings


class _Knobs(TypedDict):
    tiles: int
    phases: int
    progress: bool


#: The doctest profiles' generator knobs: small enough to generate in a second, with real kernels.
DOCTEST_KNOBS: _Knobs = {"tiles": 16, "phases": 8, "progress": False}


# Hypothesis: "ci" (the default) runs each property's full example count; "quick" a tenth of it
# (HYPOTHESIS_PROFILE=quick, for the inner loop). Tests ask for counts through
# `budget.examples(n)` (tests/helpers/budget.py).
_HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
settings.register_profile("ci", deadline=None, suppress_health_check=_HEALTH, print_blob=True)
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The slow families (``pytest -m "not slow"`` leaves them out): node-id prefixes, one rule per family.
SLOW_FAMILIES: dict[str, tuple[str, ...]] = {
    "browser": ("tests/browser/",),
    "notebooks": ("tests/test_notebooks.py", "tests/test_notebook_copies.py"),
    "packaging": ("tests/packaging/",),
    "fuzzing": ("tests/load/test_load_fuzz.py",),
    "multi-process": (
        "tests/load/test_load_interrupt.py",
        "tests/load/test_load_changing_file.py",
        "tests/load/test_load_cache.py::test_concurrent_processes",
        "tests/fleet/test_fleet_dask.py",
    ),
    "chart exports": (
        "tests/charts/test_charts.py::test_save",
        "tests/html/test_report.py",
        "tests/cli/test_cli_render.py",
        "tests/docs/test_examples.py",
    ),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of a slow family (and every test whose name says it fuzzes) ``slow``."""
    prefixes = tuple(p for family in SLOW_FAMILIES.values() for p in family)
    for item in items:
        if item.nodeid.startswith(prefixes) or "fuzz" in item.name:
            item.add_marker(pytest.mark.slow)


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Never collect a ``conftest.py`` as a module: ``--doctest-modules`` would import the three
    under one name, ``conftest``, and fail on the clash (they hold no examples; pytest loads them anyway)."""
    return True if collection_path.name == "conftest.py" else None


@pytest.fixture(scope="session", autouse=True)
def private_frame_cache() -> Iterator[Path]:
    """Point ``$IPU_NB_CACHE`` at a temporary directory for the whole run, removed at the end.

    Set in ``os.environ`` (before any other session fixture starts a process), so the CLI
    and notebook subprocesses, Jupyter servers and their kernels inherit it: the suite and
    the doctests never read or fill the user's ``~/.cache/ipu-nb/frames``. Tests that need
    an empty cache of their own still set one with ``monkeypatch``.
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


@pytest.fixture(scope="session")
def doctest_profiles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the doctests' ``mlp.capnp``, ``before.capnp`` and ``after.capnp``."""
    import ipu_nb

    folder = tmp_path_factory.mktemp("doctest-profiles")
    ipu_nb.generate_profile(folder / "mlp.capnp", "mlp", **DOCTEST_KNOBS)
    ipu_nb.generate_profile(folder / "before.capnp", "mlp", seed=0, **DOCTEST_KNOBS)
    ipu_nb.generate_profile(folder / "after.capnp", "mlp", seed=1, **DOCTEST_KNOBS)
    return folder


@pytest.fixture(autouse=True)
def _doctest_workspace(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """For a doctest only: an empty working directory with the profiles, and the namespace above."""
    if not isinstance(request.node, DoctestItem):
        return
    import polars as pl

    import ipu_nb
    from ipu_nb import charts

    profiles: Path = request.getfixturevalue("doctest_profiles")
    for source in profiles.glob("*.capnp"):
        (tmp_path / source.name).symlink_to(source)
    monkeypatch.chdir(tmp_path)
    namespace = request.getfixturevalue("doctest_namespace")
    namespace.update(ipu_nb=ipu_nb, charts=charts, pl=pl, profile=ipu_nb.open_profile("mlp.capnp", progress=False))
