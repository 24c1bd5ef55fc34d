"""HTML reprs of Profile and QueryResult: the right numbers, and every profile string escaped."""

from __future__ import annotations

import polars as pl
import pytest
from chart_fixtures import (
    HOSTILE,
    HOSTILE_KERNEL,
    NASTY_KEY_2,
    NASTY_NAMES,
    RAW_CHARACTERS,
    hostile_profile,
    write_nasty,
)
from rendered import parse

from ipu_nb._markup.sanitize import html_text
from ipu_nb._markup.tables import frame_html, table_html
from ipu_nb._profile.repr_html import profile_html


@pytest.fixture(scope="module")
def hostile():
    return hostile_profile()


def assert_inert(document: str) -> None:
    """No markup came from a profile string: no img/script elements, the strings only escaped."""
    tags = {tag for tag, _ in parse(document).tags}
    assert not tags & {"img", "script", "iframe"}
    assert HOSTILE not in document and HOSTILE_KERNEL not in document


def test_profile_repr_summarises_and_escapes(hostile):
    document = hostile._repr_html_()
    assert document == profile_html(hostile)
    assert_inert(document)
    assert "<b>tiles</b>=4" in document and "<b>samples</b>=9" in document
    assert "<b>spanCycles</b>=4,000" in document and "<b>spanMs</b>=0.002667" in document
    assert "<b>granularity</b>=phase" in document
    # the top-kernels table holds the hostile kernel, escaped
    assert "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in document


def test_profile_repr_of_an_empty_profile():
    from builders import T, profile_from_tiles

    document = profile_from_tiles([T(5, [])], clock_hz=0)._repr_html_()
    assert "<b>samples</b>=0" in document and "<b>spanMs</b>=0.000000" in document


def test_tables_cap_rows_and_escape_cells():
    frame = pl.DataFrame({"name": [HOSTILE, "b", ""], "n": [1, 2_000, 3]})
    document = frame_html(frame, max_rows=2)
    assert_inert(document)
    assert "2 of 3 rows shown" in document
    assert "<td>2,000</td>" in document
    rows = [{"name": "", "phaseCycles": 1}]
    assert "<em>(empty)</em>" in table_html(rows, [("name", "name", "text")], total=1)


def test_query_result_repr_has_the_header_the_groups_and_escaped_samples(hostile):
    from ipu_nb import query
    from ipu_nb._query.repr_html import query_result_html

    result = query(hostile, group_by="operation", samples=2, at=1500)
    document = result._repr_html_()
    assert document == query_result_html(result)
    assert_inert(document)
    assert "<b>groupBy</b>=operation" in document and "<b>at</b>=1500" in document
    assert f"<b>samples</b>={result.matched_sample_count}/9" in document
    page = parse(document)
    headers = [a for t, a in page.tags if t == "th"]
    assert len(headers) == 12 + 9  # groups table and samples table
    # every group of the result is a row, with its phaseCycles
    for row in result.groups.iter_rows(named=True):
        assert f"{row['phase_cycles']:,}</td>" in document
    assert "longest samples" in document
    assert "&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;=&lt;img" in document  # metadata entry, escaped


def test_query_result_repr_of_a_clipped_query_shows_the_window_and_clipped_cycles(hostile):
    from ipu_nb import query

    result = query(hostile, window=(1000, 2500), clip=True, samples=2)
    document = result._repr_html_()
    assert_inert(document)
    assert "<b>window</b>=1,000:2,500 clipped" in document
    headers = [a for t, a in parse(document).tags if t == "th"]
    assert len(headers) == 12 + 10  # the samples table gains clippedCycles
    assert "clippedCycles" in document
    unclipped = query(hostile, window=(1000, 2500), samples=2)._repr_html_()
    assert "<b>window</b>=1,000:2,500<" in unclipped and "clippedCycles" not in unclipped
    assert "<b>window</b>" not in query(hostile, samples=2)._repr_html_()


def test_query_result_repr_caps_long_group_lists():
    from chart_fixtures import sized_profile

    from ipu_nb import query

    result = query(sized_profile(per_tile=3, tiles=80), group_by="tile", limit=0)
    document = result._repr_html_()
    assert result.groups.height == 80
    assert "50 of 80 rows shown" in document
    assert document.count("<tr>") == 51


def test_reprs_of_nasty_names_show_each_as_its_label_and_nothing_raw(tmp_path):
    from ipu_nb import open_profile, query

    path = write_nasty(tmp_path / "nasty \x01 \u2028.capnp")
    profile = open_profile(path)
    documents = {
        "profile": profile._repr_html_(),
        "by kernel": query(profile, group_by="kernel", samples=50, limit=0)._repr_html_(),
        "by metadata": query(profile, group_by="metadata", metadata_key=NASTY_KEY_2, limit=0)._repr_html_(),
    }
    for what, document in documents.items():
        assert not (RAW_CHARACTERS - set("\t\n\r")) & set(document), what
        assert not {tag for tag, _ in parse(document).tags} & {"img", "script", "iframe"}, what
    assert "nasty \\u{1} \\u{2028}.capnp" in documents["profile"]
    for name in NASTY_NAMES:  # group rows, and the samples table's kernel and operation cells
        assert documents["by kernel"].count(f">{html_text(name)}</span>") >= 2, name
        assert html_text(name) in documents["by metadata"], name
