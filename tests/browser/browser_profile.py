"""A small phase-like profile for the browser tests, with hostile strings in every text field."""

from __future__ import annotations

from builders import S, T, profile_from_tiles

from ipu_nb._profile import Profile

HOSTILE = "<img src=x onerror=alert(1)>"


def hostile_profile(tiles: int = 48, phases: int = 6) -> Profile:
    """``tiles`` tiles (physical ids shuffled), per phase: sync, exchange, then compute or idle."""
    out = []
    for logical in range(tiles):
        physical = (logical * 37) % 64 + 64 * (logical // 64)
        cursor = 4_294_900_000 + 131 * logical  # counters wrap mid-profile
        samples = []
        for p in range(phases):
            layer = str(p % 3)
            wait = 600 + (logical * 53 + p * 17) % 400
            samples.append(
                S(
                    cursor,
                    cursor + wait,
                    kind="synchronization",
                    operation=f"sync before exchange {p}",
                    kernel="",
                    phase=2 * p,
                    metadata=[("active", "true"), ("next_layer", layer)],
                )
            )
            cursor += wait
            samples.append(
                S(
                    cursor,
                    cursor + 900,
                    kind="exchange",
                    operation=f"exchange for gemm (layer {layer})",
                    kernel="",
                    phase=2 * p,
                    metadata=[("active", "true"), ("send_bytes", str(4096 + logical))],
                )
            )
            cursor += 900
            busy = (logical + p) % 4 != 0
            if busy:
                kernel = (
                    HOSTILE if logical % 7 == 3 else ("gemm_f32_accumulate_large_rows" if p % 2 else "gelu_c16_to_a8")
                )
                op = HOSTILE if logical % 5 == 1 else f"MLP layer {layer}: GEMM block ({logical}, {p})"
                meta = [("role", "gemm"), ("layer", layer), ("shape", "13x64x64"), ("label", HOSTILE)]
                # Names and values holding "=": both read "a=b=c" joined, yet are different filters.
                meta.append(("a=b", "c") if (logical + p) % 2 else ("a", "b=c"))
                duration = 3000 + 250 * ((logical * 3 + p) % 9)
                samples.append(
                    S(
                        cursor,
                        cursor + duration,
                        kind="compute",
                        operation=op,
                        kernel=kernel,
                        phase=2 * p + 1,
                        metadata=meta,
                    )
                )
            else:
                duration = 120
                samples.append(
                    S(
                        cursor,
                        cursor + duration,
                        kind="idle",
                        operation="idle during gemm (gemm)",
                        kernel="",
                        phase=2 * p + 1,
                        metadata=[("active", "false"), ("layer", layer)],
                    )
                )
            cursor += duration
        out.append(T(physical, samples))
    return profile_from_tiles(out)
