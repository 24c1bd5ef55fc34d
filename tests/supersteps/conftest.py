"""Fixtures of the superstep tests."""

from __future__ import annotations

# The small demo profile and the same samples as builder tiles, shared with the query core's tests.
from test_query import demo_small  # noqa: F401
