"""Hostile-input benchmark: every crafted family at a few sizes, time and peak memory against the file size.

    .venv/bin/python benchmarks/bench_hostile.py [--sizes 16,64,256] [--rows N] [--profile PATH]

Each family of tests/hostile_inputs.py (aliased texts, void and byte lists, amplified
entries, and the same filled to the edge of the memory budget, so accepted) is crafted
at each size in MB and loaded in a fresh interpreter (`open_profile`, no cache), which
reports the outcome, the seconds and its peak resident memory (the kernel's VmHWM).
Printed per run: seconds, µs per KB of file (flat across sizes: time linear in the
size), peak RSS, peak / file, and the margin under the bound (3x file + 300 MB).

Then the calibration behind the memory budget: peak bytes per row measured on valid files
of ``--rows`` rows of one kind, loaded without the memory budget (minus an empty
profile's peak), beside the bytes the budget charges each row (`ipu_nb._load._message`).
Last, the real full-size demo profile (or ``--profile``) in the same run: its seconds
and peak / file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
from timing import ROOT, profile_path  # benchmarks/ is on the path when a benchmark runs

sys.path.insert(0, str(ROOT / "tests" / "helpers"))

import hostile_inputs as h

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load import _message
from ipu_nb._model.columns import Columns, Strings

MB = 1_000_000


def families(size: int) -> list[tuple[str, Callable[[], bytes]]]:
    """Each family, crafted at `size` bytes ("edge": filling the memory budget to 97%, so accepted)."""
    edge = h.rows_at_the_edge
    return [
        ("shared operation text", lambda: h.shared_step_text(size)),
        ("shared metadata name", lambda: h.shared_metadata_name(size)),
        ("overlapping texts", lambda: h.overlapping_texts(size)),
        ("void samples", lambda: h.void_samples(size)),
        ("void samples, edge", lambda: h.void_samples(size, samples=edge(size, _message.SAMPLE_BYTES))),
        ("byte-list samples", lambda: h.byte_list_samples(size)),
        ("byte-list samples, edge", lambda: h.byte_list_samples(size, samples=edge(size, _message.SAMPLE_BYTES))),
        ("void entries", lambda: h.void_entries(size)),
        ("void entries, edge", lambda: h.void_entries(size, entries=edge(size, _message.ENTRY_BYTES) // 64)),
        (
            "void activities, edge",
            lambda: h.void_entries(size, entries=edge(size, _message.ACTIVITY_BYTES) // 64, field="exchangeActivities"),
        ),
        ("void tiles, edge", lambda: h.void_tiles(size, tiles=edge(size, _message.TILE_BYTES))),
    ]


#: Families whose cost is in the texts: also run with the numpy text path.
TEXT_FAMILIES = ("shared operation text", "shared metadata name", "overlapping texts")


def _strings(values: list[str], codes: np.ndarray) -> Strings:
    return Strings(codes.astype(np.uint32), pa.array(values, type=pa.string()))


def calibration_columns(kind: str, rows: int) -> Columns:
    """A valid profile of `rows` rows of one kind (samples, entries, activities, distinct texts) plus little else."""
    n = rows if kind == "samples" else 40_000
    per = 0 if kind == "samples" else rows // n  # entries (or activities) per sample
    entries = per if kind != "activities" else 0
    acts = per if kind == "activities" else 0
    u32 = np.uint32
    start = (np.arange(n) * 10).astype(u32)
    m, a = n * entries, n * acts
    if kind.startswith("distinct"):
        width = int(kind.split()[1])
        name = _strings([f"{i:0{width}d}" for i in range(m)], np.arange(m))
    else:
        name = _strings(["alpha", "beta", "gamma"], np.arange(m) % 3)
    return Columns(
        schema_version=4 if acts else 3,
        clock_hz=1_500_000_000,
        tiles=np.arange(4, dtype=u32),
        tile_sample_counts=np.full(4, n // 4, dtype=np.int64),
        local_index=np.arange(n, dtype=u32),
        phase=np.zeros(n, u32),
        epoch=np.zeros(n, u32),
        kind=np.ones(n, np.uint16),
        start=start,
        end=start + 5,
        operation=_strings(["op1", "op2"], np.arange(n) % 2),
        kernel=_strings(["kern"], np.zeros(n)),
        metadata_counts=np.full(n, entries, np.int64),
        metadata_name=name,
        metadata_value=_strings(["v1", "v2", "v3"], np.arange(m) % 3),
        exchange_event_cycles=np.zeros(n, u32),
        activity_counts=np.full(n, acts, np.int64),
        activity_kind=np.zeros(a, np.uint16),
        activity_start=np.zeros(a, u32),
        activity_end=np.ones(a, u32),
    )


def _row(name: str, size: int, result: dict) -> str:
    outcome = "accepted" if "accepted" in result else _refusal(result["refused"])
    peak = result["peak"]
    margin = h.rss_bound(size) / peak
    return (
        f"  {name:<26} {size / MB:6.0f} MB  {outcome:<18} {result['seconds']:7.3f} s "
        f"{result['seconds'] / (size / 1000) * 1e6:7.1f} µs/KB  {peak / MB:6.0f} MB  {peak / size:6.2f}x  "
        f"{margin:5.1f}x under the bound"
    )


def _refusal(message: str) -> str:
    for budget in ("traversal", "memory"):
        if f"{budget} budget exceeded" in message:
            return f"refused ({budget})"
    return "refused (format)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,64,256", help="file sizes in MB, comma-separated")
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows per calibration file")
    parser.add_argument("--profile", type=Path, help="real profile to compare with (default: the full demo profile)")
    args = parser.parse_args()
    sizes = [int(float(s) * MB) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="ipu-nb-hostile-") as tmp:
        path = Path(tmp) / "hostile.capnp"
        print("hostile families: outcome, time, peak resident memory (bound: 3x file + 300 MB)")
        for k, (name, _) in enumerate(families(sizes[0])):
            for size in sizes:
                path.write_bytes(families(size)[k][1]())
                print(_row(name, size, h.load_in_subprocess(path)), flush=True)
                if name in TEXT_FAMILIES:
                    print(_row("  numpy text path", size, h.load_in_subprocess(path, "numpy")), flush=True)
        heavy = write_columns(h.metadata_heavy_then_long(8192, 120, 1_000_000), Path(tmp) / "heavy.capnp")
        print(_row("metadata-heavy, then long", heavy.stat().st_size, h.load_in_subprocess(heavy)))
        heavy.unlink()

        print(f"\ncalibration: peak bytes per row ({args.rows:,} rows of one kind), and what the budget charges")
        empty = write_columns(calibration_columns("samples", 4), Path(tmp) / "empty.capnp")
        base = h.load_in_subprocess(empty)["peak"]
        charged = {
            "samples": _message.SAMPLE_BYTES,
            "entries": _message.ENTRY_BYTES,
            "activities": _message.ACTIVITY_BYTES,
            "distinct 8": _message.ENTRY_BYTES + _message.TEXT_VALUE_BYTES + 8 * _message.TEXT_BYTE_COST,
            "distinct 64": _message.ENTRY_BYTES + _message.TEXT_VALUE_BYTES + 64 * _message.TEXT_BYTE_COST,
        }
        for kind, cost in charged.items():
            file = write_columns(calibration_columns(kind, args.rows), Path(tmp) / "rows.capnp")
            result = h.load_in_subprocess(file, lift=True)
            assert "accepted" in result, result
            per_row = (result["peak"] - base) / args.rows
            print(
                f"  {kind + (' (per entry, text included)' if kind.startswith('distinct') else ''):<40} "
                f"{per_row:6.1f} B measured  {cost:4d} B charged  ({cost / per_row:.2f}x)   "
                f"file {file.stat().st_size / args.rows:5.1f} B/row"
            )

        real = profile_path(args.profile)
        size = real.stat().st_size
        print("\nreal profile, same run")
        print(_row(real.name[:26], size, h.load_in_subprocess(real)))
        print(_row("  numpy text path", size, h.load_in_subprocess(real, "numpy")))


if __name__ == "__main__":
    main()
