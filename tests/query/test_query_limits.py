"""The query core's bounds on hostile filters, and its metadata filter against a plain reference.

Many metadata conditions are one pass over the entries (`ProfileIndex.metadata_mask`), at
most `MAX_METADATA_CONDITIONS` of them; every free-text filter is at most `MAX_TEXT`
characters, refused beyond as a `QueryError` rather than failing inside polars; a metadata
name may be empty from Python (the command line refuses it, tests/cli/test_cli_query.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
import spec_reference as ref
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st
from query_properties import NAMES, TEXT, VALUES
from query_properties import tiles as tiles_strategy

from ipu_nb._model import index as _index
from ipu_nb._query import QueryError, filter_mask, index_of, make_query, query
from ipu_nb._query.flags import MAX_METADATA_CONDITIONS, MAX_TEXT

# --------------------------------------------------------------------------- metadata against the reference

CONDITION_NAMES = st.one_of(st.sampled_from([*NAMES, "x=y", "absent"]), TEXT)
CONDITION_VALUES = st.one_of(st.none(), st.sampled_from(VALUES), TEXT)
CONDITIONS = st.lists(st.tuples(CONDITION_NAMES, CONDITION_VALUES), max_size=24)


def _expected(tile_list: list[T], conditions: list[tuple[str, str | None]]) -> list[bool]:
    return [ref.matches(s, {"metadata": conditions}) for s in ref.flatten(tile_list)]


def _own_conditions(tile_list: list[T], data: Any) -> list[tuple[str, str | None]]:
    """Conditions taken from the profile's own entries (so that some samples meet them), some as names only."""
    entries = [entry for t in tile_list for s in t.samples for entry in s.metadata]
    if not entries:
        return []
    picked = data.draw(st.lists(st.sampled_from(entries), max_size=12))
    return [(name, data.draw(st.sampled_from([value, None]))) for name, value in picked]


@settings(max_examples=examples(300))
@given(tile_list=tiles_strategy(), conditions=CONDITIONS, data=st.data())
def test_metadata_conditions_match_a_plain_reference(
    tile_list: list[T], conditions: list[tuple[str, str | None]], data: Any
) -> None:
    profile = profile_from_tiles(tile_list)
    for wanted in (conditions, _own_conditions(tile_list, data)):
        expected = _expected(tile_list, wanted)
        assert filter_mask(profile, metadata=wanted).tolist() == expected
        picked = profile.filter(metadata=wanted).get_column("sample").to_list()
        assert picked == [i for i, hit in enumerate(expected) if hit]


@settings(max_examples=examples(100))
@given(tile_list=tiles_strategy(), data=st.data())
def test_metadata_conditions_hold_for_string_columns_shuffled_entries_and_ids_that_are_not_rows(
    tile_list: list[T], data: Any
) -> None:
    profile = profile_from_tiles(tile_list)
    wanted = data.draw(st.one_of(CONDITIONS, st.just(_own_conditions(tile_list, data))))
    expected = np.array(_expected(tile_list, wanted), dtype=bool)
    meta = profile.metadata.with_columns(pl.col("name", "value").cast(pl.String))
    shuffled = meta.sample(fraction=1.0, shuffle=True, seed=data.draw(st.integers(0, 2**32 - 1)))
    reversed_rows = dataclasses.replace(profile, samples=profile.samples.reverse(), metadata=shuffled)
    assert filter_mask(dataclasses.replace(profile, metadata=meta), metadata=wanted).tolist() == expected.tolist()
    assert filter_mask(reversed_rows, metadata=wanted).tolist() == expected[::-1].tolist()


POOL_NAMES = st.sampled_from(["", *(f"n{i}" for i in range(14))])
POOL_VALUES = st.sampled_from([str(i) for i in range(14)])


@st.composite
def _pooled_tiles(draw: Any) -> list[T]:
    """Tiles whose samples draw their entries from 15 names and 14 values: many wanted names and values are there."""
    entries = st.lists(st.tuples(POOL_NAMES, POOL_VALUES), max_size=12)
    return [T(t, [S(i, i + 1, metadata=draw(entries)) for i in range(draw(st.integers(0, 8)))]) for t in range(3)]


@settings(max_examples=examples(200))
@given(
    tile_list=_pooled_tiles(),
    conditions=st.lists(st.tuples(POOL_NAMES, st.one_of(st.none(), POOL_VALUES)), max_size=30),
    few=st.integers(1, 4),
)
def test_metadata_conditions_over_many_names_and_values_match_the_reference(
    tile_list: list[T], conditions: list[tuple[str, str | None]], few: int
) -> None:
    profile = profile_from_tiles(tile_list)
    for wanted in (conditions, conditions[:few]):
        expected = _expected(tile_list, wanted)
        assert filter_mask(profile, metadata=wanted).tolist() == expected
        with mock.patch.object(_index, "_FEW", 0):  # every look-up through the table, however few
            assert index_of(profile).metadata_mask(make_query(metadata=wanted).metadata).tolist() == expected


def test_null_names_and_values_meet_only_what_they_can() -> None:
    profile = profile_from_tiles([T(0, [S(0, 1, metadata=[("a", "1")]), S(1, 2, metadata=[("b", "2")])])])
    meta = pl.DataFrame(
        {"sample": [0, 0, 1], "position": [0, 1, 0], "name": ["a", None, "b"], "value": [None, "1", "2"]},
        schema={"sample": pl.UInt32, "position": pl.UInt32, "name": pl.Categorical, "value": pl.Categorical},
    )
    nulls = dataclasses.replace(profile, metadata=meta)
    assert filter_mask(nulls, metadata=[("a", None)]).tolist() == [True, False]  # a null value: the name holds
    assert filter_mask(nulls, metadata=[("a", "1")]).tolist() == [False, False]  # "1" belongs to a null name
    assert filter_mask(nulls, metadata=[("b", "2"), ("b", None)]).tolist() == [False, True]


def test_one_condition_per_entry_of_a_sample_with_many_entries() -> None:
    many = [(f"n{i}", str(i % 7)) for i in range(MAX_METADATA_CONDITIONS)]
    profile = profile_from_tiles([T(0, [S(0, 1, metadata=many), S(1, 2, metadata=many[1:]), S(2, 3)])])
    assert filter_mask(profile, metadata=many).tolist() == [True, False, False]
    names_only = [(name, None) for name, _ in many[:500]] + many[500:]
    assert filter_mask(profile, metadata=names_only).tolist() == [True, False, False]


# --------------------------------------------------------------------------- the bounds


def _small() -> Any:
    return profile_from_tiles([T(0, [S(0, 5, operation="op a", kernel="k", metadata=[("layer", "0")])])])


def test_a_thousand_metadata_conditions_are_accepted_and_one_more_is_refused() -> None:
    profile = _small()
    accepted = [("layer", "0"), *((f"name {i}", None) for i in range(MAX_METADATA_CONDITIONS - 1))]
    assert len(make_query(metadata=accepted).metadata) == MAX_METADATA_CONDITIONS
    assert query(profile, metadata=accepted).matched_sample_count == 0  # no sample has "name 0"
    for form in (
        [*accepted, "layer"],
        {**dict(accepted), "another": None},
        [f"n{i}=v" for i in range(20_000)],
    ):
        with pytest.raises(QueryError) as info:
            profile.filter(metadata=form)
        assert f"at most {MAX_METADATA_CONDITIONS} are allowed" in str(info.value)
        assert info.value.cli_message.startswith("--metadata is given")


LONG = MAX_TEXT + 1


@pytest.mark.parametrize(
    ("flags", "what", "flag", "length"),
    [
        ({"kernel": "k" * LONG}, "kernel", "--kernel", LONG),
        ({"operation_contains": "a" * LONG}, "operation_contains", "--operation-contains", LONG),
        ({"operation_contains": "a" * 400_000}, "operation_contains", "--operation-contains", 400_000),
        ({"operation": "o" * LONG}, "operation", "--operation", LONG),
        ({"operation": ["op a", "o" * LONG]}, "operation", "--operation", LONG),
        ({"metadata": [("n" * LONG, None)]}, "metadata name", "--metadata NAME", LONG),
        ({"metadata": "n" * LONG + "=v"}, "metadata name", "--metadata NAME", LONG),
        ({"metadata": {"layer": "v" * LONG}}, "metadata value", "--metadata VALUE", LONG),
        ({"metadata_key": "m" * LONG, "group_by": "metadata"}, "metadata_key", "--metadata-key", LONG),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_over_long_text_is_a_query_error_naming_the_filter(
    flags: dict[str, Any], what: str, flag: str, length: int
) -> None:
    with pytest.raises(QueryError) as info:
        query(_small(), **flags)
    assert str(info.value) == f"{what} must be at most {MAX_TEXT} characters, got {length}"
    assert info.value.cli_message == f"{flag} must be at most {MAX_TEXT} characters, got {length}"
    assert info.value.usage is True


def test_text_of_the_longest_length_still_runs() -> None:
    profile = _small()
    longest = "a" * MAX_TEXT
    for flags in (
        {"kernel": longest},
        {"operation_contains": longest},
        {"operation": [longest]},
        {"metadata": [(longest, longest)]},
    ):
        assert profile.filter(**flags).height == 0
    assert profile.filter(operation_contains="op a", metadata=[("layer", "0")]).height == 1


# --------------------------------------------------------------------------- an empty metadata name


def test_an_entry_named_the_empty_string_can_be_selected_from_python() -> None:
    profile = profile_from_tiles(
        [T(0, [S(0, 1, metadata=[("", "x")]), S(1, 2, metadata=[("", "y")]), S(2, 3, metadata=[("a", "x")])])]
    )
    for form in ([("", "x")], "=x", ["=x"], {"": "x"}):
        assert profile.filter(metadata=form).get_column("sample").to_list() == [0]
    for any_value in ([("", None)], "", {"": None}):
        assert profile.filter(metadata=any_value).get_column("sample").to_list() == [0, 1]
    assert make_query(metadata="=x").metadata == (("", "x"),)
