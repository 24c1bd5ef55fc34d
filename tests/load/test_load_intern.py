"""The C text interner: built by the install, exact on what it accepts, and declining what it must."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hostile_inputs import overlapping_texts
from wire_words import BYTE, Sample, far_word, list_word, profile, profile_root

from ipu_nb._load import _intern
from ipu_nb._load._errors import ProfileFormatError
from ipu_nb._load._intern import EntryLists
from ipu_nb._load._message import Describe, Message, Seg, Texts, text_memory
from ipu_nb._load._text import TextColumn


def test_the_install_built_a_current_library() -> None:
    # scripts/test installs the package, whose build hook compiles _intern.c: a missing or
    # stale library would silently halve loading speed, so the suite insists on it.
    assert _intern.LIBRARY.is_file(), f"{_intern.LIBRARY} missing: run `python hatch_build.py`"
    assert _intern.NATIVE, "the library does not load, or was built from older source (ABI mismatch)"


def test_a_library_of_another_abi_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_intern, "ABI", _intern.ABI + 1)
    assert _intern._load() is None


def _intern_column(column_type: type, msg: Message, addr: np.ndarray, seg: Seg) -> tuple[list[int], list[str]]:
    column = column_type("ProfileStep.operation", msg)
    for lo in range(0, len(addr), 7):  # several batches: codes must stay global across them
        column.add(addr[lo : lo + 7], seg, None, lambda i: f"text {i}")
    strings = column.finish("<test>", lambda r: f"row {r}")
    return strings.codes.tolist(), strings.values.to_pylist()


def _operation_pointers(data: bytes) -> tuple[Message, np.ndarray, Seg]:
    from ipu_nb._load import _wire

    msg = Message(data, "<test>")
    seen: list[tuple[np.ndarray, Seg]] = []

    class Spy(_wire.text_column_class("auto")):  # type: ignore[misc]
        def add(self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe) -> int:
            if self.what == "ProfileStep.operation":
                seen.append((np.array(addr), seg))
            return super().add(addr, seg, present, describe)

    _wire.decode_bytes(data, text_path=Spy)
    addr = np.concatenate([a for a, _ in seen])
    return msg, addr, seen[0][1]


@pytest.mark.parametrize("seed", [1, 2])
def test_codes_and_values_equal_the_numpy_path(seed: int) -> None:
    rng = random.Random(seed)
    # Many distinct texts (the table and its byte store grow several times), equal prefixes
    # and lengths that differ by one byte around word boundaries, repeats and empties.
    pool = [""] + ["".join(rng.choice("ab\u00e9") for _ in range(rng.randrange(0, 30))) for _ in range(3000)]
    pool += ["w" * n for n in range(1, 25)]
    texts = [rng.choice(pool) for _ in range(6000)]
    data = profile([(1, [Sample(i, i + 1, operation=t) for i, t in enumerate(texts)])]).to_bytes()
    msg, addr, seg = _operation_pointers(data)
    native = _intern_column(_intern.NativeTextColumn, msg, addr, seg)
    numpy = _intern_column(TextColumn, msg, addr, seg)
    assert native == numpy
    codes, values = native
    assert [values[c] for c in codes] == texts
    assert len(values) == len(set(texts))


@pytest.mark.parametrize("far", ["single", "double"])
def test_far_text_pointers(far: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # C follows single-far pointers itself. At a double-far one it declines the batch, after
    # interning the texts before it; the general path then resolves the whole batch. Either
    # way the codes stay in first-occurrence order.
    texts = ["b", "a", "b", "far", "a", "c"]
    data = profile([(1, [Sample(i, i + 1, operation=t) for i, t in enumerate(texts)])]).to_bytes()
    msg, addr, seg = _operation_pointers(data)
    near = int(msg.u64[addr[3]])
    assert near & 3 == 1, "fixture: a near list pointer to re-point"
    header = np.frombuffer(data[:8], dtype="<u4")
    assert header[0] == 0, "fixture: one segment"
    # Append a landing pad to the segment and point text 3 at it through a far pointer.
    text_at = int(addr[3]) + 1 + (((near & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000 >> 2) - 1  # segment word
    pad = int(header[1])
    if far == "single":  # the pad: text 3's pointer, re-aimed from there
        pad_words = [list_word(text_at - (pad + 1), BYTE, near >> 35)]
    else:  # a far pointer to the text itself, then a tag describing it
        pad_words = [far_word(0, text_at), list_word(0, BYTE, near >> 35)]
    far_data = bytearray(np.array([0, pad + len(pad_words)], dtype="<u4").tobytes() + data[8:])
    for word in pad_words:
        far_data += word.to_bytes(8, "little")
    far_data[int(addr[3]) * 8 : int(addr[3]) * 8 + 8] = far_word(0, pad, double=far == "double").to_bytes(8, "little")
    far_msg = Message(bytes(far_data), "<test>")
    general: list[int] = []
    texts_of = far_msg.texts

    def counted_texts(addr: np.ndarray, seg: Seg, present: np.ndarray | None, what: str, describe: Describe) -> Texts:
        general.append(1)
        return texts_of(addr, seg, present, what, describe)

    monkeypatch.setattr(far_msg, "texts", counted_texts)
    column = _intern.NativeTextColumn("ProfileStep.operation", far_msg)
    column.add(addr, seg, None, lambda i: f"text {i}")
    strings = column.finish("<test>", lambda r: f"row {r}")
    assert [strings.values.to_pylist()[c] for c in strings.codes.tolist()] == texts
    assert strings.codes.tolist() == [0, 1, 0, 2, 1, 3]
    assert len(general) == (far == "double")


def _step_text_pointers(data: bytes, index: int = 0) -> tuple[Message, np.ndarray]:
    """The message and the word addresses of text pointer `index` (0: operation) of every sample's step."""
    msg = Message(data, "<test>")
    root = msg.structs(np.array([msg.seg_start[0]]), 0, None, "root", str)
    addr, present = msg.pointer(root, 0)
    tiles = msg.lists(addr, root.seg, present, "tiles", str, 0).elements()
    addr, present = msg.pointer(tiles, 0)
    samples = msg.lists(addr, tiles.seg, present, "samples", str, 0).elements()
    addr, present = msg.pointer(samples, 0)
    steps = msg.structs(addr, samples.seg, present, "steps", str)
    addr, _ = msg.pointer(steps, index)
    return msg, addr


def test_texts_are_charged_before_they_are_hashed() -> None:
    # Every sample names a different long text (each starts a word later in one run of bytes):
    # with budget for three, the fourth is refused before it is hashed or copied.
    msg, addr = _step_text_pointers(overlapping_texts(400_000, text_fraction=0.8))
    cost = [8 + (int(msg.u64[a]) >> 35) for a in addr[:4].tolist()]  # traversal bytes: the pointer, the text
    msg.traversal.left = sum(cost[:3]) + cost[3] // 2
    column = _intern.NativeTextColumn("ProfileStep.operation", msg)
    with pytest.raises(ProfileFormatError, match=r"ProfileStep.operation: text 3: traversal budget exceeded"):
        column.add(addr, 0, None, lambda i: f"text {i}")
    assert _intern._LIB is not None
    assert _intern._LIB.ipu_table_count(column.table) == 3
    assert msg.traversal.left == cost[3] // 2  # what was spent is exactly the three texts


def test_new_texts_are_charged_before_they_are_copied() -> None:
    msg, addr = _step_text_pointers(overlapping_texts(400_000, text_fraction=0.8))
    length = [(int(msg.u64[a]) >> 35) - 1 for a in addr[:3].tolist()]
    msg.memory.left = text_memory(length[0]) + text_memory(length[1]) + 100
    column = _intern.NativeTextColumn("ProfileStep.operation", msg)
    with pytest.raises(ProfileFormatError, match=r"text 2 \(distinct texts\): memory budget exceeded"):
        column.add(addr, 0, None, lambda i: f"text {i}")
    assert _intern._LIB is not None
    assert _intern._LIB.ipu_table_count(column.table) == 2
    assert msg.memory.left == 100


@pytest.mark.parametrize("quantum", [(1, 1), (7, 1 << 30), (1 << 20, 1)])
def test_calls_resumed_after_every_allowance(quantum: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    # Allowances so small that calls stop after (nearly) every text: codes must not change.
    from ipu_nb._load import _wire

    monkeypatch.setattr(_intern, "QUANTUM", quantum[0])
    monkeypatch.setattr(_intern, "MEMORY_QUANTUM", quantum[1])
    samples = [
        Sample(i, i + 1, operation=f"op{i % 5}" * (i % 9), metadata=((f"n{i % 3}", "v" * (i % 30)), ("k", str(i))))
        for i in range(300)
    ]
    data = profile([(1, samples[:100]), (2, samples[100:])], far="double").to_bytes()
    native = _wire.decode_bytes(data)
    numpy = _wire.decode_bytes(data, text_path="numpy")
    for name in ("operation", "kernel", "metadata_name", "metadata_value"):
        assert getattr(native, name).codes.tolist() == getattr(numpy, name).codes.tolist(), name
        assert getattr(native, name).values.to_pylist() == getattr(numpy, name).values.to_pylist(), name


def test_entries_declined_midway_continue_on_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # A double-far name in the middle of a metadata list: C interns the rows before it, numpy the rest.
    from ipu_nb._load import _wire
    from ipu_nb._load._reference import decode_reference_bytes

    w, prof = profile_root(segments=2)
    tiles = w.composite(0, 1, 1, 1)
    w.point(0, prof.start + 2, tiles)
    samples = w.composite(0, 2, 1, 1)
    w.point(0, tiles.element(0) + 1, samples)
    for i in range(2):
        step = w.struct(0, 2, 3)
        w.point(0, samples.element(i) + 1, step)
        entries = w.composite(0, 4, 0, 2)
        w.point(0, step.start + 4, entries)
        for m in range(4):
            far = (i, m) == (1, 2)
            w.point(0, entries.element(m), w.text(1 if far else 0, f"name{m % 3}"), far="double" if far else None)
            w.point(0, entries.element(m) + 1, w.text(0, f"v{i}{m}"))
    data = w.to_bytes()
    partial: list[tuple[int, int]] = []
    original = _intern.NativeTextColumn.add_entries

    def spy(self: _intern.NativeTextColumn, lists: EntryLists, field: int, describe_row: Describe) -> tuple[int, int]:
        end, done = original(self, lists, field, describe_row)
        partial.append((done, lists.total))
        return end, done

    monkeypatch.setattr(_intern.NativeTextColumn, "add_entries", spy)
    fast = _wire.decode_bytes(data)
    assert partial == [(6, 8), (8, 8)]  # names: declined at row 6; values: all in C
    reference = decode_reference_bytes(data)
    assert fast.metadata_name.to_list() == reference.metadata_name.to_list() == [f"name{m % 3}" for m in range(4)] * 2
    assert fast.metadata_name.codes.tolist() == [0, 1, 2, 0] * 2
    assert fast.metadata_value.to_list() == reference.metadata_value.to_list()
