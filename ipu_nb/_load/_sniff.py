"""What a file that is not a Cap'n Proto message looks like: the hint in "not a Cap'n Proto message (…)".

Only consulted once decoding has failed, so a real profile never pays for it: a message
starts with its segment count, a little-endian integer whose high bytes are zero for any
real file, so the signatures below (gzip, zstd, xz, bzip2, zip, text) cannot be a profile.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._errors import ProfileFormatError
from ._mapped import open_regular

__all__ = ["SNIFF_BYTES", "looks_like", "sniff_file"]

#: How much of the file the hint reads.
SNIFF_BYTES = 4096

#: (leading bytes, what the file looks like, what to do about it).
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "looks gzip-compressed", "decompress it first (gunzip)"),
    (b"\x28\xb5\x2f\xfd", "looks zstd-compressed", "decompress it first (unzstd)"),
    (b"\xfd7zXZ\x00", "looks xz-compressed", "decompress it first (unxz)"),
    (b"BZh", "looks bzip2-compressed", "decompress it first (bunzip2)"),
    (b"PK\x03\x04", "looks like a zip archive", "extract the profile from it first"),
    (b"PK\x05\x06", "looks like an empty zip archive", ""),
)


def looks_like(head: bytes) -> tuple[str, str] | None:
    """What a file starting with `head` looks like and what to do ("" if nothing), or None if it could be a message."""
    for magic, looks, advice in _MAGIC:
        if head.startswith(magic):
            return looks, advice
    if not head or b"\x00" in head:
        return None  # a message's first word holds a small segment count: it has zero bytes
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the sample
            return None
        text = head[: exc.start].decode("utf-8")
    text = text.removeprefix("\ufeff")  # a byte-order mark
    printable = sum(ch.isprintable() or ch in "\t\n\r" for ch in text)
    if printable < 0.95 * len(text):
        return None
    stripped = text.lstrip(" \t\r\n")
    if stripped.startswith(("{", "[")):
        return "looks like JSON text", ""
    if stripped.startswith("<"):
        return "looks like HTML or XML text", ""
    return "looks like text", ""


def sniff_file(path: Path) -> tuple[str, str] | None:
    """`looks_like` of the first `SNIFF_BYTES` of `path` (None if it cannot be read)."""
    try:
        with os.fdopen(open_regular(path), "rb") as file:
            return looks_like(file.read(SNIFF_BYTES))
    except (OSError, ProfileFormatError):
        return None
