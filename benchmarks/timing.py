"""Shared benchmark helpers: best wall-clock and CPU seconds of repeated runs, fresh-interpreter runs, the profile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ipu_nb import Profile

__all__ = ["ROOT", "best", "fastest_fresh_run", "open_for_benchmark", "profile_path"]

ROOT = Path(__file__).resolve().parent.parent


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


def fastest_fresh_run(script: str, args: Sequence[str], repeat: int = 1) -> dict[str, Any]:
    """Run ``python -c script args...`` in `repeat` fresh interpreters, each printing a JSON object last.

    Returns the fastest run's object (by its ``seconds``) with ``rss`` the highest of all
    runs: a fresh process inherits no memory or warm imports, and on a shared machine other
    load only ever slows a run down.
    """
    runs = []
    for _ in range(max(repeat, 1)):
        out = subprocess.run(
            [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True, cwd=ROOT
        )
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {**min(runs, key=lambda run: run["seconds"]), "rss": max(run["rss"] for run in runs)}


def profile_path(path: str | os.PathLike[str] | None) -> Path:
    """`path`, else the full-size demo profile (generated on first use, with a progress bar)."""
    if path is not None:
        return Path(path)
    import ipu_nb

    print("generating or locating the full-size demo profile...", file=sys.stderr)
    return ipu_nb.demo_profile_path("full", progress=True)


def open_for_benchmark(path: str | os.PathLike[str] | None) -> Profile:
    """Open `path` (default: the full-size demo profile), saying which, how large and how long it took."""
    import ipu_nb

    path = profile_path(path)
    start = time.perf_counter()
    profile = ipu_nb.open_profile(path, progress=False)
    print(f"profile: {path}")
    print(
        f"  {profile.sample_count:,} samples, {profile.metadata.height:,} metadata entries, {profile.tile_count} tiles"
    )
    print(f"  load {time.perf_counter() - start:.2f} s (not part of the budgets)")
    return profile
