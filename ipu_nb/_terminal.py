"""Text from a file or a folder made safe to print on a terminal: control characters escaped.

Paths, labels and names come from untrusted files and folders; printed raw, an escape
sequence in one can retitle the window, clear the screen or hide a line. Every
human-readable listing and error prints them through `printable`. The runtime-compatible
``profile-query`` output does not: its bytes are the runtime's.
"""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: object) -> str:
    r"""`text` with every character Python deems unprintable written as a ``\x``/``\u``/``\U`` escape.

    Control characters (C0, DEL, C1), line and paragraph separators and format characters
    (bidirectional overrides) are escaped; everything else, spaces included, is kept.

    >>> printable("run\x1b]0;owned\x07.capnp")
    'run\\x1b]0;owned\\x07.capnp'
    >>> printable("a\r\nb\u202e")
    'a\\r\\nb\\u202e'
    >>> printable("plain/path with spaces.capnp")
    'plain/path with spaces.capnp'
    """
    text = str(text)
    if text.isprintable():
        return text
    out: list[str] = []
    for char in text:
        if char.isprintable():
            out.append(char)
            continue
        code = ord(char)
        named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
        if named:
            out.append(named)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)
