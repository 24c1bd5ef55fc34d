"""`ipu-nb profile-batch` and `profile-check`: outputs against the Python API and profile-query, exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from cli_run import run_cli
from fleet_sweep import PATTERN, SWEEP
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb import Fleet

# --- profile-batch --------------------------------------------------------------------------


def test_batch_text_is_profile_querys_rows_with_labels(sweep: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "profile-batch", *map(str, sweep), "--label-from", PATTERN, "--kind", "compute")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    single = [run_cli(capsys, "profile-query", str(p), "--kind", "compute")[1].splitlines() for p in sweep]
    assert lines[0] == "batch\tseed\tpath\t" + single[0][1]  # profile-query's own table header
    expected = [
        f"{batch}\t{seed}\t{path}\t{row}"
        for (batch, seed), path, text in zip(SWEEP, sweep, single, strict=True)
        for row in text[2:]
    ]
    assert lines[1:] == expected


def test_batch_json_holds_each_profile_query_report(sweep: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--group-by", "phase", "--limit", "3", "--samples", "2", "--json"]
    code, out, err = run_cli(
        capsys, "profile-batch", *map(str, sweep[:3]), "--label-from", PATTERN, "--workers", "1", *args
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert report["errors"] == []
    assert [p["labels"] for p in report["profiles"]] == [{"batch": b, "seed": s} for b, s in SWEEP[:3]]
    for entry, path in zip(report["profiles"], sweep[:3], strict=True):
        assert entry["path"] == str(path)
        single = run_cli(capsys, "profile-query", str(path), *args)[1]
        assert entry["report"] == json.loads(single)
    # The report objects are written exactly as profile-query writes them (same floats, same layout).
    first = run_cli(capsys, "profile-query", str(sweep[0]), *args)[1]
    indented = "".join(f"      {line}\n" if line else "\n" for line in first.splitlines()[1:-1])
    assert indented in out


def test_batch_parquet_is_the_fleet_query_frame(
    sweep: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "batch.parquet"
    code, out, err = run_cli(
        capsys,
        "profile-batch",
        str(sweep[0].parent / "run-*.capnp"),
        "--label-from",
        PATTERN,
        "--parquet",
        str(out_file),
    )
    assert (code, out) == (0, "")
    assert err == f"wrote {out_file}: {pl.read_parquet(out_file).height} rows from 6 profiles\n"
    expected = Fleet(sweep, labels=PATTERN, workers=1).query()
    assert_frame_equal(pl.read_parquet(out_file), expected)


def test_batch_reports_failures_and_still_writes_the_rest(
    sweep: list[Path], corrupt: Path, missing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "profile-batch", str(sweep[0]), str(corrupt), str(missing), "--workers", "1")
    assert code == 1
    assert out.splitlines()[1:] == [
        f"{sweep[0]}\t{row}" for row in run_cli(capsys, "profile-query", str(sweep[0]))[1].splitlines()[2:]
    ]
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"ipu-nb profile-batch: error: {corrupt.absolute()}: ")
    assert lines[1] == f"ipu-nb profile-batch: error: profile not found: {missing.absolute()}"
    code, out, _ = run_cli(capsys, "profile-batch", str(sweep[0]), str(missing), "--json", "--workers", "1")
    assert code == 1
    assert json.loads(out)["errors"] == [
        {"path": str(missing), "error": "FileNotFoundError", "reason": f"profile not found: {missing.absolute()}"}
    ]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--json", "--parquet", "x.parquet"], 2, "--json and --parquet are two outputs: choose one"),
        (["--samples", "3"], 2, "--samples lists each profile's samples in its --json report; add --json"),
        (["--label-from", "run.capnp"], 2, "has no {name} field"),
        (["--group-by", "metadata"], 1, "--group-by metadata requires --metadata-key NAME"),
        (["--workers", "0"], 2, "must be at least 1"),
        (["--kind", "bogus"], 2, "invalid choice"),
    ],
)
def test_batch_usage_errors(
    sweep: list[Path], capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    result = run_cli(capsys, "profile-batch", str(sweep[0]), *args)
    assert result[0] == code and result[1] == ""
    assert message in result[2] and len(result[2].splitlines()) == 1


def test_batch_with_no_profiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(capsys, "profile-batch", str(tmp_path / "*.capnp")) == (
        1,
        "",
        f"ipu-nb profile-batch: error: {tmp_path / '*.capnp'}: pattern matches no file\n",
    )


# --- profile-check --------------------------------------------------------------------------


def _profile(path: Path, kernels: dict[str, int]) -> str:
    """One tile, one compute sample per kernel, each in a phase of its own: phase cycles = the duration."""
    samples, start = [], 0
    for phase, (kernel, cycles) in enumerate(kernels.items(), start=1):
        samples.append(S(start, start + cycles, kernel=kernel, operation=f"run {kernel}", phase=phase))
        start += cycles
    return str(write_with_pycapnp(columns_from_tiles([T(0, samples)]), path))


@pytest.fixture(scope="module")
def gate(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("gate")
    return {
        "before": _profile(root / "before.capnp", {"A": 100, "B": 50, "gone": 30}),
        "same": _profile(root / "same.capnp", {"A": 100, "B": 50, "gone": 30}),
        "edge": _profile(root / "edge.capnp", {"A": 103, "B": 40}),  # exactly 3% slower: allowed
        "slower": _profile(root / "slower.capnp", {"A": 104, "B": 50, "gone": 30}),  # 4%: a regression
        "added": _profile(root / "added.capnp", {"A": 100, "B": 50, "new": 10}),
    }


def _check(capsys: pytest.CaptureFixture[str], gate: dict[str, str], *after: str, args: tuple[str, ...] = ()):
    return run_cli(
        capsys, "profile-check", *(gate[a] for a in after), "--baseline", gate["before"], "--workers", "1", *args
    )


def test_check_passes_at_the_threshold(gate: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(capsys, gate, "same", "edge", args=("--max-regression", "3%"))
    assert (code, err) == (0, "")
    assert out == (
        f"0 groups regressed beyond 3%: 2 profiles against {gate['before']} by kernel, 6 groups checked "
        "(phase cycles after > before x (1 + 3%))\n"
    )


def test_check_fails_listing_the_regressions(gate: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _check(capsys, gate, "edge", "slower", "added", args=("--max-regression", "0.03"))
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"2 groups regressed beyond 3%: 3 profiles against {gate['before']} by kernel, 10 groups checked "
        "(phase cycles after > before x (1 + 3%))",
        "path\tname\tstatus\tphaseCyclesBefore\tphaseCyclesAfter\tchange",
        f"{gate['slower']}\tA\tchanged\t100\t104\t+4.00%",
        f"{gate['added']}\tnew\tadded\t-\t10\tnew",
    ]


def test_check_options(gate: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert _check(capsys, gate, "added", args=("--max-regression", "3%", "--ignore-added"))[0] == 0
    assert _check(capsys, gate, "added", args=("--max-regression", "3%", "--min-cycles", "11"))[0] == 0
    assert _check(capsys, gate, "added", args=("--max-regression", "3%", "--min-cycles", "10"))[0] == 1
    assert _check(capsys, gate, "slower", args=("--max-regression", "4%"))[0] == 0
    assert _check(capsys, gate, "slower", args=("--max-regression", "3.99%"))[0] == 1
    assert _check(capsys, gate, "slower", args=("--max-regression", "3%", "--kernel", "B"))[0] == 0
    assert _check(capsys, gate, "slower", args=("--max-regression", "3%", "--group-by", "phase"))[0] == 1


def test_check_json(gate: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _check(capsys, gate, "slower", "same", args=("--max-regression", "2.5%", "--json"))
    assert code == 1
    assert json.loads(out) == {
        "baseline": gate["before"],
        "by": "kernel",
        "metadataKey": None,
        "maxRegression": "2.5%",
        "minCycles": 0,
        "ignoreAdded": False,
        "profiles": 2,
        "checkedGroups": 6,
        "regressions": [
            {
                "path": gate["slower"],
                "name": "A",
                "status": "changed",
                "phaseCyclesBefore": 100,
                "phaseCyclesAfter": 104,
                "phaseCyclesRatio": 1.04,
            }
        ],
        "errors": [],
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-regression", "3"], "a fraction must be below 1 (did you mean 3%?)"),
        (["--max-regression=-1%"], "invalid threshold '-1%'"),
        (["--max-regression", "three"], "invalid threshold 'three'"),
        ([], "the following arguments are required: --max-regression"),
        (["--max-regression", "3%", "--clip"], "--clip is not available in ipu-nb profile-check"),
    ],
)
def test_check_usage_errors(
    gate: dict[str, str], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, "profile-check", gate["same"], "--baseline", gate["before"], *args)
    assert (code, out) == (2, "")
    assert message in err and len(err.splitlines()) == 1


def test_check_trouble_is_exit_2(
    gate: dict[str, str], corrupt: Path, missing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after = [gate["slower"], str(missing)]
    code, out, err = run_cli(
        capsys, "profile-check", *after, "--baseline", gate["before"], "--max-regression", "3%", "--workers", "1"
    )
    assert code == 2  # a profile could not be checked: trouble wins over the regression found in the other
    assert f"{gate['slower']}\tA\tchanged" in out
    assert err == f"ipu-nb profile-check: error: profile not found: {missing.absolute()}\n"
    code, out, err = run_cli(
        capsys, "profile-check", gate["same"], "--baseline", str(corrupt), "--max-regression", "3%"
    )
    assert (code, out) == (2, "")
    assert err.startswith("ipu-nb profile-check: error: baseline: ") and len(err.splitlines()) == 1
    code, _, err = run_cli(capsys, "profile-check", gate["same"], "--baseline", str(missing), "--max-regression", "3%")
    assert code == 2 and "is neither a profile file" in err


def test_the_api_and_the_gate_agree(gate: dict[str, str]) -> None:
    from fractions import Fraction

    from ipu_nb._fleet.gate import regressed

    result = Fleet([gate["slower"], gate["added"]], workers=1).compare(gate["before"])
    flags = regressed(result.groups, Fraction(3, 100))
    # A plain reference: absent sides are 0; regressed iff after * 100 > before * 103.
    expected = [
        (r["phase_cycles_after"] or 0) * 100 > (r["phase_cycles_before"] or 0) * 103
        for r in result.groups.iter_rows(named=True)
    ]
    assert flags.to_list() == expected and sum(expected) == 2
    assert ipu_nb.compare(gate["before"], gate["slower"]).groups.height == 3
