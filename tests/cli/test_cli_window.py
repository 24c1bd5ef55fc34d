"""``--window``, ``--clip`` and ``--operation`` on the command line (ipu-nb extensions): goldens by hand, errors.

The profile is tests/helpers/golden_profile.py. Inside the window [300, 1100):
  tile 64:  a sync [0,200) no · b exchange [200,400) -> [300,400) 100 · c gemm [400,1400) -> [400,1100) 700
  tile 0:   d sync [0,300) ends at 300: no · e exchange [300,450) 150 · f idle [450,500) 50
  tile 130: g sync [0,250) no · h exchange [250,400) -> [300,400) 100 · i layer_norm_é [400,1000) 600
            · j zero length at 1000: no
So 6 of 10 samples match. By kind, clipped: compute p1/0 [400,1100) = 700, work 1300, durations
[600, 700]; exchange p0/0 [300,450) = 150, work 350, [100, 100, 150]; idle 50. Unclipped: compute
[400,1400) = 1000, work 1600, [600, 1000]; exchange [200,450) = 250, work 500, [150, 150, 200]; idle 50.
The longest by cycles inside the window: c (700), then i (600).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import columns_from_tiles, write_with_pycapnp
from cli_run import run_cli as _run
from golden_profile import TILES

import ipu_nb
from ipu_nb._supersteps import supersteps

GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_with_pycapnp(columns_from_tiles(TILES), tmp_path_factory.mktemp("cli") / "golden.capnp")


@pytest.mark.parametrize(
    ("golden", "args"),
    [
        ("window300_1100_kind.txt", ["--window", "300:1100", "--group-by", "kind"]),
        (
            "window300_1100_clip_kind_samples2.txt",
            ["--window", "300:1100", "--clip", "--group-by", "kind", "--samples", "2"],
        ),
        (
            "window300_1100_clip_limit1_samples1.json",
            ["--group-by", "kind", "--clip", "--window", "+300:1100", "--limit", "1", "--samples", "1", "--json"],
        ),
    ],
)
def test_window_golden(capsys: pytest.CaptureFixture[str], profile_path: Path, golden: str, args: list[str]) -> None:
    code, out, err = _run(capsys, "profile-query", str(profile_path), *args)
    assert (code, err) == (0, "")
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")


def test_flags_reach_the_query(capsys: pytest.CaptureFixture[str], profile_path: Path) -> None:
    profile = ipu_nb.open_profile(profile_path)
    for args, flags in (
        (["--window", "0:1", "--group-by", "tile"], {"window": (0, 1), "group_by": "tile"}),
        (["--window", "400:401", "--operation", "naïve\tlabel"], {"window": (400, 401), "operation": "naïve\tlabel"}),
        (
            ["--operation", "exchange for gemm (lhs)", "--operation", "", "--tile", "130", "--samples", "9"],
            {"operation": ["exchange for gemm (lhs)", ""], "tiles": [130], "samples": 9},
        ),
        (
            ["--operation", "exchange for gemm", "--group-by", "kind"],
            {"operation": "exchange for gemm", "group_by": "kind"},
        ),
        (
            ["--window", "0:18446744073709551615", "--clip", "--kind", "idle"],
            {"window": (0, 2**64 - 1), "clip": True, "kind": "idle"},
        ),
    ):
        code, out, err = _run(capsys, "profile-query", str(profile_path), *args)
        assert (code, err) == (0, "")
        assert out == ipu_nb.query(profile, **flags).to_text()
    # exact, not a substring: "exchange for gemm" names no operation, "(lhs)" is part of the name
    _, out, _ = _run(capsys, "profile-query", str(profile_path), "--operation", "exchange for gemm")
    assert out.splitlines()[0].startswith("tiles=4 samples=0/10 ")
    _, out, _ = _run(capsys, "profile-query", str(profile_path), "--operation-contains", "exchange for gemm")
    assert out.splitlines()[0].startswith("tiles=4 samples=3/10 ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--window", "5"], "argument --window: invalid window '5': expected START:END, two offsets from 0 to "),
        (["--window", "a:b"], "argument --window: invalid window 'a:b': expected START:END"),
        (["--window", "9:3"], "argument --window: invalid window '9:3': START must be less than END"),
        (["--window", "4:4"], "argument --window: invalid window '4:4': START must be less than END"),
        (["--window", "1:2:3"], "argument --window: invalid window '1:2:3': expected START:END"),
        (["--window=-1:3"], "argument --window: invalid window '-1:3': expected START:END"),
        (["--window", "0:18446744073709551616"], "invalid window '0:18446744073709551616'"),
        (["--window"], "argument --window: expected one argument"),
        (["--clip"], "error: --clip requires --window START:END\n"),
        (["--win", "0:3"], "unrecognized arguments: --win"),  # no abbreviations
    ],
)
def test_bad_windows_are_one_line_usage_errors(
    capsys: pytest.CaptureFixture[str], profile_path: Path, args: list[str], message: str
) -> None:
    code, out, err = _run(capsys, "profile-query", str(profile_path), *args)
    assert (code, out) == (2, "")  # a usage error (docs/reference/query.md#exit-status-and-errors)
    assert len(err.splitlines()) == 1 and message in err


def test_other_commands_filter_by_window_and_refuse_clip(
    capsys: pytest.CaptureFixture[str], profile_path: Path
) -> None:
    profile = ipu_nb.open_profile(profile_path)
    code, out, err = _run(
        capsys, "profile-diff", str(profile_path), str(profile_path), "--window", "300:1100", "--json"
    )
    assert (code, err) == (0, "")
    assert out == ipu_nb.compare(profile, profile, window=(300, 1100)).to_json()
    assert out.count('"matchedSampleCount": 6,') == 2  # before and after: the six samples in the window
    code, out, err = _run(
        capsys, "profile-supersteps", str(profile_path), "--window", "300:1100", "--operation", "naïve\tlabel"
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0].startswith("tiles=4 samples=1/10 supersteps=1 ")
    assert supersteps(profile, window=(300, 1100), operation="naïve\tlabel").height == 1
    for command in (["profile-diff", str(profile_path), str(profile_path)], ["profile-supersteps", str(profile_path)]):
        code, out, err = _run(capsys, *command, "--window", "0:5", "--clip")
        assert (code, out) == (2, "")
        assert err == (
            f"ipu-nb {command[0]}: error: --clip is not available in ipu-nb {command[0]}, which measures whole "
            "samples (--window still filters); use profile-query --window START:END --clip (see --help)\n"
        )
        _, out, _ = _run(capsys, command[0], "--help")
        assert "--window" in out and "--operation" in out and "--clip" not in out


def test_help_documents_the_extensions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "profile-query", "--help")
    assert code == 0
    for words in ("--window START:END", "--clip", "--operation S", "an ipu-nb extension"):
        assert words in out
