"""The notebook repr of a Comparison: the right numbers, and every profile string escaped."""

from __future__ import annotations

import html

import polars as pl
from builders import S, T, profile_from_tiles
from chart_fixtures import HOSTILE, HOSTILE_KERNEL
from golden_pair import AFTER, BEFORE, CLOCK_HZ
from rendered import parse

from ipu_nb import Profile, compare

QUOTES = "\"'&<>"
CONTROL = "ctl\x01\x1b[31m\u202e"


def _hostile_pair() -> tuple[Profile, Profile]:
    names = [HOSTILE, HOSTILE_KERNEL, QUOTES, CONTROL, "<script>alert(4)</script>"]
    before = profile_from_tiles([T(i, [S(0, 10 + i, kernel=k, operation=k)]) for i, k in enumerate(names)])
    after = profile_from_tiles(
        [T(i, [S(0, 20 + i, kernel=k + "2" if i == 0 else k, operation=k)]) for i, k in enumerate(names)]
    )
    return before, after


def test_hostile_names_are_escaped() -> None:
    before, after = _hostile_pair()
    for c in (
        compare(before, after),
        compare(before, after, renames={HOSTILE: HOSTILE + "2"}),
        compare(before, after, by="operation"),
    ):
        document = c._repr_html_()
        tags = {tag for tag, _ in parse(document).tags}
        assert not tags & {"img", "script", "iframe"}
        for raw in (HOSTILE, HOSTILE_KERNEL, "<script>alert(4)</script>", "\x01", "\x1b", "\u202e"):
            assert raw not in document
        assert html.escape(HOSTILE_KERNEL) in document
        assert "&quot;&#x27;&amp;&lt;&gt;" in document  # quotes escaped in text and in title attributes
        assert "ctl\\u{1}\\u{1b}[31m\\u{202e}" in document  # controls shown, not sent raw


def test_repr_shows_the_summary_and_groups() -> None:
    c = compare(profile_from_tiles(BEFORE, CLOCK_HZ), profile_from_tiles(AFTER, CLOCK_HZ), renames={"A": "Ä"})
    document = c._repr_html_()
    assert "<b>by</b>=kernel" in document and "<b>added</b>=1" in document and "<b>unchanged</b>=1" in document
    assert "(+10 = groups + overlap)" in document
    assert "renamed A → Ä" in document
    assert "<td>165</td><td>175</td><td>10</td>" in document  # total phase cycles before, after, delta
    assert "(overlap)" in document and "<td>-20</td>" in document
    for name in c.groups["name"].to_list():
        assert f'title="{html.escape(name)}"' in document
    assert document.startswith("<style>") and 'class="ipu-nb-repr"' in document


def test_repr_caps_rows() -> None:
    before = profile_from_tiles([T(i, [S(0, 10, kernel=f"k{i}")]) for i in range(80)])
    after = profile_from_tiles([T(i, [S(0, 11 + i, kernel=f"k{i}")]) for i in range(80)])
    c = compare(before, after)
    document = c._repr_html_()
    assert "50 of 80 rows shown" in document
    assert "k79" in document and "k0<" not in document  # largest deltas first; the smallest cut
    assert c.groups.filter(pl.col("status") == "changed").height == 80
