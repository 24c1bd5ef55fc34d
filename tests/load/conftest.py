"""Fixtures shared by the loader's cache tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import ipu_nb._load as load
from ipu_nb._model.profile import ProfileData


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Records every decode `open_profile` does (a cache hit does none)."""
    calls: list[Path] = []
    real = load._decode

    def counting(path: Path, *args: object) -> ProfileData:
        calls.append(path)
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(load, "_decode", counting)
    return calls
