"""The hand-checked profile behind tests/golden/ (profile-query, profile-supersteps): tiles, offsets, derivations."""

from __future__ import annotations

from builders import S, T

# Offsets per tile (first sample = 0); counters of tile 64 wrap.
#   tile 64:  a sync [0,200) p0/0 · b exchange [200,400) p0/0 · c compute gemm [400,1400) p1/0
#   tile 0:   d sync [0,300) p0/0 · e exchange [300,450) p0/0 · f idle [450,500) p1/0
#   tile 2:   no samples
#   tile 130: g sync [0,250) · h exchange [250,400) p0/0 · i compute layer_norm_é [400,1000) p1/0
#             · j compute [1000,1000) p2/1 (zero length, empty operation)
# default (kernel): gemm 1000; layer_norm_é phases (1,0)+(2,1) = 600; (no kernel) = (0,0) union
#   [0,450) + (1,0) [450,500) = 500, work 1300, durations [50,150,150,200,200,250,300] -> p50 d[3]=200,
#   p95 d[5]=250. Span 1400 -> 0.000933 ms at 1.5 GHz.
TILES = [
    T(
        64,
        [
            S(
                4294967000,
                4294967200,
                "synchronization",
                "sync before exchange 1",
                "",
                0,
                metadata=[("active", "true")],
            ),
            S(
                4294967200,
                104,
                "exchange",
                "exchange for gemm (lhs)",
                "",
                0,
                metadata=[("active", "true"), ("send_bytes", "4096")],
            ),
            S(
                104,
                1104,
                "compute",
                'MLP layer 0: GEMM "block" (0, 5)',
                "gemm_f32_accumulate_large_rows",
                1,
                metadata=[("role", "lhs"), ("layer", "0"), ("layer", "1")],
            ),
        ],
    ),
    T(
        0,
        [
            S(5000, 5300, "synchronization", "sync before exchange 1", "", 0, metadata=[("active", "true")]),
            S(
                5300,
                5450,
                "exchange",
                "exchange for gemm (lhs)",
                "",
                0,
                metadata=[("active", "true"), ("send_bytes", "0")],
            ),
            S(
                5450,
                5500,
                "idle",
                "idle during gemm (lhs)",
                "",
                1,
                metadata=[("active", "false"), ("scheduled_kernel", "gemm_f32_accumulate_large_rows")],
            ),
        ],
    ),
    T(2, []),
    T(
        130,
        [
            S(0, 250, "synchronization", "sync before exchange 1", "", 0, metadata=[("active", "true")]),
            S(
                250,
                400,
                "exchange",
                "exchange for gemm (lhs)",
                "",
                0,
                metadata=[("active", "true"), ("send_bytes", "4096")],
            ),
            S(
                400,
                1000,
                "compute",
                "naïve\tlabel",
                "layer_norm_é",
                1,
                metadata=[("role", "norm"), ("note", 'quote" back\\ ctl\x01')],
            ),
            S(1000, 1000, "compute", "", "layer_norm_é", 2, 1),
        ],
    ),
]
