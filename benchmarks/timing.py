"""Shared timing for the benchmarks: best wall-clock and CPU seconds of repeated runs, side by side."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["best"]


def best(run: Callable[[], Any], repeat: int, *, warm_up: bool = True) -> tuple[float, float]:
    """Best wall-clock and best process CPU seconds over `repeat` runs (after one untimed run if `warm_up`).

    CPU seconds count every thread of the process: a steadier figure than wall-clock when
    other jobs share the machine.
    """
    if warm_up:
        run()
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu
