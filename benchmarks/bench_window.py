"""Window timings on the full-size demo profile (1,170,240 samples): an area's samples, clipped queries.

Run: ``.venv/bin/python benchmarks/bench_window.py [--repeat N] [--area N] [PROFILE]``

Prints, measured side by side in one process (best of N wall-clock seconds, and the
best process CPU seconds, all threads):

- `ipu_nb._query.window_samples` for an area of about ``--area`` samples (default
  100,000: half the tiles over the stretch of time that holds that many), against
  its 0.1 s budget and beside a plain ``query()`` of the same run;
- ``query(window=..., clip=True, group_by=...)`` for windows of 1 %, 10 %, 50 % and
  100 % of the span, each beside the same query without a window (the ratio is
  windowed ÷ unwindowed).

A first, untimed run of each case warms the per-profile facts the core caches.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from timing import best  # benchmarks/ is on the path when a benchmark runs

AREA_BUDGET_S = 0.1


def _area_window(offset: np.ndarray, end: np.ndarray, on_tiles: np.ndarray, target: int) -> tuple[int, int]:
    """A window starting at a quarter of the span whose overlap with the chosen tiles holds about `target` samples."""
    span = int(end.max())
    start = span // 4
    live = on_tiles & (end > offset) & (end > start)

    def count(stop: int) -> int:
        return int(np.count_nonzero(live & (offset < stop)))

    lo, hi = start + 1, span
    while lo < hi:  # the smallest end with at least `target` samples (or the whole rest of the span)
        mid = (lo + hi) // 2
        if count(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return start, lo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", nargs="?", help="profile path (default: ipu_nb.demo_profile_path())")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per case (best is reported)")
    parser.add_argument("--area", type=int, default=100_000, help="samples in the timed area (default 100,000)")
    args = parser.parse_args()

    import ipu_nb
    from ipu_nb._query import window_samples

    path = args.profile or ipu_nb.demo_profile_path()
    start = time.perf_counter()
    profile = ipu_nb.open_profile(path, progress=False)
    print(f"profile: {path}")
    print(f"  {profile.sample_count:,} samples, {profile.tile_count} tiles")
    print(f"  load {time.perf_counter() - start:.2f} s (not part of the budget)")

    samples = profile.samples
    offset = samples.get_column("offset").to_numpy().astype(np.int64)
    end = offset + samples.get_column("duration").to_numpy().astype(np.int64)
    tile_ids = np.sort(profile.tiles.get_column("tile").to_numpy())
    half = tile_ids[: max(len(tile_ids) // 2, 1)].tolist()
    on_half = np.isin(samples.get_column("tile").to_numpy(), half)
    window = _area_window(offset, end, on_half, args.area)
    span = profile.span_cycles
    compute = ipu_nb.Query(kind="compute")

    print(f"\narea: tiles {half[0]}..{half[-1]} ({len(half)} tiles), window {window[0]}:{window[1]}")
    cases: list[tuple[str, Callable[[], Any], float | None]] = [
        ("query() (default, whole profile)", lambda: ipu_nb.query(profile), None),
        ("window_samples(area)", lambda: window_samples(profile, None, window, half), AREA_BUDGET_S),
        ("window_samples(area, kind=compute)", lambda: window_samples(profile, compute, window, half), AREA_BUDGET_S),
        ("window_samples(area, every tile)", lambda: window_samples(profile, None, window, None), AREA_BUDGET_S),
    ]
    print(f"{'case':<46} {'seconds':>8} {'÷ budget':>9} {'÷ query':>8} {'cpu s':>7} {'rows':>9}")
    reference = None
    for label, run, budget in cases:
        seconds, cpu = best(run, args.repeat)
        reference = reference or seconds
        answer = run()
        rows = getattr(answer, "height", getattr(answer, "matched_sample_count", 0))
        shown = f"{seconds / budget:8.2f}x" if budget else f"{'':>9}"
        print(f"{label:<46} {seconds:8.3f} {shown} {seconds / reference:7.2f}x {cpu:7.3f} {rows:>9,}")

    print(f"\n{'clipped query':<46} {'seconds':>8} {'unwindowed':>10} {'ratio':>7} {'cpu s':>7} {'matched':>9}")
    for by in ("kernel", "tile", "phase"):
        plain, _ = best(lambda by=by: ipu_nb.query(profile, group_by=by, limit=0), args.repeat)
        for share in (0.01, 0.1, 0.5, 1.0):
            lo = int(span * (0.5 - share / 2)) if share < 1 else 0
            hi = max(lo + int(span * share), lo + 1)
            run = functools.partial(ipu_nb.query, profile, window=(lo, hi), clip=True, group_by=by, limit=0)
            seconds, cpu = best(run, args.repeat)
            matched = run().matched_sample_count
            label = f"--group-by {by} --window {share:.0%} of span --clip"
            print(f"{label:<46} {seconds:8.3f} {plain:10.3f} {seconds / plain:6.2f}x {cpu:7.3f} {matched:>9,}")


if __name__ == "__main__":
    main()
