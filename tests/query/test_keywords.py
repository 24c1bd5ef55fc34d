"""The query keywords as a polars user meets them: real signatures, mypy checks, the metadata rule, Python's words.

`QueryFlags` (and its parts `Filters`, `FilterFlags`) and `Query` are the one flag set:
every public function taking query keywords must list exactly that set in
`inspect.signature` (so `help()` shows it), with `Query`'s defaults and the typed
dictionary's types, and mypy must refuse a keyword or value outside it.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from builders import S, T, profile_from_tiles
from untyped import untyped

import ipu_nb
from ipu_nb import charts
from ipu_nb._query import (
    FILTER_FLAGS,
    FILTERS,
    QUERY_FLAGS,
    FilterFlags,
    Filters,
    Query,
    QueryError,
    QueryFlags,
    QueryWarning,
    make_query,
    query,
)

ROOT = Path(__file__).parents[2]

#: Every public function with query keywords, and the typed dictionary its ``**`` takes.
PUBLIC: list[tuple[str, Any, type]] = [
    ("ipu_nb.query", ipu_nb.query, QueryFlags),
    ("Profile.query", ipu_nb.Profile.query, QueryFlags),
    ("Profile.filter", ipu_nb.Profile.filter, FilterFlags),
    ("charts.breakdown", charts.breakdown, FilterFlags),
    ("charts.phase_waterfall", charts.phase_waterfall, FilterFlags),
    ("charts.tile_heatmap", charts.tile_heatmap, Filters),
    ("charts.duration_distribution", charts.duration_distribution, Filters),
    ("charts.active_tiles", charts.active_tiles, Filters),
    ("charts.gantt", charts.gantt, Filters),
    ("ipu_nb.compare", ipu_nb.compare, Filters),
    ("ipu_nb.supersteps", ipu_nb.supersteps, Filters),
    ("ipu_nb.tile_balance", ipu_nb.tile_balance, Filters),
    ("ipu_nb.what_if", ipu_nb.what_if, Filters),
]


def _profile() -> Any:
    return profile_from_tiles(
        [
            T(0, [S(0, 10, metadata=[("output_block_row", "6"), ("inner_block", "31")]), S(10, 30, kernel="k2")]),
            T(1, [S(0, 5, metadata=[("output_block_row", "6"), ("inner_block", "30")]), S(5, 9, kind="idle")]),
            T(2, [S(0, 7, metadata=[("output_block_row=6", "inner_block=31")])]),  # the old misreading's pair
        ]
    )


# --------------------------------------------------------------------------- one flag set


def test_the_typed_dictionaries_and_query_hold_one_flag_set() -> None:
    assert set(QUERY_FLAGS) == {f.name for f in dataclasses.fields(Query)}
    assert QUERY_FLAGS[: len(FILTER_FLAGS)] == FILTER_FLAGS and (*FILTERS, "clip") == FILTER_FLAGS
    filters = ("kind", "kernel", "operation", "operation_contains", "tiles", "phases", "metadata", "at", "window")
    assert filters == FILTERS
    assert {"window", "clip", "operation"} <= set(QUERY_FLAGS)


@pytest.mark.parametrize(("name", "function", "keywords"), PUBLIC, ids=[p[0] for p in PUBLIC])
def test_signatures_list_every_keyword_with_its_type_and_query_s_default(
    name: str, function: Any, keywords: type
) -> None:
    parameters = inspect.signature(function).parameters
    assert not [p for p in parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD], name
    hints = get_type_hints(keywords)
    spelled = [p for p in parameters.values() if p.name in hints]
    assert [p.name for p in spelled] == list(hints)  # every key, in the dictionary's order
    defaults = Query()
    for p in spelled:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, (name, p.name)
        assert p.default == getattr(defaults, p.name), (name, p.name)
        assert p.annotation == hints[p.name], (name, p.name)
    # A parameter of the function's own that shares a Query field's name has its default too.
    for p in parameters.values():
        if p.name in QUERY_FLAGS and p.name not in hints:
            assert p.default == getattr(defaults, p.name), (name, p.name)


def test_query_lists_exactly_the_query_fields_and_help_shows_them() -> None:
    keyword_only = [p for p in inspect.signature(ipu_nb.query).parameters.values() if p.kind is p.KEYWORD_ONLY]
    semantics = {"semantics", "shared_clock", "at_offset"}  # which runtime's query (docs/reference/head.md)
    assert {p.name for p in keyword_only} == {f.name for f in dataclasses.fields(Query)} | semantics
    text = inspect.getdoc(ipu_nb.query) or ""
    assert "QueryWarning" in text
    shown = str(inspect.signature(ipu_nb.query))
    for piece in (
        "*, semantics: 'Semantics' = 'ba7339c', shared_clock: 'bool' = False, at_offset: 'int | None' = None, ",
        "None, kind: Optional[Literal['compute', 'exchange', 'synchronization', 'idle']] = None",
        "tiles: int | collections.abc.Iterable[int] | None = ()",
        "window: tuple[int, int] | collections.abc.Sequence[int] | None = None",
        "clip: bool = False",
        "group_by: Literal['kind', 'kernel', 'operation', 'phase', 'tile', 'metadata'] = 'kernel'",
        "metadata_key: str | None = None",
        "limit: int = 20",
    ):
        assert piece in shown
    import pydoc

    page = pydoc.plain(pydoc.render_doc(ipu_nb.Profile.filter))
    assert "clip: bool = False" in page and "group_by" not in page


def test_the_signature_is_the_function_itself_not_a_wrapper() -> None:
    from ipu_nb._query import result

    assert ipu_nb.query is result.query and not hasattr(ipu_nb.query, "__wrapped__")


def test_a_keyword_clashing_with_the_flag_set_is_refused_when_the_function_is_defined() -> None:
    from ipu_nb._query.signature import keyword_signature

    def chart(source: Any, *, metadata: int = 8, **filters: Any) -> None: ...

    with pytest.raises(TypeError, match="metadata clash with Filters"):
        keyword_signature(Filters)(chart)


# --------------------------------------------------------------------------- mypy

_SNIPPET = """\
    from typing_extensions import Unpack

    import ipu_nb
    from ipu_nb import charts


    def mine(profile: ipu_nb.Profile, **filters: Unpack[ipu_nb.FilterFlags]) -> int:
        return profile.filter(**filters).height + ipu_nb.query(profile, **filters, group_by="tile").groups.height


    def use(profile: ipu_nb.Profile) -> None:
        mine(profile, window=(0, 5), clip=True)
        mine(profile, group_by="kernel")  # E: a wrapper's keywords are checked too
        ipu_nb.query(profile, kind="compute", tiles=[1, 2], metadata=["layer=3"], window=(0, 9), clip=True)
        ipu_nb.query(profile, group_by="metadata", metadata_key="layer", sort_by="name", limit=0, samples=3)
        profile.query(operation=["a", "b"], phases=3, at=5, metadata=[("layer", None)])
        profile.filter(tiles=5, clip=False, metadata={"layer": "3"})
        charts.tile_heatmap(profile, kind="exchange", cell=9)
        charts.breakdown(profile, by="kernel", top=3, clip=False, window=[0, 5])
        charts.gantt(profile, metadata="layer=3", tooltip_metadata=2)
        ipu_nb.supersteps(profile, kernel="k")
        ipu_nb.query(profile, tile=5)  # E: unknown keyword
        profile.filter(group_by="kernel")  # E: filter takes no grouping
        ipu_nb.query(profile, kind="bogus")  # E: not a kind
        charts.breakdown(profile, sort_by="name")  # E: the chart sorts itself
        profile.query(metadata=("layer", None))  # E: a pair goes inside a list
        charts.active_tiles(profile, clip=True)  # E: this chart draws whole samples
        ipu_nb.supersteps(profile, limit=3)  # E: a filter only
"""


def test_mypy_refuses_unknown_keywords_and_bad_values(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    snippet = tmp_path / "use_ipu_nb.py"
    snippet.write_text(textwrap.dedent(_SNIPPET), encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text(
        "[mypy]\npython_version = 3.10\nfollow_imports = silent\nwarn_unused_configs = false\n"
        # The libraries' own types are not what is checked here: skipping them keeps mypy quick.
        "[mypy-polars.*,altair.*,numpy.*,anywidget.*,traitlets.*,IPython.*,capnp.*,vl_convert.*,tqdm.*,xxhash.*]\n"
        "follow_imports = skip\nignore_missing_imports = true\n",
        encoding="utf-8",
    )
    cache = tmp_path / "cache"
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(cache), str(snippet)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        timeout=600,
    )
    errors: dict[int, str] = {}
    for line in proc.stdout.splitlines():
        head, _, message = line.partition(": error: ")
        if message and head.startswith(str(snippet)):
            errors.setdefault(int(head.rsplit(":", 1)[1]), message)
    lines = textwrap.dedent(_SNIPPET).splitlines()
    expected = {n for n, text in enumerate(lines, 1) if "# E:" in text}
    assert set(errors) == expected, proc.stdout + proc.stderr
    tile = errors[next(n for n, text in enumerate(lines, 1) if "tile=5" in text)]
    assert 'Unexpected keyword argument "tile"' in tile and 'did you mean "tiles"' in tile
    assert proc.returncode == 1


# --------------------------------------------------------------------------- unknown keywords at run time


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda p: untyped(ipu_nb.query)(p, tile=5), "unknown query flag 'tile' (did you mean 'tiles'?)"),
        (lambda p: p.filter(limit=3), "unknown filter 'limit'; the filters are kind, kernel"),
        (lambda p: p.filter(group_by="kernel"), "unknown filter 'group_by'"),
        (lambda p: untyped(charts.tile_heatmap)(p, clip=True, window=(0, 5)), "unknown filter 'clip'"),
        (lambda p: untyped(charts.breakdown)(p, sort_by="name"), "unknown filter 'sort_by'"),
        (lambda p: untyped(charts.phase_waterfall)(p, metadata_key="x"), "unknown filter 'metadata_key'"),
        (lambda p: untyped(ipu_nb.supersteps)(p, samples=3), "unknown filter 'samples'"),
    ],
)
def test_a_keyword_outside_the_function_s_set_is_a_query_error_naming_it(call: Any, words: str) -> None:
    with pytest.raises(QueryError) as info:
        call(_profile())
    assert words in str(info.value) and info.value.usage is True


def test_gantt_takes_the_metadata_filter() -> None:
    chart = charts.gantt(_profile(), metadata=["output_block_row=6", "inner_block=31"], tooltip_metadata=1)
    assert chart.to_dict()["title"] == "1 samples on 1 tiles"


# --------------------------------------------------------------------------- the metadata rule


@pytest.mark.parametrize(
    ("value", "conditions"),
    [
        ("layer", (("layer", None),)),
        ("expr=a=b", (("expr", "a=b"),)),
        (("output_block_row=6", "inner_block=31"), (("output_block_row", "6"), ("inner_block", "31"))),
        (["output_block_row=6", "inner_block=31"], (("output_block_row", "6"), ("inner_block", "31"))),
        (["layer=3", "active"], (("layer", "3"), ("active", None))),
        (("a=1", "b", "c"), (("a", "1"), ("b", None), ("c", None))),
        ([("layer", "3")], (("layer", "3"),)),
        ([("layer", None), "b="], (("layer", None), ("b", ""))),
        (["=x"], (("", "x"),)),  # an empty name is a name an entry may have (the CLI refuses it)
        ({"": "x"}, (("", "x"),)),
        ([["a=b", None]], (("a=b", None),)),  # a name holding "=" needs the pair
        ((("a", "1"), ("b", "2")), (("a", "1"), ("b", "2"))),  # a Query's own form reads back the same
        ({"layer": "3", "active": None}, (("layer", "3"), ("active", None))),
        ([], ()),
        (None, ()),
    ],
)
def test_metadata_forms(value: Any, conditions: tuple[tuple[str, str | None], ...]) -> None:
    assert make_query(metadata=value).metadata == conditions


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (("layer", "3"), "metadata=('layer', '3') is ambiguous: it reads as the entry layer=3 or as the two"),
        (["layer", "3"], "write [('layer', '3')] (or 'layer=3') for the entry, or [('layer', None), ('3', None)]"),
        (("expr", "a=b"), "write [('expr', 'a=b')] (or 'expr=a=b') for the entry, or [('expr', None), ('a', 'b')]"),
        (("layer", None), "a list or tuple holds conditions; a (name, value) pair goes inside one: [('layer', None)]"),
        (("layer", ""), "write [('layer', '')] (or 'layer=') for the entry, or [('layer', None), ('', None)]"),
        (5, "metadata must be 'NAME', 'NAME=VALUE', a list of them or of (name, value) pairs"),
        (["a", 5, "b"], "metadata condition must be 'NAME', 'NAME=VALUE' or a (name, value) pair, got 5"),
        ([("a", "b", "c")], "got ('a', 'b', 'c')"),
        ([("a", 1)], "must hold a string and a string or None"),
        (b"layer", "metadata must be"),
    ],
)
def test_ambiguous_or_bad_metadata_is_refused_not_guessed(value: Any, words: str) -> None:
    with pytest.raises(QueryError) as info:
        make_query(metadata=value)
    assert words in str(info.value) and info.value.usage is True


def test_the_issue_s_tuple_of_name_value_strings_selects_both_entries() -> None:
    profile = _profile()
    wanted = ("output_block_row=6", "inner_block=31")
    assert profile.filter(metadata=wanted).get_column("sample").to_list() == [0]
    assert query(profile, metadata=wanted).matched_sample_count == 1
    # The pair reading (one entry named "output_block_row=6") is still there, written as a pair in a list.
    assert profile.filter(metadata=[wanted]).get_column("tile").to_list() == [2]


# --------------------------------------------------------------------------- Python's words, the CLI's words


@pytest.mark.parametrize(
    ("flags", "python", "cli"),
    [
        (
            {"group_by": "metadata"},
            "group_by='metadata' requires metadata_key='NAME', the metadata entry to group by",
            "--group-by metadata requires --metadata-key NAME",
        ),
        ({"clip": True}, "clip=True requires a window: pass window=(start, end)", "--clip requires --window START:END"),
    ],
)
def test_python_errors_name_the_keyword_and_carry_the_flag_s_wording(
    flags: dict[str, Any], python: str, cli: str
) -> None:
    with pytest.raises(QueryError) as info:
        query(_profile(), **flags)
    assert (str(info.value), info.value.cli_message) == (python, cli)


@pytest.mark.parametrize(
    "flags",
    [
        {"kind": "bogus"},
        {"tiles": "5"},
        {"limit": -1},
        {"window": (5, 1)},
        {"clip": True},
        {"metadata": ("a", "b")},
        {"metadata": "n" * 70_000},
        {"operation_contains": "a" * 70_000},
        {"group_by": "metadata"},
        {"operation": 5},
        {"bogus": 1},
    ],
)
def test_no_python_error_names_a_command_line_flag(flags: dict[str, Any]) -> None:
    with pytest.raises(QueryError) as info:
        query(_profile(), **flags)
    assert "--" not in str(info.value)


# --------------------------------------------------------------------------- metadata_key without metadata grouping


def test_metadata_key_without_metadata_grouping_runs_with_a_warning_at_the_caller_s_line() -> None:
    profile = _profile()
    plain = query(profile)
    with pytest.warns(QueryWarning) as caught:
        keyed = ipu_nb.query(profile, metadata_key="inner_block")
    (warning,) = caught
    assert str(warning.message) == (
        "metadata_key='inner_block' has no effect unless group_by='metadata' (this query groups by kernel)"
    )
    assert warning.message.cli_message == "--metadata-key has no effect without --group-by metadata"  # type: ignore[union-attr]
    assert warning.filename == __file__  # the user's line, not ipu-nb's
    assert keyed.to_text() == plain.to_text() and keyed.to_json() == plain.to_json()
    with pytest.warns(QueryWarning) as caught:
        profile.query(group_by="tile", metadata_key="inner_block")
    assert caught[0].filename == __file__ and "(this query groups by tile)" in str(caught[0].message)


def test_metadata_grouping_and_internal_queries_do_not_warn() -> None:
    profile = _profile()
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryWarning)
        assert query(profile, group_by="metadata", metadata_key="inner_block").groups.height == 3
        ipu_nb.compare(profile, profile, by="metadata", metadata_key="inner_block")
        widget = ipu_nb.ProfileWidget(profile)
        widget.metadata_key = "inner_block"  # the documented order: the key, then the grouping
        assert widget.query.metadata_key is None and widget.groups.height == 2
        widget.group_by = "metadata"
        assert widget.query.metadata_key == "inner_block"
        charts.phase_waterfall(widget)
        charts.breakdown(widget, by="kind")
        widget.close()


def test_compare_warns_once_for_an_unused_key() -> None:
    profile = _profile()
    with pytest.warns(QueryWarning) as caught:
        c = ipu_nb.compare(profile, profile, by="kernel", metadata_key="inner_block")
    assert len(caught) == 1 and caught[0].filename == __file__
    assert c.query.metadata_key is None
