"""The synthetic generator against docs/reference/workloads.md.

Layout, timing model, granularities, metadata, variants.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from budget import examples
from builders import write_with_pycapnp
from hypothesis import given, settings
from hypothesis import strategies as st
from scalars import float_of, int_of

from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference
from ipu_nb._model.columns import Columns, Strings
from ipu_nb._synth.generate import demo_profile_path, generate_columns, generate_profile
from ipu_nb._synth.timeline import c600_physical_tiles
from ipu_nb._synth.workloads import default_busy_tiles, plan

SYNC_KEYS = ["active", "next_kernel", "next_role", "next_layer"]
EXCHANGE_HEAD = ["active", "send_count", "receive_count", "send_bytes", "receive_bytes", "next_kernel", "next_role"]
COMPUTE_HEAD = ["role", "shape", "worker_count", "active_commands"]
IDLE_HEAD = ["active", "scheduled_kernel", "scheduled_role", "scheduled_shape"]
GEMM_KEYS = sorted(
    [
        "label", "layer", "wave", "output_block_row", "output_block_column", "inner_block", "row_start", "rows",
        "output_bytes", "block_dimension", "inner_block_dimension",
    ]
)  # fmt: skip
GEMM_METADATA_KEYS = [k for k in GEMM_KEYS if k != "label"]  # the label is the compute sample's operation


def small(**knobs: object) -> Columns:
    return generate_columns(**{"tiles": 24, "phases": 6, **knobs})  # type: ignore[arg-type]


def per_sample_metadata(columns: Columns) -> list[list[tuple[str, str]]]:
    names, values = columns.metadata_name.to_list(), columns.metadata_value.to_list()
    bounds = np.concatenate([[0], np.cumsum(columns.metadata_counts)])
    return [list(zip(names[a:b], values[a:b], strict=True)) for a, b in itertools.pairwise(bounds)]


def tile_rows(columns: Columns) -> list[range]:
    first = np.concatenate([[0], np.cumsum(columns.tile_sample_counts)])
    return [range(int(a), int(b)) for a, b in itertools.pairwise(first)]


KINDS = ("exchange", "compute", "synchronization", "idle")


def assert_columns_equal(a: Columns, b: Columns) -> None:
    assert (a.schema_version, a.clock_hz) == (b.schema_version, b.clock_hz)
    for name in (
        "tiles", "tile_sample_counts", "local_index", "phase", "epoch", "kind", "start", "end", "metadata_counts",
        "exchange_event_cycles", "activity_counts", "activity_kind", "activity_start", "activity_end",
    ):  # fmt: skip
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in ("operation", "kernel", "metadata_name", "metadata_value"):
        assert getattr(a, name).to_list() == getattr(b, name).to_list(), name


# --- tiles, clock, counters ---------------------------------------------------------------


def test_c600_permutation_matches_the_documented_examples() -> None:
    physical = c600_physical_tiles(1472)
    assert physical[:4].tolist() == [0, 2, 64, 66]
    assert physical[1471] == 63
    assert sorted(physical.tolist()) == list(range(1472))


def test_all_1472_tiles_in_logical_order_with_the_clock() -> None:
    c = generate_columns(phases=1)
    assert c.tile_count == 1472
    np.testing.assert_array_equal(c.tiles, c600_physical_tiles(1472))
    assert c.clock_hz == 1_500_000_000
    assert c.schema_version == 3
    assert (c.tile_sample_counts == 3).all()  # sync, exchange, compute-or-idle


def test_default_mlp_schedule_is_265_phases_on_1280_busy_tiles() -> None:
    commands = plan("mlp", tiles=1472, busy_tiles=default_busy_tiles("mlp", 1472), layers=8, seed=0)
    assert len(commands) == 265  # 795 samples per tile at phase granularity
    assert {len(c.tiles) for c in commands} == {1280}
    gemm = commands[1]
    assert gemm.kernel == "gemm_f32_accumulate_large_rows"
    assert sorted(gemm.planner) == GEMM_KEYS
    assert commands[0].kernel == "gemm_f32_init_large_rows"
    assert gemm.shape.first() == "13x64x64"
    assert commands[-1].kernel == "copy_u64"


def test_graph_granularity_full_size_is_one_sample_per_tile() -> None:
    c = generate_columns(granularity="graph")
    assert c.sample_count == 1472
    assert set(c.operation.to_list()) == {"graph"}
    assert set(c.kernel.to_list()) == {""}
    assert set(c.kind.tolist()) == {KINDS.index("compute")}
    assert c.metadata_counts.sum() == 0


def test_samples_are_contiguous_and_start_at_each_tiles_skew() -> None:
    c = small(tiles=40)
    for rows in tile_rows(c):
        idx = np.array(rows)
        np.testing.assert_array_equal(c.end[idx[:-1]], c.start[idx[1:]])
    firsts = c.start[np.cumsum(c.tile_sample_counts) - c.tile_sample_counts].astype(np.int64)
    spread = (firsts - firsts.min()) % 2**32
    assert 0 < spread.max() <= 10_000


def test_counters_wrap_inside_the_profile_and_offsets_stay_monotone() -> None:
    c = small(tiles=16, phases=10)
    p = build_profile(c)
    assert (c.end < c.start).any() or (np.diff(c.start.astype(np.int64)) < 0).any()
    s = p.samples.sort("sample")
    for tile in s.partition_by("tile_index"):
        offset = tile["offset"].to_numpy().astype(np.int64)
        duration = tile["duration"].to_numpy().astype(np.int64)
        assert offset[0] == 0
        assert (np.diff(offset) >= 0).all()
        np.testing.assert_array_equal(offset[:-1] + duration[:-1], offset[1:])
    assert p.span_cycles < 2**31  # a wrap never turns into a multi-second bogus span


def test_explicit_base_cycle_places_counters() -> None:
    c = small(tiles=8, base_cycle=1_000)
    firsts = c.start[np.cumsum(c.tile_sample_counts) - c.tile_sample_counts]
    assert ((firsts >= 1_000) & (firsts <= 11_000)).all()


# --- timing model ----------------------------------------------------------------------


def test_exchanges_end_together_and_syncs_absorb_imbalance() -> None:
    p = build_profile(small(tiles=48, phases=8))
    s = p.samples.with_columns(stop=pl.col("offset") + pl.col("duration"))
    ends = s.filter(pl.col("kind") == "exchange").group_by("phase").agg(pl.col("stop").n_unique().alias("n"))
    assert ends["n"].to_list() == [1] * 8
    syncs = s.filter(pl.col("kind") == "synchronization")
    assert int_of(syncs["duration"].min()) >= 600
    # The sync after an idle phase waits for the slowest tile: longer than after a busy one.
    nxt = s.with_columns(pl.col("kind").shift(1).over("tile").alias("before")).filter(
        pl.col("kind") == "synchronization"
    )
    after_idle = float_of(nxt.filter(pl.col("before") == "idle")["duration"].mean())
    after_busy = float_of(nxt.filter(pl.col("before") == "compute")["duration"].mean())
    assert after_idle > after_busy + 1_000
    idle = s.filter(pl.col("kind") == "idle")["duration"]
    assert idle.len() > 0 and int_of(idle.min()) >= 40 and int_of(idle.max()) < 300


def test_exchange_lasts_the_largest_payload_at_4_bytes_per_cycle() -> None:
    """Per exchange phase: the largest per-tile payload (a tile's receives, or its sends with each multicast
    tensor counted once, as the step samples list them) at 4 bytes a cycle, plus setup and sync jitter."""
    c = small(tiles=32, phases=6, granularity="step")
    p = build_profile(c)
    meta = per_sample_metadata(c)
    kinds = [KINDS[k] for k in c.kind.tolist()]
    payload: dict[int, int] = {}
    for i, kind in enumerate(kinds):
        if kind != "exchange":
            continue
        received, sent = 0, {}
        for name, value in meta[i]:
            if not re.fullmatch(r"(send|receive)_\d+", name):
                continue
            fields = dict(part.split("=") for part in value.split(","))
            cycles = -(-int(fields["bytes"]) // 4)
            if name.startswith("receive_"):
                received += cycles
            else:
                sent[fields["tensor"]] = cycles
        phase = int(c.phase[i])
        payload[phase] = max(payload.get(phase, 0), received, sum(sent.values()))
    longest = p.samples.filter(pl.col("kind") == "exchange").group_by("phase").agg(pl.col("duration").max())
    for phase, duration in longest.iter_rows():
        assert payload[phase] > 0
        assert payload[phase] + 48 <= duration <= payload[phase] + 71 + 39, phase


# --- phase granularity ---------------------------------------------------------------------


def test_phase_samples_order_kinds_and_phase_numbers() -> None:
    c = small()
    kinds = [KINDS[k] for k in c.kind.tolist()]
    phases = c.phase.tolist()
    for rows in tile_rows(c):
        assert len(rows) == 18
        assert c.local_index[rows.start : rows.stop].tolist() == list(range(18))
        for k in range(6):
            a = rows.start + 3 * k
            assert kinds[a : a + 2] == ["synchronization", "exchange"]
            assert kinds[a + 2] in ("compute", "idle")
            assert phases[a : a + 3] == [2 * k, 2 * k, 2 * k + 1]
    assert not c.epoch.any()
    assert "idle" in kinds and "compute" in kinds


def test_phase_operations_and_metadata_keys_per_kind() -> None:
    c = small()
    meta = per_sample_metadata(c)
    ops, kernels = c.operation.to_list(), c.kernel.to_list()
    seen = set()
    for i, kind in enumerate(KINDS[k] for k in c.kind.tolist()):
        names = [n for n, _ in meta[i]]
        values = dict(meta[i])
        seen.add(kind)
        if kind == "synchronization":
            assert names == SYNC_KEYS
            assert ops[i] == f"sync before exchange for {values['next_kernel']} ({values['next_role']})"
        elif kind == "exchange":
            assert names[:7] == EXCHANGE_HEAD
            assert names[7:] == sorted(names[7:]) and all(n.startswith("next_") for n in names[7:])
            assert ops[i] == f"exchange for {values['next_kernel']} ({values['next_role']})"
            assert values["active"] == ("true" if int(values["send_count"]) + int(values["receive_count"]) else "false")
        elif kind == "compute":
            assert names[:4] == COMPUTE_HEAD
            assert names[4:] == GEMM_METADATA_KEYS  # 14 entries (docs/reference/workloads.md#real-sizes)
            assert re.fullmatch(r"MLP layer \d+: GEMM block \(\d+, \d+\) inner block \d+", ops[i])
            assert re.fullmatch(r"\d+x64x64", values["shape"])
            assert kernels[i].startswith("gemm_f32_")
        else:
            assert names[:4] == IDLE_HEAD and values["active"] == "false"
            assert names[4:] == sorted(names[4:]) and "label" not in names
            assert ops[i] == f"idle during {values['scheduled_kernel']} ({values['scheduled_role']})"
    assert seen == set(KINDS)


def test_mlp_full_size_shapes_split_blocks_over_five_tiles() -> None:
    c = generate_columns(phases=1, tiles=1472)
    shapes = {v for n, v in zip(c.metadata_name.to_list(), c.metadata_value.to_list(), strict=True) if n == "shape"}
    assert shapes == {"13x64x64", "12x64x64"}
    assert (c.kind == KINDS.index("compute")).sum() == 1280


# --- other granularities -----------------------------------------------------------------


def test_region_samples_partition_the_phases() -> None:
    c = generate_columns("mlp", "region", tiles=64, busy_tiles=64, layers=2)
    p = build_profile(c)
    assert p.granularity == "region"
    meta = per_sample_metadata(c)
    ops, kernels = c.operation.to_list(), c.kernel.to_list()
    rows = tile_rows(c)[0]
    bounds = [(int(dict(meta[i])["phase_start"]), int(dict(meta[i])["phase_end"])) for i in rows]
    assert bounds[0][0] == 0
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    assert all(a < b for a, b in bounds)
    assert [ops[i] for i in rows] == [kernels[i] for i in rows]
    assert [ops[i] for i in rows][:2] == ["mlp_layer_00.matmul", "mlp_layer_00.activation"]
    assert ops[rows[-1]] == "output"
    assert all([n for n, _ in meta[i]] == ["phase_start", "phase_end"] for i in range(c.sample_count))
    phase_count = len(plan("mlp", tiles=64, busy_tiles=64, layers=2, seed=0))
    assert bounds[-1][1] == 2 * phase_count
    # a region covers its syncs and exchanges: it lasts as long as its phase samples
    fine = build_profile(generate_columns("mlp", "phase", tiles=64, busy_tiles=64, layers=2)).samples
    assert p.span_cycles == int((fine["offset"] + fine["duration"]).max())


def test_attention_regions_are_named_like_an_encoder() -> None:
    c = generate_columns("attention", "region", tiles=256)
    names = list(dict.fromkeys(c.operation.to_list()))
    assert names == [
        "embedding",
        "encoder_layer_00.norm1_qkv",
        "encoder_layer_00.attention",
        "encoder_layer_00.attention_output",
        "encoder_layer_00.norm2_mlp_up",
        "encoder_layer_00.mlp_down",
        "output",
    ]


def test_step_granularity_adds_operands_and_lists_transfers() -> None:
    c = small(granularity="step")
    p = build_profile(c)
    assert p.granularity == "step"
    meta = per_sample_metadata(c)
    kinds = [KINDS[k] for k in c.kind.tolist()]
    operations = c.operation.to_list()
    sends = receives = 0
    for i, kind in enumerate(kinds):
        values = dict(meta[i])
        if kind == "compute":
            assert [n for n, _ in meta[i]][:14] == COMPUTE_HEAD + GEMM_METADATA_KEYS
            assert meta[i][-1] == ("label", operations[i])
            for key in ("alignment", "output_tensor", "output_address", "input_0_tensor", "input_0_address",
                        "input_1_address", "argument_0", "label"):  # fmt: skip
                assert key in values, key
            assert re.fullmatch(r"0x[0-9a-f]+", values["output_address"])
        if kind == "exchange":
            listed = [(n, v) for n, v in meta[i] if re.fullmatch(r"(send|receive)_\d+", n)]
            assert [n for n, _ in listed] == [f"send_{j}" for j in range(int(values["send_count"]))] + [
                f"receive_{j}" for j in range(int(values["receive_count"]))
            ]
            for n, v in listed:
                other = "destination_tile" if n.startswith("send") else "source_tile"
                assert re.fullmatch(rf"tensor=\d+,{other}=\d+,bytes=\d+", v)
            total = sum(int(v.rsplit("=", 1)[1]) for n, v in listed if n.startswith("receive"))
            assert total == int(values["receive_bytes"])
            sends += int(values["send_count"])
            receives += int(values["receive_count"])
    assert sends == receives > 0


def test_step_granularity_splits_multi_kernel_commands_into_calls() -> None:
    c = generate_columns("attention", "step", tiles=256)
    kernels = c.kernel.to_list()
    assert {"add_bias_f16_c16", "gelu_c16_to_a8", "check_finite_f16"} <= set(kernels)
    phase = build_profile(generate_columns("attention", "phase", tiles=256))
    assert c.sample_count > phase.sample_count
    for i in np.flatnonzero(np.array(kernels) == "gelu_c16_to_a8")[:20]:
        assert kernels[i - 1] == "add_bias_f16_c16"
        assert c.phase[i] == c.phase[i - 1] and c.end[i - 1] == c.start[i]


@pytest.mark.parametrize("workload", ["gemm", "attention"])
def test_other_workloads_use_their_kernels(workload: str) -> None:
    c = generate_columns(workload, tiles=32, phases=20)
    kernels = set(c.kernel.to_list()) - {""}
    expected = {"gemm": "gemm_f32_accumulate_large_rows", "attention": "gemm_f16_accumulate_small_rows"}[workload]
    assert expected in kernels


def test_attention_has_scores_softmax_and_values_phases() -> None:
    c = generate_columns("attention", tiles=32)
    assert {
        "attention_qk_init_large_rows",
        "attention_softmax_l_query_l_key_f16",
        "attention_pv_init_large_rows",
        "layer_norm_affine_f16",
    } <= set(c.kernel.to_list())


# --- schema variants --------------------------------------------------------------------------


def test_v2_marks_idle_phases_as_inactive_compute() -> None:
    v3, v2 = small(), small(schema_version=2)
    assert v2.schema_version == 2
    idle = v3.kind == KINDS.index("idle")
    assert idle.any() and not (v2.kind == KINDS.index("idle")).any()
    assert (v2.kind[idle] == KINDS.index("compute")).all()
    p = build_profile(v2)
    assert p.samples["inactive"].to_numpy().sum() == idle.sum()
    np.testing.assert_array_equal(v2.start, v3.start)


def test_v4_adds_exchange_activities_as_offsets_inside_each_exchange_window() -> None:
    """Activities are cycles inside the window [0, exchangeEventCycles], as the newest runtime reads them."""
    v3, v4 = small(), small(schema_version=4)
    assert v3.activity_counts.sum() == 0 and not v3.exchange_event_cycles.any()
    p = build_profile(v4)
    samples = p.samples.select(
        "sample", "kind", "phase", lasts=pl.col("duration"), window=pl.col("exchange_event_cycles").cast(pl.Int64)
    )
    acts = p.exchange_activities.with_columns(pl.col("start", "end").cast(pl.Int64)).join(samples, on="sample")
    assert acts.height > 0
    assert set(acts["kind"].unique().to_list()) == {"send", "receive", "partnerBusy"}
    assert (acts["kind_right"] == "exchange").all()
    assert ((acts["start"] >= 0) & (acts["start"] < acts["end"]) & (acts["end"] <= acts["window"])).all()
    # every window is shorter than its exchange, and every tile's activities end before it does: an idle tail
    tails = acts.group_by("sample").agg(pl.col("end").max(), pl.col("window").first(), pl.col("lasts").first())
    assert ((tails["end"] < tails["window"]) & (tails["window"] < tails["lasts"])).all()
    # sends and receives overlap on a tile that does both; partner-busy stretches open the window
    both = acts.group_by("sample").agg(
        send=pl.col("start").filter(pl.col("kind") == "send").min(),
        receive=pl.col("start").filter(pl.col("kind") == "receive").min(),
        send_end=pl.col("end").filter(pl.col("kind") == "send").max(),
    )
    overlapping = both.filter((pl.col("receive") > pl.col("send")) & (pl.col("receive") < pl.col("send_end")))
    assert overlapping.height > 0
    assert (acts.filter(pl.col("kind") == "partnerBusy")["start"] == 0).all()
    exchange = v4.kind == KINDS.index("exchange")
    moved = exchange & (v4.activity_counts > 0)
    assert (v4.exchange_event_cycles[moved] > 0).all()
    assert not v4.exchange_event_cycles[~exchange].any()
    # one window per phase, on every tile of it
    windows = samples.filter(pl.col("window") > 0).group_by("phase").agg(pl.col("window").n_unique())
    assert (windows["window"] == 1).all()


# --- determinism, knobs, files --------------------------------------------------------------------


def test_same_seed_same_profile_other_seed_different() -> None:
    a, b, other = small(seed=3), small(seed=3), small(seed=4)
    assert_columns_equal(a, b)
    assert not np.array_equal(a.start, other.start)


def test_phases_beyond_the_default_layers_add_layers() -> None:
    c = generate_columns("gemm", "region", phases=40)  # one FP32 2048³ GEMM is 32 phases + a copy
    assert list(dict.fromkeys(c.operation.to_list())) == ["gemm_00", "gemm_01"]
    meta = per_sample_metadata(c)
    assert dict(meta[c.tile_sample_counts[0] - 1])["phase_end"] == "80"


@pytest.mark.parametrize(
    ("knobs", "message"),
    [
        ({"workload": "bert"}, "unknown workload"),
        ({"granularity": "kernel"}, "unknown granularity"),
        ({"tiles": 0}, "tiles must be between 1 and 1472"),
        ({"tiles": 1473}, "tiles must be between 1 and 1472"),
        ({"tiles": 8, "busy_tiles": 9}, "busy_tiles must be between 1 and 8"),
        ({"schema_version": 9}, "schema_version must be"),
        ({"base_cycle": 2**32}, "base_cycle must be"),
        ({"layers": 1, "phases": 10_000}, "exceeds"),
    ],
)
def test_bad_knobs_raise_one_clear_error(knobs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        generate_columns(**knobs)  # type: ignore[arg-type]


def test_non_integer_knob_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="tiles must be an integer"):
        generate_columns(tiles=2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("granularity", "version"), [("graph", 3), ("region", 3), ("phase", 2), ("phase", 4), ("step", 3), ("step", 4)]
)
def test_pycapnp_reads_back_what_was_generated(tmp_path: Path, granularity: str, version: int) -> None:
    c = generate_columns("mlp", granularity, tiles=6, phases=3, schema_version=version)
    assert_columns_equal(decode_reference(write_with_pycapnp(c, tmp_path / "p.capnp")), c)


def test_generate_profile_writes_a_readable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = generate_profile(tmp_path / "a.capnp", "attention", "step", tiles=8, phases=12, progress=True)
    assert path == tmp_path / "a.capnp"
    assert_columns_equal(decode_reference(path), generate_columns("attention", "step", tiles=8, phases=12))
    err = capsys.readouterr().err
    assert "generating" in err and "writing a.capnp" in err
    generate_profile(tmp_path / "b.capnp", tiles=4, phases=2)  # small: no bar unless asked
    assert capsys.readouterr().err == ""


def test_demo_profile_is_generated_once_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IPU_NB_DATA", str(tmp_path / "data"))
    path = demo_profile_path("small")
    assert path.parent == tmp_path / "data" and path.name.startswith("demo-small-mlp-phase-v")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left behind
    stamp = path.stat().st_mtime_ns
    assert demo_profile_path("small") == path and path.stat().st_mtime_ns == stamp
    elsewhere = demo_profile_path("small", directory=tmp_path / "other")
    assert elsewhere.parent == tmp_path / "other" and elsewhere.name == path.name
    # the demo is the 64-tile, two-layer MLP phase profile (with idle tiles), byte for byte
    expected = generate_profile(tmp_path / "expected.capnp", tiles=64, layers=2)
    assert path.read_bytes() == expected.read_bytes()


def test_demo_size_is_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown demo size"):
        demo_profile_path("huge", directory=tmp_path)  # type: ignore[arg-type]


def test_strings_are_dictionary_encoded_compactly() -> None:
    c = small(tiles=32)
    for column in (c.operation, c.kernel, c.metadata_name, c.metadata_value):
        assert isinstance(column, Strings)
        values = column.values.to_pylist()
        assert len(set(values)) == len(values)
        assert set(np.unique(column.codes).tolist()) == set(range(len(values)))


@settings(max_examples=examples(25))
@given(
    workload=st.sampled_from(["mlp", "gemm", "attention"]),
    granularity=st.sampled_from(["graph", "region", "phase", "step"]),
    tiles=st.integers(1, 40),
    busy=st.floats(0.05, 1.0),
    phases=st.integers(1, 12),
    seed=st.integers(0, 2**32),
    version=st.integers(1, 5),
    base=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
)
def test_invariants_hold_for_any_knobs(
    workload: str, granularity: str, tiles: int, busy: float, phases: int, seed: int, version: int, base: int | None
) -> None:
    busy_tiles = max(1, round(busy * tiles))
    c = generate_columns(
        workload, granularity, tiles=tiles, busy_tiles=busy_tiles, phases=phases, seed=seed, schema_version=version,
        base_cycle=base,
    )  # fmt: skip
    np.testing.assert_array_equal(c.tiles, c600_physical_tiles(tiles))
    assert c.tile_sample_counts.sum() == c.sample_count == len(c.operation) == len(c.kernel)
    assert c.metadata_counts.sum() == len(c.metadata_name) == len(c.metadata_value)
    assert c.activity_counts.sum() == len(c.activity_kind)
    if granularity in ("phase", "step"):
        assert c.tile_sample_counts.min() >= 3 * phases
    kinds = set(c.kind.tolist())
    assert (KINDS.index("idle") in kinds) <= (version >= 3)
    assert bool(c.activity_counts.sum()) <= (version >= 4)
    p = build_profile(c)
    s = p.samples.sort("sample")
    for tile in s.partition_by("tile_index"):
        offset, duration = tile["offset"].to_numpy().astype(np.int64), tile["duration"].to_numpy().astype(np.int64)
        np.testing.assert_array_equal(offset[:-1] + duration[:-1], offset[1:])  # contiguous, wrap-safe
        assert tile["local_index"].to_list() == list(range(tile.height))
    if granularity in ("phase", "step"):
        ends = (
            s.filter(pl.col("kind") == "exchange")
            .group_by("phase")
            .agg((pl.col("offset") + pl.col("duration")).n_unique())
        )
        assert ends.height == phases and (ends[:, 1] == 1).all()
