"""Output layout details: serde_json floats and strings, Rust `{:?}` strings, pretty JSON.

The rules: docs/reference/query.md#json-floats, docs/reference/query.md#json-strings,
docs/reference/query.md#rust-debug-strings.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spec_reference import float_text

from ipu_nb._query.render import inspect_text, json_float, json_string, query_json, query_text, rust_debug_str


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # the table of docs/reference/query.md#json-floats
        (0.0, "0.0"),
        (1.5, "1.5"),
        (0.00001, "0.00001"),
        (0.000013333333333333333, "0.000013333333333333333"),
        (33333333000.0, "33333333000.0"),
        (1e-6, "1e-6"),
        (6.666666666666667e-7, "6.666666666666667e-7"),
        (1e16, "1e+16"),
        # around the edges of the plain range
        (9999999999999998.0, "9999999999999998.0"),
        (1.2345e16, "1.2345e+16"),
        (9.99e-6, "9.99e-6"),
        (123.0, "123.0"),
        (1e15, "1000000000000000.0"),
        (0.1, "0.1"),
        (2 / 3, "0.6666666666666666"),
        (1e-300, "1e-300"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-2.5, "-2.5"),
        (-1e-7, "-1e-7"),
    ],
)
def test_json_float_layout(value: float, text: str) -> None:
    assert json_float(value) == text


def test_json_float_differs_from_repr_where_spec_says() -> None:
    assert repr(0.00001) == "1e-05" and json_float(0.00001) == "0.00001"
    assert repr(1.3333333333333333e-05) != json_float(1.3333333333333333e-05)


def test_json_float_non_finite_is_null() -> None:
    assert json_float(math.nan) == "null"
    assert json_float(math.inf) == "null"


@given(st.floats(min_value=0.0, allow_nan=False, allow_infinity=False))
def test_json_float_agrees_with_decimal_layout_and_round_trips(value: float) -> None:
    text = json_float(value)
    assert float(text) == value
    assert text == float_text(value)


def test_json_string_escapes_like_serde_json() -> None:
    assert json_string('a"b\\c') == '"a\\"b\\\\c"'
    assert json_string("\n\t\r\b\f") == '"\\n\\t\\r\\b\\f"'
    assert json_string("\x01\x1f\x00") == '"\\u0001\\u001f\\u0000"'
    assert json_string("é漢😀\x7f") == '"é漢😀\x7f"'  # UTF-8 kept, DEL not escaped


@pytest.mark.parametrize(
    ("text", "debug"),
    [
        ("plain", '"plain"'),
        ('say "hi"', '"say \\"hi\\""'),
        ("back\\slash", '"back\\\\slash"'),
        ("a\nb\rc\td\0e", '"a\\nb\\rc\\td\\0e"'),
        ("\x01\x1b\x7f", '"\\u{1}\\u{1b}\\u{7f}"'),
        ("it's", '"it\'s"'),  # single quotes stay in a str's Debug
        ("é漢😀", '"é漢😀"'),  # printable non-ASCII kept
        ("e\u0301", '"e\\u{301}"'),  # grapheme extender escaped
        ("\u00a0\u200b\u2028", '"\\u{a0}\\u{200b}\\u{2028}"'),  # Zs / Cf / Zl
        ("\u0085", '"\\u{85}"'),  # C1 control
        ("\U000e0041", '"\\u{e0041}"'),  # tag character (Other_Grapheme_Extend, Cf)
        ("\uff9e", '"\\u{ff9e}"'),  # halfwidth voiced mark: Lm but Grapheme_Extend
        ("", '""'),
    ],
)
def test_rust_debug_str(text: str, debug: str) -> None:
    assert rust_debug_str(text) == debug


_SCALARS = {
    "clockHz": 0,
    "tileCount": 1,
    "sampleCount": 0,
    "matchedSampleCount": 0,
    "profileSpanCycles": 0,
    "profileSpanMs": 0.0,
    "atOffset": None,
}


def test_empty_report_json_and_text() -> None:
    assert query_json(_SCALARS, [], []) == (
        "{\n"
        '  "clockHz": 0,\n'
        '  "tileCount": 1,\n'
        '  "sampleCount": 0,\n'
        '  "matchedSampleCount": 0,\n'
        '  "profileSpanCycles": 0,\n'
        '  "profileSpanMs": 0.0,\n'
        '  "atOffset": null,\n'
        '  "groups": [],\n'
        '  "samples": []\n'
        "}\n"
    )
    assert query_text({**_SCALARS, "atOffset": 7}, [], []) == (
        "tiles=1 samples=0/0 spanCycles=0 spanMs=0.000000 clockHz=0 at=7\n"
        "name\tphases\ttiles\tsamples\tphaseCycles\tphaseMs\tworkCycles\tavgActiveTiles\tmean\tp50\tp95\tmax\n"
    )


def _group(**over: object) -> dict:
    group = {
        "name": "tile 3",
        "dimensions": {"physicalTile": "3"},
        "sampleCount": 3,
        "tileCount": 1,
        "phaseCount": 2,
        "phaseCycles": 10,
        "phaseMs": 0.125,
        "workCycles": 15,
        "averageActiveTiles": 1.125,
        "meanCycles": 5.0,
        "p50Cycles": 5,
        "p95Cycles": 5,
        "maximumCycles": 6,
        "firstOffset": 0,
        "lastOffset": 12,
    }
    group.update(over)
    return group


def test_group_json_sorts_dimensions_and_keeps_key_order() -> None:
    text = query_json(_SCALARS, [_group(dimensions={"phase": "2", "epoch": "1"})], [])
    assert '"dimensions": {\n        "epoch": "1",\n        "phase": "2"\n      },' in text
    keys = [line.split('"')[1] for line in text.splitlines() if line.startswith("      ") and line[6] == '"']
    assert keys == [
        "name",
        "dimensions",
        "sampleCount",
        "tileCount",
        "phaseCount",
        "phaseCycles",
        "phaseMs",
        "workCycles",
        "averageActiveTiles",
        "meanCycles",
        "p50Cycles",
        "p95Cycles",
        "maximumCycles",
        "firstOffset",
        "lastOffset",
    ]
    assert '"dimensions": {},' in query_json(_SCALARS, [_group(dimensions={})], [])


def test_group_row_text_rounds_half_to_even_like_rust() -> None:
    text = query_text(_SCALARS, [_group(phaseMs=0.0000005, averageActiveTiles=1.125, meanCycles=2.675)], [])
    row = text.splitlines()[2]
    # 1.125 is exact: ties go to even ("1.12"); 2.675 is really 2.67499999...
    assert row == "tile 3\t2\t1\t3\t10\t0.000000\t15\t1.12\t2.67\t5\t5\t6"


def test_sample_line() -> None:
    sample = {
        "physicalTile": 4,
        "offset": 9,
        "duration": 2,
        "phase": 1,
        "epoch": 0,
        "kind": "exchange",
        "operation": 'op "x"\n',
        "kernel": "",
        "metadata": [{"name": "a", "value": 'q"\x01é'}, {"name": "", "value": ""}],
    }
    text = query_text(_SCALARS, [], [sample])
    assert text.splitlines()[2] == (
        'sample tile=4 offset=9 duration=2 phase=1/0 kind=exchange kernel="" operation="op \\"x\\"\\n" '
        'metadata=[{"name":"a","value":"q\\"\\u0001é"},{"name":"","value":""}]'
    )
    json_text = query_json(_SCALARS, [], [{**sample, "metadata": []}])
    assert '"metadata": []\n' in json_text


def test_inspect_text() -> None:
    rows = [{"operation": "a b", "phases": 2, "cycles": 30, "maxPhaseCycles": 20}]
    assert inspect_text(rows) == "operation=a b phases=2 cycles=30 maxPhaseCycles=20\n"
    assert inspect_text([]) == ""
