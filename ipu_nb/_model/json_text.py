"""JSON string literals as serde_json writes them: the runtime's JSON output and the trace export share the rule."""

from __future__ import annotations

__all__ = ["json_string"]

# serde_json's escapes: short forms for these, \u00XX (lowercase hex) for other C0 controls.
_JSON_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_JSON_ESCAPES.update({0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x5C: "\\\\"})


def json_string(text: str) -> str:
    """A JSON string literal as serde_json writes it: UTF-8 kept, C0 controls escaped.

    >>> print(json_string('tab\\there "q"'))
    "tab\\there \\"q\\""
    """
    return '"' + text.translate(_JSON_ESCAPES) + '"'
