"""Build hook: the widget bundle (js/ → ipu_nb/static/) and the C library (ipu_nb/_load/*.c and
ipu_nb/_widget/lod/_summary.c).

Both are built here, not committed, and neither needs a toolchain on a user's machine:

- **The bundle.** A source archive (sdist) ships ``ipu_nb/static/`` built, so a wheel built
  from it uses that bundle as it is and never calls npm. In a checkout the bundle is rebuilt
  with ``npm run build`` when a front-end source is newer than it (``npm ci`` first if
  ``node_modules`` is missing). Only when there is no bundle and no npm does the build stop,
  with one line saying so.
- **The C library** is optional: without a C compiler the build goes on with a one-line
  warning and the loader uses its numpy path (same frames, about twice as slow on large
  profiles) and reads files into memory instead of mapping them.

Run as a script (`python hatch_build.py`) it rebuilds the C library in place when a source
is newer, which is what scripts/bootstrap.sh does for editable installs.

Users' installs compile with warnings shown but not fatal, so a new compiler's new warning
cannot silently cost them the fast path. ``IPU_NB_STRICT_BUILD=1`` (set by scripts/test, so
CI) adds ``-Werror`` and makes any missing tool or failed build an error.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]

ROOT = Path(__file__).resolve().parent
SOURCES = (
    *(ROOT / "ipu_nb" / "_load" / name for name in ("_intern.c", "_guard.c")),
    # The timeline's one-pass summary (ipu_nb/_widget/lod/native.py); same library, one build.
    ROOT / "ipu_nb" / "_widget" / "lod" / "_summary.c",
)
LIBRARY = SOURCES[0].with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
FLAGS = ["-O3", "-std=c99", "-shared", "-fPIC", "-Wall", "-Wextra"]
#: The built front end: what `npm run build` writes and what the widget loads.
BUNDLE = (ROOT / "ipu_nb" / "static" / "widget.js", ROOT / "ipu_nb" / "static" / "widget.css")
#: What the bundle is built from (a change to any of them makes it stale).
BUNDLE_INPUTS = ("js", "package.json", "package-lock.json", "tsconfig.json")
#: Set to 1 to build with -Werror and fail on any error (the test command and CI do).
STRICT_ENV = "IPU_NB_STRICT_BUILD"


def strict() -> bool:
    """Whether this build must compile warning-free and must not fall back (``$IPU_NB_STRICT_BUILD``)."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


class BuildError(RuntimeError):
    """A build step failed in a way that stops the build: the message is one line for the user."""


class StrictBuildError(BuildError):
    """The library did not build (or built with a warning) under ``IPU_NB_STRICT_BUILD=1``."""


def _note(message: str) -> None:
    sys.stderr.write(f"ipu-nb build: {message}\n")


def compile_library() -> Path | None:
    """Compile the library unless it is newer than its sources; None if that fails (`StrictBuildError` if strict).

    A strict build always recompiles, so a library built earlier without ``-Werror``
    cannot hide a warning.
    """
    flags = [*FLAGS, "-Werror"] if strict() else FLAGS
    fresh = LIBRARY.is_file() and all(LIBRARY.stat().st_mtime >= source.stat().st_mtime for source in SOURCES)
    if fresh and not strict():
        return LIBRARY
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    fd, scratch = tempfile.mkstemp(prefix=".libipu_intern-", dir=LIBRARY.parent)
    os.close(fd)
    try:
        done = subprocess.run(
            [*compiler, *flags, "-o", scratch, *map(str, SOURCES)], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        os.unlink(scratch)
        reason = f"no C compiler ({compiler[0]}: {exc.strerror or exc})"
        if strict():
            raise StrictBuildError(f"{reason}, and {STRICT_ENV}=1") from None
        _note(f"warning: {reason}; the loader will use its slower numpy path")
        return None
    if done.returncode != 0:
        os.unlink(scratch)
        names = ", ".join(s.name for s in SOURCES)
        if strict():
            raise StrictBuildError(f"compiling {names} with -Werror failed:\n{done.stderr}")
        first = next((line for line in done.stderr.splitlines() if line.strip()), f"exit status {done.returncode}")
        _note(f"warning: compiling {names} failed ({first.strip()}); the loader will use its slower numpy path")
        return None
    if done.stderr.strip():  # warnings: shown, never fatal outside a strict build
        sys.stderr.write(done.stderr)
    os.replace(scratch, LIBRARY)  # atomic: a running loader never sees half a library
    return LIBRARY


def _newest_input() -> float:
    times = [0.0]
    for name in BUNDLE_INPUTS:
        path = ROOT / name
        if path.is_dir():
            times += [p.stat().st_mtime for p in path.rglob("*") if p.is_file()]
        elif path.is_file():
            times.append(path.stat().st_mtime)
    return max(times)


def bundle_state() -> str:
    """``"fresh"``, ``"stale"`` (a source is newer) or ``"missing"``; a source archive's bundle is always fresh."""
    if not all(path.is_file() for path in BUNDLE):
        return "missing"
    if (ROOT / "PKG-INFO").is_file():  # an unpacked sdist: its bundle was built when the archive was made
        return "fresh"
    oldest = min(path.stat().st_mtime for path in BUNDLE)
    return "stale" if _newest_input() > oldest else "fresh"


def _npm(*args: str) -> None:
    # npm and esbuild talk on stdout; a build's stdout is no place for it (the demo's is the user's).
    done = subprocess.run(["npm", *args], cwd=ROOT, stdout=sys.stderr, stderr=sys.stderr, check=False)
    if done.returncode != 0:
        raise BuildError(f"`npm {' '.join(args)}` failed (exit status {done.returncode}); see its output above")


def build_bundle() -> None:
    """Make sure ``ipu_nb/static/`` holds a bundle of the current front-end sources (see the module doc)."""
    state = bundle_state()
    if state == "fresh":
        return
    if shutil.which("npm") is None:
        if state == "missing":
            raise BuildError(
                "the widget bundle (ipu_nb/static/widget.js) is not built and npm is not installed: "
                "install Node.js and npm, or build from the source archive (sdist), which ships the bundle"
            )
        if strict():
            raise BuildError(f"js/ is newer than ipu_nb/static/ and npm is not installed, and {STRICT_ENV}=1")
        _note("warning: js/ is newer than ipu_nb/static/ but npm is not installed: using the existing bundle")
        return
    if not (ROOT / "node_modules" / ".bin" / "esbuild").exists():
        _npm("ci", "--no-audit", "--no-fund", "--loglevel=error")
    _npm("run", "--silent", "build")
    if bundle_state() == "missing":
        raise BuildError("`npm run build` did not write ipu_nb/static/widget.js and widget.css")


class IpuNbBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Hatch hook: the bundle for every target; the C library into wheels (which then become platform-specific)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        try:
            build_bundle()
            if self.target_name != "wheel" or compile_library() is None:
                return
        except BuildError as error:
            # One line (plus any tool output already shown), not a traceback through the build backend.
            _note(f"error: {error}")
            raise SystemExit(1) from None
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


if __name__ == "__main__":
    try:
        built = compile_library()
    except BuildError as error:
        _note(f"error: {error}")
        sys.exit(1)
    sys.exit(0 if built is not None else 1)
