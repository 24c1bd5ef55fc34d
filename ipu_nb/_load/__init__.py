"""Reading cycle-profile files into a `Profile`."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._model.profile import Profile
from ._errors import NotAProfileError, ProfileFormatError, UnsupportedSchemaVersionError
from ._frames import build_profile

if TYPE_CHECKING:
    from ._wire import TextPath

__all__ = ["NotAProfileError", "ProfileFormatError", "UnsupportedSchemaVersionError", "open_profile"]

Decoder = Literal["auto", "fast", "reference"]
_DECODERS = ("auto", "fast", "reference")
_TEXT_PATHS = ("auto", "native", "numpy")


def open_profile(
    path: str | Path,
    *,
    cache: bool = True,
    decoder: Decoder = "auto",
    progress: bool | None = None,
    text_path: TextPath = "auto",
) -> Profile:
    """Read a runtime cycle profile (`.capnp`) into polars frames.

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
    if decoder not in _DECODERS:
        raise ValueError(f"decoder must be one of {', '.join(map(repr, _DECODERS))}, not {decoder!r}")
    if text_path not in _TEXT_PATHS:
        raise ValueError(f"text_path must be one of {', '.join(map(repr, _TEXT_PATHS))}, not {text_path!r}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"profile not found: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"profile path is a directory, not a file: {path}")
    if not path.is_file():
        raise ProfileFormatError(f"{path}: not a regular file (a device, pipe or socket is not a profile)")
    if not os.access(path, os.R_OK):
        raise PermissionError(f"profile is not readable: {path}")
    key = None
    if cache:
        from ._cache import cache_key, cache_size_limit, load_cached

        limit = cache_size_limit()  # a bad $IPU_NB_CACHE_SIZE is reported here, not lost in the writer thread
        try:
            key = cache_key(path)
        except OSError as exc:
            raise PermissionError(f"cannot read profile {path}: {exc.strerror or exc}") from None
        cached = load_cached(path, key)
        if cached is not None:
            return cached
    profile = _decode(path, decoder, progress, text_path)
    if key is not None:
        from ._cache import store_in_background

        store_in_background(profile, key, limit=limit)
    return profile


def _decode(path: Path, decoder: Decoder, progress: bool | None, text_path: TextPath) -> Profile:
    try:
        return _decode_with(path, decoder, progress, text_path)
    except NotAProfileError:
        raise
    except ProfileFormatError as exc:
        from ._sniff import sniff_file

        hint = sniff_file(path)
        if hint is None:
            raise
        raise NotAProfileError(path, *hint) from exc


def _decode_with(path: Path, decoder: Decoder, progress: bool | None, text_path: TextPath) -> Profile:
    if decoder == "reference":
        from ._reference import decode_reference

        return build_profile(decode_reference(path), path=path)
    from .. import _progress
    from ._wire import decode_file, text_column_class

    text_column = text_column_class(text_path)  # "native" without the C library: an error, not a fallback
    try:
        large = path.stat().st_size > _progress.AUTO_PROGRESS_BYTES
        with _progress.progress_bar(progress, f"reading {path.name}", large=large) as report:
            columns = decode_file(path, report=report, text_path=text_column)
        return build_profile(columns, path=path)
    except (ProfileFormatError, OSError, MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:
        if decoder == "fast":
            raise
        # A bug in the fast path must not cost the user their profile: fall back, loudly.
        warnings.warn(
            f"fast decoder failed on {path} ({type(exc).__name__}: {exc}); using the slow pycapnp decoder",
            RuntimeWarning,
            stacklevel=3,
        )
        return _decode_with(path, "reference", progress, text_path)
