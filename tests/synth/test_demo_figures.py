"""The demo profiles' figures (ipu_nb/_demo.py) are what the generator writes, and every mention quotes them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

import ipu_nb
from ipu_nb._demo import DEMO_FIGURES, DEMO_KNOBS, DEMO_SIZES, describe_demo
from ipu_nb._io.capnp_writer import encoded_size

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size", DEMO_SIZES)
def test_figures_are_what_the_generator_writes(size: str) -> None:
    knobs = dict(DEMO_KNOBS[size])
    columns = ipu_nb.generate_columns(str(knobs.pop("workload")), str(knobs.pop("granularity")), **knobs)  # type: ignore[arg-type]
    figures = DEMO_FIGURES[size]
    assert (columns.tile_count, columns.sample_count) == (figures.tiles, figures.samples)
    assert encoded_size(columns) == figures.file_bytes


def test_encoded_size_is_the_written_size(tmp_path: Path) -> None:
    columns = ipu_nb.generate_columns("attention", "step", tiles=5, phases=4)
    assert ipu_nb.write_columns(columns, tmp_path / "a.capnp").stat().st_size == encoded_size(columns)


def test_the_readme_and_help_quote_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert DEMO_FIGURES["full"].summary() in readme
    for stale in ("740 MB", "770 MB"):
        assert stale not in readme
    for command in ("generate", "demo"):
        _, out, _ = run_cli(capsys, command, "--help")
        assert " ".join(describe_demo("full").split()) in " ".join(out.split()), command


def test_generate_size_small_without_output_is_the_demo_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPU_NB_DATA", str(tmp_path))
    code, out, err = run_cli(capsys, "generate", "--size", "small")
    assert code == 0, err
    path = Path(out.strip())
    assert path == ipu_nb.demo_profile_path("small") and path.parent == tmp_path
    assert path.stat().st_size == DEMO_FIGURES["small"].file_bytes
    assert describe_demo("small") in err
    assert run_cli(capsys, "generate", "--size", "small", "-q") == (0, f"{path}\n", "")  # reused, not rewritten


def test_generate_size_small_with_output_writes_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "small.capnp"
    assert run_cli(capsys, "generate", "--size", "small", "-q", "-o", str(target))[0] == 0
    assert target.read_bytes() == ipu_nb.demo_profile_path("small", directory=tmp_path / "d").read_bytes()


def test_knobs_without_output_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "generate", "--size", "small", "--tiles", "8")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "-o/--output" in err
