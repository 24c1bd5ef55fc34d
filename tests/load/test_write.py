"""The vectorised writer, read back through the independent pycapnp reference decoder."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Literal, TypedDict

import numpy as np
import pyarrow as pa
import pytest
from budget import examples
from builders import S, T, columns_from_tiles, write_with_pycapnp
from hypothesis import event, given, settings
from hypothesis import strategies as st
from typing_extensions import Unpack

from ipu_nb._io.capnp_writer import encode_columns, write_columns
from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference
from ipu_nb._model.columns import Columns, Strings

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


Far = Literal["single", "double"]
EmptyLists = Literal["empty", "null"]


class Layout(TypedDict, total=False):
    """The keyword arguments of `encode_columns` (what `write_columns` passes on as its layout)."""

    step_layout: tuple[int, int] | None
    first_segment_words: int
    far: Far
    empty_lists: EmptyLists
    max_segment_words: int | None


def assert_round_trip(columns: Columns, path: Path, **layout: Unpack[Layout]) -> Path:
    """Write, decode with pycapnp, and compare every frame with the source's."""
    write_columns(columns, path, **layout)
    expected = build_profile(columns)
    actual = build_profile(decode_reference(path))
    for name in FRAMES:
        assert getattr(actual, name).equals(getattr(expected, name)), name
    assert (actual.clock_hz, actual.schema_version) == (expected.clock_hz, expected.schema_version)
    return path


def segments_of(path: Path) -> list[np.ndarray]:
    """Parse the stream framing; the segment sizes must account for every byte of the file."""
    data = path.read_bytes()
    count = int(np.frombuffer(data, "<u4", 1)[0]) + 1
    sizes = np.frombuffer(data, "<u4", count, 4).astype(np.int64)
    header = 4 * (1 + count + (count + 1) % 2)
    assert header + 8 * int(sizes.sum()) == len(data)
    words = np.frombuffer(data, "<u8", offset=header)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    return [words[a:b] for a, b in itertools.pairwise(bounds.tolist())]


def walk(segments: list[np.ndarray]) -> tuple[Counter, Counter]:
    """Schema-agnostic traversal from the root pointer.

    Returns pointer counts by kind ("near", "far", "double", "null", "empty-struct") and
    struct-pointer sizes (data words, pointers). Asserts that every word of every segment
    is reached exactly once (objects, pads and pointers; no slack, no shared blobs).
    """
    seen = [np.zeros(len(s), dtype=np.int32) for s in segments]
    kinds: Counter = Counter()
    structs: Counter = Counter()
    mask29 = (1 << 29) - 1

    def word(seg: int, i: int) -> int:
        return int(segments[seg][i])

    def mark(seg: int, start: int, n: int) -> None:
        seen[seg][start : start + n] += 1

    def signed30(w: int) -> int:
        off = (w >> 2) & 0x3FFFFFFF
        return off - (1 << 30) if off >= 1 << 29 else off

    def visit(seg: int, i: int) -> None:
        mark(seg, i, 1)
        w = word(seg, i)
        if w == 0:
            kinds["null"] += 1
            return
        if w & 3 == 2:
            pad_seg, pad = w >> 32, (w >> 3) & mask29
            if w & 4:
                kinds["double"] += 1
                mark(pad_seg, pad, 2)
                landing, tag = word(pad_seg, pad), word(pad_seg, pad + 1)
                assert landing & 7 == 2 and tag & 0xFFFFFFFC == 0
                seg, target, w = landing >> 32, (landing >> 3) & mask29, tag
            else:
                kinds["far"] += 1
                mark(pad_seg, pad, 1)
                landing = word(pad_seg, pad)
                assert landing & 3 != 2
                seg, target, w = pad_seg, pad + 1 + signed30(landing), landing
        else:
            kinds["near"] += 1
            target = i + 1 + signed30(w)
        if w & 3 == 0:
            data, ptrs = (w >> 32) & 0xFFFF, w >> 48
            structs[(data, ptrs)] += 1
            if data + ptrs == 0:
                kinds["empty-struct"] += 1
                assert signed30(w) == -1
            mark(seg, target, data)
            for j in range(ptrs):
                visit(seg, target + data + j)
        else:
            size, count = (w >> 32) & 7, w >> 35
            if size == 7:
                tag = word(seg, target)
                n, data, ptrs = (tag >> 2) & 0x3FFFFFFF, (tag >> 32) & 0xFFFF, tag >> 48
                assert n * (data + ptrs) == count
                mark(seg, target, 1)
                for e in range(n):
                    base = target + 1 + e * (data + ptrs)
                    mark(seg, base, data)
                    for j in range(ptrs):
                        visit(seg, base + data + j)
            else:
                assert size == 2, "only byte lists (text) besides composite lists"
                blob = bytes(segments[seg][target : target + (count + 7) // 8].tobytes())[:count]
                assert blob.endswith(b"\0")
                mark(seg, target, (count + 7) // 8)

    visit(0, 0)
    for s in seen:
        assert (s == 1).all(), "a word was left unreached or reached twice"
    return kinds, structs


def busy_tiles(n_tiles: int = 3, per_tile: int = 40, *, activities: bool = False) -> list[T]:
    """Tiles whose samples carry varied strings, metadata and (optionally) activities."""
    tiles = []
    for t in range(n_tiles):
        samples = []
        for i in range(per_tile):
            samples.append(
                S(
                    start=i * 100 + t,
                    end=i * 100 + t + 50 + i % 7,
                    kind=("exchange", "compute", "synchronization", "idle")[i % 4],
                    operation=f"op {i % 5} " * (i % 3),
                    kernel="k" * (i % 10),
                    phase=i // 2,
                    epoch=i % 2,
                    metadata=[(f"key{j}", "v" * (i % 9) + "ü" * (j % 2)) for j in range(i % 4)],
                    activities=[("send", i, i + 3), ("partnerBusy", i + 3, i + 9)][: i % 3] if activities else (),
                    exchange_event_cycles=i if activities else 0,
                )
            )
        tiles.append(T(tile=t * 64 + 2, samples=samples))
    return tiles


def test_round_trip_single_segment(tmp_path: Path) -> None:
    columns = columns_from_tiles(busy_tiles(2, 5))
    path = assert_round_trip(columns, tmp_path / "p.capnp")
    segments = segments_of(path)
    assert len(segments) == 1
    kinds, structs = walk(segments)
    assert kinds["far"] == kinds["double"] == 0
    assert set(structs) == {(2, 1), (2, 3)}


def test_encode_matches_written_file(tmp_path: Path) -> None:
    columns = columns_from_tiles(busy_tiles(3, 30))
    path = write_columns(columns, tmp_path / "p.capnp", first_segment_words=64)
    on_disk = segments_of(path)
    encoded = encode_columns(columns, first_segment_words=64)
    assert len(encoded) == len(on_disk) > 1
    for a, b in zip(encoded, on_disk, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("n", [3, 20])
def test_bytes_identical_to_capnp_builder(tmp_path: Path, n: int) -> None:
    # With every list non-empty, capnp's own builder (via pycapnp) lays the message out
    # exactly like ours, including the far pointer of the two-segment case (n=20).
    tiles = [
        T(
            t,
            [
                S(i, i + 7, operation="o" * (i % 12), metadata=[("n", "v" * i)], activities=[("send", i, i)])
                for i in range(n)
            ],
        )
        for t in range(3)
    ]
    columns = columns_from_tiles(tiles, schema_version=4)
    ours = write_columns(columns, tmp_path / "ours.capnp").read_bytes()
    theirs = write_with_pycapnp(columns, tmp_path / "theirs.capnp").read_bytes()
    assert ours == theirs


@pytest.mark.parametrize("far", ["single", "double"])
def test_multi_segment_default_growth(tmp_path: Path, far: Far) -> None:
    columns = columns_from_tiles(busy_tiles(4, 300))
    path = assert_round_trip(columns, tmp_path / "p.capnp", far=far)
    segments = segments_of(path)
    sizes = [len(s) for s in segments]
    assert len(sizes) > 3 and sizes[0] <= 1024
    kinds, _ = walk(segments)
    assert kinds["far" if far == "single" else "double"] >= len(sizes) - 2
    assert kinds["double" if far == "single" else "far"] == 0


@pytest.mark.parametrize("far", ["single", "double"])
@pytest.mark.parametrize("first", [1, 2, 16])
def test_tiny_segments_far_pointers_everywhere(tmp_path: Path, far: Far, first: int) -> None:
    columns = columns_from_tiles(busy_tiles(3, 12, activities=True), schema_version=4)
    path = assert_round_trip(columns, tmp_path / "p.capnp", far=far, first_segment_words=first, max_segment_words=16)
    segments = segments_of(path)
    kinds, _ = walk(segments)
    crossing = kinds["far"] + kinds["double"]
    assert crossing > 50 and crossing > kinds["near"] / 4
    assert kinds["double" if far == "single" else "far"] == 0
    if far == "double":
        pads = segments[-1]
        assert len(pads) == 2 * kinds["double"] and (pads[::2] & 7 == 2).all()


@pytest.mark.parametrize(
    ("layout", "activities", "expected"),
    [
        (None, False, (2, 3)),
        (None, True, (3, 4)),
        ((2, 3), False, (2, 3)),
        ((3, 4), False, (3, 4)),
        ((5, 6), True, (5, 6)),
        ((5, 6), False, (5, 6)),
    ],
)
def test_step_layouts(tmp_path: Path, layout: tuple[int, int] | None, activities: bool, expected: tuple) -> None:
    columns = columns_from_tiles(busy_tiles(2, 20, activities=activities))
    path = assert_round_trip(columns, tmp_path / "p.capnp", step_layout=layout, first_segment_words=256)
    kinds, structs = walk(segments_of(path))
    assert set(structs) == {(2, 1), expected}
    assert structs[expected] == 40
    assert kinds["far"] > 0


def test_schema_version_4_selects_newer_layout(tmp_path: Path) -> None:
    columns = columns_from_tiles(busy_tiles(1, 4), schema_version=4)
    _, structs = walk(segments_of(assert_round_trip(columns, tmp_path / "p.capnp")))
    assert set(structs) == {(2, 1), (3, 4)}


@pytest.mark.parametrize("layout", [(1, 2), (2, 2), (1, 0), (2, 0)])
def test_smaller_layout_without_loss(tmp_path: Path, layout: tuple[int, int]) -> None:
    d, p = layout
    samples = [
        S(
            i,
            i + 5,
            kind="compute" if d >= 2 else "exchange",
            epoch=1 if d >= 2 else 0,
            operation="op" if p >= 1 else "",
            kernel="ker" if p >= 2 else "",
            phase=i,
        )
        for i in range(6)
    ]
    path = assert_round_trip(columns_from_tiles([T(1, samples), T(2, [])]), tmp_path / "p.capnp", step_layout=layout)
    _, structs = walk(segments_of(path))
    assert structs[layout] == 6


def test_zero_sized_steps(tmp_path: Path) -> None:
    samples = [S(i * 3, i * 3 + 2, kind="exchange", operation="", kernel="", local_index=0) for i in range(5)]
    columns = columns_from_tiles([T(9, samples), T(4, samples[:2])])
    path = assert_round_trip(columns, tmp_path / "p.capnp", step_layout=(0, 0), first_segment_words=8)
    kinds, structs = walk(segments_of(path))
    assert kinds["empty-struct"] == 7 and structs[(0, 0)] == 7


@pytest.mark.parametrize(
    ("layout", "change", "field"),
    [
        ((2, 3), {"activities": [("send", 1, 2)]}, "exchangeActivities"),
        ((2, 3), {"exchange_event_cycles": 5}, "exchangeEventCycles"),
        ((2, 2), {"metadata": [("a", "b")]}, "metadata"),
        ((1, 2), {"epoch": 1}, "epoch/kind"),
        ((1, 2), {"kind": "idle"}, "epoch/kind"),
        ((2, 1), {"kernel": "k"}, "kernel"),
        ((0, 0), {"operation": "x"}, "operation"),
        ((0, 0), {"phase": 3}, "localIndex/phase"),
    ],
)
def test_layout_that_drops_values_is_refused(tmp_path: Path, layout: tuple, change: dict, field: str) -> None:
    base = {"kind": "exchange", "operation": "", "kernel": "", "local_index": 0}
    columns = columns_from_tiles([T(0, [S(0, 1, **{**base, **change})])])
    with pytest.raises(ValueError, match=field) as info:
        write_columns(columns, tmp_path / "p.capnp", step_layout=layout)
    assert "\n" not in str(info.value)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("empty_lists", ["empty", "null"])
@pytest.mark.parametrize("far", ["single", "double"])
def test_empty_profile(tmp_path: Path, empty_lists: EmptyLists, far: Far) -> None:
    columns = columns_from_tiles([])
    path = assert_round_trip(columns, tmp_path / "p.capnp", empty_lists=empty_lists, far=far, first_segment_words=2)
    kinds, _ = walk(segments_of(path))
    assert kinds["null"] == (1 if empty_lists == "null" else 0)


@pytest.mark.parametrize("empty_lists", ["empty", "null"])
def test_tiles_without_samples_and_empty_lists(tmp_path: Path, empty_lists: EmptyLists) -> None:
    tiles = [T(5), T(1, [S(1, 2), S(2, 3, metadata=[("a", "")])]), T(7), T(3, [S(0, 0)])]
    columns = columns_from_tiles(tiles, schema_version=4)
    path = assert_round_trip(columns, tmp_path / "p.capnp", empty_lists=empty_lists)
    kinds, _ = walk(segments_of(path))
    # (3, 4) steps: 2 empty samples lists, 2 empty metadata lists, 3 empty activity lists;
    # null mode leaves them null, empty mode writes zero-length lists.
    null_pointers = 2 + 2 + 3 if empty_lists == "null" else 0
    assert kinds["null"] == null_pointers


@pytest.mark.parametrize(("length", "words"), [(0, 1), (1, 1), (7, 1), (8, 2), (9, 2), (15, 2), (16, 3)])
def test_text_padding(tmp_path: Path, length: int, words: int) -> None:
    columns = columns_from_tiles([T(0, [S(0, 1, operation="x" * length, kernel="")])])
    path = assert_round_trip(columns, tmp_path / "p.capnp")
    # root 1 + Profile 3 + tiles list 3 + samples list 3 + step 5 + kernel 1 + empty metadata list 1
    assert sum(len(s) for s in segments_of(path)) == 17 + words


def test_non_ascii_empty_and_control_strings(tmp_path: Path) -> None:
    odd = ["", "ü", "日本語テキスト", "a\tb\nc", "\x01", "é" * 4, "😀😀", "' \" \\ <b>"]
    samples = [S(i, i + 1, operation=s, kernel=odd[-1 - i], metadata=[(s, s), ("", "x")]) for i, s in enumerate(odd)]
    assert_round_trip(columns_from_tiles([T(0, samples)]), tmp_path / "p.capnp", first_segment_words=32)


def test_wrapped_counters(tmp_path: Path) -> None:
    samples = [S(2**32 - 10, 2**32 - 1), S(2**32 - 1, 5), S(5, 2**32 - 3)]
    columns = columns_from_tiles([T(0, samples), T(1, [S(2**32 - 1, 0)])])
    assert_round_trip(columns, tmp_path / "p.capnp")
    decoded = decode_reference(tmp_path / "p.capnp")
    assert decoded.start.tolist() == [2**32 - 10, 2**32 - 1, 5, 2**32 - 1]


def test_metadata_and_activities(tmp_path: Path) -> None:
    columns = columns_from_tiles(busy_tiles(3, 25, activities=True), schema_version=5, clock_hz=2**63 + 5)
    assert_round_trip(columns, tmp_path / "p.capnp", step_layout=(5, 6), far="double", first_segment_words=100)
    decoded = decode_reference(tmp_path / "p.capnp")
    assert decoded.schema_version == 5 and decoded.clock_hz == 2**63 + 5
    assert decoded.activity_counts.sum() == columns.activity_counts.sum() > 0


def test_replaces_atomically_and_reports_progress(tmp_path: Path) -> None:
    path = tmp_path / "p.capnp"
    path.write_bytes(b"old")
    calls: list[tuple[int, int]] = []
    write_columns(columns_from_tiles(busy_tiles(2, 10)), path, report=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1] == (path.stat().st_size, path.stat().st_size)
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(calls))
    assert [p.name for p in tmp_path.iterdir()] == ["p.capnp"]
    bad = replace(columns_from_tiles(busy_tiles(1, 3)), tile_sample_counts=np.array([2]))
    with pytest.raises(ValueError):
        write_columns(bad, path)
    assert [p.name for p in tmp_path.iterdir()] == ["p.capnp"] and path.stat().st_size > 3


def _strings(items: list[str]) -> Strings:
    return Strings.from_list(items)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tile_sample_counts": np.array([1, 1])}, "tile_sample_counts"),
        ({"tile_sample_counts": np.array([4, -1])}, "negative"),
        ({"phase": np.zeros(2, np.uint32)}, "phase has 2 rows"),
        ({"metadata_counts": np.array([0, 0, 9])}, "metadata_counts"),
        ({"metadata_value": _strings(["a", "b"])}, "metadata_value"),
        ({"kind": np.array([0, 1, 7], np.uint16)}, "kind"),
        ({"operation": Strings(np.array([0, 1, 5], np.uint32), pa.array(["a", "b"]))}, "operation"),
        ({"kernel": Strings(np.zeros(3, np.uint32), pa.array([None], pa.string()))}, "nulls"),
        ({"activity_start": np.zeros(1, np.uint32)}, "activity_start"),
        ({"start": np.zeros((3, 1), np.uint32)}, "1-d"),
        ({"epoch": np.array([0.5, 1, 2])}, "integer"),
    ],
)
def test_inconsistent_columns_are_refused(change: dict, message: str) -> None:
    columns = columns_from_tiles([T(0, [S(0, 1, metadata=[("a", "b")]), S(1, 2)]), T(1, [S(2, 3)])])
    with pytest.raises(ValueError, match=message) as info:
        encode_columns(replace(columns, **change))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "options",
    [
        {"far": "triple"},
        {"empty_lists": "none"},
        {"first_segment_words": 0},
        {"max_segment_words": 0},
        {"step_layout": (1,)},
    ],
)
def test_bad_options_are_refused(options: dict) -> None:
    with pytest.raises(ValueError):
        encode_columns(columns_from_tiles([T(0, [S(0, 1)])]), **options)


def test_large_round_trip_many_segments(tmp_path: Path) -> None:
    """50k samples with a realistic, repetitive vocabulary: many doubling segments."""
    rng = np.random.default_rng(7)
    n_tiles, per_tile = 100, 500
    n = n_tiles * per_tile
    meta = rng.integers(0, 4, n)
    names = np.array(["active", "role", "shape", "layer", "next_kernel"])
    values = np.array(["true", "false", "13x64x64", "gemm_f32_accumulate_large_rows", "0", ""])
    m = int(meta.sum())
    columns = Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=rng.permutation(n_tiles).astype(np.uint32),
        tile_sample_counts=np.full(n_tiles, per_tile, np.int64),
        local_index=np.tile(np.arange(per_tile, dtype=np.uint32), n_tiles),
        phase=rng.integers(0, 300, n).astype(np.uint32),
        epoch=np.zeros(n, np.uint32),
        kind=rng.integers(0, 4, n).astype(np.uint16),
        start=rng.integers(0, 2**32, n).astype(np.uint32),
        end=rng.integers(0, 2**32, n).astype(np.uint32),
        operation=_strings([f"layer {i % 37} gemm" for i in range(n)]),
        kernel=_strings(["copy_u64", "", "gelu_c16_to_a8", "gemm_f32_accumulate_large_rows"] * (n // 4)),
        metadata_counts=meta.astype(np.int64),
        metadata_name=Strings(rng.integers(0, len(names), m).astype(np.uint32), pa.array(names)),
        metadata_value=Strings(rng.integers(0, len(values), m).astype(np.uint32), pa.array(values)),
        exchange_event_cycles=np.zeros(n, np.uint32),
        activity_counts=np.zeros(n, np.int64),
    )
    path = assert_round_trip(columns, tmp_path / "big.capnp")
    segments = segments_of(path)
    assert len(segments) >= 8


# ----------------------------------------------------------------------------- property
_text = st.text(alphabet=st.sampled_from(["a", "b", "é", "😀", "\0", " "]), max_size=12)
_sample = st.builds(
    S,
    start=st.integers(0, 2**32 - 1),
    end=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["exchange", "compute", "synchronization", "idle"]),
    operation=_text,
    kernel=_text,
    phase=st.integers(0, 2**32 - 1),
    epoch=st.integers(0, 3),
    metadata=st.lists(st.tuples(_text, _text), max_size=3),
    activities=st.lists(
        st.tuples(st.sampled_from(["send", "receive", "partnerBusy"]), st.integers(0, 2**32 - 1), st.integers(0, 99)),
        max_size=2,
    ),
    exchange_event_cycles=st.integers(0, 2**32 - 1) | st.just(0),
)
_tiles = st.lists(st.builds(T, tile=st.integers(0, 2**32 - 1), samples=st.lists(_sample, max_size=4)), max_size=4)


def _refused(tiles: list[T], layout: tuple[int, int]) -> bool:
    """Whether writing with `layout` must be refused: some sample has a value it cannot hold."""
    d, p = layout
    for t in tiles:
        for i, s in enumerate(t.samples):
            local = s.local_index if s.local_index is not None else i
            if (d < 1 and (local or s.phase)) or (d < 2 and (s.epoch or s.kind != "exchange")):
                return True
            if (d < 3 and s.exchange_event_cycles) or (p < 1 and s.operation) or (p < 2 and s.kernel):
                return True
            if (p < 3 and s.metadata) or (p < 4 and s.activities):
                return True
    return False


@settings(max_examples=examples(60))
@given(
    tiles=_tiles,
    far=st.sampled_from(["single", "double"]),
    empty_lists=st.sampled_from(["empty", "null"]),
    first=st.integers(1, 64),
    cap=st.sampled_from([None, 4, 16, 64]),
    layout=st.sampled_from([None, (0, 0), (1, 0), (1, 2), (2, 3), (3, 4), (4, 5), (6, 4)]),
    version=st.integers(1, 5),
)
def test_random_round_trip(tmp_path: Path, tiles, far, empty_lists, first, cap, layout, version) -> None:
    columns = columns_from_tiles(tiles, schema_version=version)
    options = {"far": far, "empty_lists": empty_lists, "first_segment_words": first, "max_segment_words": cap}
    refused = layout is not None and _refused(tiles, layout)
    event("refused" if refused else "written")
    if refused:
        with pytest.raises(ValueError, match="would drop"):
            encode_columns(columns, step_layout=layout, **options)
        return
    path = assert_round_trip(columns, tmp_path / "r.capnp", step_layout=layout, **options)
    _, structs = walk(segments_of(path))
    if layout is not None and any(t.samples for t in tiles):
        assert layout in structs


@pytest.mark.parametrize(
    "values",
    [
        pa.array(["zz", "", "αβγ", "kernel_name"], pa.large_string()),
        pa.array(["drop", "zz", "", "αβγ", "kernel_name"]).slice(1),
        pa.chunked_array([["zz", ""], ["αβγ", "kernel_name"]]),
        pa.array(["zz", "", "αβγ", "kernel_name"], pa.string_view()),
    ],
    ids=["large", "sliced", "chunked", "view"],
)
def test_string_dictionary_variants(tmp_path: Path, values: pa.Array) -> None:
    columns = columns_from_tiles([T(0, [S(i, i + 1, metadata=[("a", "b")]) for i in range(6)])])
    codes = np.array([3, 0, 1, 2, 2, 1], np.uint16)
    columns = replace(columns, kernel=Strings(codes, values), operation=Strings(codes[::-1].copy(), values))
    write_columns(columns, tmp_path / "p.capnp", first_segment_words=20)
    decoded = decode_reference(tmp_path / "p.capnp")
    expected = ["kernel_name", "zz", "", "αβγ", "αβγ", ""]
    assert decoded.kernel.to_list() == expected and decoded.operation.to_list() == expected[::-1]
