"""The regression rule of profile-check: thresholds parsed exactly, and the rule against a plain reference."""

from __future__ import annotations

from fractions import Fraction

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ipu_nb._fleet.gate import format_threshold, parse_threshold, regressed


@pytest.mark.parametrize(
    ("text", "fraction", "shown"),
    [
        ("3%", Fraction(3, 100), "3%"),
        ("0.03", Fraction(3, 100), "3%"),
        (" 2.5 % ", Fraction(1, 40), "2.5%"),
        ("150%", Fraction(3, 2), "150%"),
        ("0%", Fraction(0), "0%"),
        (".125", Fraction(1, 8), "12.5%"),
        ("0.0001%", Fraction(1, 1_000_000), "0.0001%"),
    ],
)
def test_thresholds(text: str, fraction: Fraction, shown: str) -> None:
    assert parse_threshold(text) == fraction
    assert format_threshold(parse_threshold(text)) == shown


@pytest.mark.parametrize("text", ["3", "1", "1.0", "-3%", "3%%", "", "%", "1e-2", "three", "0x10%"])
def test_bad_thresholds(text: str) -> None:
    with pytest.raises(ValueError, match=r"invalid threshold"):
        parse_threshold(text)


STATUS = st.sampled_from(["added", "removed", "changed", "unchanged"])


@given(
    st.lists(st.tuples(STATUS, st.integers(0, 2**40), st.integers(0, 2**40)), max_size=30),
    st.fractions(min_value=0, max_value=3, max_denominator=10**6),
    st.integers(0, 2**20),
    st.booleans(),
)
def test_regressed_matches_the_rule(
    rows: list[tuple[str, int, int]], threshold: Fraction, min_cycles: int, count_added: bool
) -> None:
    groups = pl.DataFrame(
        {
            "status": [s for s, _, _ in rows],
            # An added group has no before side, a removed one no after side.
            "phase_cycles_before": [None if s == "added" else b for s, b, _ in rows],
            "phase_cycles_after": [None if s == "removed" else a for s, _, a in rows],
        },
        schema={"status": pl.String, "phase_cycles_before": pl.Int64, "phase_cycles_after": pl.Int64},
    )
    expected = []
    for status, before, after in rows:
        before = 0 if status == "added" else before
        after = 0 if status == "removed" else after
        counts = (status != "added" or count_added) and after >= min_cycles
        expected.append(bool(counts and Fraction(after) > Fraction(before) * (1 + threshold)))
    got = regressed(groups, threshold, min_cycles=min_cycles, count_added=count_added)
    assert got.to_list() == expected
