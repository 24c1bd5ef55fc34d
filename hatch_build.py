"""Build hook: compile the C library (ipu_nb/_load/_intern.c and _guard.c, ipu_nb/_widget/lod/_summary.c).

The library is optional: without a C compiler the build goes on with a warning and the
loader uses its numpy path (same frames, about twice as slow on large profiles) and reads
files into memory instead of mapping them. Run as a script (`python hatch_build.py`) it
rebuilds the library in place when a source is newer, which is what scripts/bootstrap.sh
does for editable installs.

Users' installs compile with warnings shown but not fatal, so a new compiler's new warning
cannot silently cost them the fast path. ``IPU_NB_STRICT_BUILD=1`` (set by scripts/test, so
CI) adds ``-Werror`` and makes any failure to build an error.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]

SOURCES = (
    *(Path(__file__).resolve().parent / "ipu_nb" / "_load" / name for name in ("_intern.c", "_guard.c")),
    # The timeline's one-pass summary (ipu_nb/_widget/lod/native.py); same library, one build.
    Path(__file__).resolve().parent / "ipu_nb" / "_widget" / "lod" / "_summary.c",
)
LIBRARY = SOURCES[0].with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
FLAGS = ["-O2", "-std=c99", "-shared", "-fPIC", "-Wall", "-Wextra"]
#: Set to 1 to build with -Werror and fail on any error (the test command and CI do).
STRICT_ENV = "IPU_NB_STRICT_BUILD"


def strict() -> bool:
    """Whether this build must compile warning-free and must not fall back (``$IPU_NB_STRICT_BUILD``)."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


class StrictBuildError(RuntimeError):
    """The library did not build (or built with a warning) under ``IPU_NB_STRICT_BUILD=1``."""


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
        if strict():
            raise StrictBuildError(f"ipu-nb: no C compiler ({exc}), and {STRICT_ENV}=1") from exc
        warnings.warn(f"ipu-nb: no C compiler ({exc}); the loader will use its slower numpy path", stacklevel=1)
        return None
    if done.returncode != 0:
        os.unlink(scratch)
        if strict():
            raise StrictBuildError(
                f"ipu-nb: compiling {', '.join(s.name for s in SOURCES)} with -Werror failed:\n{done.stderr}"
            )
        warnings.warn(
            f"ipu-nb: compiling {', '.join(s.name for s in SOURCES)} failed; "
            f"the loader will use its slower numpy path:\n{done.stderr}",
            stacklevel=1,
        )
        return None
    if done.stderr.strip():  # warnings: shown, never fatal outside a strict build
        sys.stderr.write(done.stderr)
    os.replace(scratch, LIBRARY)  # atomic: a running loader never sees half a library
    return LIBRARY


class InternBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Hatch hook: build the library into the package (the wheel becomes platform-specific)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or compile_library() is None:
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


if __name__ == "__main__":
    try:
        built = compile_library()
    except StrictBuildError as error:
        sys.stderr.write(f"{error}\n")
        sys.exit(1)
    sys.exit(0 if built is not None else 1)
