"""`ipu-nb profile-diff`: golden outputs worked out by hand (golden_pair.py), profile-query's flags, errors."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from builders import columns_from_tiles, profile_from_tiles, write_with_pycapnp
from cli_run import run_cli as _run
from golden_pair import AFTER, BEFORE, CLOCK_HZ

from ipu_nb import ComparisonError, compare

GOLDEN = Path(__file__).parent.parent / "golden"


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("diff")
    before = write_with_pycapnp(columns_from_tiles(BEFORE, CLOCK_HZ), root / "before.capnp")
    after = write_with_pycapnp(columns_from_tiles(AFTER, CLOCK_HZ), root / "after.capnp")
    return str(before), str(after)


@pytest.mark.parametrize(
    ("golden", "args"),
    [
        ("diff_rename.txt", ["--rename", "A=Ä"]),
        ("diff_by_name_limit3.txt", ["--sort-by", "name", "--limit", "3"]),
        ("diff_phase_tile1.txt", ["--group-by", "phase", "--tile", "1"]),
        ("diff_rename_limit2.json", ["--rename", "A=Ä", "--json", "--limit", "2"]),
    ],
)
def test_golden(capsys: pytest.CaptureFixture[str], paths: tuple[str, str], golden: str, args: list[str]) -> None:
    code, out, err = _run(capsys, "profile-diff", *paths, *args)
    assert (code, err) == (0, "")
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")


def test_json_matches_the_python_api(capsys: pytest.CaptureFixture[str], paths: tuple[str, str]) -> None:
    import ipu_nb

    code, out, _ = _run(capsys, "profile-diff", *paths, "--json", "--limit", "0", "--kind", "compute")
    assert code == 0
    report = json.loads(out)
    c = ipu_nb.compare(*paths, kind="compute")
    assert out == c.to_json(limit=0)
    assert [g["name"] for g in report["groups"]] == c.groups["name"].to_list()
    assert [g["phaseCyclesDelta"] for g in report["groups"]] == c.groups["phase_cycles_delta"].to_list()
    listed = sum(g["phaseCyclesDelta"] for g in report["groups"])
    delta = report["delta"]
    assert listed + delta["unlistedPhaseCycles"] + delta["overlapTerm"] == delta["phaseCycles"]
    assert delta["unlistedPhaseCycles"] == 0


def test_unlisted_groups_reconcile_in_json(capsys: pytest.CaptureFixture[str], paths: tuple[str, str]) -> None:
    for limit in ("1", "2", "4"):
        _, out, _ = _run(capsys, "profile-diff", *paths, "--json", "--limit", limit, "--sort-by", "samples")
        report = json.loads(out)
        d = report["delta"]
        assert len(report["groups"]) == int(limit)
        assert sum(g["phaseCyclesDelta"] for g in report["groups"]) + d["unlistedPhaseCycles"] == d["groupPhaseCycles"]


def test_an_unused_metadata_key_warns_once_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], paths: tuple[str, str]
) -> None:
    code, out, err = _run(capsys, "profile-diff", *paths, "--sort-by", "name", "--limit", "3", "--metadata-key", "x")
    assert code == 0 and out == (GOLDEN / "diff_by_name_limit3.txt").read_text(encoding="utf-8")
    assert err == "ipu-nb profile-diff: warning: --metadata-key has no effect without --group-by metadata\n"


def test_metadata_key_and_at_in_the_header(capsys: pytest.CaptureFixture[str], paths: tuple[str, str]) -> None:
    code, out, _ = _run(
        capsys, "profile-diff", *paths, "--group-by", "metadata", "--metadata-key", 'la"yer', "--at", "90"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[3].startswith('by=metadata metadataKey="la\\"yer" at=90 groups=1 ')
    assert lines[5].split("\t")[:2] == ["(missing)", "changed"]


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["--bogus"], 2),
        (["--limit", "x"], 2),
        (["--kind", "bogus"], 2),
        (["--metadata", "=x"], 2),
        (["--tile", "4294967296"], 2),
        (["--sort-by", "cycles"], 2),
        (["--samples", "3"], 2),  # profile-query's --samples has no meaning in a diff
        (["--rename", "nothing"], 2),
        (["--rename", "A=x", "--rename", "A=y"], 2),
        (["--rename", "A=Ä", "--rename", "C=Ä"], 2),
        (["--lim", "3"], 2),
        (["--group-by", "metadata"], 1),
        (["--rename", "Z=Ä"], 1),
        (["--rename", "A=B"], 1),
    ],
)
def test_errors_exit_status_and_nothing_on_stdout(
    capsys: pytest.CaptureFixture[str], paths: tuple[str, str], args: list[str], status: int
) -> None:
    code, out, err = _run(capsys, "profile-diff", *paths, *args)
    assert code == status
    assert out == ""
    assert len(err.strip().splitlines()) == 1


def test_messages(capsys: pytest.CaptureFixture[str], paths: tuple[str, str], tmp_path: Path) -> None:
    _, _, err = _run(capsys, "profile-diff", *paths, "--group-by", "metadata")
    assert err == "ipu-nb profile-diff: error: --group-by metadata requires --metadata-key NAME\n"
    _, _, err = _run(capsys, "profile-diff", *paths, "--rename", "Z=Ä")
    assert err == (
        "ipu-nb profile-diff: error: renames: the before profile has no kernel group 'Z' (under these filters)\n"
    )
    code, out, err = _run(capsys, "profile-diff", paths[0], str(tmp_path / "missing.capnp"))
    assert (code, out) == (1, "") and "missing.capnp" in err
    corrupt = tmp_path / "corrupt.capnp"
    corrupt.write_bytes(b"\x00\x00\x00\x00\xff\xff\x00\x00garbage")
    code, out, err = _run(capsys, "profile-diff", str(corrupt), paths[1])
    assert (code, out) == (1, "") and len(err.strip().splitlines()) == 1


def test_clock_mismatch(capsys: pytest.CaptureFixture[str], paths: tuple[str, str], tmp_path: Path) -> None:
    other = write_with_pycapnp(columns_from_tiles(AFTER, 2000), tmp_path / "fast.capnp")
    code, out, err = _run(capsys, "profile-diff", paths[0], str(other))
    assert (code, out) == (1, "")
    assert "before clockHz=1000, after clockHz=2000" in err and "--allow-clock-mismatch" in err
    code, out, err = _run(capsys, "profile-diff", paths[0], str(other), "--allow-clock-mismatch")
    assert (code, err) == (0, "")
    assert out.splitlines()[1].startswith("after tiles=3 samples=6/6 spanCycles=150 spanMs=75.000000 clockHz=2000 ")


def test_flags_are_profile_query_s(capsys: pytest.CaptureFixture[str]) -> None:
    from ipu_nb._compare import FILTERS

    code, out, _ = _run(capsys, "profile-diff", "--help")
    assert code == 0
    for flag in ("--kind", "--kernel", "--operation-contains", "--tile", "--phase", "--metadata", "--at"):
        assert flag in out
    for flag in (
        "--group-by",
        "--metadata-key",
        "--sort-by",
        "--limit",
        "--json",
        "--rename",
        "--allow-clock-mismatch",
    ):
        assert flag in out
    assert "BEFORE" in out and "AFTER" in out and "|after - before|" in out
    from ipu_nb._cli import build_parser

    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    diff = commands.choices["profile-diff"]
    group = next(g for g in diff._action_groups if (g.title or "").startswith("filters"))
    assert tuple(a.dest for a in group._group_actions) == FILTERS  # the CLI passes exactly compare()'s filters


def test_python_dash_m(paths: tuple[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "profile-diff", *paths, "--rename", "A=Ä"], capture_output=True, timeout=120
    )
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout == (GOLDEN / "diff_rename.txt").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "ipu_nb", "profile-diff", *paths, "--rename", "Z=Ä"], capture_output=True, timeout=120
    )
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert proc.stderr.count(b"\n") == 1 and b"Traceback" not in proc.stderr


def test_the_reference_page_shows_the_real_output() -> None:
    """docs/reference/compare.md's text example is the golden output, and its error lines are the real messages."""
    page = (Path(__file__).parents[2] / "docs" / "reference" / "compare.md").read_text(encoding="utf-8")
    marker = "ipu-nb profile-diff before.capnp after.capnp --rename A=Ä\n```\n\n```\n"
    shown = page[page.index(marker) + len(marker) :].split("```", 1)[0]
    assert shown == (GOLDEN / "diff_rename.txt").read_text(encoding="utf-8")
    assert (
        "ipu-nb profile-diff: error: renames: the before profile has no kernel group 'Z' (under these filters)" in page
    )
    before, after = (profile_from_tiles(BEFORE, CLOCK_HZ), profile_from_tiles(AFTER, 2000))
    with pytest.raises(ComparisonError) as info:
        compare(before, after)
    assert f"\n{info.value}\n" in page
