"""`ipu-nb demo`: the bundled default profile, opened in the quickstart notebook (or queried headless)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import CliError

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="generate the default profile if missing and open the quickstart notebook",
        description=(
            "Generate the bundled synthetic profile (MLP FP32 512x2048x8, phase granularity, "
            "1,170,240 samples) on first use, then open notebooks/quickstart.ipynb in JupyterLab. "
            "--headless prints the default profile-query table instead."
        ),
    )
    parser.add_argument("--headless", action="store_true", help="print a query table instead of starting JupyterLab")
    parser.add_argument(
        "--size", choices=("full", "small"), default="full", help="default profile size (default: full)"
    )
    parser.add_argument("--profile", type=Path, metavar="PATH", help="use this profile instead of the default one")
    parser.add_argument("--port", type=int, default=8888, help="JupyterLab port (default: 8888)")
    parser.set_defaults(func=run)


def _notebook() -> Path:
    checkout = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"
    if checkout.is_file():
        return checkout
    raise CliError("notebooks/quickstart.ipynb not found: run the demo from an ipu-nb checkout")


def run(args: argparse.Namespace) -> int:
    from .._synth.generate import demo_profile_path

    path = args.profile if args.profile is not None else demo_profile_path(args.size)
    if not path.is_file():
        raise CliError(f"profile not found: {path}")
    if args.headless:
        return _headless(path)
    notebook = _notebook()
    if shutil.which("jupyter", path=str(Path(sys.executable).parent)) is None and shutil.which("jupyter") is None:
        raise CliError("JupyterLab is not installed: pip install jupyterlab")
    env = {**os.environ, "IPU_NB_PROFILE": str(path)}
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        f"--ServerApp.root_dir={notebook.parent}",
        f"--ServerApp.port={args.port}",
        "--ServerApp.ip=127.0.0.1",
        notebook.name,
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI machines run as root
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        command.append("--no-browser")
    print(f"ipu-nb demo: profile {path}\nipu-nb demo: starting JupyterLab (Ctrl-C to stop)", file=sys.stderr)
    try:
        return subprocess.call(command, env=env, cwd=notebook.parent)
    except KeyboardInterrupt:
        return 0


def _headless(path: Path) -> int:
    from .._load import open_profile
    from .._query import query

    began = time.perf_counter()
    profile = open_profile(path)
    loaded = time.perf_counter()
    result = query(profile)
    done = time.perf_counter()
    sys.stdout.write(result.to_text())
    print(
        f"ipu-nb demo: {path} ({profile.sample_count:,} samples): "
        f"loaded in {loaded - began:.2f} s, queried in {done - loaded:.3f} s",
        file=sys.stderr,
    )
    return 0
