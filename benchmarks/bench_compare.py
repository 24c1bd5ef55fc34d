"""`ipu_nb.compare` on two full-size profiles (1,170,240 samples each), after load, beside plain queries.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--repeat N] [BEFORE [AFTER]]``

BEFORE defaults to the full-size demo profile; AFTER to the same workload generated
with another seed (written once to the temp directory, ~10 s). For each group key
the script prints, measured side by side in one process: the best of N wall-clock
seconds of ``compare(before, after, by=...)``, of the two plain ``query(...,
group_by=..., limit=0)`` calls it builds on, their ratio, and the ratio to the 1 s
budget; then every query ``compare`` runs (by the key and by phase, on both sides), so
the cost of aligning is the difference; plus best process CPU seconds (steadier on a
shared machine).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from timing import best  # best wall-clock and CPU seconds of N runs, after a warm-up

BUDGET_S = 1.0
_SEED = 7


def _other_seed() -> Path:
    from ipu_nb._synth.generate import GENERATOR_VERSION, generate_columns, write_profile

    path = Path(tempfile.gettempdir()) / f"ipu-nb-bench-compare-seed{_SEED}-v{GENERATOR_VERSION}.capnp"
    if not path.exists():
        print(f"generating {path} (seed {_SEED})...")
        partial = path.with_suffix(".partial")
        write_profile(generate_columns(seed=_SEED), partial, progress=False)
        partial.replace(path)  # never leave a half-written file under the final name
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?", help="before profile (default: ipu_nb.demo_profile_path())")
    parser.add_argument("after", nargs="?", help=f"after profile (default: the demo workload with seed {_SEED})")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per case (best is reported)")
    args = parser.parse_args()

    import ipu_nb

    paths = [args.before or ipu_nb.demo_profile_path(), args.after or _other_seed()]
    before, after = (ipu_nb.open_profile(p, progress=False) for p in paths)
    for label, path, profile in (("before", paths[0], before), ("after", paths[1], after)):
        print(f"{label}: {path} ({profile.sample_count:,} samples, {profile.tile_count} tiles)")

    print(
        f"\n{'group by':<10} {'compare s':>10} {'2 queries s':>12} {'ratio':>6} {'÷ budget':>9} "
        f"{'its queries s':>14} {'compare cpu':>12} {'queries cpu':>12} {'groups':>7}"
    )
    for by in ("kernel", "operation", "tile", "phase", "kind"):

        def queries(by: str = by) -> None:
            ipu_nb.query(before, group_by=by, limit=0)
            ipu_nb.query(after, group_by=by, limit=0)

        def its_queries(by: str = by) -> None:
            queries(by)
            if by != "phase":
                queries("phase")

        compared, compared_cpu = best(lambda by=by: ipu_nb.compare(before, after, by=by), args.repeat)
        plain, plain_cpu = best(queries, args.repeat)
        underlying, _ = best(its_queries, args.repeat)
        groups = ipu_nb.compare(before, after, by=by).groups.height
        print(
            f"{by:<10} {compared:10.3f} {plain:12.3f} {compared / plain:5.2f}x {compared / BUDGET_S:8.2f}x "
            f"{underlying:14.3f} {compared_cpu:12.3f} {plain_cpu:12.3f} {groups:7d}"
        )
    text, _ = best(lambda: ipu_nb.compare(before, after, by="tile").to_text(limit=0), args.repeat)
    print(f"\ncompare(by='tile').to_text(limit=0): {text:.3f} s (compare plus rendering 1,472 rows)")


if __name__ == "__main__":
    main()
