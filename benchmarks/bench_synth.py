"""Generator speed: the full-size default profiles, generated and written, against the two-minute budget.

Run: `.venv/bin/python benchmarks/bench_synth.py [--granularity phase step ...] [--out DIR]`.
Prints, per granularity, generation and write seconds for the full MLP profile and the
ratio to the 120 s budget; then, on a slice measured in the same run, the per-sample
speed-up of generate + `write_columns` over generate + pycapnp's builder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from builders import write_with_pycapnp

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._synth.generate import generate_columns

BUDGET_SECONDS = 120.0


def full_size(granularity: str, out: Path) -> None:
    began = time.perf_counter()
    columns = generate_columns("mlp", granularity)
    generated = time.perf_counter()
    path = write_columns(columns, out / f"mlp-{granularity}.capnp")
    written = time.perf_counter()
    size = path.stat().st_size
    path.unlink()
    total = written - began
    print(
        f"{granularity:>6}: {columns.sample_count:,} samples, {columns.metadata_counts.sum():,} metadata entries, "
        f"{size / 1e6:.0f} MB: generate {generated - began:.1f} s + write {written - generated:.1f} s = {total:.1f} s "
        f"({BUDGET_SECONDS / total:.1f}x under the {BUDGET_SECONDS:.0f} s budget)"
    )


def slice_speedup(out: Path) -> None:
    knobs = {"tiles": 1472, "phases": 8}
    began = time.perf_counter()
    columns = generate_columns("mlp", "phase", **knobs)
    write_columns(columns, out / "slice.capnp")
    ours = time.perf_counter() - began
    began = time.perf_counter()
    columns = generate_columns("mlp", "phase", **knobs)
    write_with_pycapnp(columns, out / "slice-pycapnp.capnp")
    theirs = time.perf_counter() - began
    n = columns.sample_count
    print(
        f" slice: {n:,} samples: generate+write_columns {ours * 1e6 / n:.2f} µs/sample, "
        f"generate+pycapnp builder {theirs * 1e6 / n:.2f} µs/sample: {theirs / ours:.0f}x faster"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--granularity", nargs="+", default=["phase", "step"], choices=["graph", "region", "phase", "step"]
    )
    parser.add_argument("--out", type=Path, default=None, help="scratch directory (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.out) as scratch:
        for granularity in args.granularity:
            full_size(granularity, Path(scratch))
        slice_speedup(Path(scratch))


if __name__ == "__main__":
    main()
