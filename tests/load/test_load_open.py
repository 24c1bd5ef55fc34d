"""`open_profile`: decoders agree, bad paths and files give clear typed errors, progress on stderr."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles

import ipu_nb
from ipu_nb import _progress
from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import open_profile
from ipu_nb._load._errors import ProfileFormatError, UnsupportedSchemaVersionError
from ipu_nb._profile import open_profile as public_open_profile
from ipu_nb._synth.generate import generate_columns

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_NB_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def phase_file(tmp_path: Path) -> Path:
    return write_columns(generate_columns("mlp", "phase", tiles=4, layers=1, phases=3), tmp_path / "phase.capnp")


def test_public_name_and_decoders_agree(phase_file: Path) -> None:
    assert ipu_nb.open_profile is public_open_profile  # the public reader wraps this one in a Profile
    fast = open_profile(phase_file, decoder="fast", cache=False)
    reference = open_profile(phase_file, decoder="reference", cache=False)
    auto = open_profile(phase_file)
    for name in FRAMES:
        assert getattr(fast, name).equals(getattr(reference, name)), name
        assert getattr(auto, name).equals(getattr(reference, name)), name
    assert fast.path == phase_file
    assert fast.granularity == "phase"
    assert fast.samples.height == fast.tiles.get_column("sample_count").sum() > 0


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.capnp"
    with pytest.raises(FileNotFoundError, match=r"nope\.capnp"):
        open_profile(missing)
    with pytest.raises(FileNotFoundError, match=r"nope\.capnp"):
        open_profile(str(missing), cache=False, decoder="reference")


def test_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match="directory"):
        open_profile(tmp_path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_device_is_refused_without_reading_it() -> None:
    with pytest.raises(ProfileFormatError, match="not a regular file"):
        open_profile("/dev/zero")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(phase_file: Path) -> None:
    phase_file.chmod(0)
    try:
        with pytest.raises(PermissionError, match="not readable"):
            open_profile(phase_file)
    finally:
        phase_file.chmod(0o644)


def test_bad_decoder_name(phase_file: Path) -> None:
    with pytest.raises(ValueError, match="decoder must be one of"):
        open_profile(phase_file, decoder="quick")  # type: ignore[arg-type]


@pytest.mark.parametrize("decoder", ["fast", "reference"])
def test_corrupt_and_unsupported_files(tmp_path: Path, phase_file: Path, decoder: str) -> None:
    broken = tmp_path / "broken.capnp"
    broken.write_bytes(phase_file.read_bytes()[:-40])
    with pytest.raises(ProfileFormatError, match=r"broken\.capnp"):
        open_profile(broken, decoder=decoder)  # type: ignore[arg-type]
    newer = write_columns(columns_from_tiles([T(1, [S(1, 2)])], schema_version=6), tmp_path / "v6.capnp")
    with pytest.raises(UnsupportedSchemaVersionError, match=r"v6\.capnp: unsupported profile schema version 6 "):
        open_profile(newer, decoder=decoder)  # type: ignore[arg-type]
    empty = tmp_path / "empty.capnp"
    empty.write_bytes(b"")
    with pytest.raises(ProfileFormatError):
        open_profile(empty, decoder=decoder)  # type: ignore[arg-type]


def test_progress_bar_on_stderr(phase_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    open_profile(phase_file, progress=False, cache=False)
    assert capsys.readouterr().err == ""
    open_profile(phase_file, cache=False)  # small file, progress=None: no bar
    assert capsys.readouterr().err == ""
    open_profile(phase_file, progress=True, cache=False)
    captured = capsys.readouterr()
    assert "reading phase.capnp" in captured.err
    assert captured.out == ""
    monkeypatch.setattr(_progress, "AUTO_PROGRESS_BYTES", 0)
    open_profile(phase_file, cache=False)  # progress=None, the file is "large" but stderr is no terminal
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_progress, "watched", lambda: True)
    open_profile(phase_file, cache=False)  # "large" and someone watches
    assert "samples" in capsys.readouterr().err
    with _progress.silenced():
        open_profile(phase_file, progress=True, cache=False)
    assert capsys.readouterr().err == ""


def test_decoding_reports_every_sample(phase_file: Path) -> None:
    from ipu_nb._load._wire import decode_file

    calls: list[tuple[int, int]] = []
    columns = decode_file(phase_file, report=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, columns.sample_count)
    assert calls[-1] == (columns.sample_count, columns.sample_count)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_auto_falls_back_to_reference_on_an_unexpected_fast_failure(phase_file: Path, monkeypatch) -> None:
    import ipu_nb._load._wire as wire

    def broken(*args: object, **kwargs: object) -> None:
        raise IndexError("a bug")

    monkeypatch.setattr(wire, "decode_file", broken)
    with pytest.warns(RuntimeWarning, match="IndexError: a bug"):
        profile = open_profile(phase_file, cache=False)
    assert profile.sample_count > 0
    with pytest.raises(IndexError):
        open_profile(phase_file, cache=False, decoder="fast")
    monkeypatch.setattr(wire, "decode_file", lambda *a, **k: (_ for _ in ()).throw(ProfileFormatError("bad")))
    with pytest.raises(ProfileFormatError, match="bad"):
        open_profile(phase_file, cache=False)  # corrupt files are not retried
