"""Reading cycle-profile files into `ProfileData` (`ipu_nb.open_profile` makes it a `Profile`)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._model.profile import ProfileData
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
) -> ProfileData:
    """Read the profile at `path` into `ProfileData` (frames and scalars), from the cache when it holds them.

    `ipu_nb.open_profile` wraps this in the public `Profile` and documents the parameters
    and errors (`ipu_nb._profile.opening`).
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


def _decode(path: Path, decoder: Decoder, progress: bool | None, text_path: TextPath) -> ProfileData:
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


def _decode_with(path: Path, decoder: Decoder, progress: bool | None, text_path: TextPath) -> ProfileData:
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
        return build_profile(columns, path=path, reuse=True)
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
