"""A profile for the readability tests: long and bidi names, nested operation names, many tiny nodes."""

from __future__ import annotations

from pathlib import Path

from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp

from ipu_nb._profile import Profile

#: Far wider than a legend entry or a tooltip line.
LONG_KERNEL = "gemm_f32_accumulate_large_rows_" + "x" * 200 + "_end"
LONG_OP = "MLP layer 0: GEMM block with a very long name " + "y" * 300 + " tail"
#: After a right-to-left override "exe.lenrek_mmeg" reads as "gemm_kernel.exe".
BIDI_KERNEL = "\u202eexe.lenrek_mmeg"
BIDI_OP = "\u2067live\u2069 \u200eop\u200f \u061c"
#: "gemm" is contained in "gemm block": an exact focus on it must not take the other.
OPERATIONS = (("gemm", LONG_KERNEL), ("gemm block", "gemm_f32"), (LONG_OP, BIDI_KERNEL), (BIDI_OP, "copy_u64"))
TINY_OPS = 300
TINY_KERNEL = "tiny_kernel"
TILES = 32
PHASES = 6


def readable_tiles() -> list[T]:
    """32 tiles, 6 phases of sync, exchange and compute, then 300 tiny operations of one kernel.

    Each tiny operation is about 1/2,500 of the total: kept by the kernel's flame graph
    (which sums nodes under 1/4,000 into "…") yet narrower than a pixel across the widget.
    """
    tiles = []
    tiny = iter(range(TINY_OPS))
    for t in range(TILES):
        samples, cursor = [], 0
        for p in range(PHASES):
            samples.append(S(cursor, cursor + 50, "synchronization", "sync", "", phase=2 * p))
            samples.append(S(cursor + 50, cursor + 100, "exchange", f"exchange for layer {p}", "", phase=2 * p))
            cursor += 100
            op, kernel = OPERATIONS[(t + p) % len(OPERATIONS)]
            meta = [("layer", str(p))]
            samples.append(S(cursor, cursor + 3000, "compute", op, kernel, phase=2 * p + 1, metadata=meta))
            cursor += 3000
        for _ in range(TINY_OPS // TILES + (t < TINY_OPS % TILES)):
            op = f"tiny op {next(tiny)}"
            samples.append(S(cursor, cursor + 270, "compute", op, TINY_KERNEL, phase=2 * PHASES + 1))
            cursor += 270
        tiles.append(T(t, samples))
    return tiles


def readable_profile() -> Profile:
    return profile_from_tiles(readable_tiles())


def write_readable(path: Path) -> Path:
    return write_with_pycapnp(columns_from_tiles(readable_tiles()), path)
