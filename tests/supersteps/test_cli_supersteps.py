"""`ipu-nb profile-supersteps` / `profile-findings`: golden outputs derived by hand, errors and exit codes.

The profile is profile-query's golden profile (tests/helpers/golden_profile.py). By hand, offsets per tile:
  p0/0: tile 64 sync [0,200) exchange [200,400); tile 0 sync [0,300) exchange [300,450);
        tile 130 sync [0,250) exchange [250,400). Union [0,450) = 450; per tile 400, 450, 400:
        critical tile 0, mean 1250/3 = 416.67, recoverable 33.33, imbalance 1.08; exchange 500, sync 750.
        Union of the syncs 300 (67% of 450), of the exchanges [200,450) = 250 (56%).
  p1/0: tile 64 gemm [400,1400), tile 0 idle [450,500), tile 130 layer_norm_é [400,1000): span 1000,
        critical 64 at 1000, mean 550, recoverable 450; compute 1600, idle 50. Over compute samples
        only: tiles 64 and 130, mean 800, recoverable 200; 1600/2 − 1600/3 = 266.67 for the idle tile.
  p2/1: tile 130 zero-length compute at 1000: span 0, critical 130 at 0.
Execution order by start: 0/0 (0), 1/0 (400), 2/1 (1000). The profile spans 1400 cycles.
Findings (floor 0.5% of 1400 = 7 cycles): sync 300, idle 267, exchange 250, phase 1/0 200; no
straggler (each tile critical in one compute phase, fewer than 2), no kernel imbalance (one tile
per kernel and phase), no long tail (layer_norm_é: p50 = p95 = d[0] = 0).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from builders import columns_from_tiles, write_with_pycapnp
from cli_run import run_cli as _run
from golden_profile import TILES

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_with_pycapnp(columns_from_tiles(TILES), tmp_path_factory.mktemp("supersteps") / "golden.capnp")


@pytest.mark.parametrize(
    ("golden", "args"),
    [
        ("supersteps.txt", ["profile-supersteps"]),
        (
            "supersteps_recoverable_limit2.txt",
            ["profile-supersteps", "--sort-by", "recoverable-cycles", "--limit", "2"],
        ),
        ("supersteps_compute.json", ["profile-supersteps", "--kind", "compute", "--json", "--limit", "0"]),
        ("findings.txt", ["profile-findings"]),
        ("findings.json", ["profile-findings", "--json"]),
    ],
)
def test_golden(capsys: pytest.CaptureFixture[str], profile_path: Path, golden: str, args: list[str]) -> None:
    code, out, err = _run(capsys, args[0], str(profile_path), *args[1:])
    assert (code, err) == (0, "")
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")


def test_filters_are_profile_querys(capsys: pytest.CaptureFixture[str], profile_path: Path) -> None:
    code, out, _ = _run(
        capsys, "profile-supersteps", str(profile_path), "--tile", "0", "--tile", "130", "--phase", "0", "--limit", "0"
    )
    assert code == 0 and out.splitlines()[0].startswith("tiles=4 samples=4/10 supersteps=1 shown=1 ")
    code, out, _ = _run(capsys, "profile-supersteps", str(profile_path), "--metadata", "send_bytes=4096", "--at", "300")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("tiles=4 samples=2/10 supersteps=1 ")
    assert lines[0].endswith(" at=300") and lines[2].split("\t")[:4] == ["0/0", "200", "400", "200"]
    code, out, _ = _run(capsys, "profile-supersteps", str(profile_path), "--kind", "exchange", "--kernel", "x")
    assert code == 0 and out.splitlines()[0].startswith("tiles=4 samples=0/10 supersteps=0 shown=0 ")
    assert len(out.splitlines()) == 2
    code, out, _ = _run(capsys, "profile-findings", str(profile_path), "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 3 and out.splitlines()[2].startswith("1\tsync-dominated\t300\t")


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["profile-supersteps", "{p}", "--bogus"], 2),
        (["profile-supersteps", "{p}", "--limit", "x"], 2),
        (["profile-supersteps", "{p}", "--kind", "bogus"], 2),
        (["profile-supersteps", "{p}", "--metadata", "=x"], 2),
        (["profile-supersteps", "{p}", "--tile", "4294967296"], 2),
        (["profile-supersteps", "{p}", "--sort-by", "name"], 2),
        (["profile-supersteps", "{p}", "--group-by", "tile"], 2),  # not a filter: not a flag here
        (["profile-supersteps", "{p}", "--lim", "3"], 2),
        (["profile-supersteps"], 2),
        (["profile-supersteps", "{missing}"], 1),
        (["profile-supersteps", "{corrupt}"], 1),
        (["profile-findings", "{p}", "--limit", "-1"], 2),
        (["profile-findings", "{p}", "--kind", "compute"], 2),
        (["profile-findings", "{missing}"], 1),
        (["profile-findings", "{corrupt}"], 1),
    ],
)
def test_errors_exit_status_and_nothing_on_stdout(
    capsys: pytest.CaptureFixture[str], profile_path: Path, tmp_path: Path, args: list[str], status: int
) -> None:
    corrupt = tmp_path / "corrupt.capnp"
    corrupt.write_bytes(b"\x00\x00\x00\x00\xff\xff\x00\x00garbage")
    argv = [a.format(p=profile_path, missing=tmp_path / "missing.capnp", corrupt=corrupt) for a in args]
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (status, "")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if "{missing}" in args:
        assert err.startswith(f"ipu-nb {args[0]}: error: ") and "missing.capnp" in err


def test_help_documents_every_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "profile-supersteps", "--help")
    assert code == 0
    for flag in ("--kind", "--kernel", "--operation-contains", "--tile", "--phase", "--metadata", "--at"):
        assert flag in out
    for flag in ("--sort-by", "--limit", "--json", "PROFILE", "recoverable-cycles", "imbalance"):
        assert flag in out
    code, out, _ = _run(capsys, "profile-findings", "--help")
    assert code == 0 and all(flag in out for flag in ("--limit", "--json", "PROFILE"))


def test_python_dash_m(profile_path: Path) -> None:
    for args, golden in ((["profile-supersteps"], "supersteps.txt"), (["profile-findings", "--json"], "findings.json")):
        proc = subprocess.run(
            [sys.executable, "-m", "ipu_nb", args[0], str(profile_path), *args[1:]], capture_output=True, timeout=120
        )
        assert (proc.returncode, proc.stderr) == (0, b"")
        assert proc.stdout == (GOLDEN / golden).read_bytes()
