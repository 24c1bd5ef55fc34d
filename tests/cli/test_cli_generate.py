"""`ipu-nb generate`: writes the profile the generator describes, one-line errors with the right exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ipu_nb._cli import main
from ipu_nb._load._reference import decode_reference
from ipu_nb._synth.generate import generate_columns

KNOBS = ("--size", "--workload", "--granularity", "--tiles", "--layers", "--phases", "--busy-tiles", "--seed",
         "--schema-version", "--base-cycle", "--quiet", "--output")  # fmt: skip


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors and --help
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_writes_the_requested_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.capnp"
    argv = ["generate", "-o", str(target), "--workload", "gemm", "--granularity", "step", "--tiles", "6"]
    argv += ["--phases", "3", "--seed", "7", "--schema-version", "4", "--base-cycle", "0x1000"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert err == ""
    expected = generate_columns("gemm", "step", tiles=6, phases=3, seed=7, schema_version=4, base_cycle=0x1000)
    got = decode_reference(target)
    assert got.schema_version == 4 and got.sample_count == expected.sample_count
    np.testing.assert_array_equal(got.start, expected.start)
    assert got.metadata_value.to_list() == expected.metadata_value.to_list()
    lines = out.splitlines()
    assert len(lines) == 1
    assert str(target) in lines[0] and f"{expected.sample_count:,} samples" in lines[0] and " MB in " in lines[0]


def test_quiet_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["generate", "-q", "-o", str(tmp_path / "q.capnp"), "--tiles", "4", "--phases", "2"], capsys)
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "q.capnp").stat().st_size > 0


def test_busy_tiles_and_layers_reach_the_generator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "b.capnp"
    argv = ["generate", "-q", "-o", str(target), "--tiles", "10", "--busy-tiles", "10", "--granularity", "graph"]
    assert run([*argv, "--layers", "1"], capsys)[0] == 0
    one_layer = decode_reference(target)
    assert run([*argv, "--layers", "2"], capsys)[0] == 0
    two_layers = decode_reference(target)
    span = [int((c.end.astype(np.int64) - c.start).max() % 2**32) for c in (one_layer, two_layers)]
    assert span[1] > 1.8 * span[0]


def test_help_documents_every_knob_with_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["generate", "--help"], capsys)
    assert code == 0
    for knob in KNOBS:
        assert knob in out, knob
    for default in ("(default: full)", "(default: mlp)", "(default: phase)", "(default: 1472;", "(default: 0)"):
        assert default in out, default


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--workload", "bert"], "invalid choice: 'bert'"),
        (["--granularity", "kernel"], "invalid choice: 'kernel'"),
        (["--tiles", "0"], "must be at least 1"),
        (["--tiles", "1473"], "at most 1472 tiles"),
        (["--tiles", "x"], "invalid integer"),
        (["--phases", "0"], "must be at least 1"),
        (["--schema-version", "9"], "supported schema versions are 1 to 5"),
        (["--base-cycle", str(2**32)], "below 2^32"),
        (["--seed", "-1"], "must not be negative"),
        (["--tiles", "4", "--busy-tiles", "5"], "--busy-tiles 5 exceeds --tiles 4"),
        (["--tiles", "4", "--layers", "1", "--phases", "100000"], "exceeds"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(["generate", "-o", str(tmp_path / "x.capnp"), *argv], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and fragment in err
    # unknown flags are reported by the top-level parser, which reads the whole command line
    assert err.startswith("ipu-nb: error: " if argv == ["--bogus"] else "ipu-nb generate: error: ")
    assert not (tmp_path / "x.capnp").exists()


def test_missing_output_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["generate", "--tiles", "4"], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "-o/--output" in err


@pytest.mark.parametrize("where", ["missing-dir/x.capnp", "."])
def test_unwritable_destination_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    code, out, err = run(["generate", "-o", str(tmp_path / where), "--tiles", "4", "--phases", "1"], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and str(tmp_path) in err


def test_write_failure_is_a_runtime_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*args: object, **kwargs: object) -> Path:
        raise OSError(28, "No space left on device", str(tmp_path / "x.capnp"))

    monkeypatch.setattr("ipu_nb._synth.generate.write_profile", fail)
    code, out, err = run(["generate", "-o", str(tmp_path / "x.capnp"), "--tiles", "4", "--phases", "1"], capsys)
    assert (code, out) == (1, "")
    assert err == f"ipu-nb generate: error: {tmp_path / 'x.capnp'}: No space left on device\n"


def test_entry_point_runs_as_a_module(tmp_path: Path) -> None:
    target = tmp_path / "m.capnp"
    done = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "generate", "-o", str(target), "--tiles", "3", "--phases", "2"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {target}: 18 samples")
    assert decode_reference(target).sample_count == 18
