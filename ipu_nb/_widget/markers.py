"""Markers: labelled notes on the timeline, a point in time or a range, kept in the widget's state.

The ``marker_rows`` trait holds them as ``{"start", "end", "label"}`` dicts (`Marker`), sorted
by time; Python adds them (``widget.add_marker``) and so does the browser (key ``M``), each
checked here the same way: integer offsets inside the profile, ``start <= end``, a label of
at most `MAX_LABEL` characters, at most `MAX_MARKERS` of them. Labels are untrusted text:
the front end shows them escaped, and terminal listings go through `printable`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .._terminal import printable
from .protocol import Marker

__all__ = ["MARKER_KEYS", "MAX_LABEL", "MAX_MARKERS", "MarkerError", "marker_frame", "new_marker", "normalise_markers"]

MAX_MARKERS = 500
"""The most markers a view holds."""
MAX_LABEL = 200
"""The longest label, in characters."""
MARKER_KEYS: tuple[str, ...] = ("start", "end", "label")


class MarkerError(ValueError):
    """A marker that cannot be kept (the message says which and why)."""


def _offset(value: Any, what: str, limit: int) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise MarkerError(f"{what} must be an integer offset in cycles, got {type(value).__name__}")
    if not 0 <= value <= limit:
        raise MarkerError(f"{what} must be an offset within the profile, 0..{limit}, got {int(value)}")
    return int(value)


def new_marker(start: Any, end: Any, label: Any, limit: int, what: str = "marker") -> Marker:
    """One checked marker: ``end`` None means a point (``end = start``); offsets in ``0..limit``.

    >>> new_marker(10, None, "warm-up done", 100)
    {'start': 10, 'end': 10, 'label': 'warm-up done'}
    >>> new_marker(50, 10, "", 100)
    Traceback (most recent call last):
    ...
    ipu_nb._widget.markers.MarkerError: marker: end 10 is before start 50
    """
    first = _offset(start, f"{what} start", limit)
    last = first if end is None else _offset(end, f"{what} end", limit)
    if last < first:
        raise MarkerError(f"{what}: end {last} is before start {first}")
    if not isinstance(label, str):
        raise MarkerError(f"{what} label must be a str, got {type(label).__name__}")
    if len(label) > MAX_LABEL:
        raise MarkerError(f"{what} label must be at most {MAX_LABEL} characters, got {len(label)}")
    return {"start": first, "end": last, "label": label}


def normalise_markers(value: Any, limit: int) -> list[Marker]:
    """The markers of `value` (a list of ``{"start", "end", "label"}`` dicts) checked and sorted by time.

    ``limit`` is the largest offset a marker may have (the profile's view limit).
    """
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise MarkerError(f"markers must be a list of {{'start', 'end', 'label'}} dicts, got {type(value).__name__}")
    if len(value) > MAX_MARKERS:
        raise MarkerError(f"at most {MAX_MARKERS} markers, got {len(value)}")
    out: list[Marker] = []
    for i, item in enumerate(value):
        what = f"markers[{i}]"
        if not isinstance(item, Mapping):
            raise MarkerError(f"{what} must be a dict with keys start, end, label, got {type(item).__name__}")
        unknown = sorted(printable(repr(k))[:40] for k in set(item) - set(MARKER_KEYS))
        if unknown or "start" not in item:
            raise MarkerError(
                f"{what} must have keys start, end (optional), label; got {', '.join(unknown) or 'no start'}"
            )
        out.append(new_marker(item["start"], item.get("end"), item.get("label", ""), limit, what))
    return sorted(out, key=lambda m: (m["start"], m["end"], m["label"]))


def marker_frame(markers: Sequence[Mapping[str, Any]]) -> pl.DataFrame:
    """The markers as a DataFrame: ``start``, ``end`` (Int64 offsets) and ``label``, sorted by time.

    >>> marker_frame([{"start": 5, "end": 9, "label": "a"}]).rows()
    [(5, 9, 'a')]
    """
    return pl.DataFrame(
        {
            "start": [m["start"] for m in markers],
            "end": [m["end"] for m in markers],
            "label": [m["label"] for m in markers],
        },
        schema={"start": pl.Int64, "end": pl.Int64, "label": pl.String},
    )
