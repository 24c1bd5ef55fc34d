"""Run the same ipu-nb command lines from two checkouts and compare their outputs byte for byte.

    python scripts/compare_outputs.py OLD_CHECKOUT NEW_CHECKOUT [--profile P ...] [--out DIR]

Evidence that a refactor changed no output: each checkout's own ``.venv/bin/ipu-nb`` runs
`profile-query` (every ``--group-by`` and ``--sort-by``, text and ``--json``, ``--samples``,
``--at``, every filter, ``--limit``, usage errors), `profile-inspect`, `profile-supersteps`,
`profile-findings`, `profile-diff` on pairs and `generate`, each with a private frame cache.
Standard output, standard error and the exit status of each run are written under ``--out``
and compared with ``cmp`` (the generated files too); the last line counts identical and
different cases, and the exit status is 1 if any differ. Both frame caches are filled
first, so every run reads a cached profile, except a few per profile that run with
``IPU_NB_CACHE_SIZE=0`` and so decode the file (their standard error is a timed progress
bar on large files and is not compared). Default profiles: the small and full demos.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

GROUP_BYS = ("kind", "kernel", "operation", "phase", "tile")
SORT_BYS = ("phase-cycles", "work-cycles", "maximum-cycles", "samples", "name")
KINDS = ("compute", "exchange", "synchronization", "idle")


def query_cases(span: int) -> list[list[str]]:
    """`profile-query` flag sets (after PROFILE); `span` is the profile's span in cycles, for ``--at``."""
    ats = [0, 1, span // 3, span // 2 + 17, span - 1, span, 2**64 - 1]
    cases: list[list[str]] = [[]]
    for by in GROUP_BYS:
        cases += [["--group-by", by, "--limit", "0"], ["--group-by", by, "--limit", "0", "--json"]]
    cases += [
        ["--group-by", "metadata", "--metadata-key", "layer"],
        ["--group-by", "metadata", "--metadata-key", "layer", "--json"],
        ["--group-by", "metadata", "--metadata-key", "next_role", "--limit", "0", "--samples", "2"],
        ["--group-by", "metadata", "--metadata-key", "no-such-key", "--json"],
        ["--samples", "3"],
        ["--samples", "50", "--json", "--limit", "2"],
        ["--samples", "2", "--group-by", "tile", "--sort-by", "name", "--limit", "4"],
    ]
    for at in ats:
        cases += [["--at", str(at)], ["--at", str(at), "--group-by", "tile", "--samples", "4", "--json"]]
    for kind in KINDS:
        cases += [["--kind", kind], ["--kind", kind, "--group-by", "phase", "--json", "--samples", "2"]]
    cases += [
        ["--kernel", "gemm_f32_accumulate_large_rows", "--group-by", "tile"],
        ["--kernel", "", "--group-by", "operation", "--json"],
        ["--kernel", "no such kernel"],
        ["--kernel", "no such kernel", "--json"],
        ["--operation-contains", "GEMM", "--group-by", "operation", "--limit", "7"],
        ["--operation-contains", "exchange for", "--json", "--samples", "1"],
        ["--tile", "0", "--tile", "2", "--group-by", "tile"],
        ["--phase", "3", "--phase", "4", "--group-by", "kind", "--json"],
        ["--tile", "2", "--phase", "7", "--at", str(span // 2), "--samples", "5"],
        ["--metadata", "active"],
        ["--metadata", "active=false", "--group-by", "tile", "--json"],
        ["--metadata", "layer=1", "--metadata", "next_role", "--group-by", "operation"],
        ["--metadata", "layer=1", "--metadata", "role=matmul", "--kind", "compute", "--json"],
        ["--metadata", "shape=64x64x64", "--group-by", "metadata", "--metadata-key", "wave"],
    ]
    for sort in SORT_BYS:
        cases += [["--sort-by", sort], ["--sort-by", sort, "--group-by", "tile", "--limit", "0", "--json"]]
    cases += [["--limit", "0"], ["--limit", "1"], ["--limit", "5", "--json"], ["--limit", str(2**64 - 1)]]
    # Usage and query errors: the message and the exit status must not change either.
    cases += [
        ["--group-by", "metadata"],
        ["--limit", "-1"],
        ["--kind", "bogus"],
        ["--metadata", ""],
        ["--tile", "4294967296"],
        ["--at", "x"],
        ["--bogus"],
    ]
    return cases


def superstep_cases(span: int) -> list[list[str]]:
    cases: list[list[str]] = [[], ["--json"], ["--limit", "0"], ["--limit", "0", "--json"]]
    for sort in ("execution", "span-cycles", "recoverable-cycles", "critical-cycles", "imbalance"):
        cases += [["--sort-by", sort, "--limit", "6"], ["--sort-by", sort, "--json", "--limit", "3"]]
    cases += [
        ["--kind", "compute"],
        ["--tile", "0", "--tile", "2", "--json"],
        ["--phase", "3", "--phase", "5"],
        ["--at", str(span // 2)],
        ["--metadata", "active=true", "--limit", "0"],
        ["--kernel", "gemm_f32_accumulate_large_rows", "--json"],
        ["--sort-by", "bogus"],
    ]
    return cases


def diff_cases() -> list[list[str]]:
    cases: list[list[str]] = [[], ["--json"], ["--limit", "0"], ["--limit", "3", "--json"]]
    for by in GROUP_BYS:
        cases += [["--group-by", by], ["--group-by", by, "--json", "--limit", "0"]]
    for sort in SORT_BYS:
        cases += [["--sort-by", sort, "--limit", "0"]]
    cases += [
        ["--group-by", "metadata", "--metadata-key", "layer", "--json"],
        ["--kind", "compute", "--group-by", "tile", "--limit", "5"],
        ["--rename", "gelu_c16_to_a8=copy_u64", "--json"],
        ["--rename", "a=b", "--rename", "a=c"],
        ["--at", "100000", "--group-by", "operation"],
        ["--metadata", "active", "--phase", "3"],
        ["--group-by", "metadata"],
    ]
    return cases


def span_of(checkout: Path, profile: Path, env: dict[str, str]) -> int:
    """The profile's span, read from the checkout's own `profile-query --json`."""
    out = subprocess.run(
        [str(checkout / ".venv/bin/ipu-nb"), "profile-query", str(profile), "--json", "--limit", "1"],
        check=True,
        capture_output=True,
        env=env,
    ).stdout
    return int(json.loads(out)["profileSpanCycles"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="checkout with a .venv (the reference)")
    parser.add_argument("new", type=Path, help="checkout with a .venv (the change)")
    parser.add_argument("--profile", type=Path, action="append", help="profile to query (default: both demos)")
    parser.add_argument("--out", type=Path, help="where outputs are kept (default: a temporary directory)")
    parser.add_argument("--jobs", type=int, default=2, help="command lines run at once")
    args = parser.parse_args()

    checkouts = {"old": args.old.resolve(), "new": args.new.resolve()}
    for side, checkout in checkouts.items():
        if not (checkout / ".venv/bin/ipu-nb").exists():
            parser.error(f"{side} checkout {checkout} has no .venv/bin/ipu-nb (run its scripts/test or bootstrap)")
    out = args.out or Path(tempfile.mkdtemp(prefix="ipu-nb-compare-outputs-"))
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="ipu-nb-compare-work-"))
    envs = {}
    uncached = {}
    for side in checkouts:
        env = {**os.environ, "IPU_NB_CACHE": str(work / f"cache-{side}")}
        env.pop("IPU_NB_CACHE_SIZE", None)
        envs[side] = env
        # An empty cache of its own that keeps nothing: every run decodes the file.
        uncached[side] = {**env, "IPU_NB_CACHE": str(work / f"no-cache-{side}"), "IPU_NB_CACHE_SIZE": "0"}

    profiles = args.profile
    if not profiles:  # the demos as the new checkout names them (generated on first use)
        python = str(checkouts["new"] / ".venv/bin/python")
        profiles = [
            Path(
                subprocess.check_output(
                    [python, "-c", f"import ipu_nb; print(ipu_nb.demo_profile_path({size!r}))"], text=True
                ).strip()
            )
            for size in ("small", "full")
        ]

    # Generated profiles: compared themselves, then used as profile-diff pairs.
    generated = {
        "gen-seed1": ["--tiles", "64", "--layers", "2", "--seed", "1"],
        "gen-seed2": ["--tiles", "64", "--layers", "2", "--seed", "2"],
        "gen-attention-step": ["--workload", "attention", "--granularity", "step", "--tiles", "32"],
        "gen-v5": ["--tiles", "16", "--layers", "1", "--schema-version", "5"],
    }
    differing: list[str] = []
    for name, flags in generated.items():
        for side, checkout in checkouts.items():
            target = work / side / f"{name}.capnp"
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [str(checkout / ".venv/bin/ipu-nb"), "generate", "-q", "-o", str(target), *flags],
                check=True,
                env=envs[side],
            )
        if subprocess.run(
            ["cmp", "-s", str(work / "old" / f"{name}.capnp"), str(work / "new" / f"{name}.capnp")]
        ).returncode:
            differing.append(f"generate {' '.join(flags)}")
    gen = work / "new"  # both sides read the same (new) generated files for what follows

    cases: list[list[str]] = []
    decoding: list[list[str]] = []  # run without a cache
    for profile in profiles:
        # Each side's span (one more comparison), which also fills its frame cache.
        spans = {side: span_of(checkout, profile, envs[side]) for side, checkout in checkouts.items()}
        if len(set(spans.values())) != 1:
            differing.append(f"profileSpanCycles of {profile.name}: {spans}")
        span = spans["new"]
        decoding += [
            ["profile-query", str(profile)],
            ["profile-query", str(profile), "--group-by", "operation", "--limit", "0", "--json"],
            ["profile-query", str(profile), "--at", str(span // 2), "--samples", "5", "--group-by", "tile"],
        ]
        for flags in query_cases(span):
            cases.append(["profile-query", str(profile), *flags])
        cases.append(["profile-inspect", str(profile)])
        for flags in superstep_cases(span):
            cases.append(["profile-supersteps", str(profile), *flags])
        for flags in ([], ["--json"], ["--limit", "0"], ["--limit", "1", "--json"], ["--limit", "x"]):
            cases.append(["profile-findings", str(profile), *flags])
    pairs = [(profiles[0], gen / "gen-seed1.capnp"), (gen / "gen-seed1.capnp", gen / "gen-seed2.capnp")]
    for before, after in pairs:
        for flags in diff_cases():
            cases.append(["profile-diff", str(before), str(after), *flags])
    cases.append(["profile-diff", str(profiles[0]), str(gen / "gen-v5.capnp")])

    def run(index: int, argv: list[str]) -> bool:
        decode = index >= len(cases)
        folder = out / f"{index:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "argv").write_text(("IPU_NB_CACHE_SIZE=0 " if decode else "") + " ".join(argv) + "\n")
        for side, checkout in checkouts.items():
            env = uncached[side] if decode else envs[side]
            done = subprocess.run([str(checkout / ".venv/bin/ipu-nb"), *argv], capture_output=True, env=env)
            (folder / f"{side}.stdout").write_bytes(done.stdout)
            (folder / f"{side}.stderr").write_bytes(done.stderr)
            (folder / f"{side}.status").write_text(f"{done.returncode}\n")
        parts = ("stdout", "status") if decode else ("stdout", "stderr", "status")
        return all(
            subprocess.run(["cmp", "-s", str(folder / f"old.{part}"), str(folder / f"new.{part}")]).returncode == 0
            for part in parts
        )

    everything = cases + decoding
    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        same = list(pool.map(run, range(len(everything)), everything))
    differing += [
        f"{i:04d} {' '.join(Path(a).name if '/' in a else a for a in argv)}"
        for i, argv in enumerate(everything)
        if not same[i]
    ]
    for line in differing:
        print(f"DIFFERENT {line}", file=sys.stderr)
    total = len(generated) + len(profiles) + len(everything)
    shutil.rmtree(work, ignore_errors=True)
    print(f"outputs kept in {out}")
    print(
        f"{total} cases ({len(generated)} generated files, {len(profiles)} spans, {len(cases)} command lines on"
        f" cached profiles, {len(decoding)} decoding): "
        f"{total - len(differing)} identical, {len(differing)} different"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
