"""Hostile inputs cost time and memory linear in their size, accepted or refused.

Every family of `hostile_inputs` is crafted here (nothing is committed as a blob) and
decoded with both text paths: each is refused with a one-line `ProfileFormatError` that
names the budget it exceeded and the field (and, where known, the sample), in well under
the pytest timeouts (these are generous bounds against a regression to minutes, not
timings). The memory families are loaded in a fresh interpreter whose peak resident
memory (the kernel's VmHWM) must stay under 3x the file size + 300 MB, both when refused
and when crafted to fill the memory budget to its edge (and so accepted).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from builders import S, T, columns_from_tiles
from decoders import fast_error
from hostile_inputs import (
    FOUR,
    TWO,
    byte_list_samples,
    colliding_texts,
    frame,
    load_in_subprocess,
    metadata_heavy_then_long,
    overlapping_texts,
    rows_at_the_edge,
    rss_bound,
    shared_metadata_name,
    shared_step_text,
    void_entries,
    void_samples,
    void_tiles,
)

from ipu_nb._io.capnp_writer import encode_columns, write_columns
from ipu_nb._load import _wire
from ipu_nb._load._frames import build_profile
from ipu_nb._load._message import ACTIVITY_BYTES, ENTRY_BYTES, SAMPLE_BYTES, TILE_BYTES
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._load._wire import TextPath, decode_bytes

MB = 1_000_000


# -- refused quickly, on both text paths -------------------------------------------------------

REFUSALS = {
    # (crafted file, fragments of the error)
    "shared operation text": (lambda: shared_step_text(4 * MB), ("ProfileStep.operation", "traversal budget")),
    "shared kernel text": (lambda: shared_step_text(4 * MB, "kernel"), ("ProfileStep.kernel", "traversal budget")),
    "shared metadata name": (lambda: shared_metadata_name(4 * MB), ("MetadataEntry.name", "traversal budget")),
    "overlapping texts": (lambda: overlapping_texts(4 * MB), ("ProfileStep.operation", "budget exceeded")),
    "void sample lists": (lambda: void_samples(8 * MB), ("TileProfile.samples", "memory budget")),
    "zero-sized sample structs": (
        lambda: void_samples(8 * MB, composite=True),
        ("TileProfile.samples", "memory budget"),
    ),
    "byte-list samples": (lambda: byte_list_samples(8 * MB), ("TileProfile.samples", "memory budget")),
    "two-byte-list samples": (lambda: byte_list_samples(8 * MB, TWO), ("TileProfile.samples", "memory budget")),
    "four-byte-list samples": (lambda: byte_list_samples(8 * MB, FOUR), ("TileProfile.samples", "memory budget")),
    "void metadata lists": (lambda: void_entries(32 * MB), ("ProfileStep.metadata", "memory budget")),
    "void activity lists": (
        lambda: void_entries(32 * MB, field="exchangeActivities"),
        ("ProfileStep.exchangeActivities", "memory budget"),
    ),
    "void tile list": (lambda: void_tiles(8 * MB), ("Profile.tiles", "memory budget")),
    "colliding texts": (lambda: colliding_texts(32 * MB), ("ProfileStep.operation", "budget exceeded")),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("family", list(REFUSALS))
def test_hostile_family_is_fast_error(family: str, text_path: TextPath) -> None:
    craft, fragments = REFUSALS[family]
    fast_error(craft(), *fragments, text_path=text_path)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("size", [2 * MB, 16 * MB])
def test_aliased_texts_stop_before_the_work(size: int, text_path: TextPath) -> None:
    # Before the fix the C interner hashed every reference before charging any: 16 MB took
    # about 50 minutes. Charged before hashing, the refusal names the sample that ran out.
    message = fast_error(shared_step_text(size), "ProfileStep.operation", "traversal budget", text_path=text_path)
    assert "tile entry 0, sample" in message or "traversal budget exceeded (" in message
    fast_error(shared_metadata_name(size), "MetadataEntry.name", "traversal budget", text_path=text_path)


def test_texts_shared_within_the_budget_are_read(text_path: TextPath) -> None:
    # Aliasing is legal Cap'n Proto: a few references to one text, each charged in full, still load.
    data = shared_step_text(400_000, text_fraction=0.01, samples=8)
    fast = build_profile(decode_bytes(data, text_path=text_path))
    assert fast.samples.get_column("operation").to_list() == ["x" * 4000] * 8
    reference = build_profile(decode_reference_bytes(data))
    assert fast.samples.equals(reference.samples)


def test_huge_unique_text_is_read(text_path: TextPath) -> None:
    # One long text referenced once is what a file of its size can hold: read, not refused.
    columns = decode_bytes(shared_step_text(8 * MB, text_fraction=0.99, samples=2), text_path=text_path)
    assert columns.operation.to_list() == ["x" * int(8 * MB * 0.99)] * 2


# -- allocation follows what the file holds ----------------------------------------------------


def test_metadata_heavy_first_chunk_then_a_long_tile(monkeypatch: pytest.MonkeyPatch, text_path: TextPath) -> None:
    # Chunk 1 is all metadata, the rest has none: buffers must follow the rows, not extrapolate.
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 64)
    monkeypatch.setattr(_wire, "BATCH_ROWS", 1000)  # and the first chunk's entries in several batches
    data = frame(*encode_columns(metadata_heavy_then_long(64, 40, 20_000), first_segment_words=4096))
    fast = decode_bytes(data, text_path=text_path)
    assert fast.sample_count == 20_064
    assert len(fast.metadata_name) == 64 * 40
    for strings in (fast.metadata_name, fast.metadata_value, fast.operation):
        base = strings.codes.base
        # the rows allocated; numpy types `base` as an ndarray, but for codes in a code buffer it is a memoryview
        held = memoryview(base).nbytes // 4 if base is not None else len(strings.codes)  # type: ignore[arg-type]
        assert held <= max(2 * len(strings.codes), 1 << 14), "code buffer sized beyond its rows"
    reference = decode_reference_bytes(data)
    assert fast.metadata_name.to_list() == reference.metadata_name.to_list()
    assert np.array_equal(fast.metadata_counts, reference.metadata_counts)


def test_entries_and_activities_in_batches_match_one(monkeypatch: pytest.MonkeyPatch, text_path: TextPath) -> None:
    samples = [
        S(i, i + 1, metadata=[(f"n{j}", f"v{i * j}") for j in range(i % 7)], activities=[("send", i, i + 1)] * (i % 5))
        for i in range(300)
    ]
    columns = columns_from_tiles([T(1, samples[:120]), T(2, []), T(3, samples[120:])], schema_version=4)
    data = frame(*encode_columns(columns, first_segment_words=512))
    whole = build_profile(decode_bytes(data, text_path=text_path))
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 50)
    monkeypatch.setattr(_wire, "BATCH_ROWS", 7)
    batched = build_profile(decode_bytes(data, text_path=text_path))
    for name in ("samples", "metadata", "exchange_activities", "tiles"):
        assert getattr(whole, name).equals(getattr(batched, name)), name
    assert batched.exchange_activities.height == sum(i % 5 for i in range(300))


# -- peak memory, in a fresh interpreter ---------------------------------------------------------


def _measure(tmp_path: Path, name: str, data: bytes, text_path: TextPath = "native") -> tuple[dict, int]:
    path = tmp_path / f"{name}.capnp"
    path.write_bytes(data)
    del data
    result = load_in_subprocess(path, text_path)
    size = path.stat().st_size
    assert result["peak"] <= rss_bound(size), f"{name}: peak {result['peak'] / MB:.0f} MB for {size / MB:.0f} MB"
    return result, size


SIZE = 48 * MB
MEMORY_FAMILIES = {
    # name: (crafted file, accepted?) -- the *_edge files fill the memory budget to 97%: the worst case
    "void samples": (lambda: void_samples(SIZE), False),
    "void samples, edge": (lambda: void_samples(SIZE, samples=rows_at_the_edge(SIZE, SAMPLE_BYTES)), True),
    "byte-list samples": (lambda: byte_list_samples(SIZE), False),
    "byte-list samples, edge": (lambda: byte_list_samples(SIZE, samples=rows_at_the_edge(SIZE, SAMPLE_BYTES)), True),
    "void entries": (lambda: void_entries(SIZE), False),
    "void entries, edge": (lambda: void_entries(SIZE, entries=rows_at_the_edge(SIZE, ENTRY_BYTES) // 64), True),
    "void activities, edge": (
        lambda: void_entries(SIZE, entries=rows_at_the_edge(SIZE, ACTIVITY_BYTES) // 64, field="exchangeActivities"),
        True,
    ),
    "void tiles, edge": (lambda: void_tiles(SIZE, tiles=rows_at_the_edge(SIZE, TILE_BYTES)), True),
    "overlapping texts": (lambda: overlapping_texts(SIZE), False),
    "shared text": (lambda: shared_step_text(SIZE), False),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("family", list(MEMORY_FAMILIES))
def test_peak_memory_is_bounded_by_the_file_size(tmp_path: Path, family: str) -> None:
    craft, accepted = MEMORY_FAMILIES[family]
    result, _ = _measure(tmp_path, family.replace(" ", "_").replace(",", ""), craft())
    assert ("accepted" in result) == accepted, result


@pytest.mark.timeout(300)
@pytest.mark.parametrize("text_path", ["native", "numpy"])
def test_peak_memory_of_distinct_texts(tmp_path: Path, text_path: TextPath) -> None:
    # Texts each distinct (a word apart inside one long run of bytes): refused before they are copied.
    result, _ = _measure(tmp_path, "overlapping", overlapping_texts(SIZE, text_fraction=0.7), text_path)
    assert "budget exceeded" in result["refused"]


@pytest.mark.timeout(600)
def test_valid_metadata_heavy_profile_loads_in_bounded_memory(tmp_path: Path) -> None:
    # The issue's ~108 MB profile (the first chunk all metadata, then a long tile) failed with
    # "Unable to allocate 45.9 GiB": it must load, in memory proportional to the file.
    path = write_columns(metadata_heavy_then_long(8192, 120, 1_000_000), tmp_path / "heavy.capnp")
    result = load_in_subprocess(path)
    assert result["accepted"] == [1_008_192, 8192 * 120, 0]
    assert result["peak"] <= rss_bound(path.stat().st_size)
