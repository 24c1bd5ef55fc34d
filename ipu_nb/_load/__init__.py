"""Reading cycle-profile files into a `Profile`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from .._profile import Profile
from ._errors import ProfileFormatError, UnsupportedSchemaVersionError
from ._frames import build_profile
from ._reference import decode_reference

__all__ = ["ProfileFormatError", "UnsupportedSchemaVersionError", "open_profile"]

Decoder = Literal["auto", "fast", "reference"]


def open_profile(
    path: str | Path,
    *,
    cache: bool = True,
    decoder: Decoder = "auto",
    progress: bool | None = None,
) -> Profile:
    """Read a runtime cycle profile (`.capnp`) into polars frames.

    Parameters
    ----------
    path : str or Path
        The profile file the runtime wrote.
    cache : bool, default True
        Reuse (and write) the decoded frames cached by content; False bypasses the cache.
    decoder : {"auto", "fast", "reference"}, default "auto"
        "reference" forces the slow pycapnp decoder (the yardstick in tests).
    progress : bool or None, default None
        Show a progress bar; None shows one only for large files.

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    ProfileFormatError
        The file is truncated, corrupt, or of a schema version this reader cannot decode.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"profile not found: {path}")
    del cache, decoder, progress  # the fast decoder and the cache replace this path
    return build_profile(decode_reference(path), path=path)
