"""A full-size phase-granularity profile for the loader benchmark.

Uses the package's generator (`ipu_nb._synth`) when it is available; otherwise builds
a phase-shaped `Columns` of the same size and string statistics with numpy (PROFILES.md).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ipu_nb._load._columns import Columns, Strings

__all__ = ["phase_columns"]

_NAMES = {
    2: ["active", "next_kernel", "next_role", "next_layer"],
    0: ["active", "send_count", "receive_count", "send_bytes", "receive_bytes", "next_kernel", "next_role"]
    + [
        f"next_{k}"
        for k in (
            "block_dimension",
            "inner_block",
            "inner_block_dimension",
            "label",
            "layer",
            "output_block_column",
            "output_block_row",
            "output_bytes",
            "row_start",
            "rows",
        )
    ],
    1: [
        "role",
        "shape",
        "worker_count",
        "active_commands",
        "block_dimension",
        "inner_block",
        "inner_block_dimension",
        "label",
        "layer",
        "output_block_column",
        "output_block_row",
        "output_bytes",
        "row_start",
        "rows",
    ],
    3: [
        "active",
        "scheduled_kernel",
        "scheduled_role",
        "scheduled_shape",
        "block_dimension",
        "inner_block",
        "label",
        "layer",
        "rows",
    ],
}


def phase_columns(tiles: int = 1472, phases: int = 265, busy: int = 1280, seed: int = 0) -> Columns:
    """Columns shaped like the MLP phase profile: per phase sync, exchange, compute-or-idle on every tile."""
    rng = np.random.default_rng(seed)
    per_tile = 3 * phases
    n = tiles * per_tile
    slot = np.tile(np.arange(per_tile), tiles)
    tile = np.repeat(np.arange(tiles), per_tile)
    p = slot // 3
    role = slot % 3
    kind = np.where(role == 0, 2, np.where(role == 1, 0, np.where(tile < busy, 1, 3))).astype(np.uint16)
    dur = np.where(kind == 2, 600 + rng.integers(0, 2000, n), np.where(kind == 0, 4000, 20000)).astype(np.int64)
    dur[kind == 3] = 100
    skew = np.repeat(rng.integers(0, 10_000, tiles), per_tile)
    within = np.cumsum(dur) - dur
    tile_first = np.repeat(within[::per_tile], per_tile)
    start = (skew + within - tile_first).astype(np.uint64) % (1 << 32)
    end = (start + dur.astype(np.uint64)) % (1 << 32)
    kernels = ["gemm_f32_accumulate_large_rows", "gemm_f32_init_large_rows", "copy_u64", "gelu_c16_to_a8"]
    k_of_phase = rng.integers(0, len(kernels), phases)
    op_values: list[str] = []
    op_codes = np.zeros(n, dtype=np.uint32)
    index: dict[str, int] = {}
    keyed = [
        (
            f"sync before exchange for {kernels[k_of_phase[q]]} (phase {q})",
            f"exchange for {kernels[k_of_phase[q]]} (phase {q})",
            f"MLP layer {q % 8}: GEMM block ({q % 7}, {q % 5}) inner block {q % 3}",
            f"idle during {kernels[k_of_phase[q]]} (phase {q})",
        )
        for q in range(phases)
    ]
    table = np.zeros((phases, 4), dtype=np.uint32)
    for q, names in enumerate(keyed):
        for r, s in enumerate(names):
            table[q, r] = index.setdefault(s, len(index))
    op_values = list(index)
    op_codes = table[p, np.where(kind == 2, 0, np.where(kind == 0, 1, np.where(kind == 1, 2, 3)))]
    kernel_codes = np.where(kind == 1, k_of_phase[p] + 1, 0).astype(np.uint32)
    kernel_values = ["", *kernels]
    meta_counts = np.array([len(_NAMES[int(k)]) for k in range(4)])[kind].astype(np.int64)
    name_vocab: dict[str, int] = {}
    name_table = [[name_vocab.setdefault(s, len(name_vocab)) for s in _NAMES[k]] for k in range(4)]
    total = int(meta_counts.sum())
    owner_kind = np.repeat(kind, meta_counts)
    first = np.cumsum(meta_counts) - meta_counts
    pos = np.arange(total) - np.repeat(first, meta_counts)
    padded = np.full((4, 17), 0, dtype=np.uint32)
    for k in range(4):
        padded[k, : len(name_table[k])] = name_table[k]
    name_codes = padded[owner_kind, pos]
    values = [
        "true",
        "false",
        *[str(v) for v in range(4096)],
        "13x64x64",
        "gemm_f32_accumulate_large_rows",
        *[f"MLP layer {i}: GEMM block ({i % 7}, {i % 5}) inner block {i % 3}" for i in range(300)],
    ]
    value_codes = rng.integers(0, len(values), total).astype(np.uint32)
    value_codes[pos == 0] = np.where(owner_kind[pos == 0] == 3, 1, 0)
    u32 = np.uint32
    return Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=np.arange(tiles, dtype=u32),
        tile_sample_counts=np.full(tiles, per_tile, dtype=np.int64),
        local_index=slot.astype(u32),
        phase=(2 * p + (role == 2)).astype(u32),
        epoch=np.zeros(n, dtype=u32),
        kind=kind,
        start=start.astype(u32),
        end=end.astype(u32),
        operation=Strings(op_codes.astype(u32), pa.array(op_values, type=pa.string())),
        kernel=Strings(kernel_codes, pa.array(kernel_values, type=pa.string())),
        metadata_counts=meta_counts,
        metadata_name=Strings(name_codes.astype(u32), pa.array(list(name_vocab), type=pa.string())),
        metadata_value=Strings(value_codes, pa.array(values, type=pa.string())),
        exchange_event_cycles=np.zeros(n, dtype=u32),
        activity_counts=np.zeros(n, dtype=np.int64),
    )
