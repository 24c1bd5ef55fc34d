"""Frame-cache benchmark: verified reopen vs the unverified memory-mapped one, and checksum throughput.

    .venv/bin/python benchmarks/bench_cache.py [--profile PATH] [--repeat N]

Writes the profile's cache entry into a temporary cache, then measures, each in its own
fresh subprocess (fastest of ``--repeat`` runs): reopening through `open_profile` (every
file read into memory and checked against its XXH3-64 checksum before parsing); the
previous design, which memory-mapped the Arrow files and parsed them unchecked; and the
floor, reading the entry's bytes. Then the throughput of each checksum candidate over
the entry's bytes, in one process. Target on a 2-core machine: reopen ≤ 0.2 s on the
full-size profile.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import textwrap
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from timing import fastest_fresh_run, profile_path  # benchmarks/ is on the path when a benchmark runs

_MEASURE = textwrap.dedent(
    """
    import json, os, resource, sys, time
    path, what, cache = sys.argv[1], sys.argv[2], sys.argv[3]
    os.environ["IPU_NB_CACHE"] = cache
    import pyarrow as pa, xxhash  # imports are not part of any figure
    from pathlib import Path
    from ipu_nb._load import open_profile, _cache
    t = time.perf_counter()
    if what == "populate":
        open_profile(path, progress=False)
        _cache.wait_for_writes()
    elif what == "verified":
        assert open_profile(path, progress=False).sample_count
    elif what == "unverified":  # the same files memory-mapped and parsed, no checksum, no code checks
        entry = _cache.cache_location() / _cache.cache_key(Path(path))
        json.loads((entry / "profile.json").read_text())
        for file in entry.glob("*.arrow"):
            pa.ipc.open_file(pa.memory_map(str(file))).read_all()
    elif what == "floor":  # the same bytes read into memory, neither checked nor parsed
        entry = _cache.cache_location() / _cache.cache_key(Path(path))
        for file in entry.glob("*.arrow"):
            file.read_bytes()
    seconds = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"seconds": seconds, "rss": rss}))
    """
)


def measure(path: Path, what: str, cache: Path, repeat: int) -> dict:
    """The fastest of `repeat` fresh-subprocess runs of `what`, with the highest peak RSS of them."""
    return fastest_fresh_run(_MEASURE, (str(path), what, str(cache)), repeat)


def checksum_candidates() -> dict[str, Callable[[memoryview], object]]:
    import xxhash

    pool = ThreadPoolExecutor(os.cpu_count() or 1)
    chunk = 8 << 20

    def crc32_threads(view: memoryview) -> object:
        return list(pool.map(lambda offset: zlib.crc32(view[offset : offset + chunk]), range(0, len(view), chunk)))

    return {
        "xxhash.xxh3_64 (used)": xxhash.xxh3_64_intdigest,
        "xxhash.xxh3_128": xxhash.xxh3_128_intdigest,
        "xxhash.xxh64": xxhash.xxh64_intdigest,
        "zlib.crc32": zlib.crc32,
        f"zlib.crc32, 8 MiB chunks on {os.cpu_count()} threads": crc32_threads,
        "zlib.adler32": zlib.adler32,
        "hashlib.md5": lambda view: hashlib.md5(view).digest(),
        "hashlib.sha1": lambda view: hashlib.sha1(view).digest(),
        "hashlib.sha256": lambda view: hashlib.sha256(view).digest(),
        "hashlib.blake2b": lambda view: hashlib.blake2b(view).digest(),
    }


def throughput(data: bytes, repeat: int) -> list[tuple[str, float]]:
    """GB/s of each checksum candidate over `data` (fastest of `repeat` passes each)."""
    view = memoryview(data)
    figures = []
    for name, function in checksum_candidates().items():
        best = float("inf")
        for _ in range(max(repeat, 1)):
            began = time.perf_counter()
            function(view)
            best = min(best, time.perf_counter() - began)
        figures.append((name, len(data) / best / 1e9))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", type=Path, help="profile to cache (default: the full-size demo profile)")
    parser.add_argument("--repeat", type=int, default=3, help="keep the fastest of N runs of each measurement")
    args = parser.parse_args()
    path = profile_path(args.profile)
    with tempfile.TemporaryDirectory(prefix="ipu-nb-bench-cache-") as tmp:
        cache = Path(tmp)
        measure(path, "populate", cache, 1)
        (entry,) = [p for p in cache.iterdir() if not p.name.startswith(".")]
        entry_bytes = sum(f.stat().st_size for f in entry.iterdir())
        verified = measure(path, "verified", cache, args.repeat)
        unverified = measure(path, "unverified", cache, args.repeat)
        floor = measure(path, "floor", cache, args.repeat)
        data = b"".join(f.read_bytes() for f in sorted(entry.iterdir()))
    sums = throughput(data, args.repeat)
    del data
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rows = [
        ("profile", f"{path}  ({path.stat().st_size / 1e6:.0f} MB; cache entry {entry_bytes / 1e6:.0f} MB)"),
        ("reopen, verified (open_profile)", f"{verified['seconds']:.3f} s   (target ≤ 0.2 s)"),
        ("reopen, unverified memory map (before)", f"{unverified['seconds']:.3f} s"),
        ("verified / unverified", f"{verified['seconds'] / unverified['seconds']:.2f}x"),
        ("key + reading the entry into memory (floor)", f"{floor['seconds']:.3f} s"),
        ("reopen peak RSS, verified", f"{verified['rss'] / 1e6:.0f} MB"),
        ("reopen peak RSS, unverified", f"{unverified['rss'] / 1e6:.0f} MB  (the mapped pages count too)"),
    ]
    used = sums[0][1]
    rows.append(("checksums over the entry's bytes", "(each in one thread unless it says otherwise)"))
    rows += [
        (f"  {name}", f"{gbs:6.2f} GB/s   {entry_bytes / gbs / 1e6:6.1f} ms per entry   ({used / gbs:.1f}x xxh3_64)")
        for name, gbs in sums
    ]
    machine = f"{os.cpu_count()} CPUs, load average {load:.1f} at the end (figures scale with contention)"
    rows.append(("machine", machine))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
