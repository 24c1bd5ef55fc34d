"""Build hook: compile the loader's C library (ipu_nb/_load/_intern.c and _guard.c) into a shared library.

The library is optional: without a C compiler the build goes on with a warning and the
loader uses its numpy path (same frames, about twice as slow on large profiles) and reads
files into memory instead of mapping them. Run as a script (`python hatch_build.py`) it
rebuilds the library in place when a source is newer, which is what scripts/bootstrap.sh
does for editable installs.
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

SOURCES = tuple(Path(__file__).resolve().parent / "ipu_nb" / "_load" / name for name in ("_intern.c", "_guard.c"))
LIBRARY = SOURCES[0].with_name("libipu_intern" + {"win32": ".dll", "darwin": ".dylib"}.get(sys.platform, ".so"))
FLAGS = ["-O2", "-std=c99", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror"]


def compile_library() -> Path | None:
    """Compile the library unless it is newer than its sources; None if that fails."""
    if LIBRARY.is_file() and all(LIBRARY.stat().st_mtime >= source.stat().st_mtime for source in SOURCES):
        return LIBRARY
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    fd, scratch = tempfile.mkstemp(prefix=".libipu_intern-", dir=LIBRARY.parent)
    os.close(fd)
    try:
        done = subprocess.run(
            [*compiler, *FLAGS, "-o", scratch, *map(str, SOURCES)], capture_output=True, text=True, check=False
        )
    except OSError as exc:
        os.unlink(scratch)
        warnings.warn(f"ipu-nb: no C compiler ({exc}); the loader will use its slower numpy path", stacklevel=1)
        return None
    if done.returncode != 0:
        os.unlink(scratch)
        warnings.warn(
            f"ipu-nb: compiling {', '.join(s.name for s in SOURCES)} failed; "
            f"the loader will use its slower numpy path:\n{done.stderr}",
            stacklevel=1,
        )
        return None
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
    sys.exit(0 if compile_library() is not None else 1)
