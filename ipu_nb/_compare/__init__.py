"""Comparing two profiles: `compare` aligns their `query()` groups, `Comparison` holds the deltas.

Modules: `align` (clocks, renames, the outer join), `attribution` (totals and the exact
attribution of the phase-cycle delta), `comparison` (`compare`, `Comparison`),
`render` (profile-diff text and JSON), `repr_html` (the notebook repr), `errors`.
"""

from __future__ import annotations

from .comparison import FILTERS, Comparison, ComparisonSummary, compare
from .errors import ComparisonError

__all__ = ["FILTERS", "Comparison", "ComparisonError", "ComparisonSummary", "compare"]
