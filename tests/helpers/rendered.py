"""Reading what the renderers write: HTML split as a browser would, a PNG's size, Vega's console complaints."""

from __future__ import annotations

import struct
from html.parser import HTMLParser

__all__ = ["Elements", "parse", "png_size", "vega_complaint"]


class Elements(HTMLParser):
    """Collects start tags (with attributes) and the text of every <script> as the browser would split it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None


def parse(document: str) -> Elements:
    parser = Elements()
    parser.feed(document)
    parser.close()
    return parser


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, chunk = struct.unpack(">I4s", data[8:16])
    assert chunk == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def vega_complaint(kind: str, text: str) -> bool:
    """A console message that means a chart lost data: an error, or Vega's warning about an empty extent."""
    return kind == "error" or "Infinite extent" in text
