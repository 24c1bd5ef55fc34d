"""Shared pytest set-up: make `tests/` importable for the builders; both text paths of the loader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(params=["native", "numpy"])
def text_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a loader test once with the C text interner and once with the numpy path."""
    from ipu_nb._load import _intern, _text, _wire

    if request.param == "native":
        if not _intern.NATIVE:
            pytest.skip("the C interner is not built (tests/test_load_intern.py fails for that)")
        monkeypatch.setattr(_wire, "_TextColumn", _intern.NativeTextColumn)
    else:
        monkeypatch.setattr(_wire, "_TextColumn", _text.TextColumn)
    return request.param
