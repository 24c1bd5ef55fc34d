"""Superstep analytics: critical tiles, balance, what-if and ranked findings, on the query core."""

from __future__ import annotations

from .balance import tile_balance
from .findings import Finding, Findings, findings
from .structure import supersteps
from .what_if import WhatIf, what_if

__all__ = ["Finding", "Findings", "WhatIf", "findings", "supersteps", "tile_balance", "what_if"]
