"""Superstep analytics on the full-size demo profile (1,170,240 samples), after load.

Run: ``.venv/bin/python benchmarks/bench_supersteps.py [--repeat N] [PROFILE]``

Prints the best of N wall-clock seconds of each analysis beside a plain
``query(group_by="phase", limit=0)`` measured in the same run, their ratio to it and to
the issue's budget (supersteps 0.5 s, what_if 1 s, findings 2 s), and the best process
CPU seconds (all threads; steadier when other jobs share the machine). One untimed run
of each warms the per-profile facts the query core caches.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from timing import best, open_for_benchmark  # benchmarks/ is on the path when a benchmark runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", nargs="?", help="profile path (default: ipu_nb.demo_profile_path())")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per case (best is reported)")
    args = parser.parse_args()

    import polars as pl

    import ipu_nb

    profile = open_for_benchmark(args.profile)

    # The kernel with the most work: what a user would ask "what if it were 20% faster" about.
    heaviest = str(
        profile.samples.group_by(pl.col("kernel").cast(pl.String))
        .agg(pl.col("duration").cast(pl.Int64).sum())
        .sort("duration", descending=True)
        .item(0, "kernel")
    )
    every = profile.samples.get_column("kernel").cast(pl.String).unique().to_list()
    cases: list[tuple[str, float | None, Callable[[], Any]]] = [
        (
            'query(group_by="phase", limit=0)  [reference]',
            None,
            lambda: ipu_nb.query(profile, group_by="phase", limit=0),
        ),
        ("supersteps(profile)", 0.5, lambda: ipu_nb.supersteps(profile)),
        ('supersteps(profile, kind="compute")', 0.5, lambda: ipu_nb.supersteps(profile, kind="compute")),
        ("tile_balance(profile)", None, lambda: ipu_nb.tile_balance(profile)),
        (f"what_if({{{heaviest!r}: 0.8}})", 1.0, lambda: ipu_nb.what_if(profile, {heaviest: 0.8})),
        (f"what_if(all {len(every)} kernels at 1.0)", 1.0, lambda: ipu_nb.what_if(profile, dict.fromkeys(every, 1.0))),
        ("findings(profile)", 2.0, lambda: ipu_nb.findings(profile)),
    ]
    print(f"\n{'case':<58} {'seconds':>8} {'÷ query':>8} {'÷ budget':>9} {'cpu s':>7}")
    reference = None
    for label, budget, run in cases:
        seconds, cpu = best(run, args.repeat)
        reference = reference or seconds
        shown = f"{seconds / budget:8.2f}x" if budget else f"{'-':>9}"
        print(f"{label:<58} {seconds:8.3f} {seconds / reference:7.2f}x {shown} {cpu:7.3f}")
    found = ipu_nb.findings(profile)
    print(f"\n{len(found)} findings; the first: {found[0].message if len(found) else '-'}")


if __name__ == "__main__":
    main()
