"""`Profile.to_trace` / `ipu-nb export-trace`: the trace read back as JSON matches the profile, sample for sample."""

from __future__ import annotations

import gzip
import itertools
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp
from cli_run import run_cli

import ipu_nb
from ipu_nb._io.trace import writer

HOSTILE = 'quote " backslash \\ tab \t nl \n nul \x00 bell \x07 </script> é 漢 \u2028'
TILES = [
    T(
        66,  # row 1, column 2
        [
            S(2**32 - 30, 70, "compute", HOSTILE, "gemm", phase=1, metadata=[("role", "matmul"), ("role", "again")]),
            S(70, 70, "idle", "", "", phase=2),  # zero length, no operation: named by its kind
            S(70, 1570, "exchange", "x", "", phase=3, metadata=[("a", HOSTILE), ("b", "")]),
        ],
    ),
    T(0, [S(5, 1505, "synchronization", "sync", "", phase=3, metadata=[("active", "true")])]),
    T(1471, []),  # a tile with no samples gets no track
    T(63, [S(1000, 1000 + 2**31, "compute", "long", "copy_u64", phase=4, epoch=2)]),
]


def read_trace(path: Path) -> dict[str, Any]:
    """The trace as JSON, numbers kept exact (Decimal), gzip or not."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    document: dict[str, Any] = json.loads(data, parse_float=Decimal)
    return document


def ns(us: Decimal | int) -> int:
    value = Decimal(us) * 1000
    assert value == value.to_integral_value(), f"{us} µs is not a whole number of nanoseconds"
    return int(value)


def expected_events(profile: ipu_nb.Profile) -> dict[int, dict[str, Any]]:
    """Per sample id, what its slice must say: an independent reading of the profile's frames."""
    metadata: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for sid, name, value in profile.metadata.select("sample", "name", "value").iter_rows():
        metadata[sid].append((name, value))
    out: dict[int, dict[str, Any]] = {}
    for row in profile.samples.iter_rows(named=True):
        entries: dict[str, str] = {}
        seen: dict[str, int] = defaultdict(int)
        for name, value in metadata[row["sample"]]:
            seen[name] += 1
            entries[name if seen[name] == 1 else f"{name} ({seen[name]})"] = value
        clock = profile.clock_hz
        start = row["offset"] * 10**9 // clock if clock else row["offset"]
        end = (row["offset"] + row["duration"]) * 10**9 // clock if clock else row["offset"] + row["duration"]
        out[row["sample"]] = {
            "name": row["operation"] or row["kind"],
            "cat": row["kind"],
            "ts_ns": start,
            "dur_ns": end - start,
            "pid": row["tile"] % 64 + 1,
            "tid": row["tile"] + 1,
            "args": {
                "tile": row["tile"],
                "kind": row["kind"],
                "kernel": row["kernel"],
                "phase": row["phase"],
                "epoch": row["epoch"],
                "cycles": row["duration"],
                "offset": row["offset"],
                "sample": row["sample"],
                "metadata": entries,
            },
        }
    return out


def check_trace(document: dict[str, Any], profile: ipu_nb.Profile, ids: set[int] | None = None) -> None:
    """Every expected sample is one complete event with the right fields; tracks are named; nothing overlaps."""
    expected = expected_events(profile)
    if ids is not None:
        expected = {sid: e for sid, e in expected.items() if sid in ids}
    events = document["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    meta = [e for e in events if e["ph"] == "M"]
    assert len(slices) + len(meta) == len(events)
    got = {e["args"]["sample"]: e for e in slices}
    assert len(got) == len(slices) and set(got) == set(expected)
    for sid, want in expected.items():
        event = got[sid]
        assert {k: event[k] for k in ("name", "cat", "pid", "tid", "args")} == {
            k: want[k] for k in ("name", "cat", "pid", "tid", "args")
        }, sid
        assert (ns(event["ts"]), ns(event["dur"])) == (want["ts_ns"], want["dur_ns"])
    tiles = {e["args"]["tile"] for e in slices}
    names = {(e["name"], e["pid"], e.get("tid")): e["args"] for e in meta}
    for tile in tiles:
        assert names[("thread_name", tile % 64 + 1, tile + 1)] == {"name": f"tile {tile}"}
        assert names[("thread_sort_index", tile % 64 + 1, tile + 1)] == {"sort_index": tile // 64}
        assert names[("process_name", tile % 64 + 1, None)] == {"name": f"IPU column {tile % 64}"}
    assert len(meta) == 2 * len(tiles) + 2 * len({t % 64 for t in tiles})
    by_track: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for e in slices:
        by_track[e["tid"]].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
    for spans in by_track.values():
        spans.sort()
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    assert document["otherData"]["clockHz"] == profile.clock_hz
    assert document["otherData"]["samples"] == len(expected)


def test_every_sample_is_one_slice_with_its_fields(tmp_path: Path) -> None:
    profile = profile_from_tiles(TILES)
    path = profile.to_trace(tmp_path / "t.json")
    assert path == tmp_path / "t.json"
    check_trace(read_trace(path), profile)
    document = read_trace(path)
    [hostile] = [e for e in document["traceEvents"] if e.get("args", {}).get("kernel") == "gemm"]
    assert hostile["name"] == HOSTILE and hostile["args"]["metadata"] == {"role": "matmul", "role (2)": "again"}
    raw = path.read_text(encoding="utf-8")
    assert "漢" in raw and "\\u0000" in raw and "</script>" in raw  # UTF-8 kept; controls escaped


def test_filters_choose_the_samples(tmp_path: Path) -> None:
    profile = profile_from_tiles(TILES)
    query = ipu_nb.Query(kind="compute")
    document = read_trace(profile.to_trace(tmp_path / "c.json", query))
    ids = set(profile.filter(query)["sample"].to_list())
    assert len(ids) == 2
    check_trace(document, profile, ids)


def test_nothing_matches_is_a_valid_empty_trace(tmp_path: Path) -> None:
    profile = profile_from_tiles(TILES)
    document = read_trace(profile.to_trace(tmp_path / "e.json", ipu_nb.Query(kernel="no such kernel")))
    assert document["traceEvents"] == [] and document["otherData"]["samples"] == 0


def test_unknown_clock_counts_a_cycle_as_a_nanosecond(tmp_path: Path) -> None:
    profile = profile_from_tiles(TILES, clock_hz=0)
    document = read_trace(profile.to_trace(tmp_path / "z.json"))
    check_trace(document, profile)
    assert "clockHz is 0" in document["otherData"]["time"]


def test_chunks_and_gzip_do_not_change_a_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    profile = ipu_nb.open_profile(
        ipu_nb.generate_profile(tmp_path / "p.capnp", "mlp", "step", tiles=6, phases=6, progress=False)
    )
    whole = profile.to_trace(tmp_path / "whole.json").read_bytes()
    monkeypatch.setattr(writer, "CHUNK_SAMPLES", 7)
    assert profile.to_trace(tmp_path / "chunked.json").read_bytes() == whole
    assert gzip.decompress(profile.to_trace(tmp_path / "t.json.gz").read_bytes()) == whole
    check_trace(read_trace(tmp_path / "t.json.gz"), profile)


def test_cli_matches_the_api_and_reports_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_with_pycapnp(columns_from_tiles(TILES), tmp_path / "p.capnp")
    out = tmp_path / "cli.json"
    code, stdout, stderr = run_cli(capsys, "export-trace", str(source), "-o", str(out), "--tile", "66", "--phase", "1")
    assert (code, stderr) == (0, "")
    assert stdout.startswith(f"wrote {out}: 1 slices on 1 tile tracks, ")
    profile = ipu_nb.open_profile(source)
    api = profile.to_trace(tmp_path / "api.json", ipu_nb.Query(tiles=(66,), phases=(1,)))
    assert out.read_bytes() == api.read_bytes()
    assert run_cli(capsys, "export-trace", "-q", str(source), "-o", str(out)) == (0, "", "")
    check_trace(read_trace(out), profile)


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["{missing}", "-o", "{out}"], 1, "profile not found"),
        (["{profile}", "-o", "{tmp}/no/such/dir/t.json"], 2, "no such directory"),
        (["{profile}", "-o", "{tmp}"], 2, "is a directory"),
        (["{profile}", "-o", "{out}", "--kind", "bogus"], 2, "invalid choice"),
        (["{profile}"], 2, "-o/--output"),
    ],
)
def test_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], status: int, fragment: str
) -> None:
    source = write_with_pycapnp(columns_from_tiles(TILES), tmp_path / "p.capnp")
    names = {"missing": tmp_path / "nope.capnp", "out": tmp_path / "t.json", "profile": source, "tmp": tmp_path}
    code, stdout, stderr = run_cli(capsys, "export-trace", *(a.format(**names) for a in argv))
    assert (code, stdout) == (status, "")
    assert stderr.count("\n") == 1 and fragment in stderr
    assert not (tmp_path / "t.json").exists()
