"""What the timeline shows of a profile before any sample is sorted (`TimelineFacts`), and the colour classes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._exchange.display import DISPLAY_CLASSES
from ..._model.vocabulary import STEP_KINDS

__all__ = ["GREY", "KIND_CLASSES", "MAX_CLASSES", "TimelineFacts"]

MAX_CLASSES = 31
"""Colour classes 1..31 fit in 5 bits; class 0 (`GREY`) marks samples not matching the filters."""
GREY = 0
KIND_CLASSES = STEP_KINDS
"""Class 1 + index of these names when colouring by kind (inactive compute counts as idle)."""


@dataclass(frozen=True)
class TimelineFacts:
    """What the widget shows of a profile's timeline before any sample is sorted.

    Attributes
    ----------
    row_tiles : np.ndarray
        Physical tile id of each row (rows sorted by physical id, tiles without samples included).
    kernel_names : list of str
        Legend of the kernel classes (class i + 1 is ``kernel_names[i]``).
    kernel_lookup : np.ndarray
        Kernel class (uint8) of each physical code of the ``kernel`` column.
    span : int
        ``profileSpanCycles``.
    """

    row_tiles: np.ndarray
    kernel_names: list[str]
    kernel_lookup: np.ndarray
    span: int

    @property
    def rows(self) -> int:
        return len(self.row_tiles)

    def legend(self, color_by: str) -> list[str]:
        """Name of class 1, 2, … (colour mode "activity": the kinds, then what an exchange window holds)."""
        if color_by == "activity":
            return list(DISPLAY_CLASSES)
        return list(self.kernel_names) if color_by == "kernel" else list(KIND_CLASSES)
