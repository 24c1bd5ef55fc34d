"""Mutation fuzzing: every mutated file is either a clean ProfileFormatError or pycapnp's exact answer.

Mutations of valid files (bit flips, byte and word overwrites, truncation, splices within
and across files, and aimed at the hostile families of tests/helpers/hostile_inputs.py: pointers re-aimed at
one object (aliasing), list counts raised (huge texts, long lists), list elements made
void or bytes) are decoded by the fast decoder. It must never raise anything but
`ProfileFormatError`, never hang, and whenever it accepts a file the pycapnp reference
must accept it too and give the identical columns (and frames). Every input is small,
so the budgets' bounds also bound each case's time: the whole run takes seconds.

Where the two readers legitimately differ, the fast decoder is the stricter one, which
this test allows (it only requires equality when the fast decoder accepts):

- trailing bytes after the last segment: pycapnp ignores them; we refuse them (a file
  holds one message; trailing garbage means a damaged or concatenated file);
- a composite tag claiming 2**29 elements or more: Cap'n Proto caps lists at 2**29 - 1;
  pycapnp silently wraps the count, we refuse the tag (docs/reference/format.md#stricter-than-pycapnp);
- the traversal budget: ours is 4 words per file word (+4096), pycapnp's is at least
  2**20 words, so small amplified files pycapnp reads can be refused by us.

``IPU_NB_FUZZ_CASES`` sets the number of cases of the default test (6,000 on each text
path, a few seconds); the `slow` test runs 100,000 more when ``IPU_NB_FUZZ_SLOW=1``
(about a minute per 10,000 cases on each path). The crafted families themselves, at
sizes where they matter, are in test_load_hostile.py.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from wire_words import Sample, profile

from ipu_nb._io.capnp_writer import encode_columns
from ipu_nb._load._errors import ProfileFormatError
from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._load._wire import TextPath, decode_bytes
from ipu_nb._model.columns import ACTIVITY_KINDS, STEP_KINDS, Columns
from ipu_nb._synth.generate import generate_columns

#: Every test here runs with the C text interner and with the numpy path.

CASES = int(os.environ.get("IPU_NB_FUZZ_CASES", "6000"))


def _framed(segments: list[np.ndarray]) -> bytes:
    table = [len(segments) - 1] + [len(s) for s in segments]
    if len(table) % 2:
        table.append(0)
    return np.array(table, dtype="<u4").tobytes() + b"".join(s.astype("<u8").tobytes() for s in segments)


def seeds(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    tmp = tmp_path_factory.mktemp("fuzz")
    small = generate_columns("mlp", "phase", tiles=2, layers=1, phases=2, seed=3)
    step = generate_columns("attention", "step", tiles=1, layers=1, phases=1, seed=4)
    mixed = columns_from_tiles(
        [
            T(5, [S(2**32 - 9, 4, "compute", "é", "", metadata=[("active", "false"), ("", "x")])]),
            T(1, []),
            T(2, [S(1, 2, "exchange", activities=[("send", 1, 2), ("partnerBusy", 3, 1)], exchange_event_cycles=4)]),
        ],
        schema_version=4,
    )
    samples = [Sample(i, i + 3, metadata=(("n", "v" * i),), activities=((1, 2, 3),)) for i in range(3)]
    return [
        _framed(encode_columns(small, first_segment_words=64)),
        _framed(encode_columns(step, first_segment_words=32, far="double")),
        _framed(encode_columns(mixed, step_layout=(5, 6), max_segment_words=16, empty_lists="null")),
        write_with_pycapnp(
            columns_from_tiles([T(i, [S(j, j + 1, metadata=[("k", "v")]) for j in range(30)]) for i in range(4)]),
            tmp / "p.capnp",
        ).read_bytes(),
        profile([(3, samples), (4, [])], far="double", step=(3, 4), version=5).to_bytes(),
        profile([(3, samples[:1])], step=(1, 2), version=1).to_bytes(),
    ]


def _word(buf: bytearray, i: int) -> int:
    return int.from_bytes(buf[8 * i : 8 * i + 8], "little")


def _set_word(buf: bytearray, i: int, value: int) -> None:
    buf[8 * i : 8 * i + 8] = (value & (2**64 - 1)).to_bytes(8, "little")


def _pointer_at(rng: random.Random, buf: bytearray, kinds: tuple[int, ...] = (0, 1)) -> int | None:
    """A random word that reads as a non-null struct or list pointer (None if none turned up)."""
    words = len(buf) // 8
    for _ in range(64):
        i = rng.randrange(1, words) if words > 1 else 0
        w = _word(buf, i)
        if w and (w & 3) in kinds and abs(((w & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000) >> 2 < words:
            return i
    return None


def _retarget(w: int, at: int, to: int) -> int:
    """Pointer word `w` (at word `at`) rewritten for word `to`, aimed at the same object."""
    offset = ((((w & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000) >> 2) + at - to
    return (w & ~0xFFFFFFFF) | ((offset << 2) & 0xFFFFFFFF) | (w & 3)


def mutate(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        if not buf:
            break
        op = rng.randrange(10)
        at = rng.randrange(len(buf))
        if op == 0:  # bit flip
            buf[at] ^= 1 << rng.randrange(8)
        elif op == 1:  # byte overwrite
            buf[at] = rng.choice((0, 0xFF, 1, 2, 3, 0x80, rng.randrange(256)))
        elif op == 2:  # whole-word overwrite with pointer-ish values
            word = at // 8 * 8
            value = rng.choice(
                (0, 2**64 - 1, rng.getrandbits(64), rng.getrandbits(32) << 32 | 1, rng.getrandbits(32) << 32 | 2)
            )
            buf[word : word + 8] = value.to_bytes(8, "little")[: len(buf) - word]
        elif op == 3:  # truncation
            del buf[at:]
        elif op == 4:  # splice within the file (same length)
            src = rng.randrange(len(buf))
            n = rng.randrange(1, 64)
            piece = buf[src : src + n]
            buf[at : at + len(piece)] = piece
        elif op == 5:  # splice from another file
            other = rng.choice(others)
            src = rng.randrange(len(other))
            foreign = other[src : src + rng.randrange(1, 128)]
            buf[at : at + len(foreign)] = foreign
        elif op == 6:  # flip a bit in the segment table or the first words (framing and root)
            buf[rng.randrange(min(len(buf), 40))] ^= 1 << rng.randrange(8)
        elif op == 7:  # pointer aliasing: other pointers re-aimed at one pointer's object
            aimed = _pointer_at(rng, buf)
            if aimed is not None:
                w = _word(buf, aimed)
                for _ in range(rng.choice((1, 4, 32))):
                    dst = _pointer_at(rng, buf)
                    if dst is not None:
                        _set_word(buf, dst, _retarget(w, aimed, dst))
        elif op == 8:  # a list grown huge: its element count raised (a huge text, a long list)
            i = _pointer_at(rng, buf, kinds=(1,))
            if i is not None:
                w = _word(buf, i)
                count = rng.choice(((w >> 35) * rng.choice((2, 16, 1024)), 2**29 - 1, rng.randrange(2**29)))
                _set_word(buf, i, (w & (2**35 - 1)) | (count << 35))
        else:  # a list's elements made void, bytes or halves (schema evolution read as structs)
            i = _pointer_at(rng, buf, kinds=(1,))
            if i is not None:
                w = _word(buf, i)
                es = rng.choice((0, 0, 2, 3, 4))
                count = rng.choice((w >> 35, rng.randrange(2**29), 2**29 - 1))
                _set_word(buf, i, (w & 0xFFFFFFFF) | (es << 32) | (count << 35))
    return bytes(buf)


def same_columns(a: Columns, b: Columns) -> bool:
    if (a.schema_version, a.clock_hz) != (b.schema_version, b.clock_hz):
        return False
    for name in (
        "tiles",
        "tile_sample_counts",
        "local_index",
        "phase",
        "epoch",
        "kind",
        "start",
        "end",
        "metadata_counts",
        "exchange_event_cycles",
        "activity_counts",
        "activity_kind",
        "activity_start",
        "activity_end",
    ):
        x, y = getattr(a, name), getattr(b, name)
        if len(x) != len(y) or not np.array_equal(x.astype(np.int64), y.astype(np.int64)):
            return False
    return all(
        getattr(a, name).to_list() == getattr(b, name).to_list()
        for name in ("operation", "kernel", "metadata_name", "metadata_value")
    )


def check(data: bytes, case: str, full_frames: bool, text_path: TextPath = "auto") -> str:
    """Decode `data` both ways and return the outcome; fail the test on any forbidden outcome."""
    try:
        fast = decode_bytes(data, text_path=text_path)
        unknown_kind = len(fast.kind) and int(fast.kind.max()) >= len(STEP_KINDS)
        unknown_activity = len(fast.activity_kind) and int(fast.activity_kind.max()) >= len(ACTIVITY_KINDS)
        if unknown_kind or unknown_activity:
            build_profile(fast)  # raises the clean error for an unknown enumerant
    except ProfileFormatError as exc:
        assert "\n" not in str(exc), case
        return "rejected"
    except Exception as exc:  # pragma: no cover - the failure being tested for
        pytest.fail(f"{case}: fast decoder raised {type(exc).__name__}: {exc}")
    try:
        reference = decode_reference_bytes(data)
    except ProfileFormatError as exc:
        pytest.fail(f"{case}: fast decoder accepted a file pycapnp refuses: {exc}")
    except Exception as exc:
        pytest.fail(f"{case}: fast decoder accepted a file pycapnp cannot read: {type(exc).__name__}: {exc}")
    assert same_columns(fast, reference), f"{case}: decoders disagree"
    if full_frames:
        try:
            a = build_profile(fast)
        except ProfileFormatError:
            return "rejected"
        b = build_profile(reference)
        for name in ("samples", "metadata", "exchange_activities", "tiles"):
            assert getattr(a, name).equals(getattr(b, name)), f"{case}: {name} differ"
    return "accepted"


def run(cases: int, seed: int, files: list[bytes], text_path: TextPath = "auto") -> dict[str, int]:
    rng = random.Random(seed)
    outcomes = {"accepted": 0, "rejected": 0}
    for i in range(cases):
        k = rng.randrange(len(files))
        data = mutate(rng, files[k], files)
        outcomes[check(data, f"seed {seed} case {i} (file {k})", full_frames=i % 25 == 0, text_path=text_path)] += 1
    return outcomes


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    return seeds(tmp_path_factory)


def test_seeds_are_valid_and_agree(files: list[bytes], text_path: TextPath) -> None:
    for i, data in enumerate(files):
        assert check(data, f"seed file {i}", full_frames=True, text_path=text_path) == "accepted"


def test_fuzz_mutations(files: list[bytes], text_path: TextPath) -> None:
    outcomes = run(CASES, seed=20261130, files=files, text_path=text_path)
    print(outcomes)
    # Both outcomes must actually occur, or the mutations are not exercising the decoder.
    assert outcomes["accepted"] > CASES // 20, outcomes
    assert outcomes["rejected"] > CASES // 4, outcomes


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("IPU_NB_FUZZ_SLOW"), reason="set IPU_NB_FUZZ_SLOW=1 for 100,000 more cases")
def test_fuzz_mutations_at_scale(files: list[bytes], text_path: TextPath) -> None:
    outcomes = run(100_000, seed=7, files=files, text_path=text_path)
    assert outcomes["accepted"] and outcomes["rejected"], outcomes
