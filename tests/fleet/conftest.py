"""The fleet tests' profiles: the sweep (`fleet_sweep`), a corrupt file and a missing one."""

from __future__ import annotations

from pathlib import Path

import pytest
from fleet_sweep import write_sweep


@pytest.fixture(scope="session")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The sweep's six profiles, in name order."""
    return write_sweep(tmp_path_factory.mktemp("sweep"))


@pytest.fixture(scope="session")
def corrupt(sweep: list[Path]) -> Path:
    """A profile cut short: the first half of a real one."""
    path = sweep[0].parent / "broken" / "run-8-0.capnp"
    path.parent.mkdir(exist_ok=True)
    data = sweep[0].read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


@pytest.fixture(scope="session")
def missing(sweep: list[Path]) -> Path:
    """A path where no file is."""
    return sweep[0].parent / "broken" / "run-16-0.capnp"
