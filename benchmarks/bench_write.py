"""Writer speed: `write_columns` on a full-size-like profile, and against pycapnp's builder.

Run: `.venv/bin/python benchmarks/bench_write.py [--samples N] [--out DIR]`.
Prints seconds, MB/s and the per-sample speed-up over the pycapnp builder measured on a
slice of the same columns in the same run.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from builders import write_with_pycapnp

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._model.columns import Columns, Strings

TILES = 1472


def synthetic_columns(samples: int, seed: int = 0) -> Columns:
    """A phase-mode-like profile: ~12 metadata entries a sample, a few thousand distinct strings."""
    rng = np.random.default_rng(seed)
    per_tile = max(1, samples // TILES)
    n = per_tile * TILES
    meta = rng.integers(4, 21, n)  # mean 12
    m = int(meta.sum())
    names = [f"next_{k}" for k in ("kernel", "role", "layer", "wave", "rows", "shape")] + [
        "active", "send_count", "receive_count", "send_bytes", "receive_bytes", "role", "shape", "worker_count",
        "active_commands", "label", "layer", "wave", "output_block_row", "output_block_column", "inner_block",
    ]  # fmt: skip
    values = [str(v) for v in range(2000)] + ["true", "false", "13x64x64", "gemm_f32_accumulate_large_rows"]
    values += [f"MLP layer {i}: GEMM block ({i % 7}, {i % 5}) inner block {i % 3}" for i in range(800)]
    operations = [f"MLP layer {i // 9}: GEMM block ({i % 9}, 0)" for i in range(530)] + ["sync before exchange"]
    kernels = ["gemm_f32_accumulate_large_rows", "gemm_f32_init_large_rows", "copy_u64", ""]
    start = np.cumsum(rng.integers(50, 5000, n)).astype(np.uint32)
    return Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=rng.permutation(TILES).astype(np.uint32),
        tile_sample_counts=np.full(TILES, per_tile, np.int64),
        local_index=np.tile(np.arange(per_tile, dtype=np.uint32), TILES),
        phase=np.tile(np.arange(per_tile, dtype=np.uint32) // 2, TILES),
        epoch=np.zeros(n, np.uint32),
        kind=rng.integers(0, 4, n).astype(np.uint16),
        start=start,
        end=start + rng.integers(50, 5000, n).astype(np.uint32),
        operation=Strings(rng.integers(0, len(operations), n).astype(np.uint32), pa.array(operations)),
        kernel=Strings(rng.integers(0, len(kernels), n).astype(np.uint32), pa.array(kernels)),
        metadata_counts=meta.astype(np.int64),
        metadata_name=Strings(rng.integers(0, len(names), m).astype(np.uint32), pa.array(names)),
        metadata_value=Strings(rng.integers(0, len(values), m).astype(np.uint32), pa.array(values)),
        exchange_event_cycles=np.zeros(n, np.uint32),
        activity_counts=np.zeros(n, np.int64),
    )


def timed(fn: object, *args: object, **kwargs: object) -> float:
    begin = time.perf_counter()
    fn(*args, **kwargs)  # type: ignore[operator]
    return time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_170_240)
    parser.add_argument("--out", type=Path, default=None, help="directory for the files (default: a temp dir)")
    args = parser.parse_args()
    begin = time.perf_counter()
    columns = synthetic_columns(args.samples)
    print(f"columns: {columns.sample_count:,} samples, {len(columns.metadata_name):,} metadata entries "
          f"({time.perf_counter() - begin:.1f} s to synthesise)")  # fmt: skip
    with tempfile.TemporaryDirectory(dir=args.out) as tmp:
        small = columns.head(3)
        ours_small = min(timed(write_columns, small, Path(tmp) / "s.capnp") for _ in range(3))
        theirs_small = timed(write_with_pycapnp, small, Path(tmp) / "p.capnp")
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        seconds = timed(write_columns, columns, Path(tmp) / "full.capnp")
        size = (Path(tmp) / "full.capnp").stat().st_size
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    per_ours = ours_small / small.sample_count
    per_theirs = theirs_small / small.sample_count
    print(f"slice of {small.sample_count:,} samples: write_columns {ours_small * 1e3:.1f} ms, "
          f"pycapnp builder {theirs_small * 1e3:.0f} ms -> {per_theirs / per_ours:.0f}x")  # fmt: skip
    print(f"full: write_columns {seconds:.1f} s for {size / 1e6:.0f} MB ({size / 1e6 / seconds:.0f} MB/s); "
          f"pycapnp builder would take ~{per_theirs * columns.sample_count:.0f} s "
          f"({per_theirs * columns.sample_count / seconds:.0f}x slower)")  # fmt: skip
    print(f"peak RSS {rss / 1e3:.0f} MB (before the full write {rss_before / 1e3:.0f} MB)")


if __name__ == "__main__":
    main()
