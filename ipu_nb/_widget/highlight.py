"""``widget.highlight(frame)``: the sample ids of any DataFrame with a ``sample`` column, checked.

The ids go to the front end as binary buffers (`HighlightPush`): the ids themselves and, so
the timeline can mark them at any zoom, where each one is (offset, end, timeline row).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._query import ProfileIndex

__all__ = ["HIGHLIGHT_LIMIT", "highlight_ids"]

HIGHLIGHT_LIMIT = 1_000_000
"""Most samples one highlight marks (22 bytes each on the wire)."""


def _sample_column(frame: Any) -> pl.Series:
    """The ``sample`` column of a polars (eager or lazy) frame, or of any frame with ``columns`` (pandas)."""
    if isinstance(frame, pl.LazyFrame):
        names = frame.collect_schema().names()
        frame = frame.select("sample").collect() if "sample" in names else pl.DataFrame(schema=dict.fromkeys(names))
    if isinstance(frame, pl.DataFrame):
        columns = frame.columns
    elif hasattr(frame, "columns") and hasattr(frame, "__getitem__"):
        columns = [str(c) for c in frame.columns]
    else:
        raise TypeError(
            f"highlight(frame) needs a DataFrame with a 'sample' column (polars or pandas), got {type(frame).__name__}"
        )
    if "sample" not in columns:
        raise ValueError(f"highlight(frame): the frame has no 'sample' column (its columns: {', '.join(columns)})")
    if isinstance(frame, pl.DataFrame):
        return frame.get_column("sample")
    return pl.Series("sample", np.asarray(frame["sample"]), strict=False)


def highlight_ids(frame: Any, lookup: ProfileIndex) -> np.ndarray:
    """The distinct sample ids of `frame` (sorted, int64), all samples of `lookup`'s profile.

    Raises
    ------
    TypeError
        `frame` is no DataFrame.
    ValueError
        No ``sample`` column, nulls or non-integers in it, ids that are no sample of the
        profile (the first few are named), or more than `HIGHLIGHT_LIMIT` samples.
    """
    column = _sample_column(frame)
    if not column.dtype.is_integer():
        raise ValueError(f"highlight(frame): the 'sample' column must hold integer sample ids, got {column.dtype}")
    if column.null_count():
        raise ValueError(f"highlight(frame): the 'sample' column has {column.null_count():,} nulls")
    wide = column.cast(pl.Int64, strict=False)  # ids beyond int64 become null: no sample has them
    ids = np.unique(wide.fill_null(-1).to_numpy())
    if len(ids) > HIGHLIGHT_LIMIT:
        raise ValueError(f"highlight(frame): at most {HIGHLIGHT_LIMIT:,} samples at once, got {len(ids):,}")
    unknown = lookup.rows_of(ids) < 0
    if unknown.any():
        strangers = column.filter(wide.is_null() | wide.is_in(pl.Series(ids[unknown]).implode())).unique().sort()
        raise ValueError(
            f"highlight(frame): {strangers.len():,} ids are no sample of this profile"
            f" (e.g. {', '.join(map(str, strangers.head(5).to_list()))})"
        )
    return ids
