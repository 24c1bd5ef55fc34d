"""A profile decoded on two threads equals the same profile decoded on one, hostile files included.

The split is forced on small files: chunks of a few samples (`_wire.CHUNK_SAMPLES`) decoded by
two workers, and the frame builder's passes (pair codes, inactive flags, code renumbering) in
ranges of a few rows (`_passes.PARALLEL_ROWS`). Every frame and the compact metadata's pair
codes and pair table are compared with a one-thread decode in one piece and with the pycapnp
decoder's frames, and hostile files are refused for the same budget either way.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from builders import S, T, columns_from_tiles
from hostile_inputs import colliding_texts, frame, shared_metadata_name, shared_step_text, void_samples, void_tiles

from ipu_nb import write_columns
from ipu_nb._load import _passes, _wire, open_profile
from ipu_nb._load._errors import ProfileFormatError
from ipu_nb._load._frames import build_profile
from ipu_nb._load._pairs import PAIRS, pair_codes
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._model.profile import ProfileData

FRAMES = ("samples", "exchange_activities", "tiles")
MB = 1_000_000


def _split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 5)
    monkeypatch.setattr(_wire, "WORKERS", 2)
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 3)


def _serial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_wire, "CHUNK_SAMPLES", 1 << 30)
    monkeypatch.setattr(_wire, "WORKERS", 1)
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 1 << 62)


def _tiles() -> list[T]:
    """Seven tiles; later tiles bring operations, kernels and (name, value) pairs never seen before."""
    return [
        T(
            3 * t + 1,
            [
                S(
                    10 * i,
                    10 * i + 3 + t,
                    "compute" if i % 3 else "exchange",
                    f"op{(i * 7 + t) % (4 + 2 * t)}",
                    f"k{(i + t) % (2 + t)}",
                    metadata=[(f"name{(j + t) % (3 + t)}", f"v{(i * j + t) % (5 + 3 * t)}") for j in range(i % 6)]
                    + [("active", "false" if (i + t) % 4 == 1 else "true")],
                    activities=[("send", 10 * i, 10 * i + 2)] if (i + t) % 5 == 0 else [],
                )
                for i in range(11 + 9 * t)
            ],
        )
        for t in range(6)
    ] + [T(99, [])]


def _open(path: Path, monkeypatch: pytest.MonkeyPatch, split: bool) -> ProfileData:
    with monkeypatch.context() as patch:
        (_split if split else _serial)(patch)
        return open_profile(path, cache=False, progress=False)


@pytest.mark.parametrize("text_path", ["native", "numpy"])
def test_two_threads_give_the_frames_of_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text_path: str) -> None:
    if text_path == "native" and _passes._LIB is None:
        pytest.skip("the C library is not built")
    path = write_columns(columns_from_tiles(_tiles()), tmp_path / "p.capnp")
    with monkeypatch.context() as patch:
        _split(patch)
        split = open_profile(path, cache=False, progress=False, text_path=text_path)  # type: ignore[arg-type]
    serial = _open(path, monkeypatch, split=False)
    reference = build_profile(decode_reference_bytes(path.read_bytes()))
    assert split.samples.height > 100 and int(split.samples.get_column("inactive").sum()) > 0
    for name in FRAMES:
        for other in (serial, reference):
            assert getattr(split, name).schema == getattr(other, name).schema, name
            assert getattr(split, name).equals(getattr(other, name)), name
    mine, theirs = split.compact_metadata, serial.compact_metadata
    assert mine is not None and theirs is not None and mine.codes is not None and theirs.codes is not None
    assert mine.codes.tolist() == theirs.codes.tolist()
    assert mine.starts.tolist() == theirs.starts.tolist()
    assert mine.pairs.equals(theirs.pairs)
    assert split.metadata.equals(reference.metadata) and split.metadata.height > 300


def _first_occurrence(names: np.ndarray, values: np.ndarray) -> tuple[list[int], list[tuple[int, int]]]:
    """Pair codes numbered in first-occurrence order, with a dict: the plain reference."""
    table: dict[tuple[int, int], int] = {}
    codes = [table.setdefault((int(n), int(v)), len(table)) for n, v in zip(names, values, strict=True)]
    return codes, list(table)


@pytest.mark.parametrize("rows", [0, 1, 2, 7, 1000])
def test_pair_codes_in_ranges_equal_one_pass(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    if _passes._LIB is None:
        pytest.skip("the C library is not built")
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 3)
    rng = np.random.default_rng(rows)
    # Later rows draw from a wider range, so later ranges bring pairs of their own.
    names = (rng.integers(0, 4, rows) + np.arange(rows) // 200).astype(np.uint32)
    values = rng.integers(0, 9, rows).astype(np.uint32)
    expected, pairs = _first_occurrence(names, values)
    with ThreadPoolExecutor(max_workers=2) as pool:
        coded = pair_codes(names, values, pool)
    assert coded is not None
    codes, pair_names, pair_values = coded
    assert codes.dtype == np.uint16 and codes.tolist() == expected
    assert list(zip(pair_names.tolist(), pair_values.tolist(), strict=True)) == pairs


@pytest.mark.parametrize("extra", [0, 1])
def test_pair_codes_refuse_past_the_table_only_when_one_pass_does(monkeypatch: pytest.MonkeyPatch, extra: int) -> None:
    if _passes._LIB is None:
        pytest.skip("the C library is not built")
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 3)
    # Two halves of 40,000 distinct pairs each, sharing just enough that together they hold
    # PAIRS + `extra`: neither half alone is past the table, their merge is when `extra` is 1.
    half = 40_000
    shared = 2 * half - (PAIRS + extra)
    names = np.concatenate([np.arange(half), np.arange(half - shared, 2 * half - shared)[::-1]]).astype(np.uint32)
    values = np.zeros(len(names), dtype=np.uint32)
    assert len(np.unique(names)) == PAIRS + extra
    serial = pair_codes(names, values)
    with ThreadPoolExecutor(max_workers=2) as pool:
        split = pair_codes(names, values, pool)
    if extra:
        assert serial is None and split is None
        return
    assert serial is not None and split is not None
    expected, pairs = _first_occurrence(names, values)
    assert serial[0].tolist() == split[0].tolist() == expected
    assert split[1].tolist() == serial[1].tolist() == [n for n, _ in pairs]


@pytest.mark.parametrize("native", [True, False])
def test_flag_owners_in_ranges_equal_a_plain_reference(monkeypatch: pytest.MonkeyPatch, native: bool) -> None:
    if native and _passes._LIB is None:
        pytest.skip("the C library is not built")
    if not native:
        monkeypatch.setattr(_passes, "_LIB", None)
    monkeypatch.setattr(_passes, "PARALLEL_ROWS", 3)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, 50)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.uint32)
    codes = rng.integers(0, 30, int(starts[-1])).astype(np.uint16)
    wanted = np.array([2, 17, 29])
    expected = [bool(np.isin(codes[starts[s] : starts[s + 1]], wanted).any()) for s in range(len(counts))]
    flags = np.zeros(len(counts), dtype=bool)
    with ThreadPoolExecutor(max_workers=2) as pool:
        _passes.flag_owners(codes, starts, wanted, flags, pool)
    assert flags.tolist() == expected and any(expected) and not all(expected)


#: Hostile files, and how alike their refusals are on one thread and on two: "exact" when refused
#: before any chunk is decoded (a listing's charge); "same field" (figures aside: what was charged
#: before depends on how far the chunks had got) when refused by one field's charges; "same
#: budget" for texts crafted to collide in the interner's table, whose probes are charged after
#: the fact, so the next charge on either thread (another field's, even one of no words) is refused.
REFUSED = {
    "shared operation text": (lambda: shared_step_text(4 * MB), "same field"),
    "shared metadata name": (lambda: shared_metadata_name(4 * MB), "same field"),
    "colliding texts": (lambda: colliding_texts(32 * MB), "same budget"),
    "void sample lists": (lambda: void_samples(8 * MB), "exact"),
    "void tile list": (lambda: void_tiles(8 * MB), "exact"),
}


def _refusal(path: Path, monkeypatch: pytest.MonkeyPatch, split: bool, text_path: str) -> str:
    with monkeypatch.context() as patch:
        (_split if split else _serial)(patch)
        if split:
            patch.setattr(_wire, "CHUNK_SAMPLES", 64)
        with pytest.raises(ProfileFormatError) as info:
            open_profile(path, cache=False, progress=False, text_path=text_path)  # type: ignore[arg-type]
    return str(info.value)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("family", list(REFUSED))
@pytest.mark.parametrize("text_path", ["native", "numpy"])
def test_hostile_files_are_refused_alike_on_two_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, family: str, text_path: str
) -> None:
    if text_path == "native" and _passes._LIB is None:
        pytest.skip("the C library is not built")
    craft, alike = REFUSED[family]
    path = tmp_path / "hostile.capnp"
    path.write_bytes(craft())
    serial = _refusal(path, monkeypatch, split=False, text_path=text_path)
    split = _refusal(path, monkeypatch, split=True, text_path=text_path)
    assert "budget exceeded" in serial and "\n" not in split
    if alike == "exact":
        assert split == serial
    elif alike == "same field":
        assert re.sub(r"\d+", "N", split) == re.sub(r"\d+", "N", serial)
    else:
        budget = re.compile(r": (\w+ budget exceeded) \(")
        assert budget.findall(split) == budget.findall(serial) != []


def test_an_empty_batch_of_entries_borrows_nothing_from_an_overdrawn_budget() -> None:
    # Another thread's colliding probes may overdraw the traversal budget; a chunk with no metadata
    # entries has nothing to pay for, and once crashed naming "where" the refusal was.
    if _passes._LIB is None:
        pytest.skip("the C library is not built")
    from ipu_nb._io.capnp_writer import encode_columns
    from ipu_nb._load._intern import EntryLists, NativeTextColumn
    from ipu_nb._load._message import Message

    msg = Message(frame(*encode_columns(columns_from_tiles([T(0, [S(0, 1)])]))), "p")
    column = NativeTextColumn("MetadataEntry.name", msg)
    msg.traversal.left = -8  # overdrawn: any charge or loan now refuses the file
    lists = EntryLists(None, np.zeros(3, dtype=np.int64), 0)  # type: ignore[arg-type]
    assert column.add_entries(lists, 0, lambda row: f"row {row}") == (0, 0)
    assert lists.owner_of(0) == (2, 0)
