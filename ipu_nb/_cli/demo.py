"""`ipu-nb demo`: the bundled default profile, opened in the quickstart notebook (or queried headless).

From a checkout the notebooks open where they are (``notebooks/``); from an install they
are copied to a working folder first (`ipu_nb._notebooks.working_copy`: edited copies are
kept). JupyterLab comes with the ``lab`` extra; without it the command says so in one line.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

from .._demo import DEMO_SIZES, describe_demo
from . import CliError, status

__all__ = ["LAB_HINT", "register", "run"]

#: How to get JupyterLab for the demo (the ``lab`` extra in pyproject.toml).
LAB_HINT = 'pip install "ipu-nb[lab]"'


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="generate the default profile if missing and open the quickstart notebook",
        description=(
            f"Generate the bundled synthetic profile ({describe_demo('full')}) on first use, then open "
            "the quickstart notebook in JupyterLab. An installed ipu-nb copies its notebooks to a working "
            "folder first (--dir; edited copies are kept). --headless prints the default profile-query "
            f"table instead. JupyterLab: {LAB_HINT}."
        ),
    )
    parser.add_argument("--headless", action="store_true", help="print a query table instead of starting JupyterLab")
    parser.add_argument(
        "--size",
        choices=DEMO_SIZES,
        default="full",
        help=f"default profile size (default: full); small: {describe_demo('small')}",
    )
    parser.add_argument("--profile", type=Path, metavar="PATH", help="use this profile instead of the default one")
    parser.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="working folder for an installed ipu-nb's notebooks (default: $IPU_NB_DEMO_DIR or ~/ipu-nb-demo)",
    )
    parser.add_argument("--port", type=int, default=8888, help="JupyterLab port (default: 8888)")
    parser.set_defaults(func=run)


def _notebook_folder(args: argparse.Namespace) -> Path:
    """Where JupyterLab opens: the checkout's notebooks/, or the working copy of an install's."""
    from .._notebooks import checkout_notebooks, default_working_folder, shipped_notebooks, working_copy

    checkout = checkout_notebooks()
    if checkout is not None and args.dir is None:
        return checkout
    try:
        source = shipped_notebooks()
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from None
    copy = working_copy(args.dir or default_working_folder(), source)
    if copy.copied:
        status(args, f"ipu-nb demo: copied {', '.join(copy.copied)} to {copy.folder}")
    if copy.updated:
        status(args, f"ipu-nb demo: updated {', '.join(copy.updated)} in {copy.folder} to this version's")
    if copy.kept_edited:
        status(args, f"ipu-nb demo: kept your edited {', '.join(copy.kept_edited)} (this version's are in {source})")
    return copy.folder


def run(args: argparse.Namespace) -> int:
    from .._synth.generate import demo_profile_path

    if not args.headless and importlib.util.find_spec("jupyterlab") is None:
        raise CliError(f"JupyterLab is not installed: {LAB_HINT} (or run `ipu-nb demo --headless`)")
    path = args.profile if args.profile is not None else demo_profile_path(args.size)
    if not path.is_file():
        raise CliError(f"profile not found: {path}")
    if args.headless:
        return _headless(args, path)
    folder = _notebook_folder(args)
    env = {**os.environ, "IPU_NB_PROFILE": str(path)}
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        f"--ServerApp.root_dir={folder}",
        f"--ServerApp.port={args.port}",
        "--ServerApp.ip=127.0.0.1",
        "quickstart.ipynb",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and CI machines run as root
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        command.append("--no-browser")
    status(args, f"ipu-nb demo: profile {path}\nipu-nb demo: starting JupyterLab in {folder} (Ctrl-C to stop)")
    try:
        return subprocess.call(command, env=env, cwd=folder)
    except KeyboardInterrupt:
        return 0


def _headless(args: argparse.Namespace, path: Path) -> int:
    from .._profile import open_profile
    from .._query import query

    began = time.perf_counter()
    profile = open_profile(path)
    loaded = time.perf_counter()
    result = query(profile)
    done = time.perf_counter()
    sys.stdout.write(result.to_text())
    status(
        args,
        f"ipu-nb demo: {path} ({profile.sample_count:,} samples): "
        f"loaded in {loaded - began:.2f} s, queried in {done - loaded:.3f} s",
    )
    return 0
