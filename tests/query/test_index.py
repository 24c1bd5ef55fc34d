"""`ProfileIndex`: sample id -> row lookups answer for any integer, sample or not."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from builders import S, T, profile_from_tiles

from ipu_nb._query import index_of


@pytest.fixture(scope="module")
def profiles():
    whole = profile_from_tiles([T(t, [S(10 * i, 10 * i + 5) for i in range(4)]) for t in range(3)])
    odd = dataclasses.replace(whole, samples=whole.samples.filter(pl.col("sample") % 2 == 1))
    return whole, odd


@pytest.mark.parametrize("sid", [-(2**70), -(2**63) - 1, -1, 2**63 - 1, 2**63, 2**64, 10**30])
def test_ids_no_sample_can_have_are_no_sample(profiles, sid: int) -> None:
    for profile in profiles:
        index = index_of(profile)
        assert index.row_of(sid) == -1
        assert not index.is_sample(sid)


def test_rows_of_ids_with_and_without_gaps(profiles) -> None:
    whole, odd = profiles
    assert index_of(whole).ids_are_rows and not index_of(odd).ids_are_rows
    ids = whole.samples.get_column("sample").to_list()
    assert [index_of(whole).row_of(i) for i in ids] == list(range(len(ids)))
    odd_ids = odd.samples.get_column("sample").to_list()
    assert [index_of(odd).row_of(i) for i in ids] == [odd_ids.index(i) if i in odd_ids else -1 for i in ids]
    assert index_of(odd).row_of(len(ids) + 100) == -1


def test_distinct_values_are_computed_once(profiles) -> None:
    whole, _ = profiles
    index = index_of(whole)
    first = index.distinct("operation")
    assert sorted(first.cast(pl.String).to_list()) == sorted(set(whole.samples["operation"].cast(pl.String)))
    assert index.distinct("operation") is first
