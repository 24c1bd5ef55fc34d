"""How superstep numbers and profile strings are written in sentences, tables and command lines.

One rule each: cycles with thousands separators, milliseconds to three significant
digits, shares as percentages, profile strings as Rust's ``{:?}`` quotes them (so no
control character reaches a sentence), queries as shell-ready ``profile-query`` flags.
"""

from __future__ import annotations

import math
import shlex

from .._query import Query
from .._query.render import rust_debug_str
from .source import FILTERS

__all__ = [
    "count_text",
    "cycles_text",
    "kernel_text",
    "ms_text",
    "percent_text",
    "query_flags",
    "ratio_text",
    "shell_word",
]


def cycles_text(cycles: int | float) -> str:
    """``1,234,567``: rounded to a whole cycle (halves to even), thousands separated."""
    return f"{round(cycles):,}"


def ms_text(ms: float) -> str:
    """Milliseconds to three significant digits, never in exponent form: ``0.000935``, ``2.07``, ``1,234``."""
    if ms == 0 or not math.isfinite(ms):
        return "0" if ms == 0 else str(ms)
    decimals = max(0, 2 - math.floor(math.log10(abs(ms))))
    text = f"{ms:,.{decimals}f}"
    # Rounding may carry into a new digit (0.0009996 -> 0.00100); keep three significant digits.
    if decimals and len(text.replace(",", "").replace(".", "").lstrip("0-")) > 3:
        text = f"{ms:,.{decimals - 1}f}"
    return text


def percent_text(share: float) -> str:
    """A share (0..1) as a percentage: ``41%`` from 10%, ``9.3%`` below, ``<0.1%`` for small non-zero ones."""
    percent = share * 100.0
    if percent == 0:
        return "0%"
    if percent >= 9.95:
        return f"{percent:,.0f}%"
    if percent >= 0.05:
        return f"{percent:.1f}%"
    return "<0.1%"


def count_text(count: int, noun: str) -> str:
    """``1 compute phase``, ``1,280 compute phases``: the count, then the noun in the right number."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def ratio_text(ratio: float) -> str:
    """``1.07×``, ``23.4×``: two decimals below 10, one above; ``∞×`` for an unbounded ratio."""
    if math.isinf(ratio):
        return "∞×"
    return f"{ratio:.2f}×" if ratio < 10 else f"{ratio:,.1f}×"


def kernel_text(kernel: str) -> str:
    """A kernel in a sentence: ``kernel "gemm"``, or ``samples without a kernel`` for ``""``."""
    return f"kernel {rust_debug_str(kernel)}" if kernel else "samples without a kernel"


def shell_word(text: str) -> str:
    """`text` as one POSIX shell word; strings with control characters use bash's ``$'…'``."""
    if text.isprintable():
        return shlex.quote(text)
    out = []
    for char in text:
        code = ord(char)
        if char in "\\'":
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "$'" + "".join(out) + "'"


def query_flags(q: Query) -> str:
    """The ``profile-query`` filter flags of `q`, shell-quoted: ``--kind compute --tile 812``."""
    default = Query()
    words: list[str] = []
    for name in FILTERS:
        value = getattr(q, name)
        if value == getattr(default, name):
            continue
        flag = "--" + {"tiles": "tile", "phases": "phase"}.get(name, name).replace("_", "-")
        if name in ("tiles", "phases"):
            words += [f"{flag} {v}" for v in value]
        elif name == "operation":
            words += [f"{flag} {shell_word(v)}" for v in value]
        elif name == "window":
            words.append(f"{flag} {value[0]}:{value[1]}")
        elif name == "metadata":
            words += [f"{flag} {shell_word(n if v is None else f'{n}={v}')}" for n, v in value]
        else:
            words.append(f"{flag} {shell_word(str(value))}")
    return " ".join(words)
