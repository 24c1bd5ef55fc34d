"""Hostile folders and files for fleets and profile-batch: FIFOs, symlink loops, hive's null label, bad sidecars.

Each test builds its folder in tmp_path; a FIFO is never given a writer, so a read of
one would block (the suite's timeout would fail the test).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from cli_run import run_cli
from duckdb_sql import HIVE, relation
from polars.testing import assert_frame_equal

import ipu_nb
from ipu_nb import Fleet, FleetError
from ipu_nb._fleet import walk
from ipu_nb._fleet.errors import NotARegularFileError
from ipu_nb._fleet.labels import sidecar_path
from ipu_nb._fleet.sources import expand_sources
from ipu_nb._fleet.tasks import guarded, query_one
from ipu_nb._io.parquet import HIVE_NULL, TABLES
from ipu_nb._terminal import printable

FIFO = "not a regular file (FIFO)"
DANGLING = "dangling symlink (its target does not exist)"
LOOP = "symlink loop"
ERROR = "ipu-nb profile-batch: error: "


def _copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, target)
    return target


def _reasons(fleet: Fleet) -> dict[str, str]:
    return dict(zip(fleet.errors["path"], fleet.errors["reason"], strict=True))


def _profile_rows(capsys: pytest.CaptureFixture[str], path: Path, shown: str | None = None) -> list[str]:
    """profile-batch's text rows of one unlabelled profile: its path, then profile-query's rows."""
    rows = run_cli(capsys, "profile-query", str(path))[1].splitlines()[2:]
    return [f"{shown or path}\t{row}" for row in rows]


# --- sidecars that are no regular file -------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "directory", "device", "dangling"])
def test_a_sidecar_that_is_no_regular_file_is_that_profiles_error(sweep: list[Path], tmp_path: Path, kind: str) -> None:
    good = _copy(sweep[0], tmp_path / "good.capnp")
    odd = _copy(sweep[1], tmp_path / "odd.capnp")
    sidecar_path(good).write_text(json.dumps({"batch": 1}), encoding="utf-8")
    sidecar = sidecar_path(odd)
    if kind == "fifo":
        os.mkfifo(sidecar)
        problem = FIFO
    elif kind == "directory":
        sidecar.mkdir()
        problem = "not a regular file (directory)"
    elif kind == "device":
        sidecar.symlink_to("/dev/zero")  # endless: a read would never finish
        problem = "not a regular file (character device)"
    else:
        sidecar.symlink_to(tmp_path / "gone.json")
        problem = DANGLING
    fleet = Fleet(tmp_path, workers=1)
    assert fleet.errors.rows() == [(str(odd), "LabelError", f"{sidecar}: cannot read labels: {problem}")]
    frame = fleet.query(limit=1)
    assert frame.select("batch", "path").rows() == [(1, str(good))]
    assert fleet.errors.height == 1


def test_a_fifo_sidecar_in_profile_batch(sweep: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _copy(sweep[0], tmp_path / "good.capnp")
    odd = _copy(sweep[1], tmp_path / "odd.capnp")
    os.mkfifo(sidecar_path(odd))
    code, out, err = run_cli(capsys, "profile-batch", str(tmp_path), "--workers", "1")
    assert code == 1
    assert out.splitlines()[1:] == _profile_rows(capsys, good)
    assert err == f"{ERROR}{sidecar_path(odd)}: cannot read labels: {FIFO}\n"


def test_a_symlinked_sidecar_is_read(sweep: list[Path], tmp_path: Path) -> None:
    profile = _copy(sweep[0], tmp_path / "run.capnp")
    real = tmp_path / "labels" / "run.json"
    real.parent.mkdir()
    real.write_text(json.dumps({"commit": "a1b2"}), encoding="utf-8")
    sidecar_path(profile).symlink_to(real)
    fleet = Fleet(profile)
    assert fleet.labels.rows() == [("a1b2", str(profile))]
    assert fleet.errors.is_empty()


def test_a_sparse_huge_sidecar_is_refused_by_size(sweep: list[Path], tmp_path: Path) -> None:
    profile = _copy(sweep[0], tmp_path / "run.capnp")
    with open(sidecar_path(profile), "wb") as handle:
        handle.truncate(1 << 40)  # a terabyte of holes: reading it all would take hours
    fleet = Fleet(profile)
    assert fleet.errors["reason"].to_list() == [f"{sidecar_path(profile)}: labels file is larger than 1048576 bytes"]


# --- directory symlinks and ** ---------------------------------------------------------------


@pytest.fixture
def looped(sweep: list[Path], tmp_path: Path) -> Path:
    """tree/a/x.capnp and tree/b/y.capnp, two links to .. in a/ and one to ../../elsewhere (a profile w) in b/."""
    tree = tmp_path / "tree"
    _copy(sweep[0], tree / "a" / "x.capnp")
    _copy(sweep[1], tree / "b" / "y.capnp")
    _copy(sweep[2], tmp_path / "elsewhere" / "w.capnp")
    (tree / "a" / "up").symlink_to("..")
    (tree / "a" / "again").symlink_to("..")
    (tree / "b" / "out").symlink_to(Path("..") / ".." / "elsewhere")
    return tree


def test_double_star_does_not_follow_directory_symlinks(looped: Path) -> None:
    real = [looped / "a" / "x.capnp", looped / "b" / "y.capnp"]
    assert expand_sources(str(looped / "**" / "*.capnp")) == real
    assert expand_sources(looped) == real  # the folder form walks the same way
    assert expand_sources(str(looped / "**")) == real
    # A link the pattern names itself (a literal, or one wildcard component) is entered: it goes no deeper.
    assert expand_sources(str(looped / "b" / "out" / "*.capnp")) == [looped / "b" / "out" / "w.capnp"]
    assert expand_sources(str(looped / "b" / "*" / "*.capnp")) == [looped / "b" / "out" / "w.capnp"]
    assert expand_sources(str(looped / "*" / "up" / "a" / "x.capnp")) == [looped / "a" / "up" / "a" / "x.capnp"]


def test_profile_batch_over_a_looped_tree(looped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "profile-batch", str(looped / "**" / "*.capnp"), "--workers", "1")
    assert (code, err) == (0, "")
    paths = [line.split("\t")[0] for line in out.splitlines()[1:]]
    assert list(dict.fromkeys(paths)) == [str(looped / "a" / "x.capnp"), str(looped / "b" / "y.capnp")]


def test_the_walk_is_bounded(sweep: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy(sweep[0], tmp_path / "run.capnp")
    for i in range(30):
        (tmp_path / f"note-{i}.txt").write_text("x")
    monkeypatch.setattr(walk, "MAX_ENTRIES", 20)
    with pytest.raises(FleetError, match=f"^{tmp_path}: more than 20 directory entries to look at; name a narrower"):
        Fleet(tmp_path)
    pattern = str(tmp_path / "**" / "*.capnp")
    with pytest.raises(FleetError, match="more than 20 directory entries"):
        Fleet(pattern)
    monkeypatch.setattr(walk, "MAX_ENTRIES", 100)
    assert Fleet(pattern).paths == (tmp_path / "run.capnp",)


def _glob_tree(root: Path) -> None:
    """A tree without symlinks: nested and hidden folders, hidden files, names with glob characters."""
    for name in [
        "a/x.capnp",
        "a/y.txt",
        "a/deep/er/z.capnp",
        "a/deep/q.capnp",
        "b/x.capnp",
        "b/.hidden.capnp",
        ".h/in.capnp",
        "a/.h2/in.capnp",
        "top.capnp",
        "c[1]/odd.capnp",
        "d.capnp/inner.capnp",
    ]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")


PATTERNS = [
    "**/*.capnp",
    "**",
    "*",
    "*.capnp",
    ".*/*.capnp",
    "**/.*",
    "**/.h*/*.capnp",
    "a/*/*.capnp",
    "[ab]/*.capnp",
    "?/x.capnp",
    "a/**/er/*.capnp",
    "a/**/**/*.capnp",
    "a/**",
    "**/deep/*",
    "c[[]1]/*",
    "*/",
    "b/.hidden.capnp",
    "nope/*.capnp",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_patterns_match_what_glob_matches_in_a_tree_without_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    _glob_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    for text in (pattern, str(tmp_path / pattern)):
        expected = sorted({m for m in glob.glob(text, recursive=True) if not os.path.isdir(m)})  # glob repeats some
        assert walk.match_pattern(text) == expected


# --- hive's null partition -------------------------------------------------------------------


def test_a_file_named_like_hives_null_round_trips(sweep: list[Path], tmp_path: Path) -> None:
    odd = _copy(sweep[0], tmp_path / "in" / f"{HIVE_NULL}.capnp")
    plain = _copy(sweep[1], tmp_path / "in" / "plain.capnp")
    profile = ipu_nb.open_profile(odd)
    profile.to_parquet(tmp_path / "one")
    data = ipu_nb.scan_parquet(tmp_path / "one")
    label = f"{HIVE_NULL}.capnp"  # the suffix kept: the bare name would read back as null
    for frame in ("samples", "metadata", "tiles", "exchange_activities"):
        read = getattr(data, frame).collect()
        assert read["profile"].null_count() == 0
        assert_frame_equal(read.filter(profile=label).drop("profile"), getattr(profile, frame))
    assert data.profiles.select("profile").collect().to_series().to_list() == [label]

    fleet = Fleet(tmp_path / "in", workers=1)
    fleet.to_parquet(tmp_path / "many")
    assert fleet.errors.is_empty()
    data = ipu_nb.scan_parquet(tmp_path / "many")
    assert sorted(data.samples.select("profile").unique().collect().to_series()) == [label, "plain"]
    assert_frame_equal(data.tiles.filter(profile="plain").drop("profile").collect(), ipu_nb.open_profile(plain).tiles)


def test_a_label_given_as_hives_null_is_refused(sweep: list[Path], tmp_path: Path) -> None:
    profile = ipu_nb.open_profile(sweep[0])
    with pytest.raises(FleetError, match=f"profile label '{HIVE_NULL}' reads back as null"):
        profile.to_parquet(tmp_path, label=HIVE_NULL)
    fleet = Fleet(sweep[:2], labels={sweep[0]: {"x": "a"}, sweep[1]: {"x": HIVE_NULL}}, workers=1)
    with pytest.raises(FleetError, match=f"label template '{{x}}': {sweep[1]}: profile label '{HIVE_NULL}'"):
        fleet.to_parquet(tmp_path, label="{x}")
    assert not (tmp_path / "samples").exists()  # refused before anything was written


@pytest.mark.parametrize(
    "label",
    ["/", "=", "a=b/c", "..", ".", "%41", "%2F", "a/../b", " ", "\t\n", f"{HIVE_NULL}x", "null", "NULL", "€"],
)
def test_awkward_labels_read_back_exactly(sweep: list[Path], tmp_path: Path, label: str) -> None:
    profile = ipu_nb.open_profile(sweep[0])
    profile.to_parquet(tmp_path / "ds", label=label)
    files = [p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()]
    assert sorted(f.parts[1] for f in files) == sorted(TABLES)  # one file a table, in place
    assert {(f.parts[0], len(f.parts), f.name) for f in files} == {("ds", 4, "part-0.parquet")}
    data = ipu_nb.scan_parquet(tmp_path / "ds")
    for frame in ("samples", "metadata", "tiles"):
        assert getattr(data, frame).select("profile").unique().collect().to_series().to_list() == [label]
    assert data.profiles.select("profile").collect().item() == label
    assert_frame_equal(data.metadata.drop("profile").collect(), profile.metadata)
    where = tmp_path / "ds" / "tiles" / "*" / "*.parquet"
    assert relation(f"SELECT DISTINCT profile FROM read_parquet('{where}', {HIVE})").fetchall() == [(label,)]


def test_a_label_template_that_cannot_be_filled_is_a_fleet_error(sweep: list[Path], tmp_path: Path) -> None:
    fleet = Fleet(sweep[:2], labels={sweep[0]: {"batch": 1}, sweep[1]: {"batch": "big"}}, workers=1)
    cannot = f"label template '{{batch:03d}}': {sweep[1]}: ValueError: Unknown format"
    with pytest.raises(FleetError, match=re.escape(cannot)):
        fleet.to_parquet(tmp_path, label="{batch:03d}")
    with pytest.raises(FleetError, match=re.escape("label template 'b{batch': expected '}' before end of string")):
        fleet.to_parquet(tmp_path, label="b{batch")
    assert list(tmp_path.iterdir()) == []


def test_a_file_name_too_long_for_a_label_is_that_profiles_error(sweep: list[Path], tmp_path: Path) -> None:
    long = _copy(sweep[0], tmp_path / "in" / ("é" * 70 + ".capnp"))  # 146 bytes: a file name, not a label
    plain = _copy(sweep[1], tmp_path / "in" / "plain.capnp")
    fleet = Fleet(tmp_path / "in", workers=1)
    fleet.to_parquet(tmp_path / "ds")
    [(path, error, reason)] = fleet.errors.rows()
    assert (path, error) == (str(long), "LabelError")
    assert reason.startswith(f"{long}: profile label 'éééé") and "give a label template" in reason
    rows = ipu_nb.scan_parquet(tmp_path / "ds").profiles.select("profile", "path").collect().rows()
    assert rows == [("plain", str(plain))]


# --- one bad sidecar spoils nothing else -----------------------------------------------------


def test_a_sidecar_label_named_like_a_result_column_is_that_profiles_error(
    sweep: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [_copy(sweep[i], tmp_path / f"run-{i}.capnp") for i in range(4)]
    sidecar_path(paths[0]).write_text(json.dumps({"path": "elsewhere"}), encoding="utf-8")
    sidecar_path(paths[1]).write_text(json.dumps({"batch": 1, "name": "x"}), encoding="utf-8")
    sidecar_path(paths[2]).write_text(json.dumps({"status": "green"}), encoding="utf-8")  # a comparison column
    sidecar_path(paths[3]).write_text(json.dumps({"batch": 4}), encoding="utf-8")
    fleet = Fleet(tmp_path, workers=1)
    clash = "has the name of a result column; rename it"
    assert _reasons(fleet) == {
        str(paths[0]): f"{sidecar_path(paths[0])}: label 'path' {clash}",
        str(paths[1]): f"{sidecar_path(paths[1])}: label 'name' {clash}",
        str(paths[2]): f"{sidecar_path(paths[2])}: label 'status' {clash}",
    }
    assert fleet.labels.rows() == [(None, str(p)) for p in paths[:3]] + [(4, str(paths[3]))]
    assert fleet.query(limit=1).select("batch", "path").rows() == [(4, str(paths[3]))]
    comparison = fleet.compare(sweep[5])
    assert comparison.summary.select("batch", "path").rows() == [(4, str(paths[3]))]
    code, out, err = run_cli(capsys, "profile-batch", str(tmp_path), "--workers", "1", "--limit", "1")
    assert code == 1
    assert [line.split("\t")[:2] for line in out.splitlines()[1:]] == [["4", str(paths[3])]]
    assert err.splitlines() == [f"{ERROR}{reason}" for reason in _reasons(fleet).values()]


def test_sidecar_text_a_frame_cannot_hold_is_that_profiles_error(sweep: list[Path], tmp_path: Path) -> None:
    bad = _copy(sweep[0], tmp_path / "bad.capnp")
    good = _copy(sweep[1], tmp_path / "good.capnp")
    named = _copy(sweep[2], tmp_path / "named.capnp")
    sidecar_path(bad).write_text('{"commit": "\\ud800"}', encoding="utf-8")  # a lone surrogate, legal JSON
    sidecar_path(good).write_text('{"commit": "a1"}', encoding="utf-8")
    sidecar_path(named).write_text('{"x\\udc80": 1}', encoding="utf-8")
    fleet = Fleet(tmp_path, workers=1)
    unicode = "is not valid Unicode text (a lone surrogate)"
    assert fleet.errors.rows() == [
        (str(bad), "LabelError", f"{sidecar_path(bad)}: label 'commit' {unicode}"),
        (str(named), "LabelError", f"{sidecar_path(named)}: label name 'x\\udc80' {unicode}"),
    ]
    assert fleet.labels.rows() == [(None, str(bad)), ("a1", str(good)), (None, str(named))]


# --- no member vanishes ----------------------------------------------------------------------


@pytest.fixture
def odd_folder(sweep: list[Path], tmp_path: Path) -> dict[str, Path]:
    """A folder whose *.capnp entries are a profile, a FIFO, a device, a dangling link, a loop and a folder link."""
    root = tmp_path / "runs"
    entries = {"good": _copy(sweep[0], root / "good.capnp")}
    entries["fifo"] = root / "fifo.capnp"
    os.mkfifo(entries["fifo"])
    entries["device"] = root / "device.capnp"
    entries["device"].symlink_to("/dev/zero")
    entries["dangling"] = root / "dangling.capnp"
    entries["dangling"].symlink_to(root / "gone.capnp")
    entries["dangling2"] = root / "dangling2.capnp"  # to the same missing target: still an entry of its own
    entries["dangling2"].symlink_to(root / "gone.capnp")
    entries["loop"] = root / "loop-a.capnp"
    entries["loop"].symlink_to(root / "loop-b.capnp")
    (root / "loop-b.capnp").symlink_to(entries["loop"])
    (root / "folder.capnp").symlink_to(tmp_path, target_is_directory=True)  # a folder: not a profile
    return entries


def _odd_reasons(entries: dict[str, Path]) -> dict[str, str]:
    loop_b = entries["loop"].with_name("loop-b.capnp")
    return {
        str(entries["dangling"]): f"{entries['dangling']}: {DANGLING}",
        str(entries["dangling2"]): f"{entries['dangling2']}: {DANGLING}",
        str(entries["device"]): f"{entries['device']}: not a regular file (character device)",
        str(entries["fifo"]): f"{entries['fifo']}: {FIFO}",
        str(entries["loop"]): f"{entries['loop']}: {LOOP}",
        str(loop_b): f"{loop_b}: {LOOP}",
    }


@pytest.mark.parametrize("form", ["folder", "pattern"])
def test_entries_that_are_no_regular_file_are_rows_of_errors(odd_folder: dict[str, Path], form: str) -> None:
    root = odd_folder["good"].parent
    fleet = Fleet(root if form == "folder" else str(root / "*.capnp"), workers=1)
    expected = _odd_reasons(odd_folder)
    assert sorted(map(str, fleet.paths)) == sorted([*expected, str(odd_folder["good"])])
    assert _reasons(fleet) == expected  # before any run
    assert set(fleet.errors["error"]) == {"NotARegularFileError"}
    frame = fleet.query(group_by="phase")
    assert frame["path"].unique().to_list() == [str(odd_folder["good"])]
    assert _reasons(fleet) == expected  # and after


def test_profile_batch_lists_every_entry_and_fails(
    odd_folder: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = odd_folder["good"].parent
    code, out, err = run_cli(capsys, "profile-batch", str(root))
    assert code == 1
    assert out.splitlines()[1:] == _profile_rows(capsys, odd_folder["good"])
    assert sorted(err.splitlines()) == sorted(f"{ERROR}{reason}" for reason in _odd_reasons(odd_folder).values())


def test_a_profile_that_becomes_a_fifo_is_not_given_to_a_worker(sweep: list[Path], tmp_path: Path) -> None:
    path = _copy(sweep[0], tmp_path / "run.capnp")
    other = _copy(sweep[1], tmp_path / "other.capnp")
    fleet = Fleet([path, other], workers=1)
    path.unlink()
    os.mkfifo(path)
    fleet.query()
    assert fleet.errors.rows() == [(str(path), "NotARegularFileError", f"{path}: {FIFO}")]
    with pytest.raises(NotARegularFileError, match=re.escape(FIFO)):
        fleet.open(0)
    with pytest.raises(NotARegularFileError, match=re.escape(FIFO)):
        fleet.compare(path)  # the baseline is read in this process


def test_a_worker_refuses_a_fifo_itself(tmp_path: Path) -> None:
    fifo = tmp_path / "run.capnp"
    os.mkfifo(fifo)
    failure = guarded(query_one, str(fifo), ipu_nb.Query())
    assert (failure.error, failure.reason) == ("NotARegularFileError", f"{fifo}: {FIFO}")


# --- terminal output -------------------------------------------------------------------------


def test_control_characters_never_reach_the_terminal(
    sweep: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _copy(sweep[0], tmp_path / "run\x1b]0;owned\x07.capnp")
    broken = tmp_path / "bad\r\n\x1b[2J.capnp"
    broken.write_bytes(b"\x00" * 64)
    label = {"note\x1b[31m": "line\r\nnext\x9b"}
    sidecar_path(good).write_text(json.dumps(label), encoding="utf-8")
    code, out, err = run_cli(capsys, "profile-batch", str(tmp_path), "--workers", "1", "--limit", "1")
    assert code == 1
    for text in (out, err):
        assert not any(c in text for c in "\x1b\x07\r\x9b")
    [(name, value)] = label.items()
    lines = out.splitlines()
    assert lines[0].startswith(printable(name) + "\tpath\t")
    assert lines[1].startswith(f"{printable(value)}\t{printable(good)}\t")
    assert len(lines) == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"{ERROR}{printable(broken.absolute())}: ")
    # --json keeps every value exact.
    code, out, _ = run_cli(capsys, "profile-batch", str(tmp_path), "--workers", "1", "--json")
    report = json.loads(out)
    assert [(p["path"], p["labels"]) for p in report["profiles"]] == [(str(good), label)]
    assert [e["path"] for e in report["errors"]] == [str(broken)]
    # A request error names its path escaped too.
    pattern = str(tmp_path / "\x1b[8m*.nothing")
    code, out, err = run_cli(capsys, "profile-batch", pattern)
    assert (code, out) == (1, "")
    assert err == f"{ERROR}{printable(pattern)}: pattern matches no file\n"
    assert "\x1b" not in err


def test_a_file_name_that_is_no_utf8(sweep: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = Path(os.fsdecode(bytes(tmp_path / "caf") + b"\xe9.capnp"))
    _copy(sweep[0], odd)
    plain = _copy(sweep[1], tmp_path / "plain.capnp")
    shown = f"{tmp_path}/caf\\xe9.capnp"
    fleet = Fleet(tmp_path, workers=1)
    assert fleet.labels["path"].to_list() == [shown, str(plain)]
    frame = fleet.query(limit=1)
    assert frame["path"].to_list() == [shown, str(plain)]
    fleet.to_parquet(tmp_path / "ds")
    assert fleet.errors.is_empty()
    data = ipu_nb.scan_parquet(tmp_path / "ds")
    assert sorted(data.samples.select("profile").unique().collect().to_series()) == ["caf\\xe9", "plain"]
    labelled = Fleet(tmp_path, labels="{word}.capnp", workers=1)
    assert labelled.labels["word"].to_list() == [None, "plain"]
    assert labelled.errors["path"].to_list() == [shown]
    code, out, err = run_cli(capsys, "profile-batch", str(tmp_path), "--workers", "1", "--limit", "1")
    assert (code, err) == (0, "")
    assert [line.split("\t")[0] for line in out.splitlines()[1:]] == [shown, str(plain)]
