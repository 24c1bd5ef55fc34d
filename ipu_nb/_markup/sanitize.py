"""How untrusted profile strings are made safe for every place they are shown: the one source of these rules.

Labels for drawn text, JSON inside ``<script>``, escaped markup, Vega-Lite field names and titles, and a
whole exported spec each have their function here; docs/reference/untrusted-text.md says why each rule is
needed (what vl-convert, Vega and the browser would do with the raw string).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Sequence
from typing import Any, cast

import polars as pl

__all__ = [
    "MAX_LABEL",
    "distinct_names",
    "html_text",
    "label",
    "label_frame",
    "label_series",
    "safe_field",
    "safe_spec",
    "script_safe_json",
    "tooltip_title",
]

#: Longest label in characters; a longer one keeps its head and a digest of the whole (so it stays distinct).
#: vl-convert spends about 0.1 s fitting each drawn 500-character label (0.25 s at 1,000, minutes at 200,000).
MAX_LABEL = 500

# Code points a label shows as \u{hex}: C0 controls (tab, LF and CR too: drawn text collapses them),
# DEL and C1, surrogates (a Python str may hold them; UTF-8 cannot), line/paragraph separators,
# the bidi marks (ALM, LRM, RLM), embeddings, overrides and isolates, the invisible characters
# that would make two names look alike (soft hyphen, zero-width space, word joiner, the invisible
# operators, the byte-order mark; ZWJ and ZWNJ stay: emoji and scripts are built with them), and
# the noncharacters. The widget's front end shows profile strings by the same rule (js/common/text.ts, `displayText`).
_ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0xD800, 0xDFFF),
    (0x00AD, 0x00AD),
    (0x061C, 0x061C),
    (0x200B, 0x200B),
    (0x200E, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x2069),
    (0xFEFF, 0xFEFF),
    (0xFDD0, 0xFDEF),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000)),
)
_CLASS = "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _ESCAPED_RANGES) + "]"
# One escaped character, or a backslash run that precedes "u{" or an escaped character (doubled).
_TRIGGER = re.compile(rf"\\+(?=u\{{|{_CLASS})|{_CLASS}")
_ESCAPED = re.compile(_CLASS)
_DIGEST_CHARS = 12


def _escape(match: re.Match[str]) -> str:
    text = match.group(0)
    return text * 2 if text[0] == "\\" else f"\\u{{{ord(text):x}}}"


def _bounded(text: str) -> str:
    """The label of ``text`` cut to at most `MAX_LABEL` characters: a head, the count left out, a digest of all."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_DIGEST_CHARS // 2).hexdigest()
    # Cut the source, not the escape, so no \u{…} is split; each source character costs at most 10.
    keep, cost = 0, 0
    room = MAX_LABEL - 40
    for char in text:
        cost += 10 if _ESCAPED.match(char) else 2 if char == "\\" else 1
        if cost > room:
            break
        keep += 1
    head = _TRIGGER.sub(_escape, text[:keep])
    return f"{head}…[+{len(text) - keep:,} chars #{digest}]"


def label(text: object) -> str:
    """``text`` as something safe to draw and show anywhere (see the module docstring); ordinary text unchanged.

    Examples
    --------
    >>> label("gemm_f32"), label("a\\x01b"), label("\\\\u{1}"), label("x\\u2028y")
    ('gemm_f32', 'a\\\\u{1}b', '\\\\\\\\u{1}', 'x\\\\u{2028}y')
    """
    text = text if isinstance(text, str) else str(text)
    escaped = _TRIGGER.sub(_escape, text)
    return escaped if len(escaped) <= MAX_LABEL else _bounded(text)


def distinct_names(names: Sequence[str], *, empty: str = "(empty)") -> list[str]:
    """``names`` with ``empty`` for "", made distinct where a placeholder meets a real name or a name repeats.

    Every name keeps its text at its first occurrence; a placeholder or a repeat
    gets `` (2)``, `` (3)``… until it is free. The result is still raw text (label
    it once, with the rest of the chart's data): `label` is injective, so
    distinct names stay distinct labels.
    """
    out: list[str | None] = [None] * len(names)
    taken: set[str] = set()
    for i, name in enumerate(names):
        if name and name not in taken:
            out[i] = name
            taken.add(name)
    for i, name in enumerate(names):
        if out[i] is None:
            base = name or empty
            candidate, k = base, 1
            while candidate in taken:
                k += 1
                candidate = f"{base} ({k})"
            out[i] = candidate
            taken.add(candidate)
    return cast("list[str]", out)


def label_series(series: pl.Series) -> pl.Series:
    """A String series with every value labelled (Categorical/Enum become String; nulls stay null)."""
    text = series.cast(pl.String)
    changed = {v: label(v) for v in text.unique().drop_nulls().to_list() if _TRIGGER.search(v) or len(v) > MAX_LABEL}
    return text.replace(changed) if changed else text


def label_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Every string column labelled (Categorical/Enum as String); other columns untouched."""
    strings = [c for c, t in frame.schema.items() if t in (pl.String, pl.Categorical) or isinstance(t, pl.Enum)]
    return frame.with_columns(label_series(frame.get_column(c)) for c in strings) if strings else frame


def tooltip_title(text: str) -> str:
    """A tooltip title from a profile string: its label, backslashes doubled for Vega-Lite's expression quoting.

    Vega-Lite writes a tooltip title into the tooltip and description expressions
    between double quotes, escaping ``"`` but not ``\\``; doubling them makes the
    expression evaluate to the label exactly.
    """
    return label(text).replace("\\", "\\\\")


def safe_field(prefix: str, index: int) -> str:
    """The Vega-Lite field of the ``index``-th column that a profile string names (the string becomes its title)."""
    return f"{prefix}_{index}"


def html_text(value: object) -> str:
    """``value`` as HTML text or attribute content: labelled, then escaped (quotes included)."""
    return html.escape(label(value), quote=True)


_SCRIPT_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def script_safe_json(value: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: ``<``, ``>``, ``&`` and U+2028/9 as ``\\uXXXX``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escape in _SCRIPT_ESCAPES:
        text = text.replace(char, escape)
    return text


# What json.dumps(ensure_ascii=False) leaves of a character a renderer cannot take: the raw character, or
# the \u00XX form of a C0 control (an over-approximation: a false match only costs the walk).
_NEEDS_WALK = re.compile(rf"{_CLASS}|\\u00[01]")


def safe_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with every string (keys included) holding a character a renderer cannot take replaced by its label.

    Charts built by `ipu_nb.charts` hold labels already, so this is one scan of
    the serialised spec; a foreign chart with raw profile strings is walked.
    """
    if not _NEEDS_WALK.search(json.dumps(spec, ensure_ascii=False)):
        return spec
    return _walk(spec)


def _walk(node: Any) -> Any:
    if isinstance(node, str):
        return label(node) if _ESCAPED.search(node) else node
    if isinstance(node, dict):
        return {_walk(k): _walk(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_walk(v) for v in node]
    return node
