"""A fleet's batch query beside the same queries run one by one: 64 profiles of ~100k samples each.

Run: ``.venv/bin/python benchmarks/bench_fleet.py [--profiles 64] [--repeat 3] [--workers N] [--no-dask]``

The profiles (the MLP phase workload on all 1,472 tiles, its first 23 phases: 101,568
samples; seeds 0..63) are generated once into ``$IPU_NB_BENCH_DATA`` (default: the temp
directory) and reused. In one process, side by side, the script measures:

- ``sequential``: 64 × ``ipu_nb.query(ipu_nb.open_profile(path), q)`` in this process;
- ``fleet (new)``: ``Fleet(paths).query(q)`` on local worker processes it spawns;
- ``fleet (kept)``: the same fleet's next query, its worker processes already running;
- ``dask``: ``fleet.query(q, client=...)`` on a ``LocalCluster`` of worker processes
  (started before timing);

first with the frame cache warm (every profile decoded and cached before timing), then
with an empty cache (each profile decoded from its file: the first look at new CI runs).
Each figure is the best of N runs: wall-clock seconds, and CPU seconds of this process
and every process it started (the workers included; steadier on a shared machine).
Ratios are sequential ÷ batch: above 1, the batch is faster. Every batch frame is checked
against the sequential one. The machine's CPU count bounds what parallel workers can give.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_TICK = os.sysconf("SC_CLK_TCK")


def _profiles(count: int) -> list[Path]:
    """`count` profiles (seeds 0..count-1), generated on first use and reused (written atomically)."""
    from ipu_nb._synth.generate import GENERATOR_VERSION, generate_columns, write_profile

    root = Path(os.environ.get("IPU_NB_BENCH_DATA") or tempfile.gettempdir())
    folder = root / f"ipu-nb-bench-fleet-p23-v{GENERATOR_VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(count):
        path = folder / f"sweep-{seed:02d}.capnp"
        if not path.exists():
            print(f"generating {path}...", flush=True)
            partial = path.with_suffix(".partial")
            write_profile(generate_columns(phases=23, seed=seed), partial, progress=False)
            partial.replace(path)
        paths.append(path)
    return paths


def _descendants_cpu() -> float:
    """CPU seconds so far of the live processes descending from this one (Linux /proc; else 0)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK
    ours, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - ours
        ours |= frontier
    return sum(times[pid] for pid in ours)


def _cpu() -> float:
    """CPU seconds of this process, its reaped children and its live descendants."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime + _descendants_cpu()


def _best(run: Callable[[], Any], repeat: int, *, warm_up: bool = True) -> tuple[float, float]:
    """Best wall-clock and best CPU seconds (this process and its descendants) of `repeat` runs."""
    if warm_up:
        run()
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), _cpu()
        run()
        wall, cpu = min(wall, time.perf_counter() - start), min(cpu, _cpu() - start_cpu)
    return wall, cpu


def _use_cache(folder: str) -> None:
    """Point this process's frame cache at `folder` (run on the Dask workers, which do not see our environment)."""
    os.environ["IPU_NB_CACHE"] = folder


def _sequential(paths: list[Path], flags: dict[str, Any]) -> Any:
    import polars as pl

    import ipu_nb

    frames = []
    for seed, path in enumerate(paths):
        groups = ipu_nb.query(ipu_nb.open_profile(path, progress=False), **flags).groups
        frames.append(groups.select(pl.lit(seed, pl.Int64).alias("seed"), pl.lit(str(path)).alias("path"), pl.all()))
    return pl.concat(frames)


def _checked(frame: Any, reference: Any) -> None:
    if not frame.equals(reference):
        raise AssertionError("the batch frame differs from the sequential queries")


def _row(name: str, sequential: tuple[float, float], batches: list[tuple[float, float]]) -> str:
    cells = [f"{name:<14}", f"{sequential[0]:7.2f} {sequential[1]:7.2f}"]
    for wall, cpu in batches:
        cells.append(f"{wall:7.2f} {cpu:7.2f} {sequential[0] / wall:5.2f}x")
    return "  ".join(cells)


def _header(title: str, names: list[str]) -> str:
    cells = [f"{title:<14}", f"{'sequential':^15}"] + [f"{n:^22}" for n in names]
    units = [" " * 14, f"{'wall s':>7} {'cpu s':>7}"] + [f"{'wall s':>7} {'cpu s':>7} {'ratio':>6}"] * len(names)
    return "  ".join(cells) + "\n" + "  ".join(units)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=64, help="profiles in the fleet (default 64)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (best is reported)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes (default: one per CPU)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask cluster")
    args = parser.parse_args()

    import ipu_nb
    from ipu_nb._fleet.runner import available_cpus, worker_count
    from ipu_nb._load._cache import wait_for_writes

    paths = _profiles(args.profiles)
    workers = worker_count(args.workers, len(paths))
    labels = {p: {"seed": i} for i, p in enumerate(paths)}
    os.environ["IPU_NB_CACHE"] = tempfile.mkdtemp(prefix="ipu-nb-bench-fleet-cache-")  # every worker inherits it
    sizes = [ipu_nb.open_profile(p, progress=False).sample_count for p in paths]  # decodes and caches each one
    wait_for_writes()
    print(
        f"{len(paths)} profiles of {min(sizes):,} to {max(sizes):,} samples ({sum(sizes):,} in all); "
        f"{available_cpus()} CPUs, {workers} local worker processes; best of {args.repeat}"
    )

    def new_fleet(flags: dict[str, Any], reference: Any) -> None:
        with ipu_nb.Fleet(paths, labels=labels, workers=workers) as fleet:
            _checked(fleet.query(**flags), reference)

    client = cluster = None
    names = ["fleet (new)", "fleet (kept)"]
    if not args.no_dask:
        from distributed import Client, LocalCluster

        began = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
        print(
            f"Dask LocalCluster of {workers} worker processes, 1 thread each, up in {time.perf_counter() - began:.1f} s"
        )
        names.append("dask")

    print("\n" + _header("warm cache", names))
    queries = {"by kernel": {}, "by phase, all": {"group_by": "phase", "limit": 0}}
    for name, flags in queries.items():
        reference = _sequential(paths, flags)
        sequential = _best(lambda flags=flags: _sequential(paths, flags), args.repeat)
        batches = [_best(lambda flags=flags, ref=reference: new_fleet(flags, ref), args.repeat, warm_up=False)]
        with ipu_nb.Fleet(paths, labels=labels, workers=workers) as fleet:
            batches.append(
                _best(lambda f=fleet, flags=flags, ref=reference: _checked(f.query(**flags), ref), args.repeat)
            )
            if client is not None:
                on_dask = _best(
                    lambda f=fleet, flags=flags, ref=reference: _checked(f.query(client=client, **flags), ref),
                    args.repeat,
                )
                batches.append(on_dask)
        print(_row(name, sequential, batches))

    def cold(run: Callable[[], Any]) -> tuple[float, float]:
        """One run with an empty frame cache: every profile decoded from its file (and cached meanwhile)."""
        _use_cache(tempfile.mkdtemp(prefix="ipu-nb-bench-fleet-cold-"))
        if client is not None:
            client.run(_use_cache, os.environ["IPU_NB_CACHE"])
        start, start_cpu = time.perf_counter(), _cpu()
        run()
        wait_for_writes()
        return time.perf_counter() - start, _cpu() - start_cpu

    flags = queries["by kernel"]
    reference = _sequential(paths, flags)
    print("\n" + _header("empty cache", names[:1] + (["dask"] if client is not None else [])))
    batches = [cold(lambda: new_fleet(flags, reference))]
    if client is not None:
        with ipu_nb.Fleet(paths, labels=labels) as fleet:
            batches.append(cold(lambda: _checked(fleet.query(client=client, **flags), reference)))
    print(_row("by kernel", cold(lambda: _sequential(paths, flags)), batches))
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
