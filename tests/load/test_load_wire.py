"""The fast wire decoder gives the pycapnp reference's frames on every fixture, and clean errors otherwise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from decoders import fast_error, reference_rejects
from wire_words import (
    BIT,
    BYTE,
    COMPOSITE,
    EIGHT,
    FOUR,
    POINTER,
    TWO,
    VOID,
    Obj,
    Sample,
    Words,
    far_word,
    list_word,
    profile,
    profile_root,
    struct_word,
)

from ipu_nb._io.capnp_writer import write_columns
from ipu_nb._load._errors import ProfileFormatError, UnsupportedSchemaVersionError
from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._load._wire import TextPath, decode_bytes, decode_file
from ipu_nb._model.profile import ProfileData
from ipu_nb._synth.generate import generate_columns

#: Every test here runs with the C text interner and with the numpy path.

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


def assert_same(a: ProfileData, b: ProfileData) -> None:
    for name in FRAMES:
        fa, fb = getattr(a, name), getattr(b, name)
        assert fa.schema == fb.schema, name
        assert fa.equals(fb), name
    assert (a.clock_hz, a.schema_version, a.granularity) == (b.clock_hz, b.schema_version, b.granularity)


def both(data: bytes, text_path: TextPath = "auto") -> ProfileData:
    """Decode with both decoders, assert identical frames, return the fast one."""
    fast = build_profile(decode_bytes(data, text_path=text_path))
    assert_same(fast, build_profile(decode_reference_bytes(data)))
    return fast


# -- fixtures every decoder must agree on ----------------------------------------------------

MIXED = [
    T(64, [S(2**32 - 100, 50, "compute", "op é", "", 3, 1, metadata=[("a", "1"), ("a", ""), ("", "ü∑")])]),
    T(0, []),
    T(7, [S(5, 5, "idle", "", "kernel ☃", activities=[("receive", 1, 2)], exchange_event_cycles=9)]),
    T(
        9,
        [
            S(1, 2, "synchronization", metadata=[("active", "false")]),
            S(2, 9, "compute", metadata=[("active", "false")]),
        ],
    ),
]


@pytest.mark.parametrize("workload", ["mlp", "gemm", "attention"])
@pytest.mark.parametrize("granularity", ["graph", "region", "phase", "step"])
def test_every_granularity_matches_reference(
    tmp_path: Path, workload: str, granularity: str, text_path: TextPath
) -> None:
    columns = generate_columns(workload, granularity, tiles=6, layers=1, phases=3, seed=1)
    path = write_columns(columns, tmp_path / "p.capnp")
    fast = build_profile(decode_file(path, text_path=text_path))
    assert_same(fast, build_profile(decode_reference_bytes(path.read_bytes())))
    assert fast.sample_count == columns.sample_count > 0
    assert fast.metadata.height == len(columns.metadata_name)


@pytest.mark.parametrize(
    "layout",
    [
        {},
        {"step_layout": (3, 4)},
        {"step_layout": (5, 7)},  # a newer writer's larger step: unknown trailing fields
        {"first_segment_words": 16, "far": "single"},
        {"first_segment_words": 16, "far": "double"},
        {"max_segment_words": 24, "far": "double"},
        {"max_segment_words": 24, "far": "single", "empty_lists": "null"},
        {"empty_lists": "null", "step_layout": (3, 4)},
    ],
    ids=str,
)
def test_writer_layouts_match_reference(tmp_path: Path, layout: dict, text_path: TextPath) -> None:
    columns = columns_from_tiles(MIXED * 3, schema_version=4)
    data = write_columns(columns, tmp_path / "p.capnp", **layout).read_bytes()
    fast = both(data, text_path=text_path)
    assert fast.samples.get_column("operation").to_list()[:2] == ["op é", ""]
    assert fast.exchange_activities.height == 3


def test_pycapnp_written_multisegment_file_matches(tmp_path: Path, text_path: TextPath) -> None:
    tiles = [
        T(i, [S(j, j + i, "compute", f"op{j % 3}", metadata=[("k", str(j))]) for j in range(40)]) for i in range(12)
    ]
    data = write_with_pycapnp(columns_from_tiles(tiles + MIXED, schema_version=5), tmp_path / "p.capnp").read_bytes()
    assert int.from_bytes(data[:4], "little") > 0, "fixture must be multi-segment"
    fast = both(data, text_path=text_path)
    assert fast.sample_count == 12 * 40 + 4
    assert fast.samples.get_column("inactive").to_list()[-2:] == [False, True]


def test_older_smaller_step_reads_defaults(text_path: TextPath) -> None:
    # A v1-style step of one data word and one pointer: epoch, kind, kernel, metadata read as defaults.
    samples = [Sample(start=3, end=10, local_index=4, phase=2, kernel="dropped", metadata=(("a", "b"),))]
    data = profile([(5, samples)], version=1, step=(1, 1)).to_bytes()
    fast = both(data, text_path=text_path)
    row = fast.samples.row(0, named=True)
    assert (row["local_index"], row["phase"], row["kind"], row["operation"], row["kernel"]) == (
        4,
        2,
        "exchange",
        "op",
        "",
    )
    assert fast.metadata.height == 0


def test_newer_larger_step_and_version_5(text_path: TextPath) -> None:
    samples = [Sample(1, 4, kind=0, event_cycles=77, activities=((2, 1, 3),), metadata=(("x", "y"),))]
    fast = both(profile([(1, samples)], version=5, step=(6, 9)).to_bytes(), text_path=text_path)
    assert fast.samples.get_column("exchange_event_cycles").to_list() == [77]
    assert fast.exchange_activities.get_column("kind").to_list() == ["partnerBusy"]


@pytest.mark.parametrize("far", ["single", "double"])
def test_far_and_double_far_hand_built(far: str, text_path: TextPath) -> None:
    samples = [Sample(i, i + 2, metadata=(("n", "é" * i),)) for i in range(4)]
    fast = both(profile([(3, samples), (4, []), (8, samples[:1])], far=far).to_bytes(), text_path=text_path)
    assert fast.tiles.get_column("sample_count").to_list() == [4, 0, 1]
    assert fast.metadata.get_column("value").to_list()[:3] == ["", "é", "éé"]


def test_double_far_with_pad_in_a_third_segment(text_path: TextPath) -> None:
    w = profile([(1, [])])
    w.segs.append([])
    w.segs.append([])
    samples = w.composite(2, 1, 1, 1)
    w.set_u32(2, samples.element(0), 0, 42)
    # Re-point tile 0's samples through a double-far pad living in segment 1.
    tiles_at = 3  # root(0), Profile(1..3): tiles list tag at 4, element 0 at 5..6
    w.point(0, tiles_at + 3, samples, far="double", pad_seg=1)
    assert both(w.to_bytes(), text_path=text_path).samples.get_column("start").to_list() == [42]


def test_empty_profiles_and_null_lists(text_path: TextPath) -> None:
    assert both(profile([]).to_bytes(), text_path=text_path).tile_count == 0
    w, _ = profile_root()
    empty = both(w.to_bytes(), text_path=text_path)  # tiles pointer null
    assert (empty.tile_count, empty.sample_count, empty.span_cycles) == (0, 0, 0)
    tiles = both(profile([(1, []), (2, [])]).to_bytes(), text_path=text_path)
    assert tiles.tiles.get_column("base").to_list() == [None, None]


def test_null_texts_read_as_empty_strings(text_path: TextPath) -> None:
    fast = both(profile([(1, [Sample(operation=None, kernel=None)])]).to_bytes(), text_path=text_path)
    assert fast.samples.select("operation", "kernel").row(0) == ("", "")


def test_zero_sized_structs(text_path: TextPath) -> None:
    w, prof = profile_root()
    tiles = w.composite(0, 2, 1, 1)
    w.point(0, prof.start + 2, tiles)
    samples = w.composite(0, 3, 0, 0)  # three samples of zero size: every field default
    w.point(0, tiles.element(0) + 1, samples)
    # A zero-sized struct pointer (offset -1 convention) as the step of... a sample that has none:
    # instead give tile 1 a one-sample list whose step is a zero-sized struct.
    one = w.composite(0, 1, 1, 1)
    w.point(0, tiles.element(1) + 1, one)
    w.set(0, one.element(0) + 1, struct_word(-1, 0, 0))
    fast = both(w.to_bytes(), text_path=text_path)
    assert fast.sample_count == 4
    assert fast.samples.get_column("kind").to_list() == ["exchange"] * 4


@pytest.mark.parametrize("es", [VOID, BYTE, TWO, FOUR, EIGHT, POINTER])
def test_primitive_lists_read_as_struct_lists(es: int, text_path: TextPath) -> None:
    # Schema evolution: List(UInt32) may become List(struct whose @0 is UInt32); pycapnp accepts it too.
    w, prof = profile_root()
    width = {VOID: 0, BYTE: 1, TWO: 2, FOUR: 4, EIGHT: 8, POINTER: 8}[es]
    raw = b"".join((v % 256**width).to_bytes(width, "little") for v in (7, 300, 65537)) if width else b""
    if es == POINTER:
        raw = b"\0" * 24  # three null sample lists
    lst = w.data_list(0, es if es != POINTER else EIGHT, raw, count=3) if raw else Obj(0, w.alloc(0, 0), 1, VOID, 3)
    w.set(0, prof.start + 2, list_word(lst.start - (prof.start + 3), es, 3))
    fast = both(w.to_bytes(), text_path=text_path)
    expected = {FOUR: [7, 300, 65537], EIGHT: [7, 300, 65537]}.get(es, [0, 0, 0])
    assert fast.tiles.get_column("tile").to_list() == expected


# -- refusals -----------------------------------------------------------------------------------


def good() -> Words:
    return profile([(1, [Sample(1, 2, metadata=(("a", "b"),))]), (2, [Sample(3, 4)])])


def test_unsupported_schema_versions_are_named(text_path: TextPath) -> None:
    for version in (0, 6, 1000):
        data = profile([], version=version).to_bytes()
        with pytest.raises(UnsupportedSchemaVersionError, match=f"version {version} "):
            decode_bytes(data, text_path=text_path)
    for version in range(1, 6):
        assert both(profile([], version=version).to_bytes(), text_path=text_path).schema_version == version


def test_framing_errors(text_path: TextPath) -> None:
    data = good().to_bytes()
    fast_error(b"", "empty file", text_path=text_path)
    fast_error(data[:4], "truncated", text_path=text_path)
    fast_error(data[:-8], "truncated", "segments need", text_path=text_path)
    fast_error(data[:-3], "truncated", text_path=text_path)
    fast_error(data + b"\0" * 8, "8 bytes of trailing garbage", text_path=text_path)
    fast_error(data + b"\1", "trailing garbage", text_path=text_path)
    fast_error(b"\xff\xff\xff\xff" + data[4:], "segment table claims 4294967296 segments", text_path=text_path)
    fast_error((40).to_bytes(4, "little") + data[4:], "truncated", "41 segments", text_path=text_path)
    fast_error((1000).to_bytes(4, "little") + data[4:], "segment table of 1001 segments", text_path=text_path)
    fast_error(b"\0\0\0\0\0\0\0\0", "segment 0 is empty", text_path=text_path)
    reference_rejects(data[:-8])


def _words(data: bytes) -> np.ndarray:
    return np.frombuffer(bytearray(data), dtype="<u8").copy()


def _find_text(words: np.ndarray, text: bytes) -> int:
    raw = words.tobytes()
    return raw.index(text + b"\0") // 8


def test_pointer_errors_name_the_place(text_path: TextPath) -> None:
    base = good()
    data = base.to_bytes()
    words = _words(data)
    # Profile.tiles pointer at word 1 (table) + 3: make it point far outside the segment.
    bad = words.copy()
    bad[1 + 3] = list_word(10_000, COMPOSITE, 2)
    fast_error(bad.tobytes(), "Profile.tiles", "out of bounds", "segment 0 word 3", text_path=text_path)
    reference_rejects(bad.tobytes())
    # A struct pointer where a list is expected.
    bad = words.copy()
    bad[1 + 3] = struct_word(0, 1, 1)
    fast_error(bad.tobytes(), "expected a list pointer", text_path=text_path)
    # Far pointer to a segment that does not exist.
    bad = words.copy()
    bad[1 + 3] = far_word(7, 0)
    fast_error(bad.tobytes(), "unknown segment 7", text_path=text_path)
    reference_rejects(bad.tobytes())
    # Far pointer whose landing pad lies past the segment.
    bad = words.copy()
    bad[1 + 3] = far_word(0, 100_000)
    fast_error(bad.tobytes(), "landing pad is out of bounds", text_path=text_path)
    # Double-far pad whose first word is not a far pointer (pad at segment 0 word 0, the root pointer).
    bad = words.copy()
    bad[1 + 3] = far_word(0, 0, double=True)
    fast_error(bad.tobytes(), "double-far landing pad", text_path=text_path)
    reference_rejects(bad.tobytes())
    # A capability pointer as a struct (the root).
    bad = words.copy()
    bad[1] = 3
    fast_error(bad.tobytes(), "root Profile", "expected a struct pointer", text_path=text_path)
    reference_rejects(bad.tobytes())


def test_text_errors(text_path: TextPath) -> None:
    words = _words(good().to_bytes())
    at = _find_text(words, b"op")
    no_nul = words.copy()
    no_nul[at] = int.from_bytes(b"opxxxxxx", "little")
    message = fast_error(
        no_nul.tobytes(), "ProfileStep.operation", "not NUL-terminated", "tile entry 0, sample 0", text_path=text_path
    )
    assert "segment 0 word" in message
    reference_rejects(no_nul.tobytes())
    bad_utf8 = words.copy()
    bad_utf8[at] = int.from_bytes(b"o\xff\0", "little")
    fast_error(
        bad_utf8.tobytes(), "ProfileStep.operation", "not valid UTF-8", "tile entry 0, sample 0", text_path=text_path
    )
    reference_rejects(bad_utf8.tobytes())
    value = _find_text(words, b"b")
    bad_value = words.copy()
    bad_value[value] = int.from_bytes(b"\xc3\0", "little")  # truncated 2-byte sequence
    fast_error(bad_value.tobytes(), "MetadataEntry.value", "not valid UTF-8", "metadata entry 0", text_path=text_path)
    # The operation pointer retyped as a list of 4-byte elements, then as a struct pointer.
    w = profile([(1, [Sample()])])
    raw = _words(w.to_bytes())
    text_ptrs = [i for i, x in enumerate(raw.tolist()) if x & 3 == 1 and (x >> 32) & 7 == BYTE]
    first = text_ptrs[0]
    retyped = raw.copy()
    retyped[first] = (int(raw[first]) & ~(7 << 32)) | (FOUR << 32)
    fast_error(retyped.tobytes(), "expected text, found a list of non-bytes", text_path=text_path)
    reference_rejects(retyped.tobytes())
    retyped[first] = int(raw[first]) & ~3
    fast_error(retyped.tobytes(), "expected text, found a struct pointer", text_path=text_path)
    empty = raw.copy()
    empty[first] = int(raw[first]) & ((1 << 35) - 1)  # byte list of length 0
    fast_error(empty.tobytes(), "not NUL-terminated", text_path=text_path)
    reference_rejects(empty.tobytes())


def test_bit_lists_and_bad_composite_tags(text_path: TextPath) -> None:
    w, _ = profile_root()
    w.alloc(0, 2)
    bits = w.to_bytes()
    words = _words(bits)
    words[1 + 3] = list_word(0, BIT, 64)
    fast_error(words.tobytes(), "bit list", text_path=text_path)
    reference_rejects(words.tobytes())
    words[1 + 3] = list_word(0, COMPOSITE, 1)
    words[1 + 4] = list_word(0, BYTE, 1)  # tag is not a struct tag
    fast_error(words.tobytes(), "tag is not a struct tag", text_path=text_path)
    reference_rejects(words.tobytes())
    words[1 + 4] = struct_word(5, 1, 0)  # 5 elements of one word in a one-word list
    fast_error(words.tobytes(), "overrun", text_path=text_path)
    reference_rejects(words.tobytes())


def test_amplification_bombs_hit_the_budget(text_path: TextPath) -> None:
    # Zero-sized struct lists and void lists claim huge counts with no bytes: charged, refused.
    for tag_count, kind in (((1 << 29) - 1, "composite"), ((1 << 29) - 1, "void")):
        w, prof = profile_root()
        if kind == "composite":
            tag = w.alloc(0, 1)
            w.set(0, tag, struct_word(tag_count, 0, 0))
            w.set(0, prof.start + 2, list_word(tag - (prof.start + 3), COMPOSITE, 0))
        else:
            w.set(0, prof.start + 2, list_word(0, VOID, tag_count))
        fast_error(w.to_bytes(), "Profile.tiles", "traversal budget", text_path=text_path)
        reference_rejects(w.to_bytes())


def test_composite_tag_count_beyond_the_list_limit(text_path: TextPath) -> None:
    # A tag claiming 2**29 zero-sized elements: Cap'n Proto caps lists at 2**29 - 1 elements. pycapnp's
    # guarded integer types silently wrap this to an empty list; we refuse it (a corrupt tag).
    w, prof = profile_root()
    tag = w.alloc(0, 1)
    w.set(0, tag, struct_word(1 << 29, 0, 0))
    w.set(0, prof.start + 2, list_word(tag - (prof.start + 3), COMPOSITE, 0))
    fast_error(w.to_bytes(), "Profile.tiles", "composite list tag claims 536870912 elements", text_path=text_path)
    assert decode_reference_bytes(w.to_bytes()).tile_count == 0


def test_shared_lists_loop_hits_the_budget(text_path: TextPath) -> None:
    # Every one of 4000 tile entries points at the same 500-sample list: 2M samples from ~40 kB.
    w, prof = profile_root()
    tiles = w.composite(0, 4000, 1, 1)
    w.point(0, prof.start + 2, tiles)
    shared = w.composite(0, 500, 1, 1)
    for t in range(4000):
        w.point(0, tiles.element(t) + 1, shared)
    fast_error(w.to_bytes(), "TileProfile.samples", "traversal budget", text_path=text_path)


def test_unknown_step_kind_is_an_error(text_path: TextPath) -> None:
    fast_error(profile([(1, [Sample(kind=9)])]).to_bytes(), "unknown step kind value 9", text_path=text_path)


def test_decode_file_equals_decode_bytes(tmp_path: Path, text_path: TextPath) -> None:
    path = tmp_path / "p.capnp"
    data = profile([(1, [Sample(1, 5, metadata=(("ü", "x" * 40),))])], far="double").to_bytes()
    path.write_bytes(data)
    assert_same(
        build_profile(decode_file(path, text_path=text_path)), build_profile(decode_bytes(data, text_path=text_path))
    )
    with pytest.raises(ProfileFormatError, match="empty file"):
        (tmp_path / "empty").write_bytes(b"")
        decode_file(tmp_path / "empty", text_path=text_path)


def test_strings_of_every_length_and_repeats(text_path: TextPath) -> None:
    # Arrow inlines views of up to 12 bytes and keeps a prefix for longer ones: cover both sides.
    texts = ["x" * n for n in range(41)] + ["é" * n for n in range(1, 12)] + ["a\0b", "\t\n", "ab" * 7]
    samples = [
        Sample(i, i + 1, operation=t, kernel=t[::-1], metadata=((t, t + "!"), ("k", t))) for i, t in enumerate(texts)
    ]
    fast = both(profile([(1, samples), (2, samples[::-1])]).to_bytes(), text_path=text_path)
    assert fast.samples.get_column("operation").to_list() == texts + texts[::-1]
    assert fast.metadata.filter(fast.metadata.get_column("position") == 0).get_column("value").to_list()[:3] == [
        "!",
        "x!",
        "xx!",
    ]


def test_texts_hashed_in_small_pieces_and_long_texts_alone(
    monkeypatch: pytest.MonkeyPatch, text_path: TextPath
) -> None:
    # The numpy path hashes a batch in pieces of PIECE_BYTES and a longer text on its own, by digest:
    # with tiny pieces every text goes one way or the other, in first-occurrence order either way.
    from ipu_nb._load import _text

    monkeypatch.setattr(_text, "PIECE_BYTES", 16)
    texts = ["x" * n for n in range(41)] + ["é" * n for n in range(1, 12)] + ["ab" * 20, "x" * 40, "a\0b"]
    samples = [Sample(i, i + 1, operation=t, kernel=t[::-1], metadata=((t, t + "!"),)) for i, t in enumerate(texts)]
    fast = both(profile([(1, samples), (2, samples[::-1])]).to_bytes(), text_path=text_path)
    assert fast.samples.get_column("operation").to_list() == texts + texts[::-1]


def test_many_chunks_in_parallel_match_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text_path: TextPath
) -> None:
    import ipu_nb._load._wire as wire

    columns = generate_columns("mlp", "phase", tiles=6, layers=1, phases=3, seed=2)
    path = write_columns(columns, tmp_path / "p.capnp", first_segment_words=64)
    whole = build_profile(decode_file(path, text_path=text_path))
    monkeypatch.setattr(wire, "CHUNK_SAMPLES", 5)
    monkeypatch.setattr(wire, "WORKERS", 2)
    calls: list[int] = []
    chunked = build_profile(decode_file(path, report=lambda done, total: calls.append(done), text_path=text_path))
    assert_same(whole, chunked)
    assert len(calls) > 5
    # A fault in a late chunk still surfaces as the one clean error, naming its tile.
    words = _words(path.read_bytes())
    at = _find_text(words, columns.operation.to_list()[-1].encode())
    words[at] = int.from_bytes(b"\xff" * 8, "little")
    fast_error(words.tobytes(), "ProfileStep.operation", "tile entry 5", text_path=text_path)


@pytest.mark.timeout(60)
def test_a_fault_in_the_first_chunk_stops_every_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text_path: TextPath
) -> None:
    # Later chunks wait for the first one's turn to intern their texts: its failure must wake them.
    import ipu_nb._load._wire as wire

    columns = generate_columns("mlp", "phase", tiles=6, layers=1, phases=3, seed=2)
    path = write_columns(columns, tmp_path / "p.capnp")
    monkeypatch.setattr(wire, "CHUNK_SAMPLES", 5)
    monkeypatch.setattr(wire, "WORKERS", 2)
    words = _words(path.read_bytes())
    value = columns.metadata_value.to_list()[0].encode()
    nul = words.tobytes().index(value + b"\0") + len(value)
    words[nul // 8] = int.from_bytes(b"\xff" * 8, "little")
    fast_error(
        words.tobytes(), "MetadataEntry.value", "tile entry 0, sample 0", "not NUL-terminated", text_path=text_path
    )


def test_error_names_the_sample_and_entry_past_empty_lists(text_path: TextPath) -> None:
    samples = [
        Sample(metadata=()),
        Sample(metadata=(("a", "b"),)),
        Sample(metadata=()),
        Sample(metadata=(("c", "d"), ("e", "zzzzbad"))),
    ]
    words = _words(profile([(4, []), (5, samples)]).to_bytes())
    at = _find_text(words, b"zzzzbad")
    words[at] = int.from_bytes(b"zzzzbad!", "little")  # NUL overwritten
    fast_error(
        words.tobytes(), "MetadataEntry.value", "tile entry 1, sample 3 (row 3), metadata entry 1", text_path=text_path
    )
