"""Perfetto/Chrome trace export: `Profile.to_trace` on the full-size demo profile, plain and gzip.

Run: `.venv/bin/python benchmarks/bench_trace.py [--size full|small] [--slice N]`.
Each export runs in its own process (after loading the profile from the frame cache), so
its peak memory above the loaded profile is its own: the streamed writer's stays at a
chunk's worth whatever the profile's size. Printed side by side in one run: seconds,
CPU seconds, file size, MB/s, the extra peak memory, and the speed-up over building every
event as a Python dict and `json.dump`-ing the lot (measured on a slice of the same
samples), the in-memory way the writer avoids.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

import ipu_nb


def _rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _dict_events(profile: ipu_nb.Profile, rows: pl.DataFrame) -> list[dict[str, object]]:
    """The same slices as `to_trace`, one Python dict each (the in-memory baseline)."""
    metadata: dict[int, dict[str, str]] = {}
    chosen = profile.metadata.filter(pl.col("sample").is_in(rows["sample"].implode()))
    for sid, name, value in chosen.select("sample", "name", "value").iter_rows():
        metadata.setdefault(sid, {})[name] = value
    clock = profile.clock_hz
    events: list[dict[str, object]] = []
    for r in rows.iter_rows(named=True):
        start = r["offset"] * 10**9 // clock
        end = (r["offset"] + r["duration"]) * 10**9 // clock
        events.append(
            {
                "name": r["operation"] or r["kind"],
                "cat": r["kind"],
                "ph": "X",
                "ts": start / 1000,
                "dur": (end - start) / 1000,
                "pid": r["tile"] % 64 + 1,
                "tid": r["tile"] + 1,
                "args": {
                    "tile": r["tile"],
                    "kind": r["kind"],
                    "kernel": r["kernel"],
                    "phase": r["phase"],
                    "epoch": r["epoch"],
                    "cycles": r["duration"],
                    "offset": r["offset"],
                    "sample": r["sample"],
                    "metadata": metadata.get(r["sample"], {}),
                },
            }
        )
    return events


def child(mode: str, size: str, out: Path, slice_: int) -> None:
    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path(size), progress=False)
    loaded = _rss()
    began, began_cpu = time.perf_counter(), time.process_time()
    if mode == "dicts":
        rows = profile.samples.head(slice_)
        with out.open("w", encoding="utf-8") as file:
            json.dump({"traceEvents": _dict_events(profile, rows)}, file, ensure_ascii=False)
        samples = rows.height
    else:
        query = None
        if mode == "slice":
            rows = profile.samples.head(slice_)
            query = ipu_nb.Query(tiles=tuple(rows["tile"].unique().to_list()))
        profile.to_trace(out, query, progress=False)
        samples = profile.sample_count if query is None else profile.filter(query).height
    wall, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    size = out.stat().st_size
    print(json.dumps({"wall": wall, "cpu": cpu, "bytes": size, "extra": _rss() - loaded, "samples": samples}))


def measure(mode: str, size: str, out: Path, slice_: int) -> dict[str, float]:
    argv = [sys.executable, __file__, "--child", mode, "--size", size, "--out", str(out), "--slice", str(slice_)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("full", "small"), default="full")
    parser.add_argument("--slice", type=int, default=40_000, help="samples of the dict-and-json.dump comparison")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.size, args.out, args.slice)
        return
    profile = ipu_nb.open_profile(ipu_nb.demo_profile_path(args.size))  # decoded once; the children hit the cache
    print(f"profile: {profile.path} ({profile.sample_count:,} samples, {profile.tile_count:,} tiles)")
    del profile
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        rows = []
        for label, mode, name in (
            ("to_trace, .json", "all", "trace.json"),
            ("to_trace, .json.gz", "all", "trace.json.gz"),
        ):
            r = measure(mode, args.size, Path(tmp) / name, args.slice)
            rows.append((label, r))
        # Like for like on a slice: the streamed writer vs one dict per event and json.dump.
        streamed = measure("slice", args.size, Path(tmp) / "slice.json", args.slice)
        dicts = measure("dicts", args.size, Path(tmp) / "dicts.json", args.slice)
    print(f"{'export':<22}{'samples':>11}{'seconds':>9}{'cpu s':>8}{'MB':>9}{'MB/s':>8}{'extra peak MB':>15}")
    for label, r in [*rows, ("streamed, slice", streamed), ("dicts + json.dump", dicts)]:
        mb = r["bytes"] / 1e6
        print(
            f"{label:<22}{int(r['samples']):>11,}{r['wall']:>9.2f}{r['cpu']:>8.2f}{mb:>9.1f}"
            f"{mb / r['wall']:>8.0f}{r['extra'] / 1e6:>15.0f}"
        )
    per_sample = (dicts["wall"] / dicts["samples"]) / (streamed["wall"] / streamed["samples"])
    print(f"streamed writer vs dicts + json.dump, per sample: {per_sample:.1f}x faster")
    plain, packed = rows[0][1], rows[1][1]
    print(f"gzip: {plain['bytes'] / packed['bytes']:.1f}x smaller, {packed['wall'] / plain['wall']:.2f}x the time")


if __name__ == "__main__":
    main()
