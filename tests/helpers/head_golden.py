"""The hand-checked schema-5 profile behind tests/golden/head_*: tiles, offsets, derivations.

Shared clock (docs/reference/head.md#the-shared-clock-and-the-crop): the first starts are
4294967196 (tile 64), 4294967246 (tile 2) and 4294967216 (tile 130); as signed differences
from tile 64's they are 0, 50 and 20, so the origin is 4294967196 and the crop is 50 (tile 2
enters last). Raw offsets, then cropped (``x`` = dropped, no cycles left):

  tile 64:  a sync [0,50) x · b exchange [50,154) -> [0,104) p0/0 · c compute gemm [154,454) -> [104,404) p1/0
  tile 2:   d sync [50,100) -> [0,50) · e exchange [100,180) -> [50,130) p0/0
            · f compute gemm [180,180) x (zero length) · g compute gemm [180,480) -> [130,430) p1/0
  tile 7:   no samples
  tile 130: h idle [20,30) x · i exchange [30,90) -> [0,40) p0/1 · j compute layer_norm_é [90,300) -> [40,250) p1/0
            · k exchange [300,320) -> [250,270) p2/0

span 430 (g's end), 8 of 11 samples kept. By kernel: gemm [104,404) ∪ [130,430) = 326 (work 600);
layer_norm_é 210; (no kernel) [0,130) ∪ [250,270) = 150 (a per-phase sum would give 190), work 294,
durations 20 40 50 80 104 -> p95 d[3] = 80. By metadata (the first entry named ""): "x" (c) and ""
(g) tie at 300 and go by first offset, 104 before 130; "(missing)" [0,270) = 270, p95 d[4] of
20 40 50 80 104 210 = 104. Shared clock, at offset 100: b [50,154), e [100,180) (phase 0/0, union
130) and j [90,300) (phase 1/0); d [50,100) ends at 100 and is out.

Exchange summary: b (window 70) clamps partnerBusy [60,90) to [60,70) and drops send [150,200) and
the empty receive: send 40, receive 50, both 20, partner busy 10, idle 0; e (window 60): receive
[5,60), send [30,50): send 20, receive 55, both 20, idle 5 (before 5); i (window 30, epoch 1):
send 10, partner busy [25,30) 5, idle 15; k has no window. Phase (epoch 0, phase 0): entries 50 and
100, last exit 180, longest window 70: measured 80, arrival 50, boundary 10; (1, 0): 60, 0, 30.

Calibration, per call (duration / first ``invocations``, rounded up): c 300/2 = 150 with
{"": "x", "layer": "1"} (the later layer wins; reason is left out), f 0 ("x" is no u32: 1) with {},
g 300/3 = 100 with {"": "y", "layer": "0"}, j ceil(210/4) = 53 with {"layer": "1"}. `EXTRA` adds
gemm {} calls of 10, 20, 30 (invocations 0 counts as 1) and 4 (4294967296 is no u32): gemm {} is
then 0 4 10 20 30, median d[2] = 10, p95 d[3] = 20.
"""

from __future__ import annotations

from builders import S, T

TILES = [
    T(
        64,
        [
            S(4294967196, 4294967246, "synchronization", "sync", "", 0, metadata=[("active", "true")]),
            S(
                4294967246,
                54,
                "exchange",
                "exchange for gemm",
                "",
                0,
                metadata=[("active", "true")],
                activities=[
                    ("send", 0, 40),
                    ("receive", 20, 70),
                    ("partnerBusy", 60, 90),
                    ("send", 150, 200),
                    ("receive", 10, 10),
                ],
                exchange_event_cycles=70,
            ),
            S(
                54,
                354,
                "compute",
                'block "a"\t',
                "gemm",
                1,
                metadata=[("", "x"), ("invocations", "2"), ("layer", "0"), ("layer", "1"), ("reason", "r")],
            ),
        ],
    ),
    T(
        2,
        [
            S(4294967246, 0, "synchronization", "sync", "", 0),
            S(
                0,
                80,
                "exchange",
                "exchange for gemm",
                "",
                0,
                activities=[("receive", 5, 100), ("send", 30, 50)],
                exchange_event_cycles=60,
            ),
            S(80, 80, "compute", "block b", "gemm", 1, metadata=[("invocations", "x")]),
            S(
                80,
                380,
                "compute",
                "block b",
                "gemm",
                1,
                metadata=[("", ""), ("", "y"), ("layer", "0"), ("invocations", "3")],
            ),
        ],
    ),
    T(7, []),
    T(
        130,
        [
            S(4294967216, 4294967226, "idle", "idle", "", 0),
            S(
                4294967226,
                4294967286,
                "exchange",
                "exchange for norm",
                "",
                0,
                epoch=1,
                activities=[("send", 0, 10), ("partnerBusy", 25, 40)],
                exchange_event_cycles=30,
            ),
            S(
                4294967286,
                200,
                "compute",
                "norm\x01",
                "layer_norm_é",
                1,
                metadata=[("layer", "1"), ("invocations", "+4")],
            ),
            S(200, 220, "exchange", "exchange late", "", 2, activities=[("receive", 0, 5)]),
        ],
    ),
]

EXTRA = [
    T(
        9,
        [
            S(0, 10, "compute", "op", "gemm", 0),
            S(10, 30, "compute", "op", "gemm", 0),
            S(30, 60, "compute", "op", "gemm", 0, metadata=[("value", "v"), ("invocations", "0")]),
            S(60, 64, "compute", "op", "gemm", 0, metadata=[("invocations", "4294967296")]),
            S(64, 70, "exchange", "x", "gemm", 1),
            S(70, 75, "compute", "y", "", 1),
        ],
    )
]
