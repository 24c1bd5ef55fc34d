"""Query-core timings on the full-size demo profile (1,170,240 samples), after load.

Run: ``.venv/bin/python benchmarks/bench_query.py [--repeat N] [PROFILE]``

Prints the best of N wall-clock seconds for each query shape, its ratio to the
0.3 s budget, and the best process CPU seconds (all threads; a steadier figure when
other jobs share the machine), measured side by side in one process. A first,
untimed run of each query warms the per-profile facts the core caches.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from timing import best, open_for_benchmark  # benchmarks/ is on the path when a benchmark runs

BUDGET_S = 0.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", nargs="?", help="profile path (default: ipu_nb.demo_profile_path())")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per query (best is reported)")
    args = parser.parse_args()

    import ipu_nb
    from ipu_nb._query import filter_samples, inspect_operations

    profile = open_for_benchmark(args.profile)

    # From the profile itself: the two most common metadata names (the first with its most
    # common value) for a two-filter query that matches many samples; "role" to group by.
    names = profile.metadata.get_column("name").cast(str).value_counts(sort=True).get_column("name").to_list()
    common, second = names[0], names[1 if len(names) > 1 else 0]
    values = profile.metadata.filter(profile.metadata.get_column("name").cast(str) == common)
    value = str(values.get_column("value").cast(str).value_counts(sort=True).row(0)[0])
    key = "role" if "role" in names else common
    span = profile.span_cycles
    at = span // 2

    cases: list[tuple[str, Callable[[], Any]]] = [("default query (group by kernel)", lambda: ipu_nb.query(profile))]
    for by in ("kind", "kernel", "operation", "phase", "tile"):
        cases.append((f"--group-by {by} --limit 0", lambda by=by: ipu_nb.query(profile, group_by=by, limit=0)))
    cases += [
        (f"--at {at} --samples 8", lambda: ipu_nb.query(profile, at=at, samples=8)),
        (
            f"--metadata {common}={value} --metadata {second}",
            lambda: ipu_nb.query(profile, metadata=[(common, value), (second, None)]),
        ),
        (
            f"--group-by metadata --metadata-key {key}",
            lambda: ipu_nb.query(profile, group_by="metadata", metadata_key=key),
        ),
        ("--samples 8 (no filter)", lambda: ipu_nb.query(profile, samples=8)),
        (
            "--operation-contains GEMM --kind compute",
            lambda: ipu_nb.query(profile, operation_contains="GEMM", kind="compute"),
        ),
        ("to_text() of --group-by tile --limit 0", lambda: ipu_nb.query(profile, group_by="tile", limit=0).to_text()),
        (f"filter_samples(at={at}) (widget at-slice)", lambda: filter_samples(profile, at=at)),
        (f"filter_samples(metadata={key}) (all metadata lists)", lambda: filter_samples(profile, metadata=key)),
        ("profile-inspect", lambda: inspect_operations(profile)),
    ]
    print(f"\n{'query':<62} {'seconds':>8} {'÷ budget':>9} {'cpu s':>7} {'matched':>10}")
    for label, run in cases:
        seconds, cpu = best(run, args.repeat)
        answer = run()
        matched = getattr(answer, "matched_sample_count", getattr(answer, "height", None))
        shown = "" if matched is None else str(matched)
        print(f"{label:<62} {seconds:8.3f} {seconds / BUDGET_S:8.2f}x {cpu:7.3f} {shown:>10}")


if __name__ == "__main__":
    main()
