"""Opening at scale: the 1.17M-sample demo profile beside a 9.9M-sample one, as ratios to reading the bytes.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1.2M,9.9M] [--granularity phase|step]
        [--baseline REV] [--code NAME=DIR ...] [--repeat N] [--no-queries]

For each size (the default demo profile, and ``ipu-nb generate --layers 68``; generated once
into the data directory the demo profile lives in, ``$IPU_NB_DATA`` or ``~/.cache/ipu-nb``),
every figure in its own fresh interpreter: the floor (reading the file's bytes from the page
cache), a cold ``open_profile`` into an empty frame cache (with its peak resident memory,
VmHWM, when it returns, and the background cache write after it), a reopen from that cache,
then on the reopened profile the default ``query()``, single filters (``kind``, ``kernel``,
``metadata``, ``at``, ``window``), ``compare``, ``supersteps`` and ``findings`` (first and
second call: the first builds any per-profile index). Ratios are to the floor of the same
size, and 9.9M/1.2M. ``--baseline REV`` also runs this package with its loader
(``ipu_nb/_load``) as committed at REV (copied with ``git archive``, its C library compiled
there), so only the loader differs, and ``--code NAME=DIR`` any checkout's ``ipu_nb``;
variants take turns, so old and new share the machine's load (printed). Targets at 9.9M:
cold ≤ 6 s and ≤ 8× the floor, reopen ≤ 0.5 s, peak ≤ 0.5× the file.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Size label -> generator knobs (on top of the demo profile's).
SIZES: dict[str, dict[str, int]] = {"1.2M": {}, "9.9M": {"layers": 68}}

_MEASURE = textwrap.dedent(
    """
    import json, os, sys, time
    import numpy as np
    path, what, cache = sys.argv[1], sys.argv[2], sys.argv[3]
    os.environ["IPU_NB_CACHE"] = cache

    def peak():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))

    out = {}
    if what == "floor":
        buffer = bytearray(8 << 20)
        t = time.perf_counter()
        with open(path, "rb", buffering=0) as handle:
            while handle.readinto(buffer):
                pass
        out["seconds"] = time.perf_counter() - t
    else:
        import ipu_nb
        from ipu_nb._load import _cache
        t, c = time.perf_counter(), time.process_time()
        profile = ipu_nb.open_profile(path, progress=False)
        out.update(seconds=time.perf_counter() - t, cpu=time.process_time() - c, peak=peak())
        out["samples"] = profile.sample_count
        t = time.perf_counter()
        _cache.wait_for_writes()
        out.update(write=time.perf_counter() - t, peak_after_write=peak())
        if what == "queries":
            span = profile.span_cycles
            kernel = profile.samples.get_column("kernel").value_counts(sort=True).item(0, 0)
            compact = getattr(profile, "compact_metadata", None)  # the middle entry, without building the long frame
            if compact is not None:
                entry = compact.names_values(np.array([compact.entry_count // 2])).row(0, named=True)
            else:
                entry = profile.metadata.row(len(profile.metadata) // 2, named=True)
            name, value = entry["name"], entry["value"]
            calls = {
                "query()": lambda: profile.query(),
                "kind": lambda: profile.query(kind="compute"),
                "kernel": lambda: profile.query(kernel=kernel),
                "metadata": lambda: profile.query(metadata=[(name, value)]),
                "at": lambda: profile.query(at=span // 2),
                "window": lambda: profile.query(window=(span // 4, span // 2)),
                "compare": lambda: ipu_nb.compare(profile, profile),
                "supersteps": lambda: ipu_nb.supersteps(profile),
                "findings": lambda: ipu_nb.findings(profile),
            }
            for label, call in calls.items():
                times = []
                for _ in range(2):
                    t = time.perf_counter()
                    call()
                    times.append(time.perf_counter() - t)
                out[label] = times
    print(json.dumps(out))
    """
)


def data_directory() -> Path:
    """Where the demo profiles live (``$IPU_NB_DATA``, else ``~/.cache/ipu-nb``)."""
    env = os.environ.get("IPU_NB_DATA")
    return Path(env) if env else Path.home() / ".cache" / "ipu-nb"


def profile_for(size: str, granularity: str) -> Path:
    """The profile of `size` at `granularity`, generated (atomically) on first use."""
    import ipu_nb
    from ipu_nb._synth import GENERATOR_VERSION

    knobs = SIZES[size]
    if not knobs and granularity == "phase":
        return ipu_nb.demo_profile_path("full", progress=True)
    layers = knobs.get("layers", 8)
    path = data_directory() / f"scale-mlp-{granularity}-layers{layers}-v{GENERATOR_VERSION}.capnp"
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"generating {path} (once)...", file=sys.stderr)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        ipu_nb.generate_profile(tmp, "mlp", granularity, progress=True, layers=layers)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


_PROFILE_ALIAS = "from .._model.profile import ProfileData as Profile\n"


def checkout(rev: str, into: Path) -> Path:
    """This checkout's ``ipu_nb`` with its loader (``_load``) as committed at `rev`, that loader's C library
    compiled there: a directory to put on PYTHONPATH, so only the loader differs."""
    shutil.copytree(ROOT / "ipu_nb", into / "ipu_nb", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    load = into / "ipu_nb" / "_load"
    shutil.rmtree(load)
    archive = subprocess.run(["git", "archive", rev, "ipu_nb/_load"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    if "class Profile(" not in (into / "ipu_nb" / "_model" / "profile.py").read_text():
        # An older loader built `Profile` where the loader's model class is now `ProfileData`.
        for module in load.glob("*.py"):
            text = module.read_text()
            module.write_text(text.replace("from .._model.profile import Profile\n", _PROFILE_ALIAS))
    sources = [str(load / name) for name in ("_intern.c", "_guard.c") if (load / name).exists()]
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    flags = ["-O3", "-std=c99", "-shared", "-fPIC"]
    subprocess.run([*compiler, *flags, "-o", str(load / "libipu_intern.so"), *sources], check=True)
    return into


def run(code: Path | None, path: Path, what: str, cache: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path), what, str(cache)],
        capture_output=True,
        text=True,
        cwd=cache,  # not the checkout: `python -c` puts its working directory first on the path
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench_scale: {what} of {path.name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(code: Path | None, path: Path, queries: bool) -> dict[str, Any]:
    """One round of every figure for `path` with the package at `code` (None: this checkout)."""
    with tempfile.TemporaryDirectory(prefix="ipu-nb-bench-scale-") as cache:
        figures: dict[str, Any] = {"floor": run(code, path, "floor", Path(cache))["seconds"]}
        cold = run(code, path, "cold", Path(cache))
        figures.update(cold=cold["seconds"], cold_cpu=cold["cpu"], cold_peak=cold["peak"])
        figures.update(write=cold["write"], write_peak=cold["peak_after_write"], samples=cold["samples"])
        reopen = run(code, path, "queries" if queries else "reopen", Path(cache))
        figures.update(reopen=reopen["seconds"], reopen_peak=reopen["peak"])
        figures.update({k: v for k, v in reopen.items() if isinstance(v, list)})
    return figures


def best(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Fastest time and highest memory of each figure over the rounds (load only ever slows a run)."""
    out: dict[str, Any] = {}
    for key in rounds[0]:
        values = [r[key] for r in rounds]
        if isinstance(values[0], list):
            out[key] = [min(v[i] for v in values) for i in range(len(values[0]))]
        elif "peak" in key or key == "samples":
            out[key] = max(values)
        else:
            out[key] = min(values)
    return out


def report(size: str, path: Path, results: dict[str, dict[str, Any]], small: dict[str, dict[str, Any]] | None) -> None:
    file_size = path.stat().st_size
    any_result = next(iter(results.values()))
    print(f"\n{size}: {path.name}, {any_result['samples']:,} samples, {file_size / 1e9:.2f} GB")
    names = list(results)
    print(f"{'':26}" + "".join(f"{n:>26}" for n in names) + ("   ×(9.9M/1.2M)" if small else ""))

    def row(label: str, cell: Any, scale: Any = None) -> None:
        cells = "".join(f"{cell(results[n]):>26}" for n in names)
        ratio = ""
        if small is not None and scale is not None:
            ratio = "  " + " ".join(f"{scale(results[n], small[n]):>6.1f}" for n in names if n in small)
        print(f"{label:26}{cells}{ratio}")

    def seconds(key: str) -> Any:
        return lambda r: f"{r[key]:.2f} s ({r[key] / r['floor']:.1f}× floor)"

    row("floor (read the bytes)", lambda r: f"{r['floor']:.2f} s (fastest)", lambda r, s: r["floor"] / s["floor"])
    row("cold open", seconds("cold"), lambda r, s: r["cold"] / s["cold"])
    row("  its CPU seconds", lambda r: f"{r['cold_cpu']:.2f} s", lambda r, s: r["cold_cpu"] / s["cold_cpu"])
    row("  peak RSS at return", lambda r: f"{r['cold_peak'] / 1e9:.2f} GB ({r['cold_peak'] / file_size:.2f}×)")
    row("  cache write after it", lambda r: f"{r['write']:.2f} s, peak {r['write_peak'] / 1e9:.2f} GB")
    row("reopen from the cache", seconds("reopen"), lambda r, s: r["reopen"] / s["reopen"])
    row("  peak RSS", lambda r: f"{r['reopen_peak'] / 1e9:.2f} GB ({r['reopen_peak'] / file_size:.2f}×)")
    for label in ("query()", "kind", "kernel", "metadata", "at", "window", "compare", "supersteps", "findings"):
        if label in any_result:
            row(
                f"{label} 1st/2nd",
                lambda r, k=label: f"{r[k][0]:.2f}/{r[k][1]:.2f} s ({r[k][1] / r['floor']:.1f}×)",
                lambda r, s, k=label: r[k][1] / s[k][1],
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1.2M,9.9M", help=f"comma-separated, of {', '.join(SIZES)}")
    parser.add_argument("--granularity", default="phase", choices=("phase", "step"))
    parser.add_argument("--baseline", metavar="REV", help="also run with the loader as committed at REV (e.g. HEAD)")
    parser.add_argument("--code", action="append", default=[], metavar="NAME=DIR", help="also run DIR's ipu_nb")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, taking turns (fastest kept)")
    parser.add_argument("--no-queries", action="store_true", help="only open and reopen")
    args = parser.parse_args()
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        parser.error(f"--sizes: unknown {', '.join(unknown)} (choose from {', '.join(SIZES)})")
    with tempfile.TemporaryDirectory(prefix="ipu-nb-bench-code-") as scratch:
        variants: list[tuple[str, Path | None]] = []
        if args.baseline:
            variants.append((args.baseline, checkout(args.baseline, Path(scratch) / "baseline")))
        for item in args.code:
            name, sep, where = item.partition("=")
            if not sep or not (Path(where) / "ipu_nb").is_dir():
                parser.error(f"--code {item!r}: expected NAME=DIR of a directory holding ipu_nb/")
            variants.append((name, Path(where).resolve()))
        variants.append(("this", None))
        paths = {size: profile_for(size, args.granularity) for size in sizes}
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
        results: dict[str, dict[str, dict[str, Any]]] = {}
        for size in sizes:
            rounds: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in variants}
            for _ in range(max(args.repeat, 1)):
                for name, code in variants:
                    rounds[name].append(measure(code, paths[size], not args.no_queries))
            results[size] = {name: best(r) for name, r in rounds.items()}
            floor = min(r["floor"] for r in results[size].values())  # the same file: one floor for all
            for figures in results[size].values():
                figures["floor"] = floor
            report(size, paths[size], results[size], results.get("1.2M") if size != "1.2M" else None)
        print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
