"""Text a frame can hold from file names and files: bytes that are no UTF-8 written as ``\\xNN``."""

from __future__ import annotations

import os

__all__ = ["is_text", "path_text"]


def path_text(path: str | os.PathLike[str]) -> str:
    r"""`path` as text a frame can hold: bytes of a file name that are no UTF-8 written as ``\xNN``.

    >>> path_text(os.fsdecode(b"runs/caf\xe9.capnp"))
    'runs/caf\\xe9.capnp'
    >>> path_text("runs/café.capnp")
    'runs/café.capnp'
    """
    text = os.fspath(path)
    if is_text(text):
        return text
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a lone surrogate no file name decodes to: written as its escape
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def is_text(value: str) -> bool:
    r"""Whether a frame (UTF-8) can hold `value`: no lone surrogate (a file name's undecodable byte, a JSON escape).

    >>> is_text("café"), is_text("caf\udce9")
    (True, False)
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
