"""`scale_kernel` / `--scale-kernel`: a before/after pair that differs only where the compiler change is.

The scaled kernel's samples take the factor times as long, nothing else's does, phases
still end when their slowest tile ends (so the profile's span grows by exactly what the
scaled phases grew), and `what_if` on the baseline predicts the scaled profile's compute
phases to the cycle.
"""

from __future__ import annotations

import math
import re
from functools import partial
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from builders import profile_of

import ipu_nb
from ipu_nb._cli import main
from ipu_nb._load._reference import decode_reference

MLP = partial(ipu_nb.generate_columns, "mlp", tiles=64, busy_tiles=64, layers=1, seed=9)  # 4 waves: 136 compute phases
SCALED = "gemm_f32_init_large_rows"  # the first phase of every wave


@pytest.fixture(scope="module")
def pair() -> tuple[ipu_nb.Profile, ipu_nb.Profile]:
    before = profile_of(MLP())
    after = profile_of(MLP(scale_kernel={SCALED: 1.5}))
    return before, after


def by_sample(profile: ipu_nb.Profile) -> pl.DataFrame:
    return profile.samples.sort("sample").select(
        "sample", "tile", "phase", pl.col("kind").cast(pl.String), pl.col("kernel").cast(pl.String), "duration"
    )


def test_only_the_scaled_kernels_samples_take_longer(pair: tuple[ipu_nb.Profile, ipu_nb.Profile]) -> None:
    before, after = (by_sample(p) for p in pair)
    assert before.select("sample", "tile", "phase", "kind", "kernel").equals(
        after.select("sample", "tile", "phase", "kind", "kernel")
    )
    scaled = before.get_column("kernel") == SCALED
    b, a = before.get_column("duration").to_numpy(), after.get_column("duration").to_numpy()
    assert scaled.sum() == 4 * 64
    np.testing.assert_allclose(a[scaled.to_numpy()], 1.5 * b[scaled.to_numpy()], atol=1.0)
    other_compute = ((before.get_column("kind") == "compute") & ~scaled).to_numpy()
    np.testing.assert_array_equal(a[other_compute], b[other_compute])
    exchange = (before.get_column("kind") == "exchange").to_numpy()
    np.testing.assert_array_equal(a[exchange], b[exchange])  # payloads and setup are the baseline's
    # the waits absorb the change: syncs after a scaled phase differ, the other syncs do not
    sync = (before.get_column("kind") == "synchronization").to_numpy()
    assert (a[sync] != b[sync]).any() and (a[sync] == b[sync]).mean() > 0.9
    assert before.select(pl.col("duration").sum()).item() < after.select(pl.col("duration").sum()).item()


def test_later_samples_move_by_what_the_slowest_tile_of_each_phase_gained(
    pair: tuple[ipu_nb.Profile, ipu_nb.Profile],
) -> None:
    before, after = (ipu_nb.supersteps(p, kind="compute") for p in pair)
    steps = before.select("phase", "dominant_kernel").with_columns(
        grown=after.get_column("span_cycles") - before.get_column("span_cycles")
    )
    assert steps.filter(pl.col("dominant_kernel") != SCALED).get_column("grown").to_list() == [0] * (136 - 4)
    assert (steps.filter(pl.col("dominant_kernel") == SCALED).get_column("grown") > 0).all()
    # a phase ends when its slowest tile ends, and the next one starts after it: the span grows by their sum
    grown = steps.get_column("grown")
    assert pair[1].span_cycles - pair[0].span_cycles == grown.sum()
    moved = pair[1].samples.filter(pl.col("phase") == pair[1].samples.get_column("phase").max())
    first = pair[0].samples.filter(pl.col("phase") == pair[0].samples.get_column("phase").max())
    assert (moved.get_column("offset") - first.get_column("offset") == grown.sum()).all()


def test_what_if_on_the_baseline_predicts_the_scaled_profile(pair: tuple[ipu_nb.Profile, ipu_nb.Profile]) -> None:
    before, after = pair
    predicted = ipu_nb.what_if(before, {SCALED: 1.5}, kind="compute").supersteps
    measured = ipu_nb.supersteps(after, kind="compute")
    difference = (predicted.get_column("estimated_cycles") - measured.get_column("span_cycles")).abs()
    assert difference.max() <= 1  # the generator rounds the scaled cycles once, what-if each duration


def test_a_step_profile_scales_one_call_of_a_multi_call_command() -> None:
    attention = partial(ipu_nb.generate_columns, "attention", "step", tiles=32, seed=1)
    before = by_sample(profile_of(attention()))
    after = by_sample(profile_of(attention(scale_kernel={"gelu_c16_to_a8": 2})))
    gelu = (before.get_column("kernel") == "gelu_c16_to_a8").to_numpy()
    bias = before.get_column("kernel").to_numpy() == "add_bias_f16_c16"
    b, a = before.get_column("duration").to_numpy(), after.get_column("duration").to_numpy()
    assert gelu.sum() > 0
    np.testing.assert_allclose(a[gelu], 2 * b[gelu], atol=2.0)
    np.testing.assert_allclose(a[bias], b[bias], atol=1.0)  # the bias call before it keeps its cycles


def test_coarse_profiles_take_the_phase_profiles_kernel_names() -> None:
    mlp = partial(ipu_nb.generate_columns, "mlp", "region", tiles=16, busy_tiles=16, layers=1)
    before = mlp()
    after = mlp(scale_kernel={"gelu_c16_to_a8": 3.0})
    names = before.operation.to_list()
    durations = [(c.end.astype(np.int64) - c.start) % 2**32 for c in (before, after)]
    for region in ("mlp_layer_00.matmul", "mlp_layer_00.activation"):
        rows = [i for i, name in enumerate(names) if name == region]
        grew = durations[1][rows] - durations[0][rows]
        assert (grew > 0).all() if region.endswith("activation") else (grew == 0).all(), region


@pytest.mark.parametrize(
    ("scale", "error", "message"),
    [
        ({"gemm": 2.0}, ValueError, "unknown kernel 'gemm' in scale_kernel: the generated mlp profile runs copy_u64, "
         "gelu_c16_to_a8, gemm_f32_accumulate_large_rows, gemm_f32_init_large_rows"),
        ({SCALED: 0}, ValueError, "must be above 0 and at most 100, got 0"),
        ({SCALED: -1.5}, ValueError, "must be above 0"),
        ({SCALED: math.nan}, ValueError, "must be above 0"),
        ({SCALED: math.inf}, ValueError, "must be above 0"),
        ({SCALED: 101}, ValueError, "at most 100"),
        ({SCALED: True}, TypeError, "must be a number, got True"),
        ({SCALED: "2"}, TypeError, "must be a number, got '2'"),
        ([(SCALED, 2)], TypeError, "scale_kernel must be a mapping"),
    ],
)  # fmt: skip
def test_bad_scales_are_one_clear_error(scale: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=re.escape(message)):
        ipu_nb.generate_columns("mlp", tiles=8, layers=1, scale_kernel=scale)  # type: ignore[arg-type]


def test_names_are_the_granularitys_own() -> None:
    with pytest.raises(ValueError, match="the generated attention profile runs add_bias_f16_c16, attention_"):
        ipu_nb.generate_columns("attention", tiles=8, scale_kernel={"gelu_c16_to_a8": 2})  # a second call only
    with pytest.raises(ValueError, match=r"runs gemm_f32_accumulate_large_rows, gemm_f32_init_large_rows$"):
        ipu_nb.generate_columns("mlp", tiles=8, phases=3, scale_kernel={"copy_u64": 2})  # not in 3 phases
    ipu_nb.generate_columns("attention", "step", tiles=8, scale_kernel={"gelu_c16_to_a8": 2})


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_flag_is_the_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "after.capnp"
    argv = ["generate", "-q", "-o", str(target), "--tiles", "8", "--layers", "1", "--seed", "4"]
    flags = ["--scale-kernel", f"{SCALED}=1.25", "--scale-kernel", "gelu_c16_to_a8=0.5"]
    assert run([*argv, *flags], capsys) == (0, "", "")
    expected = ipu_nb.generate_columns(
        "mlp", tiles=8, layers=1, seed=4, scale_kernel={SCALED: 1.25, "gelu_c16_to_a8": 0.5}
    )
    got = decode_reference(target)
    np.testing.assert_array_equal(got.start, expected.start)
    np.testing.assert_array_equal(got.end, expected.end)
    assert "--scale-kernel KERNEL=FACTOR" in run(["generate", "--help"], capsys)[1]


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        (["--scale-kernel", "gemm_f32_init_large_rows"], "expected KERNEL=FACTOR, got 'gemm_f32_init_large_rows'"),
        (["--scale-kernel", "=2"], "expected KERNEL=FACTOR, got '=2'"),
        (["--scale-kernel", "x=fast"], "invalid factor 'fast' in 'x=fast'"),
        (["--scale-kernel", "nope=2"], "unknown kernel 'nope' in scale_kernel: the generated mlp profile runs "),
        (["--scale-kernel", f"{SCALED}=0"], "must be above 0 and at most 100"),
        (["--scale-kernel", f"{SCALED}=2", "--scale-kernel", f"{SCALED}=3"], f"--scale-kernel gives '{SCALED}' twice"),
    ],
)
def test_bad_flags_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], fragment: str
) -> None:
    code, out, err = run(["generate", "-o", str(tmp_path / "x.capnp"), "--tiles", "8", "--layers", "1", *flags], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and fragment in err and err.startswith("ipu-nb generate: error: ")
    assert not (tmp_path / "x.capnp").exists()
