"""The physical tile grid of a C600: 23 rows × 64 columns, physical id = row·64 + column (+2·lane).

The charts draw their heat-maps on it and the trace groups its tracks by its columns, so
both read the one shape from here.
"""

from __future__ import annotations

__all__ = ["GRID_COLUMNS", "GRID_ROWS"]

#: Physical tile ids run row-major over the C600 grid: physical = row·64 + column (+2·lane).
GRID_COLUMNS = 64
#: Rows of the C600 grid: 1,472 tiles ÷ 64 columns.
GRID_ROWS = 23
