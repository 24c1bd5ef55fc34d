"""Loader benchmark: fast decoder vs pycapnp on the full-size MLP phase profile, measured in one run.

    .venv/bin/python benchmarks/bench_load.py [--profile PATH] [--slice-samples N] [--repeat N]

Prints: the floor (reading the file's bytes), the fast path's cold load (seconds,
µs/sample, peak RSS as a multiple of the file size), the same load with the numpy text
path instead of the C interner, pycapnp's µs/sample on a file
written from the first tiles (about 100k samples) and the fast path on that same file,
the ratio, and reopening from the frame cache. Every figure comes from its own fresh
subprocess (peak RSS from the kernel's VmHWM, else ``resource.getrusage``), so none inherits another's memory
or warm imports; ``--repeat N`` keeps the fastest of N such runs of each (on a shared
machine other load only ever slows a run down). Targets on a 2-core machine: cold load ≤ 2 s (≥ 30× pycapnp),
reopen ≤ 0.2 s, peak memory ≤ 1.5× the file size.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import textwrap
from pathlib import Path

import numpy as np
from timing import fastest_fresh_run, profile_path  # benchmarks/ is on the path when a benchmark runs

_MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    path, what, cache = sys.argv[1], sys.argv[2], sys.argv[3]

    def peak_rss():
        # VmHWM: on Linux ru_maxrss keeps the parent's peak across exec (this benchmark's parent
        # decodes the full profile to cut its slice, so ru_maxrss would report that instead).
        try:
            with open("/proc/self/status") as status:
                return next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmHWM:"))
        except (OSError, StopIteration):
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    import os
    os.environ["IPU_NB_CACHE"] = cache
    import numpy, polars, pyarrow, pyarrow.compute  # imports are not part of any figure
    from ipu_nb._load import open_profile, _cache, _wire
    from ipu_nb._load._reference import decode_reference
    from ipu_nb._load._frames import build_profile
    from ipu_nb._schema import load_schema
    load_schema()  # pycapnp's schema parse: a one-off, like the imports
    samples = None
    t = time.perf_counter()
    cpu = time.process_time()
    if what == "floor":
        with open(path, "rb") as f:
            data = f.read()
        samples = 0
    elif what in ("fast", "numpy"):
        if what == "fast" and not _wire.NATIVE:
            sys.exit("the C interner is not built: run `python hatch_build.py` (or reinstall)")
        text_path = "native" if what == "fast" else "numpy"  # numpy: the path taken without the C interner
        samples = open_profile(path, cache=False, progress=False, text_path=text_path).sample_count
    elif what == "reference":
        samples = build_profile(decode_reference(path)).sample_count
    elif what == "cached":
        samples = open_profile(path, cache=True, progress=False).sample_count
    seconds = time.perf_counter() - t
    cpu = time.process_time() - cpu
    rss = peak_rss()
    print(json.dumps({"seconds": seconds, "cpu": cpu, "samples": samples, "rss": rss}))
    """
)


def measure(path: Path, what: str, cache: Path, repeat: int = 1) -> dict:
    """The fastest of `repeat` fresh-subprocess runs of `what`, with the highest peak RSS of them."""
    return fastest_fresh_run(_MEASURE, (str(path), what, str(cache)), repeat)


def head_tiles(path: Path, target: int, out: Path) -> Path:
    """Write a profile of the first tiles of `path` holding about `target` samples."""
    from ipu_nb._io.capnp_writer import write_columns
    from ipu_nb._load._wire import decode_file

    c = decode_file(path)
    k = int(np.searchsorted(np.cumsum(c.tile_sample_counts), target)) + 1
    return write_columns(c.head(k), out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, help="profile to load (default: the full-size demo profile)")
    parser.add_argument("--slice-samples", type=int, default=100_000, help="samples in the pycapnp slice")
    parser.add_argument("--repeat", type=int, default=1, help="keep the fastest of N runs of each measurement")
    args = parser.parse_args()
    path = profile_path(args.profile)
    size = path.stat().st_size
    with tempfile.TemporaryDirectory(prefix="ipu-nb-bench-") as tmp:
        cache = Path(tmp) / "cache"
        piece = head_tiles(path, args.slice_samples, Path(tmp) / "head.capnp")
        floor = measure(path, "floor", cache, args.repeat)
        fast = measure(path, "fast", cache, args.repeat)
        numpy_only = measure(path, "numpy", cache, args.repeat)
        ref_piece = measure(piece, "reference", cache, args.repeat)
        fast_piece = measure(piece, "fast", cache, args.repeat)
        measure(path, "cached", cache)  # populates the cache
        reopen = measure(path, "cached", cache, args.repeat)

    n = fast["samples"]
    fast_us = fast["seconds"] / n * 1e6
    ref_us = ref_piece["seconds"] / ref_piece["samples"] * 1e6
    piece_us = fast_piece["seconds"] / fast_piece["samples"] * 1e6
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = [
        ("profile", f"{path}  ({size / 1e6:.0f} MB, {n:,} samples)"),
        ("read file bytes (floor)", f"{floor['seconds']:.2f} s"),
        (
            "fast cold load",
            f"{fast['seconds']:.2f} s   {fast_us:.2f} µs/sample   (CPU {fast['cpu']:.2f} s; target ≤ 2 s)",
        ),
        (
            "  same, numpy text path",
            f"{numpy_only['seconds']:.2f} s   (without the C interner: {numpy_only['seconds'] / fast['seconds']:.1f}x"
            " the fast load)",
        ),
        ("fast peak RSS", f"{fast['rss'] / size:.2f}x file size ({fast['rss'] / 1e6:.0f} MB; target ≤ 1.5x)"),
        (
            f"pycapnp, {ref_piece['samples']:,}-sample slice",
            f"{ref_piece['seconds']:.2f} s   {ref_us:.2f} µs/sample   (CPU {ref_piece['cpu']:.2f} s)",
        ),
        ("fast, same slice", f"{fast_piece['seconds']:.3f} s   {piece_us:.2f} µs/sample"),
        ("speed-up vs pycapnp", f"{ref_us / fast_us:.0f}x (full file)   {ref_us / piece_us:.0f}x (same slice)"),
        ("reopen from cache", f"{reopen['seconds']:.3f} s   (target ≤ 0.2 s)"),
        ("reopen peak RSS", f"{reopen['rss'] / 1e6:.0f} MB"),
        ("machine", f"{os.cpu_count()} CPUs, load average {load:.1f} at the end (figures scale with contention)"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
