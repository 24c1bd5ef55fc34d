"""The hand-made pair of profiles the hand-computed tests and the profile-diff golden files use.

clockHz = 1000, so milliseconds equal cycles. Offsets per tile (first sample = 0);
tile 1's raw counters start at 2^32 − 50 and wrap. Kernel "A" is called "Ä" after.

  before  tile 0: A [0,100) p1 · B [100,150) p1
          tile 1: A [0,80) p1 · B [80,130) p1 · C [130,140) p2
          tile 2: E [0,5) p3
  after   tile 0: Ä [0,120) p1 · B [120,150) p1
          tile 1: Ä [0,80) p1 · B [80,130) p1 · D [130,150) p2
          tile 2: E [0,5) p3

By kernel, worked by hand:
  before  A: pc [0,100)∪[0,80) = 100, work 180, durations [80,100]
          B: pc [100,150)∪[80,130) = [80,150) = 70, work 100, durations [50,50]
          C: pc 10 · E: pc 5
          total (per-phase unions): p1 [0,150) 150 + p2 10 + p3 5 = 165; Σ groups 185; overlap 20
  after   Ä: pc [0,120)∪[0,80) = 120, work 200, durations [80,120]
          B: pc [120,150)∪[80,130) = 70, work 80, durations [30,50]
          D: pc 20 · E: pc 5
          total 150 + 20 + 5 = 175; Σ groups 215; overlap 40
With renames {"A": "Ä"}: Ä changed +20 (ratio 1.2), D added +20, C removed −10,
B changed +0 (its work fell), E unchanged. Σ contributions +30, overlap term 20 − 40 = −20,
total delta +10 = 30 − 20. Order: D, Ä (tie at 20: "D" U+0044 < "Ä" U+00C4), C, B, E.
"""

from __future__ import annotations

from builders import S, T

CLOCK_HZ = 1000
_WRAP = 2**32
_BASE1 = _WRAP - 50


def _t1(lo: int, hi: int) -> tuple[int, int]:
    return (_BASE1 + lo) % _WRAP, (_BASE1 + hi) % _WRAP


BEFORE = [
    T(0, [S(0, 100, kernel="A", phase=1), S(100, 150, kernel="B", phase=1)]),
    T(
        1,
        [
            S(*_t1(0, 80), kernel="A", phase=1),
            S(*_t1(80, 130), kernel="B", phase=1),
            S(*_t1(130, 140), kernel="C", phase=2),
        ],
    ),
    T(2, [S(0, 5, kernel="E", phase=3)]),
]
AFTER = [
    T(0, [S(0, 120, kernel="Ä", phase=1), S(120, 150, kernel="B", phase=1)]),
    T(
        1,
        [
            S(*_t1(0, 80), kernel="Ä", phase=1),
            S(*_t1(80, 130), kernel="B", phase=1),
            S(*_t1(130, 150), kernel="D", phase=2),
        ],
    ),
    T(2, [S(0, 5, kernel="E", phase=3)]),
]
