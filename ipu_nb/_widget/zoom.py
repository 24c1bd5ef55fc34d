"""Where the timeline zooms to (`ProfileWidget.zoom_to`, the front end's fit requests): a sample, a phase,
an offset range or the samples matching the filters, in the profile shown."""

from __future__ import annotations

from .messages import MAX_SAFE_INTEGER, MessageError, check_integer, check_range
from .shown import Shown
from .timeline import extent, fit

__all__ = ["FIT_MARGIN", "fitted", "zoom_target"]

FIT_MARGIN = 0.05
"""Room left on each side of what is fitted, as a fraction of its width."""


def fitted(shown: Shown, by: str, value: int | None, margin: float = FIT_MARGIN) -> list[int] | None:
    """The view showing `by` ("sample", "phase" or "matching") and `value` with `margin` (None: nothing to fit)."""
    side = shown.side
    found = extent(shown.profile, side.index, side.lookup, shown.matching.mask, by, value)
    return None if found is None else fit(found, margin, side.limits.end)


def zoom_target(
    shown: Shown,
    *,
    sample: int | None,
    phase: int | None,
    range: tuple[int, int] | list[int] | None,
    matching: bool,
    margin: float,
) -> tuple[list[int], int | None]:
    """`ProfileWidget.zoom_to`'s view for its keywords, and the sample it selects (None: the selection stays).

    Raises `ValueError` naming the keyword: none or several given, no such sample or phase,
    no sample matching the filters, or a range outside the profile.
    """
    given = [name for name, v in (("sample", sample), ("phase", phase), ("range", range)) if v is not None]
    if matching:
        given.append("matching")
    if len(given) != 1:
        raise ValueError(
            "zoom_to needs exactly one of sample=ID, phase=N, range=(start, end) or matching=True,"
            f" got {', '.join(given) or 'none'}"
        )
    if not (isinstance(margin, (int, float)) and 0 <= margin <= 10):
        raise ValueError(f"zoom_to margin must be a number in 0..10 (a fraction of the width), got {margin!r}")
    limit = shown.side.limits.end
    if range is not None:
        try:
            start, end = range
            return list(check_range(start, end, "zoom_to range", limit)), None
        except (MessageError, TypeError, ValueError) as error:
            raise ValueError(
                f"zoom_to(range=(start, end)) needs integers 0 <= start < end <= {limit}: {error}"
            ) from None
    if sample is not None:
        try:
            value = check_integer(sample, "zoom_to sample", 0, MAX_SAFE_INTEGER)
        except MessageError:
            value = -1
        found = fitted(shown, "sample", value, margin) if value >= 0 else None
        if found is None:
            raise ValueError(f"zoom_to(sample={sample!r}): no sample with that id in this profile")
        return found, value
    if phase is not None:
        found = fitted(shown, "phase", check_integer(phase, "zoom_to phase", 0, MAX_SAFE_INTEGER), margin)
        if found is None:
            raise ValueError(f"zoom_to(phase={phase!r}): no sample has that phase")
        return found, None
    found = fitted(shown, "matching", None, margin)
    if found is None:
        raise ValueError("zoom_to(matching=True): no sample matches the filters")
    return found, None
