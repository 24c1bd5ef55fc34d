"""Synthetic workloads: the compute phases (commands) a compiled model runs (docs/reference/workloads.md#workloads).

- `mlp`: MLP FP32 512×2048×8: per layer 32 GEMM inner-block phases + one GELU phase, then an
  output copy: 265 phases on 1,280 busy tiles (256 output blocks of 64×64, 5 tiles a block,
  13 or 12 rows each: shapes like `13x64x64`).
- `gemm`: one FP32 2048³ GEMM (1,024 blocks, one tile each, 32 inner blocks) and a copy: 33 phases.
- `attention`: a SigLIP-style encoder layer at sequence 1024 (layer norms, QKV / output / MLP
  GEMMs in FP16, attention scores, softmax, values): regions as in real encoder profiles.

Every builder is deterministic in `seed` (storage placement and cycle noise).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from .imbalance import storage_weights
from .plan import Command, Fmt, Layout, Transfers, address, join, layout, spread

__all__ = ["WORKLOADS", "Workload", "default_busy_tiles", "plan"]

BLOCK = 64


@dataclass(frozen=True)
class Workload:
    """A named workload: its builder, default layer count and default share of busy tiles."""

    build: Callable[..., Iterator[Command]]
    layers: int
    busy_on_full_ipu: int


class _Each(TypedDict):
    """Keywords every elementwise phase of one encoder layer shares."""

    prefix: str
    layer: int
    size: int


class _Context:
    """What every phase builder needs: tile count, noise source, tensor ids, storage and data placement."""

    def __init__(self, tiles: int, seed: int) -> None:
        self.tiles = tiles
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 0x1B0]))
        self.salt = int(np.random.default_rng(seed).integers(1, 1 << 30))
        self._storage = storage_weights(tiles, seed)
        self._next_id = 1024
        self._placements: dict[int, tuple[int, Layout]] = {}  # id -> (number, the layout, kept alive)

    def placement(self, out: Layout) -> int:
        """A stable number for the data layout `out` (0, 1, 2… in order of first use)."""
        return self._placements.setdefault(id(out), (len(self._placements), out))[0]

    def ids(self, count: int) -> int:
        """Allocate `count` consecutive tensor ids; returns the first."""
        first = self._next_id
        self._next_id += int(count)
        return first

    def stored_on(self, tensor: np.ndarray) -> np.ndarray:
        """The tile a stored (input / weight) tensor lives on: hashed, so tensors of one phase may share a
        tile, and unevenly (`storage_weights`), so some tiles hold and send far more than others."""
        x = np.asarray(tensor, dtype=np.uint64) + np.uint64(self.salt)
        for shift, multiplier in ((33, 0xFF51AFD7ED558CCD), (33, 0xC4CEB9FE1A85EC53)):  # MurmurHash3's fmix64
            x = (x ^ (x >> np.uint64(shift))) * np.uint64(multiplier)
        x ^= x >> np.uint64(33)
        u = (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        return np.searchsorted(self._storage, u, side="right").clip(max=self.tiles - 1).astype(np.int64)

    def cycles(self, model: np.ndarray) -> np.ndarray:
        """Model cycles with the tile-to-tile noise real kernels show (memory banks, worker scheduling)."""
        model = np.asarray(model, dtype=np.float64)
        return model * (1.0 + 0.012 * self.rng.standard_normal(len(model))) + self.rng.integers(0, 48, len(model))


def _transfers(tensor: np.ndarray, source: np.ndarray, destination: np.ndarray, nbytes: np.ndarray) -> Transfers:
    keep = source != destination  # data already on the tile moves nowhere
    return Transfers(tensor[keep], source[keep], destination[keep], np.broadcast_to(nbytes, tensor.shape)[keep])


def _step(
    tile: np.ndarray, alignment: int, output: np.ndarray, inputs: tuple[np.ndarray, ...], arguments: tuple[object, ...]
) -> list[tuple[str, object]]:
    """A compute step's extra metadata: alignment, the output and input tensors with their addresses, the arguments."""
    entries: list[tuple[str, object]] = [("alignment", alignment)]
    for name, tensor in (("output", output), *((f"input_{i}", t) for i, t in enumerate(inputs))):
        entries += [(f"{name}_tensor", tensor), (f"{name}_address", Fmt("0x{:x}", (address(tensor, tile),)))]
    return entries + [(f"argument_{i}", value) for i, value in enumerate(arguments)]


@dataclass(frozen=True)
class _Operand:
    """Where the A operand of a GEMM comes from: a producer layout (+ its output tensor ids) or storage."""

    producer: Layout | None
    tensor_base: int
    column_offset: int = 0  # producer column block of inner block 0


def _a_operand(
    ctx: _Context, a: _Operand, r: np.ndarray, s: np.ndarray, row_start: np.ndarray, inner: int, splits: int
) -> tuple[np.ndarray, np.ndarray]:
    """Tensor id and source tile of the A slice each consumer tile needs for inner block `inner`.

    A produced operand comes from the producer tile holding the slice's first row (layouts
    that split blocks differently would add a second, smaller transfer, left out here).
    """
    if a.producer is None:
        tensor = a.tensor_base + (r * splits + s) * 64 + inner
        return tensor, ctx.stored_on(tensor)
    p = a.producer
    c = np.full_like(r, a.column_offset + inner)
    sub = np.searchsorted(p.row_start, row_start, "right") - 1
    tensor = a.tensor_base + (r * p.column_blocks + c) * p.splits + sub
    return tensor, p.owner(r, c, row_start)


def gemm(
    ctx: _Context,
    *,
    prefix: str,
    region: str,
    layer: int,
    out: Layout,
    inner_blocks: int,
    a: _Operand,
    dtype: str,
) -> Generator[Command, None, int]:
    """The phases of one blocked matmul: per wave, one phase per inner block (init, then accumulate).

    Yields the phases; returns the first tensor id of the output, which the next step reads.
    """
    size = 4 if dtype == "f32" else 2
    kind = "large_rows" if dtype == "f32" else "small_rows"
    macs = 8 if dtype == "f32" else 16
    out_base = ctx.ids(out.row_blocks * out.column_blocks * out.splits)
    weight_base = ctx.ids(inner_blocks * out.column_blocks)

    for w in range(out.waves):
        t = out.wave(w)
        r, c, s, tile, rows = t["r"], t["c"], t["s"], t["tile"], t["rows"]
        out_tensor = out_base + t["b"] * out.splits + s
        for i in range(inner_blocks):
            a_tensor, a_source = _a_operand(ctx, a, r, s, t["row_start"], i, out.splits)
            b_tensor = weight_base + i * out.column_blocks + c
            b_source = ctx.stored_on(b_tensor)
            transfers = Transfers.concat(
                [
                    _transfers(a_tensor, a_source, tile, rows * BLOCK * size),
                    _transfers(b_tensor, b_source, tile, np.full_like(rows, BLOCK * BLOCK * size)),
                ]
            )
            kernel = f"gemm_{dtype}_{'init' if i == 0 else 'accumulate'}_{kind}"
            yield (
                Command(
                    kernel=kernel,
                    role="matmul",
                    region=region,
                    tiles=tile,
                    planner={
                        "label": Fmt(prefix + ": GEMM block ({}, {}) inner block " + str(i), (r, c)),
                        "layer": layer,
                        "wave": w,
                        "output_block_row": r,
                        "output_block_column": c,
                        "inner_block": i,
                        "row_start": t["row_start"],
                        "rows": rows,
                        "output_bytes": rows * BLOCK * size,
                        "block_dimension": BLOCK,
                        "inner_block_dimension": BLOCK,
                    },
                    shape=Fmt("{}x{}x{}", (rows, BLOCK, BLOCK)),
                    cycles=ctx.cycles(260 + rows * BLOCK * BLOCK / macs + (0 if i == 0 else rows * 6)),
                    transfers=transfers,
                    step=_step(
                        tile,
                        16 if dtype == "f32" else 8,
                        out_tensor,
                        (a_tensor, b_tensor),
                        (rows, BLOCK, BLOCK, int(i > 0)),
                    ),
                    worker_count=np.minimum(6, rows),
                    placement=ctx.placement(out),
                )
            )

    return out_base


def elementwise(
    ctx: _Context,
    *,
    prefix: str,
    what: str,
    kernel: str,
    role: str,
    region: str,
    layer: int,
    out: Layout,
    source_base: int,
    cycles_per_row: float,
    calls: tuple[tuple[str, float], ...] = (),
    parameters: bool = False,
    size: int = 4,
) -> Generator[Command, None, int]:
    """One phase per wave applying `kernel` to each tile's slice of an output (bias, GELU, norm, copy).

    `size` is the element size in bytes; with `parameters`, a per-column vector (bias, scale) is
    broadcast to the tiles of each output column in the exchange before. Yields the phases;
    returns the first tensor id of the output.
    """
    out_base = ctx.ids(out.row_blocks * out.column_blocks * out.splits)
    param_base = ctx.ids(out.column_blocks)

    for w in range(out.waves):
        t = out.wave(w)
        r, c, s, tile, rows = t["r"], t["c"], t["s"], t["tile"], t["rows"]
        in_tensor = source_base + t["b"] * out.splits + s
        out_tensor = out_base + t["b"] * out.splits + s
        transfers = Transfers.empty()
        if parameters:  # bias / scale vectors live in one place and are broadcast to their column's tiles
            p_tensor = param_base + c
            transfers = _transfers(p_tensor, ctx.stored_on(p_tensor), tile, np.full_like(rows, BLOCK * size))
        yield (
            Command(
                kernel=kernel,
                role=role,
                region=region,
                tiles=tile,
                planner={
                    "label": Fmt(prefix + ": " + what + " block ({}, {})", (r, c)),
                    "layer": layer,
                    "wave": w,
                    "output_block_row": r,
                    "output_block_column": c,
                    "row_start": t["row_start"],
                    "rows": rows,
                    "output_bytes": rows * BLOCK * size,
                    "block_dimension": BLOCK,
                },
                shape=Fmt("{}x{}", (rows, BLOCK)),
                cycles=ctx.cycles(140 + rows * cycles_per_row),
                transfers=transfers,
                step=_step(tile, 8, out_tensor, (in_tensor,), (rows * BLOCK,)),
                calls=calls,
                worker_count=np.minimum(6, rows),
                placement=ctx.placement(out),
            )
        )

    return out_base


def _mlp(ctx: _Context, busy: np.ndarray, layers: int) -> Iterator[Command]:
    out = layout(512, 2048, busy)
    a = _Operand(None, ctx.ids(1 << 14))
    for layer in range(layers):
        prefix, region = f"MLP layer {layer}", f"mlp_layer_{layer:02d}"
        base = yield from gemm(
            ctx, prefix=prefix, region=f"{region}.matmul", layer=layer, out=out, inner_blocks=32, a=a, dtype="f32"
        )
        base = yield from elementwise(
            ctx,
            prefix=prefix,
            what="GELU",
            kernel="gelu_c16_to_a8",
            role="activation",
            region=f"{region}.activation",
            layer=layer,
            out=out,
            source_base=base,
            cycles_per_row=BLOCK * 1.6,
        )
        a = _Operand(out, base)
    yield from elementwise(
        ctx,
        prefix="MLP output",
        what="copy",
        kernel="copy_u64",
        role="copy",
        region="output",
        layer=layers,
        out=out,
        source_base=a.tensor_base,
        cycles_per_row=BLOCK / 2,
    )


def _gemm(ctx: _Context, busy: np.ndarray, layers: int) -> Iterator[Command]:
    out = layout(2048, 2048, busy)
    a = _Operand(None, ctx.ids(1 << 14))
    for layer in range(layers):
        base = yield from gemm(
            ctx, prefix=f"GEMM {layer}", region=f"gemm_{layer:02d}", layer=layer, out=out, inner_blocks=32, a=a,
            dtype="f32",
        )  # fmt: skip
        a = _Operand(out, base)
    yield from elementwise(
        ctx, prefix="GEMM output", what="copy", kernel="copy_u64", role="copy", region="output", layer=layers,
        out=out, source_base=a.tensor_base, cycles_per_row=BLOCK / 2,
    )  # fmt: skip


_SEQ, _HIDDEN, _HEADS, _MLP = 1024, 512, 8, 2048


def _attention_phases(
    ctx: _Context, *, prefix: str, region: str, layer: int, units: Layout, qkv: Layout, qkv_base: int
) -> Generator[Command, None, int]:
    """Scores (QKᵀ), softmax and values (PV) per (query block, head), K and V gathered from the QKV GEMM.

    Yields the phases; returns the first tensor id of the values' output.
    """
    scores_base = ctx.ids(units.row_blocks * units.column_blocks * units.splits)
    out_base = ctx.ids(units.row_blocks * units.column_blocks * units.splits)
    # Producer slices of the QKV output: one unit per (row block, sub-slice) of each head's K / V column.
    pr = np.repeat(np.arange(qkv.row_blocks, dtype=np.int64), qkv.splits)
    ps = np.tile(np.arange(qkv.splits, dtype=np.int64), qkv.row_blocks)

    for w in range(units.waves):
        t = units.wave(w)
        q, h, s, tile, rows = t["r"], t["c"], t["s"], t["tile"], t["rows"]
        unit = t["b"] * units.splits + s
        q_tensor = (
            qkv_base
            + (q * qkv.column_blocks + h) * qkv.splits
            + np.searchsorted(qkv.row_start, t["row_start"], "right")
            - 1
        )
        q_source = qkv.owner(q, h, t["row_start"])

        def gather(column: int, _h: np.ndarray = h, _tile: np.ndarray = tile) -> Transfers:
            heads = np.arange(_HEADS, dtype=np.int64)
            uh = np.repeat(heads, len(pr))
            ur, us = np.tile(pr, _HEADS), np.tile(ps, _HEADS)
            tensor = qkv_base + (ur * qkv.column_blocks + column + uh) * qkv.splits + us
            source = qkv.owner(ur, column + uh, qkv.row_start[us])
            u, d = join(uh, _h)
            return _transfers(tensor[u], source[u], _tile[d], qkv.rows[us[u]] * BLOCK * 2)

        common = {
            "layer": layer,
            "wave": w,
            "head": h,
            "query_block": q,
            "row_start": t["row_start"],
            "rows": rows,
            "key_length": _SEQ,
            "head_dimension": BLOCK,
        }
        label = prefix + ": attention head {} query block {}"
        matmul = rows * BLOCK * _SEQ / 16
        scores, probabilities = Fmt("{}x{}x{}", (rows, BLOCK, _SEQ)), Fmt("{}x{}", (rows, _SEQ))
        values, softmax = Fmt("{}x{}x{}", (rows, _SEQ, BLOCK)), rows * _SEQ * 1.5
        steps = [
            ("attention_qk_init_large_rows", "attention_scores", "scores", scores_base, scores, matmul),
            ("attention_softmax_l_query_l_key_f16", "softmax", "softmax", scores_base, probabilities, softmax),
            ("attention_pv_init_large_rows", "attention_values", "values", out_base, values, matmul),
        ]  # fmt: skip
        for kernel, role, what, base, shape, model in steps:
            if what == "scores":
                transfers = Transfers.concat(
                    [_transfers(q_tensor, q_source, tile, rows * BLOCK * 2), gather(_HIDDEN // BLOCK)]
                )
            elif what == "values":
                transfers = gather(2 * _HIDDEN // BLOCK)
            else:
                transfers = Transfers.empty()
            out_tensor = base + unit
            yield (
                Command(
                    kernel=kernel,
                    role=role,
                    region=region,
                    tiles=tile,
                    planner={"label": Fmt(label + " " + what, (h, q)), **common, "output_bytes": rows * _SEQ * 2},
                    shape=shape,
                    cycles=ctx.cycles(300 + model),
                    transfers=transfers,
                    step=_step(tile, 8, out_tensor, (q_tensor,), (rows, _SEQ)),
                    worker_count=np.minimum(6, rows),
                    placement=ctx.placement(units),
                )
            )

    return out_base


def _layer_norm(
    ctx: _Context, *, what: str, region: str, out: Layout, source: int, prefix: str, layer: int, size: int
) -> Generator[Command, None, int]:
    """An affine layer norm over `out` (scale and shift broadcast per column), as `elementwise`."""
    return elementwise(
        ctx, prefix=prefix, what=what, kernel="layer_norm_affine_f16", role="norm", region=region, layer=layer,
        out=out, source_base=source, cycles_per_row=BLOCK * 3.0, parameters=True, size=size,
    )  # fmt: skip


def _dense(
    ctx: _Context,
    *,
    name: str,
    region: str,
    out: Layout,
    inner_blocks: int,
    a: _Operand,
    bias: str,
    role: str,
    cycles_per_row: float,
    calls: tuple[tuple[str, float], ...] = (),
    prefix: str,
    layer: int,
    size: int,
) -> Generator[Command, None, int]:
    """A dense FP16 layer: its GEMM, then its bias (any activation or check fused in) over the same output."""
    base = yield from gemm(
        ctx, prefix=f"{prefix} {name}", region=region, layer=layer, out=out, inner_blocks=inner_blocks, a=a, dtype="f16"
    )
    biased = yield from elementwise(
        ctx, prefix=prefix, what=bias, kernel="add_bias_f16_c16", role=role, region=region, layer=layer, out=out,
        source_base=base, cycles_per_row=cycles_per_row, calls=calls, parameters=True, size=size,
    )  # fmt: skip
    return biased


def _attention(ctx: _Context, busy: np.ndarray, layers: int) -> Iterator[Command]:
    hidden, qkv, mlp_up = (layout(_SEQ, n, busy) for n in (_HIDDEN, 3 * _HIDDEN, _MLP))
    units = layout(_SEQ, _HEADS * BLOCK, busy)  # (query block, head) pairs
    k_blocks, mlp_blocks = _HIDDEN // BLOCK, _MLP // BLOCK
    x = _Operand(None, ctx.ids(1 << 14))
    base = yield from gemm(
        ctx, prefix="Patch embedding", region="embedding", layer=0, out=hidden, inner_blocks=k_blocks, a=x, dtype="f16"
    )
    for layer in range(layers):
        prefix, region = f"Encoder layer {layer}", f"encoder_layer_{layer:02d}"
        ew = _Each(prefix=prefix, layer=layer, size=2)
        base = yield from _layer_norm(
            ctx, what="layer norm 1", region=f"{region}.norm1_qkv", out=hidden, source=base, **ew
        )
        qkv_base = yield from gemm(
            ctx, prefix=prefix + " QKV", region=f"{region}.norm1_qkv", layer=layer, out=qkv, inner_blocks=k_blocks,
            a=_Operand(hidden, base), dtype="f16",
        )  # fmt: skip
        base = yield from _attention_phases(
            ctx, prefix=prefix, region=f"{region}.attention", layer=layer, units=units, qkv=qkv, qkv_base=qkv_base
        )
        base = yield from _dense(
            ctx, name="attention output", region=f"{region}.attention_output", out=hidden, inner_blocks=k_blocks,
            a=_Operand(units, base), bias="bias", role="bias", cycles_per_row=BLOCK * 0.8, **ew,
        )  # fmt: skip
        base = yield from _layer_norm(
            ctx, what="layer norm 2", region=f"{region}.norm2_mlp_up", out=hidden, source=base, **ew
        )
        base = yield from _dense(
            ctx, name="MLP up", region=f"{region}.norm2_mlp_up", out=mlp_up, inner_blocks=k_blocks,
            a=_Operand(hidden, base), bias="bias + GELU", role="bias_activation", cycles_per_row=BLOCK * 2.4,
            calls=(("add_bias_f16_c16", 0.35), ("gelu_c16_to_a8", 0.65)), **ew,
        )  # fmt: skip
        base = yield from _dense(
            ctx, name="MLP down", region=f"{region}.mlp_down", out=hidden, inner_blocks=mlp_blocks,
            a=_Operand(mlp_up, base), bias="bias + check", role="bias", cycles_per_row=BLOCK * 1.2,
            calls=(("add_bias_f16_c16", 0.6), ("check_finite_f16", 0.4)), **ew,
        )  # fmt: skip
    ew = _Each(prefix="Output", layer=layers, size=2)
    base = yield from _layer_norm(ctx, what="final norm", region="output", out=hidden, source=base, **ew)
    yield from elementwise(
        ctx, what="copy", kernel="copy_u64", role="copy", region="output", out=hidden, source_base=base,
        cycles_per_row=BLOCK / 2, **ew,
    )  # fmt: skip


WORKLOADS: dict[str, Workload] = {
    "mlp": Workload(_mlp, layers=8, busy_on_full_ipu=1280),
    "gemm": Workload(_gemm, layers=1, busy_on_full_ipu=1024),
    "attention": Workload(_attention, layers=1, busy_on_full_ipu=1280),
}


def default_busy_tiles(workload: str, tiles: int) -> int:
    """Busy tiles when not given: the full-IPU count, scaled to the tile count (at least one)."""
    return max(1, round(WORKLOADS[workload].busy_on_full_ipu * tiles / 1472))


def plan(
    workload: str, *, tiles: int, busy_tiles: int, layers: int, seed: int, limit: int | None = None
) -> list[Command]:
    """The compute phases of `workload` on `tiles` tiles, `busy_tiles` of them holding work (the first `limit`).

    Phases are built lazily, so a small `limit` costs little however large the model.
    """
    ctx = _Context(tiles, seed)
    return list(itertools.islice(WORKLOADS[workload].build(ctx, spread(busy_tiles, tiles), layers), limit))
