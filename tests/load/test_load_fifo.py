"""A FIFO in a profile's place is refused at once, even when it appears after the check by name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ipu_nb
from ipu_nb._load import _cache, _mapped, _sniff


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "run.capnp"
    os.mkfifo(path)  # opening it for reading would wait for a writer forever
    return path


@pytest.mark.timeout(20)
def test_open_profile_refuses_a_fifo(fifo: Path) -> None:
    with pytest.raises(ipu_nb.ProfileFormatError, match="not a regular file"):
        ipu_nb.open_profile(fifo, progress=False)


@pytest.mark.timeout(20)
def test_every_open_of_the_file_checks_the_descriptor(fifo: Path) -> None:
    """The readers behind the check by name (a FIFO swapped in after it): none blocks, each refuses."""
    with pytest.raises(ipu_nb.ProfileFormatError, match="not a regular file"):
        _mapped.open_regular(fifo)
    with pytest.raises(ipu_nb.ProfileFormatError, match="not a regular file"), _mapped.open_bytes(fifo):
        pass
    with pytest.raises(ipu_nb.ProfileFormatError, match="not a regular file"):
        _cache.cache_key(fifo)
    assert _sniff.sniff_file(fifo) is None


def test_a_regular_file_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "bytes.bin"
    path.write_bytes(b"\0" * 16)
    handle = _mapped.open_regular(path)
    try:
        assert os.read(handle, 4) == b"\0" * 4
    finally:
        os.close(handle)
