"""Byte-exact renderings of `profile-query` and `profile-inspect` output.

The rules: docs/reference/query.md#json-output, docs/reference/query.md#text-output and
docs/reference/query.md#profile-inspect.

The runtime writes JSON with serde_json (pretty printer, ryu-style floats) and text
with Rust's formatting (`{:?}` strings, `{:.6}` floats). These helpers reproduce
both from plain Python values, so `QueryResult.to_json()` matches the runtime to the byte.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._model import vocabulary
from .._model.json_text import json_string

__all__ = [
    "GROUP_FIELDS",
    "SAMPLE_FIELDS",
    "inspect_text",
    "json_float",
    "json_string",
    "pretty_json",
    "query_json",
    "query_text",
    "rust_debug_str",
]

#: JSON keys of one group, in the runtime's order.
GROUP_FIELDS: tuple[str, ...] = tuple(vocabulary.GROUP_FIELDS.values())
#: JSON keys of one sample, in the runtime's order.
SAMPLE_FIELDS: tuple[str, ...] = tuple(vocabulary.SAMPLE_FIELDS.values())

_TABLE_HEADER = "\t".join(
    (
        "name",
        "phases",
        "tiles",
        "samples",
        "phaseCycles",
        "phaseMs",
        "workCycles",
        "avgActiveTiles",
        "mean",
        "p50",
        "p95",
        "max",
    )
)

# Rust `char::escape_debug` short forms inside a `{:?}` string.
_RUST_SHORT = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"'}
# Unicode's Other_Grapheme_Extend code points (PropList.txt): Grapheme_Extend = Mn + Me + these.
_OTHER_GRAPHEME_EXTEND = (
    (0x09BE, 0x09BE),
    (0x09D7, 0x09D7),
    (0x0B3E, 0x0B3E),
    (0x0B57, 0x0B57),
    (0x0BBE, 0x0BBE),
    (0x0BD7, 0x0BD7),
    (0x0CC2, 0x0CC2),
    (0x0CD5, 0x0CD6),
    (0x0D3E, 0x0D3E),
    (0x0D57, 0x0D57),
    (0x0DCF, 0x0DCF),
    (0x0DDF, 0x0DDF),
    (0x1B35, 0x1B35),
    (0x200C, 0x200C),
    (0x302E, 0x302F),
    (0xFF9E, 0xFF9F),
    (0x1133E, 0x1133E),
    (0x11357, 0x11357),
    (0x114B0, 0x114B0),
    (0x114BD, 0x114BD),
    (0x115AF, 0x115AF),
    (0x11930, 0x11930),
    (0x1D165, 0x1D165),
    (0x1D16E, 0x1D172),
    (0xE0020, 0xE007F),
)
# Rust's `is_printable` is false for these general categories (space excepted).
_NOT_PRINTABLE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"))


def json_float(value: float) -> str:
    """A float as serde_json writes it (ryu digits; plain decimal when 1e-5 ≤ |x| < 1e16).

    The digits are Python's shortest round-trip digits (`repr`); only the layout
    differs: ``1e-05`` becomes ``0.00001`` and ``1e16`` becomes ``1e+16``.
    """
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # value = int(digits) × 10^k; strip trailing zeros into k.
    k = (int(exponent) if exponent else 0) - len(fraction)
    stripped = digits.rstrip("0")
    k += len(digits) - len(stripped)
    digits = stripped
    kk = len(digits) + k  # 10^(kk-1) <= value < 10^kk
    if k >= 0 and kk <= 16:
        body = digits + "0" * k + ".0"
    elif 0 < kk <= 16:
        body = digits[:kk] + "." + digits[kk:]
    elif -5 < kk <= 0:
        body = "0." + "0" * (-kk) + digits
    else:
        e = kk - 1
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        body = f"{head}e{'+' if e > 0 else ''}{e}"
    return sign + body


def _is_grapheme_extend(code: int, char: str) -> bool:
    if unicodedata.category(char) in ("Mn", "Me"):
        return True
    return any(lo <= code <= hi for lo, hi in _OTHER_GRAPHEME_EXTEND)


def _rust_printable(char: str) -> bool:
    code = ord(char)
    if code < 0x80:
        return 0x20 <= code < 0x7F
    return not _is_grapheme_extend(code, char) and unicodedata.category(char) not in _NOT_PRINTABLE


def rust_debug_str(text: str) -> str:
    """`text` as Rust's `{:?}` writes a `str`: quoted, `char::escape_debug` per character."""
    out = ['"']
    for char in text:
        short = _RUST_SHORT.get(char)
        if short is not None:
            out.append(short)
            continue
        if _rust_printable(char):
            out.append(char)
        else:
            out.append(f"\\u{{{ord(char):x}}}")
    out.append('"')
    return "".join(out)


def _metadata_compact(entries: Iterable[Mapping[str, str]]) -> str:
    items = ",".join(f'{{"name":{json_string(e["name"])},"value":{json_string(e["value"])}}}' for e in entries)
    return f"[{items}]"


def pretty_json(value: Any) -> str:
    """`value` as serde_json's PrettyFormatter writes it, with the trailing newline the runtime prints.

    >>> print(pretty_json({"a": [1, 2.5], "b": {}}), end="")
    {
      "a": [
        1,
        2.5
      ],
      "b": {}
    }
    """
    return _json_value(value, 0) + "\n"


def _json_value(value: Any, indent: int) -> str:
    """serde_json's PrettyFormatter: two-space indent, empty containers as `[]` / `{}`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json_float(value)
    if isinstance(value, str):
        return json_string(value)
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        parts = [f"{inner}{json_string(k)}: {_json_value(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + "\n" + pad + "}"
    if isinstance(value, Sequence):
        if not value:
            return "[]"
        parts = [f"{inner}{_json_value(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(parts) + "\n" + pad + "]"
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


_FLOAT_FIELDS = frozenset(("phaseMs", "averageActiveTiles", "meanCycles"))


def _group_field(group: Mapping[str, Any], key: str) -> Any:
    value = group[key]
    if key == "dimensions":
        return dict(sorted(value.items()))  # serde_json writes a BTreeMap: keys in byte order
    return float(value) if key in _FLOAT_FIELDS else value


def _report(
    scalars: Mapping[str, Any], groups: Sequence[Mapping[str, Any]], samples: Sequence[Mapping[str, Any]]
) -> dict:
    """The report object with keys in the runtime's order (docs/reference/query.md#key-order).

    A windowed query adds ``window`` ({start, end, clip}, in that order) after ``atOffset``, and a
    clipped one ``clippedCycles`` after each sample's ``duration`` (ipu-nb extensions).
    """
    window = scalars.get("window")
    return {
        "clockHz": scalars["clockHz"],
        "tileCount": scalars["tileCount"],
        "sampleCount": scalars["sampleCount"],
        "matchedSampleCount": scalars["matchedSampleCount"],
        "profileSpanCycles": scalars["profileSpanCycles"],
        "profileSpanMs": float(scalars["profileSpanMs"]),
        "atOffset": scalars["atOffset"],
        **({"window": window} if window is not None else {}),
        "groups": [{key: _group_field(g, key) for key in GROUP_FIELDS} for g in groups],
        "samples": [
            {
                **{key: s[key] for key in SAMPLE_FIELDS if key != "metadata" and key in s},
                "metadata": [{"name": e["name"], "value": e["value"]} for e in s["metadata"]],
            }
            for s in samples
        ],
    }


def query_json(
    scalars: Mapping[str, Any], groups: Sequence[Mapping[str, Any]], samples: Sequence[Mapping[str, Any]]
) -> str:
    """`profile-query --json` output (with its trailing newline) from plain records.

    ``scalars`` holds the report's scalar fields by JSON name; each group and sample
    is a mapping with the JSON field names; ``dimensions`` is a name → string mapping.
    """
    return pretty_json(_report(scalars, groups, samples))


def query_text(
    scalars: Mapping[str, Any], groups: Sequence[Mapping[str, Any]], samples: Sequence[Mapping[str, Any]]
) -> str:
    """`profile-query` text output (docs/reference/query.md#text-output) from the same records as `query_json`.

    A windowed query's header ends in `` window=START:END clip=true|false``, and a clipped
    query's sample lines carry ``clippedCycles=C`` after the duration (ipu-nb extensions).
    """
    at = scalars["atOffset"]
    window = scalars.get("window")
    shown = "" if window is None else f" window={window['start']}:{window['end']} clip={str(window['clip']).lower()}"
    lines = [
        f"tiles={scalars['tileCount']} samples={scalars['matchedSampleCount']}/{scalars['sampleCount']} "
        f"spanCycles={scalars['profileSpanCycles']} spanMs={scalars['profileSpanMs']:.6f} "
        f"clockHz={scalars['clockHz']} at={'-' if at is None else at}{shown}",
        _TABLE_HEADER,
    ]
    for g in groups:
        lines.append(
            f"{g['name']}\t{g['phaseCount']}\t{g['tileCount']}\t{g['sampleCount']}\t{g['phaseCycles']}\t"
            f"{g['phaseMs']:.6f}\t{g['workCycles']}\t{g['averageActiveTiles']:.2f}\t{g['meanCycles']:.2f}\t"
            f"{g['p50Cycles']}\t{g['p95Cycles']}\t{g['maximumCycles']}"
        )
    for s in samples:
        clipped = f" clippedCycles={s['clippedCycles']}" if "clippedCycles" in s else ""
        lines.append(
            f"sample tile={s['physicalTile']} offset={s['offset']} duration={s['duration']}{clipped} "
            f"phase={s['phase']}/{s['epoch']} kind={s['kind']} kernel={rust_debug_str(s['kernel'])} "
            f"operation={rust_debug_str(s['operation'])} metadata={_metadata_compact(s['metadata'])}"
        )
    return "\n".join(lines) + "\n"


def inspect_text(rows: Iterable[Mapping[str, Any]]) -> str:
    """`profile-inspect` output (docs/reference/query.md#profile-inspect): one line per operation.

    The rows come already in byte order.
    """
    return "".join(
        f"operation={r['operation']} phases={r['phases']} cycles={r['cycles']} maxPhaseCycles={r['maxPhaseCycles']}\n"
        for r in rows
    )
