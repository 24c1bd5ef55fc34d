"""The generator's load imbalance (docs/reference/workloads.md, "Imbalance model"), measured in what it writes.

Each effect is checked in the generated profile against the model's own draws or its
documented rates, with the superstep analytics as the independent observer: stragglers
are the critical tiles, tails are slow samples of the right kernels, exchanges follow the
largest payload, and the same seed draws the same imbalance.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from builders import profile_of
from scalars import float_of

import ipu_nb
from ipu_nb._synth import imbalance
from ipu_nb._synth.plan import spread
from ipu_nb._synth.timeline import c600_physical_tiles, ceil4, unique_sends
from ipu_nb._synth.workloads import default_busy_tiles, plan


@pytest.fixture(scope="module")
def mlp256() -> ipu_nb.Profile:
    """256 tiles (222 busy, one straggler), one MLP layer: 33 compute phases."""
    return profile_of(ipu_nb.generate_columns("mlp", tiles=256, layers=1, seed=5))


def relative_compute(profile: ipu_nb.Profile) -> pl.DataFrame:
    """Each compute sample's duration over its phase's median (the per-phase model cycles cancel)."""
    compute = profile.samples.filter(pl.col("kind") == "compute")
    return compute.with_columns(relative=pl.col("duration") / pl.col("duration").median().over("phase"))


def test_speed_factors_are_lognormal_around_one() -> None:
    busy = spread(1280, 1472)
    factors = imbalance.tile_factors(1472, busy, seed=11)
    plain = np.delete(factors.speed, factors.stragglers)
    logs = np.log(plain)
    assert abs(np.median(plain) - 1.0) < 0.003
    assert logs.std() == pytest.approx(imbalance.SPEED_SIGMA, rel=0.1)
    assert imbalance.tile_factors(1472, busy, seed=11).speed.tolist() == factors.speed.tolist()  # per seed
    assert imbalance.tile_factors(1472, busy, seed=12).speed.tolist() != factors.speed.tolist()


def test_a_few_busy_tiles_are_stragglers_15_to_40_percent_slower() -> None:
    busy = spread(1280, 1472)
    factors = imbalance.tile_factors(1472, busy, seed=3)
    assert len(factors.stragglers) == 5  # about one busy tile in 256
    assert set(factors.stragglers.tolist()) <= set(busy.tolist())
    low, high = imbalance.STRAGGLER_SLOWDOWN
    assert ((factors.slowdown >= low) & (factors.slowdown <= high)).all()
    assert len(imbalance.tile_factors(4, np.arange(2), seed=0).stragglers) == 1  # at least one


def test_the_straggler_is_the_critical_tile_of_the_phases_it_works_in(mlp256: ipu_nb.Profile) -> None:
    factors = imbalance.tile_factors(256, spread(default_busy_tiles("mlp", 256), 256), seed=5)
    (straggler,) = factors.stragglers.tolist()
    physical = int(c600_physical_tiles(256)[straggler])
    assert ipu_nb.tile_balance(mlp256, kind="compute").row(0, named=True)["tile"] == physical
    steps = ipu_nb.supersteps(mlp256, kind="compute")
    works_in = mlp256.filter(kind="compute", tiles=physical).get_column("phase").unique()
    held = steps.filter(pl.col("phase").is_in(works_in.implode())).get_column("critical_tile")
    assert float_of((held == physical).mean()) >= 0.9
    # it really is slower: its samples take its speed × its share of the (one) MLP layout longer than the median
    share = imbalance.partition_factors(256, seed=5, placement=0)[straggler]
    mine = relative_compute(mlp256).filter(pl.col("tile") == physical).get_column("relative").median()
    assert mine == pytest.approx(factors.speed[straggler] * share, rel=0.03)
    found = ipu_nb.findings(mlp256)
    assert any(f.category == "straggler-tile" and f.subject == f"tile {physical}" for f in found)


def test_a_partition_gives_about_one_tile_in_eight_an_extra_grain_or_two() -> None:
    factors = imbalance.partition_factors(20_000, seed=1, placement=0)
    extra = factors[factors > 1.0] - 1.0
    assert len(extra) / len(factors) == pytest.approx(imbalance.PARTITION_SHARE, rel=0.1)
    assert set(np.round(extra * 16).astype(int).tolist()) == {1, 2}
    other = imbalance.partition_factors(20_000, seed=1, placement=1)
    assert not np.array_equal(factors, other)  # each data layout partitions on its own


def test_memory_bound_kernels_have_a_tail_and_matrix_products_almost_none() -> None:
    profile = profile_of(ipu_nb.generate_columns("mlp", tiles=512, layers=2, seed=2))
    rel = relative_compute(profile)
    per_kernel = (
        rel.group_by(pl.col("kernel").cast(pl.String))
        .agg(tail=(pl.col("relative") >= 1.9).mean(), top=pl.col("relative").max(), n=pl.len())
        .sort("kernel")
    )
    rows = {r["kernel"]: r for r in per_kernel.iter_rows(named=True)}
    gelu = rows["gelu_c16_to_a8"]
    assert gelu["tail"] == pytest.approx(imbalance.TAIL_RATE_MEMORY, abs=0.02)
    assert gelu["top"] <= imbalance.TAIL_FACTOR[1] * 1.6  # × the slowest tile's speed and partition
    gemm = rows["gemm_f32_accumulate_large_rows"]
    assert gemm["tail"] < 10 * imbalance.TAIL_RATE_MATMUL
    # the query core sees the tail: p95 of the memory-bound kernel is at least twice its p50
    groups = ipu_nb.query(profile, kind="compute", group_by="kernel", limit=0).groups
    g = groups.filter(pl.col("name") == "gelu_c16_to_a8").row(0, named=True)
    assert g["p95_cycles"] >= 2 * g["p50_cycles"]


def test_exchanges_are_uneven_because_stored_tensors_pile_up_on_some_tiles() -> None:
    commands = plan("mlp", tiles=1472, busy_tiles=1280, layers=2, seed=0)
    longest, sent = [], np.zeros(1472)
    for cmd in commands:
        tr = cmd.transfers
        _, source, nbytes = unique_sends(tr)
        send = np.bincount(source, weights=ceil4(nbytes), minlength=1472)
        receive = np.bincount(tr.destination, weights=ceil4(tr.nbytes), minlength=1472)
        longest.append(max(send.max(), receive.max()))
        sent += send
    longest_phase = np.array(longest)
    # every GEMM tile receives the same A slice and B block, so a longer exchange is a hot sender
    assert (longest_phase > np.median(longest_phase)).mean() > 0.2
    assert longest_phase.max() >= 2 * np.median(longest_phase)
    assert np.percentile(sent[sent > 0], 99) > 2.5 * np.median(sent[sent > 0])


def test_storage_weights_are_a_cumulative_share_per_tile() -> None:
    cumulative = imbalance.storage_weights(64, seed=4)
    assert cumulative[-1] == pytest.approx(1.0) and (np.diff(cumulative) > 0).all()
    shares = np.diff(np.concatenate([[0.0], cumulative]))
    assert shares.max() > 2 * np.median(shares)


def test_findings_on_a_generated_profile_name_the_imbalance(mlp256: ipu_nb.Profile) -> None:
    categories = {f.category for f in ipu_nb.findings(mlp256)}
    assert {"straggler-tile", "imbalanced-kernel", "long-tail-kernel"} <= categories
