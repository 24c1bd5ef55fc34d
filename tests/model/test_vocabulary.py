"""The shared names: report fields are their columns in camelCase, one rule for every report."""

from __future__ import annotations

import pytest

from ipu_nb._model.vocabulary import GROUP_FIELDS, SAMPLE_FIELDS, SCALAR_FIELDS, camel


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("span_cycles", "spanCycles"),
        ("p50_cycles", "p50Cycles"),
        ("name", "name"),
        ("phase_cycles_before", "phaseCyclesBefore"),
    ],
)
def test_camel(name: str, key: str) -> None:
    assert camel(name) == key


def test_report_fields_are_their_columns_in_camel_case() -> None:
    # The one exception is the runtime's: a sample's `tile` is reported as `physicalTile`.
    assert {c: f for c, f in {**GROUP_FIELDS, **SCALAR_FIELDS, **SAMPLE_FIELDS}.items() if camel(c) != f} == {
        "tile": "physicalTile"
    }
