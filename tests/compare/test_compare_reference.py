"""`compare` against an independent reference: random pairs (hypothesis), generated profiles changed on purpose.

The reference (`compare_reference`) computes every group with `spec_reference` (plain
Python over the builder samples) and derives statuses, deltas, order and totals itself.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
from budget import examples
from builders import S, T, profile_from_tiles, profile_of
from compare_pairs import drop_kernel, rename_kernel, scale_kernel, split_kernel
from compare_reference import FIELDS, compare_rows, groups_by_name, total_phase_cycles
from hypothesis import given, settings
from hypothesis import strategies as st

import ipu_nb
from ipu_nb import compare, query
from ipu_nb._model.vocabulary import GroupBy

_KERNELS = ["", "gemm", "copy", "Z", "é", "(no kernel)", "a\tb"]
_OPERATIONS = ["", "op a", "op b", "exchange"]
_META = [("layer", "0"), ("layer", "1"), ("role", "x"), ("layer", "")]
_KINDS = ("compute", "exchange", "synchronization", "idle")


@st.composite
def _sample(draw: Any) -> S:
    start = draw(st.one_of(st.integers(0, 60), st.integers(2**32 - 40, 2**32 - 1)))
    duration = draw(st.one_of(st.integers(0, 40), st.integers(2**31, 2**32 - 1)))
    return S(
        start=start,
        end=(start + duration) % 2**32,
        kind=draw(st.sampled_from(_KINDS)),
        operation=draw(st.sampled_from(_OPERATIONS)),
        kernel=draw(st.sampled_from(_KERNELS)),
        phase=draw(st.integers(0, 3)),
        epoch=draw(st.integers(0, 1)),
        metadata=draw(st.lists(st.sampled_from(_META), max_size=2)),
    )


@st.composite
def _tiles(draw: Any) -> list[T]:
    ids = draw(st.lists(st.integers(0, 6), max_size=4, unique=True))
    return [T(i, draw(st.lists(_sample(), max_size=6))) for i in ids]


@st.composite
def _changed(draw: Any, tiles: list[T]) -> list[T]:
    """`tiles` after a random 'compiler change': samples stretched, renamed, dropped, added; tiles dropped."""
    out = []
    for t in tiles:
        if draw(st.integers(0, 9)) == 0:
            continue
        samples = []
        for s in t.samples:
            action = draw(st.sampled_from(["keep", "keep", "stretch", "rename", "drop"]))
            if action == "drop":
                continue
            end = (s.end + draw(st.integers(-5, 30))) % 2**32 if action == "stretch" else s.end
            kernel = draw(st.sampled_from(_KERNELS)) if action == "rename" else s.kernel
            samples.append(S(s.start, end, s.kind, s.operation, kernel, s.phase, s.epoch, metadata=s.metadata))
        samples += draw(st.lists(_sample(), max_size=2))
        out.append(T(t.tile, samples))
    return out + draw(st.lists(st.builds(T, st.integers(7, 9), st.lists(_sample(), max_size=3)), max_size=1))


_FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(_KINDS),
        "kernel": st.sampled_from(_KERNELS),
        "operation_contains": st.sampled_from(["", "op", "a"]),
        "tiles": st.lists(st.integers(0, 8), min_size=1, max_size=3).map(tuple),
        "phases": st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple),
        "metadata": st.sampled_from([(("layer", None),), (("layer", "0"),), (("role", "x"), ("layer", None))]),
        "at": st.integers(0, 70),
    },
)


def _check(before_tiles: list[T], after_tiles: list[T], by: str, filters: dict[str, Any], clock: int) -> None:
    before, after = profile_from_tiles(before_tiles, clock), profile_from_tiles(after_tiles, clock)
    flags = {"group_by": by, "metadata_key": "layer", **filters}
    c = compare(before, after, by=by, metadata_key="layer" if by == "metadata" else None, **filters)

    b, a = groups_by_name(before_tiles, clock, flags), groups_by_name(after_tiles, clock, flags)
    contract = ["name", "status", *(f"{f}_{s}" for f in FIELDS for s in ("before", "after"))]
    contract += ["phase_cycles_delta", "work_cycles_delta", "phase_cycles_ratio", "name_before"]
    got = c.groups.select(contract).with_columns(pl.col("status").cast(pl.String)).to_dicts()
    assert got == compare_rows(b, a, {})

    s = c.summary
    total_before, total_after = total_phase_cycles(before_tiles, filters), total_phase_cycles(after_tiles, filters)
    assert (s.phase_cycles_before, s.phase_cycles_after) == (total_before, total_after)
    assert s.group_phase_cycles_before == sum(g["phaseCycles"] for g in b.values())
    assert s.overlap_cycles_before >= 0 and s.overlap_cycles_after >= 0
    if by == "phase":
        assert s.overlap_cycles_before == s.overlap_cycles_after == 0
    # the identity, in integers: every group's contribution plus the overlap term is the total delta
    assert sum(r["phase_cycles_delta"] for r in got) + s.overlap_term == total_after - total_before
    for limit in (0, 1, 2):
        terms = c.attribution(limit)
        assert sum(terms["cycles"].to_list()) == total_after - total_before
        assert terms["end"].to_list()[-1] == total_after - total_before
    assert s.matched_sample_count_before == sum(g["sampleCount"] for g in b.values())


@settings(max_examples=examples(150))
@given(data=st.data(), by=st.sampled_from(ipu_nb._query.GROUP_BYS), filters=_FILTERS)
def test_random_pairs_match_the_reference(data: st.DataObject, by: str, filters: dict[str, Any]) -> None:
    before = data.draw(_tiles())
    after = data.draw(st.one_of(_changed(before), _tiles()))
    _check(before, after, by, filters, data.draw(st.sampled_from([0, 3, 1_500_000_000])))


@settings(max_examples=examples(60))
@given(data=st.data(), by=st.sampled_from(["kernel", "operation", "tile"]))
def test_random_renames_match_the_reference(data: st.DataObject, by: str) -> None:
    before_tiles = data.draw(_tiles())
    after_tiles = data.draw(_changed(before_tiles))
    before, after = profile_from_tiles(before_tiles), profile_from_tiles(after_tiles)
    b, a = groups_by_name(before_tiles, 1, {"group_by": by}), groups_by_name(after_tiles, 1, {"group_by": by})
    # a valid rename map: before names onto after names, injective, never onto an untouched before name
    olds = data.draw(st.lists(st.sampled_from(sorted(b)), unique=True, max_size=3)) if b else []
    news = data.draw(st.permutations(sorted(a)))[: len(olds)] if a else []
    renames = dict(zip(olds, news, strict=False))
    while True:  # drop renames onto a before name that stays, until none is left (dropping one can expose another)
        kept = {o: n for o, n in renames.items() if n == o or n not in set(b) - set(renames)}
        if kept == renames:
            break
        renames = kept
    c = compare(before, after, by=by, renames=renames)
    got = c.groups.select("name", "name_before", "phase_cycles_before", "phase_cycles_after", "status")
    expected = compare_rows(b, a, renames)
    assert got.with_columns(pl.col("status").cast(pl.String)).to_dicts() == [
        {k: r[k] for k in ("name", "name_before", "phase_cycles_before", "phase_cycles_after", "status")}
        for r in expected
    ]


def test_seeded_pairs_for_every_key() -> None:
    rng = random.Random(13)
    for _ in range(20):
        before = [
            T(t, [S(rng.randrange(50), 0, kernel=rng.choice(_KERNELS)) for _ in range(rng.randrange(5))])
            for t in rng.sample(range(9), 4)
        ]
        for t in before:
            for s in t.samples:
                s.end = s.start + rng.randrange(40)
        after = [T(t.tile, [S(s.start, s.end + rng.randrange(3), kernel=s.kernel) for s in t.samples]) for t in before]
        for by in ipu_nb._query.GROUP_BYS:
            _check(before, after, by, {}, 1_500_000_000)


# --------------------------------------------------------------------------- generated profiles, changed on purpose


@pytest.fixture(scope="module")
def generated() -> Any:
    return ipu_nb.generate_columns("mlp", tiles=64, layers=1, seed=1)


def _durations(profile: Any, kernel: str, tiles: list[int] | None = None) -> int:
    frame = profile.samples.filter(pl.col("kernel").cast(pl.String) == kernel)
    if tiles is not None:
        frame = frame.filter(pl.col("tile").is_in(tiles))
    return int(frame.get_column("duration").cast(pl.Int64).sum())


def _assert_sides_match_query(c: Any, by: GroupBy, **filters: Any) -> None:
    for side, profile in (("before", c.before), ("after", c.after)):
        groups = {g["name"]: g for g in query(profile, group_by=by, limit=0, **filters).groups.to_dicts()}
        rows = c.groups.filter(pl.col(f"sample_count_{side}").is_not_null()).to_dicts()
        assert len(rows) == len(groups)
        for row in rows:
            name = row["name_before"] if side == "before" else row["name"]
            assert [row[f"{f}_{side}"] for f in FIELDS] == [groups[name][f] for f in FIELDS]


def test_scaled_kernel_on_some_tiles(generated: Any) -> None:
    before = profile_of(generated)
    kernel = "gemm_f32_accumulate_large_rows"
    tiles = [int(t) for t in generated.tiles[:8]]
    after = profile_of(scale_kernel(generated, kernel, 1.25, tiles))
    added = _durations(after, kernel) - _durations(before, kernel)
    assert added > 0
    c = compare(before, after)
    _assert_sides_match_query(c, "kernel")
    row = c.groups.filter(pl.col("name") == kernel).row(0, named=True)
    assert row["status"] == "changed" and row["work_cycles_delta"] == added
    # the other kernels keep their durations: only their positions on the stretched tiles moved
    others = c.groups.filter(pl.col("name") != kernel)
    assert others["work_cycles_delta"].to_list() == [0] * others.height
    assert c.summary.phase_cycles_delta == sum(c.attribution()["cycles"].to_list())
    by_tile = compare(before, after, by="tile", kernel=kernel)
    _assert_sides_match_query(by_tile, "tile", kernel=kernel)
    changed = by_tile.groups.filter(pl.col("work_cycles_delta") != 0)["name"].to_list()
    assert sorted(changed) == sorted(f"tile {t}" for t in tiles if _durations(before, kernel, [t]))
    assert by_tile.groups.height == before.samples.filter(pl.col("kernel").cast(pl.String) == kernel)["tile"].n_unique()


def test_renamed_dropped_and_split_kernels(generated: Any) -> None:
    before = profile_of(generated)
    changed = rename_kernel(generated, "gemm_f32_accumulate_large_rows", "gemm_f32_accumulate_v2")
    changed = drop_kernel(changed, "copy_u64")
    changed = split_kernel(changed, "gelu_c16_to_a8", "gelu_fast", [int(t) for t in generated.tiles[:16]])
    after = profile_of(changed)
    c = compare(before, after, renames={"gemm_f32_accumulate_large_rows": "gemm_f32_accumulate_v2"})
    _assert_sides_match_query(c, "kernel")
    status = dict(zip(c.groups["name"].to_list(), c.groups["status"].cast(str).to_list(), strict=True))
    assert status["copy_u64"] == "removed" and status["gelu_fast"] == "added"
    assert status["gelu_c16_to_a8"] == "changed"
    # dropping a kernel moves nobody else (its tiles' later samples keep their counters)
    assert status["gemm_f32_accumulate_v2"] == "unchanged"
    assert c.groups.filter(pl.col("name") == "gemm_f32_accumulate_v2")["name_before"].to_list() == [
        "gemm_f32_accumulate_large_rows"
    ]
    copy = c.groups.filter(pl.col("name") == "copy_u64").row(0, named=True)
    assert copy["phase_cycles_delta"] == -copy["phase_cycles_before"] and copy["phase_cycles_ratio"] == 0.0
    s = c.summary
    assert s.sample_count_delta == -copy["sample_count_before"]
    assert sum(c.attribution(3)["cycles"].to_list()) == s.phase_cycles_delta


def test_another_seed_by_operation(generated: Any) -> None:
    before = profile_of(generated)
    after = profile_of(ipu_nb.generate_columns("mlp", tiles=64, layers=1, seed=2))
    c = compare(before, after, by="operation", kind="compute")
    _assert_sides_match_query(c, "operation", kind="compute")
    assert c.groups.height > 10
    assert set(c.groups["status"].cast(str).to_list()) <= {"changed", "unchanged", "added", "removed"}
    assert sum(c.attribution()["cycles"].to_list()) == c.summary.phase_cycles_delta
