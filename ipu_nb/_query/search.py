"""Text search over a profile: samples whose operation or kernel contains some text.

Not one of the runtime's flags (its ``--operation-contains`` looks at operations only, and
always matches case): this is the widget's search box, kept beside the predicate builder
so the selection is made in one place. Names are matched once per distinct string, not
per sample (a profile holds few distinct operations and kernels).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["SEARCHED_COLUMNS", "contains", "search_mask"]

#: The columns a search looks in.
SEARCHED_COLUMNS: tuple[str, ...] = ("operation", "kernel")


def contains(name: str, text: str, case_sensitive: bool = True) -> bool:
    """Whether `name` contains `text`; without `case_sensitive`, compared case-folded (Unicode rules).

    >>> contains("GEMM block", "gemm", case_sensitive=False), contains("GEMM block", "gemm")
    (True, False)
    """
    return text in name if case_sensitive else text.casefold() in name.casefold()


def _column_hits(samples: pl.DataFrame, column: str, text: str, case_sensitive: bool) -> np.ndarray:
    names = samples.get_column(column).unique()
    hits = names.filter(pl.Series([contains(n or "", text, case_sensitive) for n in names.cast(pl.String)]))
    return samples.get_column(column).is_in(hits.implode()).fill_null(False).to_numpy()


def search_mask(profile: ProfileData, text: str, case_sensitive: bool = True) -> np.ndarray:
    """Per row of ``profile.samples``: whether its operation or kernel contains `text`.

    An empty `text` matches every sample (as an empty ``--operation-contains`` would).

    >>> mask = search_mask(profile, "gemm", case_sensitive=False)
    >>> bool(mask.any())
    True
    """
    samples = profile.samples
    mask = np.zeros(samples.height, dtype=bool)
    for column in SEARCHED_COLUMNS:
        mask |= _column_hits(samples, column, text, case_sensitive)
    return mask
