"""Output files written atomically, with the permissions every other tool gives them.

A temporary file beside the target is renamed over it only once it is complete, so a
reader never sees half a file and a failed write leaves the old one. The temporary file
is created like ``open(path, "w")`` creates one (mode 0666 less the umask), not 0600 as
`tempfile.mkstemp` would: a profile, trace or report is a file to share.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_output"]


@contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Yield a binary file that becomes `path` when the block ends without an exception."""
    target = Path(path)
    while True:
        scratch = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            out = open(scratch, "xb")  # noqa: SIM115 (closed below) -- O_EXCL, mode 0666 less the umask
        except FileExistsError:
            continue
        break
    try:
        with out:
            yield out
        os.replace(scratch, target)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise
