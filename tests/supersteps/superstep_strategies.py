"""Hypothesis strategies for superstep tests: few distinct values, so ties and empty phases are common."""

from __future__ import annotations

from typing import Any

from builders import S, T
from hypothesis import strategies as st

KINDS = ("compute", "exchange", "synchronization", "idle")
KERNELS = ("", "a", "b", "é", "(no kernel)")
OPERATIONS = ("", "op a", "op b", "x")


@st.composite
def samples(draw: Any) -> S:
    start = draw(st.one_of(st.integers(0, 60), st.integers(2**32 - 40, 2**32 - 1)))
    duration = draw(st.one_of(st.integers(0, 12), st.just(0), st.integers(2**31, 2**32 - 1)))
    return S(
        start=start,
        end=(start + duration) % 2**32,
        kind=draw(st.sampled_from(KINDS)),
        operation=draw(st.sampled_from(OPERATIONS)),
        kernel=draw(st.sampled_from(KERNELS)),
        phase=draw(st.integers(0, 3)),
        epoch=draw(st.integers(0, 2)),
        metadata=draw(st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from(["1", "2"])), max_size=2)),
    )


@st.composite
def contiguous(draw: Any) -> list[S]:
    """A tile's samples as the runtime writes them: each starts where the previous ended (may wrap)."""
    start = draw(st.one_of(st.integers(0, 50), st.integers(2**32 - 60, 2**32 - 1)))
    out = []
    for _ in range(draw(st.integers(0, 7))):
        s = draw(samples())
        duration = (s.end - s.start) % 2**32 % 100
        s.start, s.end = start, (start + duration) % 2**32
        start = s.end
        out.append(s)
    return out


@st.composite
def tiles(draw: Any) -> list[T]:
    ids = draw(st.lists(st.one_of(st.integers(0, 8), st.integers(1000, 5000)), max_size=5, unique=True))
    per_tile = st.one_of(st.lists(samples(), max_size=6), contiguous())
    return [T(i, draw(per_tile)) for i in ids]


@st.composite
def dense_tiles(draw: Any) -> list[T]:
    """Few phases, kernels and kinds, contiguous samples: every tile takes part in most supersteps."""
    out = []
    for tile in draw(st.lists(st.integers(0, 12), min_size=1, max_size=6, unique=True)):
        start, samples = draw(st.one_of(st.integers(0, 30), st.integers(2**32 - 30, 2**32 - 1))), []
        for phase in range(draw(st.integers(1, 4))):
            for _ in range(draw(st.integers(1, 2))):
                duration = draw(st.one_of(st.integers(0, 50), st.just(20)))
                kind = draw(st.sampled_from(("compute", "compute", "exchange", "synchronization", "idle")))
                samples.append(S(start, (start + duration) % 2**32, kind, "op", draw(st.sampled_from("ab")), phase))
                start = (start + duration) % 2**32
        out.append(T(tile, samples))
    return out


FILTERS = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(KINDS),
        "kernel": st.sampled_from(KERNELS),
        "operation_contains": st.sampled_from(["", "op", "a"]),
        "tiles": st.lists(st.integers(0, 8), min_size=1, max_size=3).map(tuple),
        "phases": st.lists(st.integers(0, 3), min_size=1, max_size=2).map(tuple),
        "metadata": st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from([None, "1"])), max_size=2).map(tuple),
        "at": st.integers(0, 70),
    },
)

#: Random profiles of both shapes: anything the format allows, and dense runtime-like ones.
PROFILES = st.one_of(tiles(), dense_tiles())
