"""Superstep analytics: critical tiles, balance, what-if and ranked findings, on the query core."""

from __future__ import annotations

from .balance import tile_balance
from .detectors import Finding, Findings, findings
from .replay import WhatIf, what_if
from .structure import supersteps

__all__ = ["Finding", "Findings", "WhatIf", "findings", "supersteps", "tile_balance", "what_if"]
