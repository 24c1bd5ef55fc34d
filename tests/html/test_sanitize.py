"""ipu_nb._markup.sanitize: labels that every renderer can take, injective and bounded; the other targets' rules."""

from __future__ import annotations

import json

import polars as pl
from budget import examples
from chart_fixtures import NASTY_NAMES, ORDINARY_NAMES, run_isolated, shows_safely
from hypothesis import given, settings
from hypothesis import strategies as st

from ipu_nb._markup.sanitize import (
    MAX_LABEL,
    distinct_names,
    html_text,
    label,
    label_frame,
    safe_spec,
    script_safe_json,
    tooltip_title,
)


def unlabel(text: str) -> str:
    """Invert `label` (for texts it did not cut): an odd backslash run before ``u{`` is an escape."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == "\\":
            j += 1
        run = j - i
        if not text.startswith("u{", j):
            out.append("\\" * run)
        elif run % 2 == 0:
            out.append("\\" * (run // 2))
        else:
            close = text.index("}", j)
            out.append("\\" * (run // 2) + chr(int(text[j + 2 : close], 16)))
            j = close + 1
        i = j
    return "".join(out)


_TRICKY = st.sampled_from(
    ["\\", "u", "{", "}", "1", "f", "\x00", "\x01", "\u2028", "\ufffe", "\ud800", "\u202e", "\u200f"]
)
_TEXT = st.text(st.one_of(_TRICKY, st.characters()), max_size=40)


@settings(max_examples=examples(2000))
@given(_TEXT)
def test_labels_are_safe_and_invertible(text):
    shown = label(text)
    assert all(shows_safely(c) for c in shown), repr(shown)
    assert unlabel(shown) == text


@settings(max_examples=examples(1000))
@given(_TEXT, _TEXT)
def test_different_texts_get_different_labels(a, b):
    if a != b:
        assert label(a) != label(b)


@settings(max_examples=examples(1000))
@given(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=60))
def test_text_without_escaped_characters_is_unchanged(text):
    if all(shows_safely(c) for c in text) and "\\u{" not in text:
        assert label(text) == text


def test_ordinary_names_are_unchanged_and_every_nasty_one_is_visible():
    for name in ORDINARY_NAMES:
        assert label(name) == name
    assert label("".join(chr(c) for c in range(0x20, 0x7F))) == "".join(chr(c) for c in range(0x20, 0x7F))
    shown = {label(name) for name in NASTY_NAMES}
    assert len(shown) == len(set(NASTY_NAMES))
    assert label("nul\x00byte") == "nul\\u{0}byte"
    assert label("tab\tnew\nline") == "tab\\u{9}new\\u{a}line"
    assert label("line\u2028sep") == "line\\u{2028}sep"
    assert label("\\u{1}") == "\\\\u{1}" and label("\x01") == "\\u{1}" and label("\\\x01") == "\\\\\\u{1}"
    assert label("bidi\u202eevil") == "bidi\\u{202e}evil"
    # The bidi marks too (ALM, LRM, RLM): invisible, and they reorder neutral characters around them.
    assert label("\u200e\u200f\u061c") == "\\u{200e}\\u{200f}\\u{61c}"
    # Invisible characters that would make two names look alike; ZWJ and ZWNJ (emoji, scripts) stay.
    assert label("ge\u200bmm\u2060\ufeff\u00ad\u2064") == "ge\\u{200b}mm\\u{2060}\\u{feff}\\u{ad}\\u{2064}"
    assert label("👩\u200d👧 \u200c") == "👩\u200d👧 \u200c"
    assert label(3) == "3"


def test_long_labels_are_bounded_distinct_and_keep_their_head():
    a, b = "k" + "x" * 5000 + "a", "k" + "x" * 5000 + "b"
    la, lb = label(a), label(b)
    assert len(la) <= MAX_LABEL and len(lb) <= MAX_LABEL and la != lb
    assert la.startswith("kxxx") and "chars #" in la
    escapes = label("\x01" * 3000)
    assert len(escapes) <= MAX_LABEL and escapes.startswith("\\u{1}\\u{1}") and all(shows_safely(c) for c in escapes)
    assert label("y" * MAX_LABEL) == "y" * MAX_LABEL


def test_distinct_names_keep_real_names_and_move_placeholders_and_repeats():
    assert distinct_names(["", "(empty)", "a", "(empty) (2)", "a"]) == [
        "(empty) (3)",
        "(empty)",
        "a",
        "(empty) (2)",
        "a (2)",
    ]
    assert distinct_names(["", "x"], empty="(no kernel)") == ["(no kernel)", "x"]


def test_label_frame_labels_string_and_categorical_columns_only():
    frame = pl.DataFrame(
        {"s": ["a\x01", None, "b"], "c": ["\u2028", "x", "x"], "n": [1, 2, 3]},
        schema={"s": pl.String, "c": pl.Categorical, "n": pl.Int64},
    )
    out = label_frame(frame)
    assert out.get_column("s").to_list() == ["a\\u{1}", None, "b"]
    assert out.get_column("c").to_list() == ["\\u{2028}", "x", "x"]
    assert out.get_column("n").to_list() == [1, 2, 3]
    clean = pl.DataFrame({"s": ["a", "b"]})
    assert label_frame(clean).equals(clean)


def test_tooltip_titles_double_backslashes_of_the_label():
    assert tooltip_title("a\\b") == "a\\\\b"
    assert tooltip_title("\x01") == "\\\\u{1}"
    assert tooltip_title("plain") == "plain"


def test_html_text_labels_then_escapes():
    assert html_text('<a href="x">\x00</a>') == "&lt;a href=&quot;x&quot;&gt;\\u{0}&lt;/a&gt;"


def test_script_safe_json_cannot_close_a_script():
    text = script_safe_json({"a": "</script><!-- & \u2028 \u2029"})
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == {"a": "</script><!-- & \u2028 \u2029"}


def test_safe_spec_leaves_clean_specs_alone_and_labels_raw_strings_anywhere():
    clean = {"data": {"values": [{"k": "gemm", "v": 1}]}, "title": "a\\u{1}"}
    assert safe_spec(clean) is clean
    raw = {"data": {"values": [{"k\x01": "x\x00", "v": 1}]}, "title": ["t\u2028"], "n": 2.5}
    assert safe_spec(raw) == {"data": {"values": [{"k\\u{1}": "x\\u{0}", "v": 1}]}, "title": ["t\\u{2028}"], "n": 2.5}


def test_a_foreign_chart_with_raw_profile_strings_exports_instead_of_aborting(tmp_path):
    """A chart the user built from raw samples: vl-convert used to abort the process on its SVG."""
    code = (
        "import sys, altair as alt, polars as pl\n"
        "from ipu_nb import charts\n"
        "frame = pl.DataFrame({'k': ['nul\\x00', 'soh\\x01', 'non\\ufffe'], 'v': [1, 2, 3]})\n"
        "chart = alt.Chart(frame).mark_bar().encode(x='v:Q', y='k:N').properties(title='t\\x01')\n"
        "for fmt in ('svg', 'png', 'pdf', 'html'):\n"
        "    charts.save(chart, f'{sys.argv[1]}/foreign.{fmt}')\n"
    )
    process = run_isolated(code, str(tmp_path))
    assert process.returncode == 0, process.stderr[-2000:]
    svg = (tmp_path / "foreign.svg").read_text(encoding="utf-8")
    assert "nul\\u{0}" in svg and "soh\\u{1}" in svg and "non\\u{fffe}" in svg
    assert (tmp_path / "foreign.png").read_bytes().startswith(b"\x89PNG")
