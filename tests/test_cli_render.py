"""`ipu-nb profile-render`: a standalone offline report; usage errors exit 2, bad files exit 1, one line each."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from chart_fixtures import HOSTILE, HOSTILE_KERNEL, external_references, write_hostile
from test_report import parse

from ipu_nb._cli import main


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory):
    return write_hostile(tmp_path_factory.mktemp("render") / "hostile.capnp")


def test_render_writes_an_offline_report_with_summary_charts_and_samples(profile_path, tmp_path, capsys):
    out = tmp_path / "deep" / "report.html"
    assert main(["profile-render", str(profile_path), "-o", str(out), "--samples", "3"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{out}\n" and captured.err == ""
    document = out.read_text(encoding="utf-8")
    assert external_references(document) == []
    page = parse(document)
    specs = [json.loads(text) for attrs, text in page.scripts if attrs.get("type") == "application/json"]
    titles = [spec.get("title", "") for spec in specs]
    titles = [t if isinstance(t, str) else t.get("text", "") for t in titles]
    assert len(specs) == 6
    for expected in ("phaseCycles by kernel", "workCycles by kind", "active tiles", "phase waterfall", "busy share"):
        assert any(t.startswith(expected) for t in titles), (expected, titles)
    assert any("duration distribution" in json.dumps(spec) for spec in specs)
    assert "<b>samples</b>=9" in document  # profile summary
    assert "longest samples" in document and document.count("<tr>") >= 3 + 4
    assert f"<title>ipu-nb report: {profile_path.name}</title>" in document
    assert HOSTILE not in document and HOSTILE_KERNEL not in document
    assert not {t for t, _ in page.tags} & {"img", "iframe"}


def test_render_static_has_no_script(profile_path, tmp_path, capsys):
    out = tmp_path / "static.html"
    assert main(["profile-render", str(profile_path), "-o", str(out), "--static", "--title", HOSTILE]) == 0
    document = out.read_text(encoding="utf-8")
    assert "<script" not in document and "<svg" in document
    assert HOSTILE not in document and "&lt;img src=x" in document


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-o", "{out}"], "the following arguments are required: PROFILE"),
        (["{profile}"], "the following arguments are required: -o/--output"),
        (["{profile}", "-o", "{tmp}/r.png"], "the report is HTML: -o must end in .html"),
        (["{profile}", "-o", "{out}", "--top", "0"], "argument --top: must be at least 1"),
        (["{profile}", "-o", "{out}", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_usage_errors_exit_2_with_one_line(profile_path, tmp_path, capsys, argv, message):
    argv = [a.format(profile=profile_path, out=tmp_path / "r.html", tmp=tmp_path) for a in argv]
    try:
        status = main(["profile-render", *argv])
    except SystemExit as exc:
        status = exc.code
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("kind", ["missing", "corrupt", "empty"])
def test_bad_files_exit_1_with_one_line(tmp_path, capsys, kind):
    path = tmp_path / f"{kind}.capnp"
    if kind == "corrupt":
        path.write_bytes(b"\x00\x00\x00\x00\x10\x00\x00\x00" + b"\xff" * 24)
    elif kind == "empty":
        path.write_bytes(b"")
    assert main(["profile-render", str(path), "-o", str(tmp_path / "r.html")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ipu-nb profile-render: error: "), captured.err
    assert not (tmp_path / "r.html").exists()


def test_the_installed_command_reports_a_bad_file_in_one_line(tmp_path):
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "ipu_nb",
            "profile-render",
            str(tmp_path / "nope.capnp"),
            "-o",
            str(tmp_path / "r.html"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 1
    assert process.stdout == ""
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
