"""The C text interner: built by the install, exact on what it accepts, and declining what it must."""

from __future__ import annotations

import random

import numpy as np
import pytest
from wire_words import BYTE, Sample, far_word, list_word, profile

from ipu_nb._load import _intern
from ipu_nb._load._message import Message
from ipu_nb._load._text import TextColumn


def test_the_install_built_a_current_library() -> None:
    # scripts/test installs the package, whose build hook compiles _intern.c: a missing or
    # stale library would silently halve loading speed, so the suite insists on it.
    assert _intern.LIBRARY.is_file(), f"{_intern.LIBRARY} missing: run `python hatch_build.py`"
    assert _intern.NATIVE, "the library does not load, or was built from older source (ABI mismatch)"


def test_a_library_of_another_abi_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_intern, "ABI", _intern.ABI + 1)
    assert _intern._load() is None


def _intern_column(column_type: type, msg: Message, addr: np.ndarray, seg: int) -> tuple[list[int], list[str]]:
    column = column_type("ProfileStep.operation", msg)
    for lo in range(0, len(addr), 7):  # several batches: codes must stay global across them
        column.add(addr[lo : lo + 7], seg, None, lambda i: f"text {i}")
    strings = column.finish("<test>", lambda r: f"row {r}")
    return strings.codes.tolist(), strings.values.to_pylist()


def _operation_pointers(data: bytes) -> tuple[Message, np.ndarray, int]:
    from ipu_nb._load import _wire

    msg = Message(data, "<test>")
    seen: list[tuple[np.ndarray, int]] = []
    original = _wire._TextColumn

    class Spy(original):  # type: ignore[misc,valid-type]
        def add(self, addr, seg, present, describe):  # type: ignore[no-untyped-def]
            if self.what == "ProfileStep.operation":
                seen.append((np.array(addr), seg))
            return super().add(addr, seg, present, describe)

    _wire._TextColumn = Spy
    try:
        _wire.decode_bytes(data)
    finally:
        _wire._TextColumn = original
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
    monkeypatch.setattr(far_msg, "texts", lambda *a: general.append(1) or texts_of(*a))
    column = _intern.NativeTextColumn("ProfileStep.operation", far_msg)
    column.add(addr, seg, None, lambda i: f"text {i}")
    strings = column.finish("<test>", lambda r: f"row {r}")
    assert [strings.values.to_pylist()[c] for c in strings.codes.tolist()] == texts
    assert strings.codes.tolist() == [0, 1, 0, 2, 1, 3]
    assert len(general) == (far == "double")
