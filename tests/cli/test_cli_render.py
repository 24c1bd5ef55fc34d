"""`ipu-nb profile-render`: a standalone offline report; usage errors exit 2, bad files exit 1, one line each."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from functools import partial

import pytest
from chart_fixtures import (
    HOSTILE,
    HOSTILE_KERNEL,
    NASTY_NAMES,
    RAW_CHARACTERS,
    external_references,
    without_vega_bundle,
    write_hostile,
    write_nasty,
)
from cli_run import run_cli
from rendered import parse

import ipu_nb
from ipu_nb._cli import main
from ipu_nb._markup.sanitize import html_text, label


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
    assert len(specs) == 8
    for expected in (
        "phaseCycles by kernel", "workCycles by kind", "active tiles", "phase waterfall", "busy share",
        "recoverable cycles per superstep", "critical tiles",
    ):  # fmt: skip
        assert any(t.startswith(expected) for t in titles), (expected, titles)
    # the findings, as profile-findings ranks them, each sentence escaped
    assert "Findings, ranked by the cycles at stake" in document
    for finding in ipu_nb.findings(ipu_nb.open_profile(profile_path, progress=False)):
        assert html_text(finding.message) in document
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
    status, out, err = run_cli(capsys, "profile-render", *argv)
    assert status == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
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


@pytest.mark.parametrize("static", [False, True], ids=["interactive", "static"])
def test_render_of_nasty_names_and_a_nasty_file_name(tmp_path, static):
    """Control characters, separators and noncharacters in names and in the file name: the installed
    command (a child process, so an abort inside vl-convert fails the test) writes the report."""
    profile = write_nasty(tmp_path / "nasty \x01 \u2028 \ufdd0.capnp")
    out = tmp_path / "report.html"
    argv = [sys.executable, "-m", "ipu_nb", "profile-render", str(profile), "-o", str(out), "--top", "100"]
    process = subprocess.run([*argv, *(["--static"] if static else [])], capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stderr[-3000:]
    assert "ERROR" not in process.stderr, process.stderr[-3000:]  # Vega errors vl-convert logged
    document = out.read_text(encoding="utf-8")
    page = parse(document)
    ours = without_vega_bundle(document)
    assert not (RAW_CHARACTERS - set("\t\n\r")) & set(ours)
    assert html_text(str(profile)) in document  # the description: the path, labelled
    assert "nasty \\u{1} \\u{2028} \\u{fdd0}.capnp" in document
    if static:
        assert page.scripts == []
        svgs = re.findall(r"<svg\b.*?</svg>", document, flags=re.DOTALL)
        assert len(svgs) == 8
        texts = {node.text for svg in svgs for node in ET.fromstring(svg).iter() if node.text}
        assert {label(n) for n in NASTY_NAMES if len(label(n)) <= 30} & texts  # the kernel breakdown's axis
    else:
        specs = [json.loads(text) for attrs, text in page.scripts if attrs.get("type") == "application/json"]
        assert len(specs) == 8 and document.lower().count("</script") == 10
        rows = [row for spec in specs for values in spec.get("datasets", {}).values() for row in values]
        names = {row.get("name") for row in rows}
        assert {label(n) for n in NASTY_NAMES} - {"(no kernel)"} <= names  # every kernel is a group
    for name in NASTY_NAMES:  # the longest-samples table and the kernel table of the HTML reprs
        assert html_text(name) in document, name


def test_render_with_a_baseline_adds_the_comparison(tmp_path, capsys):
    before, after = tmp_path / "before.capnp", tmp_path / "after.capnp"
    generate = partial(ipu_nb.generate_profile, tiles=16, layers=1, phases=40, seed=2)
    generate(before)
    generate(after, scale_kernel={"gemm_f32_accumulate_large_rows": 1.2})
    out = tmp_path / "diff.html"
    assert main(["profile-render", str(after), "--baseline", str(before), "-o", str(out)]) == 0
    capsys.readouterr()
    document = out.read_text(encoding="utf-8")
    page = parse(document)
    specs = [json.loads(text) for attrs, text in page.scripts if attrs.get("type") == "application/json"]
    titles = [spec["title"] if isinstance(spec["title"], str) else spec["title"]["text"] for spec in specs]
    expected = ipu_nb.compare(before, after)
    s = expected.summary
    assert any(t.startswith(f"phase-cycle delta by kernel: {s.phase_cycles_before:,} → ") for t in titles)
    assert any(t.startswith("Δ phaseCycles per tile") for t in titles) and len(specs) == 10
    assert f"Compared with {before} (before) -&gt; {after} (after):" in document
    assert "attribution of the phase-cycle delta" in document


def test_a_baseline_that_cannot_be_compared_is_one_line(tmp_path, capsys, profile_path):
    other = tmp_path / "other-clock.capnp"
    from builders import S, T, columns_from_tiles, write_with_pycapnp

    write_with_pycapnp(columns_from_tiles([T(0, [S(0, 10)])], clock_hz=1000), other)
    status = main(["profile-render", str(profile_path), "--baseline", str(other), "-o", str(tmp_path / "r.html")])
    captured = capsys.readouterr()
    assert status == 1 and captured.out == ""
    assert captured.err.startswith(f"ipu-nb profile-render: error: --baseline {other}: ") and "clock" in captured.err
    assert captured.err.count("\n") == 1
    assert not (tmp_path / "r.html").exists()
    missing = tmp_path / "missing.capnp"
    assert main(["profile-render", str(profile_path), "--baseline", str(missing), "-o", str(tmp_path / "r.html")]) == 1
    assert str(missing) in capsys.readouterr().err
