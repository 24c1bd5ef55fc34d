"""`open_profile`: the public reader, the loader's (`ipu_nb._load`) frames wrapped in the `Profile` face."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._load import open_profile as read_profile
from .profile import Profile

if TYPE_CHECKING:
    from .._load import Decoder
    from .._load._wire import TextPath

__all__ = ["open_profile"]


def open_profile(
    path: str | Path,
    *,
    cache: bool = True,
    decoder: Decoder = "auto",
    progress: bool | None = None,
    text_path: TextPath = "auto",
) -> Profile:
    """Read a runtime cycle profile (`.capnp`) into a `Profile` of polars frames.

    Parameters
    ----------
    path : str or Path
        The profile file the runtime wrote.
    cache : bool, default True
        Reuse (and write) the decoded frames cached by file identity and content
        (`ipu_nb._load._cache`, under ``$IPU_NB_CACHE`` or ``~/.cache/ipu-nb/frames``,
        at most ``$IPU_NB_CACHE_SIZE`` bytes, default 4 GiB, least recently used evicted
        first); only the user's own entries are used, each verified before use. False
        bypasses the cache.
    decoder : {"auto", "fast", "reference"}, default "auto"
        "fast" is the columnar wire decoder; "reference" forces the slow pycapnp decoder (the
        yardstick in tests). "auto" uses the fast one and falls back to pycapnp, with a
        warning, only if it fails unexpectedly (a corrupt file is an error either way).
        Both give identical frames.
    progress : bool or None, default None
        Show a progress bar on stderr (a widget in notebooks); None shows one only for
        files over 50 MB.
    text_path : {"auto", "native", "numpy"}, default "auto"
        The fast decoder's text interner: the C library built at install ("native"), the
        numpy one (same frames, about twice as slow on large files), or "auto" (the C
        one when it is built).

    Raises
    ------
    FileNotFoundError
        The path does not exist.
    IsADirectoryError, PermissionError
        The path is a directory, or the file cannot be read.
    ProfileFormatError
        The file is truncated, corrupt, or of a schema version this reader cannot decode
        (`UnsupportedSchemaVersionError`); `NotAProfileError` when it is no Cap'n Proto
        message at all and looks like something else (gzip, zstd, xz, bzip2, zip, JSON,
        text), which its message names.
    ValueError
        ``$IPU_NB_CACHE_SIZE`` is set but is not a size (with ``cache=True``).

    Examples
    --------
    >>> profile = open_profile("mlp.capnp")
    >>> profile.tile_count, profile.samples.height
    (16, 384)
    """
    return Profile.of(read_profile(path, cache=cache, decoder=decoder, progress=progress, text_path=text_path))
