"""The overview strip's picture: per bin of the whole span, each colour class's share of all tiles' cycles.

The strip draws each bin as a stack of class colours whose heights are these shares of its
height, background above, so the mean colour of any range of columns is the cycle-weighted
mean of the class colours over every tile for that stretch of cycles, gaps as background: the
same conservation as the timeline's cells (`shares`). The classes are the timeline's for
``color_by`` (`TimelineIndex.classes`), class `GREY` holding the samples that do not match the
filters, as `shares.share_window` colours them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .index import GREY, TimelineIndex

__all__ = ["OverviewShares", "bin_sums", "overview_shares"]


@dataclass(frozen=True)
class OverviewShares:
    """``shares[p, bin]``: the tile-cycles of class ``classes[p]`` in the bin / (rows × bin width).

    ``classes`` (u8, ascending) holds only the classes some sample of positive length has; a bin's
    shares add up to at most 1 (the rest is gaps).
    """

    span: int
    bins: int
    classes: np.ndarray
    shares: np.ndarray


def bin_sums(a: np.ndarray, b: np.ndarray, group: np.ndarray, groups: int, bins: int) -> np.ndarray:
    """Per (group, bin), the summed overlap of intervals ``[a, b)`` (in bin units, within ``[0, bins]``).

    Each interval is cut into a first piece, whole bins and a last piece; whole bins are counted
    by a difference array, so the cost is the intervals' number plus ``groups × bins``.

    >>> bin_sums(np.array([0.5, 1.0]), np.array([2.25, 2.0]), np.array([0, 1]), 2, 3).tolist()
    [[0.5, 1.0, 0.25], [0.0, 1.0, 0.0]]
    """
    out = np.zeros(groups * bins)
    if not len(a):
        return out.reshape(groups, bins)
    i0 = np.minimum(a.astype(np.int64), bins - 1)
    i1 = np.minimum(b.astype(np.int64), bins)
    same = i0 == i1
    first = np.where(same, b - a, (i0 + 1) - a)
    last = np.where(same | (i1 >= bins), 0.0, b - i1)
    base = group.astype(np.int64) * bins
    out += np.bincount(base + i0, first, groups * bins)
    out += np.bincount(base + np.minimum(i1, bins - 1), last, groups * bins)
    inner = np.maximum(i1 - i0 - 1, 0)
    has = inner > 0
    # Whole bins i0 + 1 … i1 − 1 of each group: +1 where they begin, −1 after; a row of bins + 1 per group.
    wide = group[has].astype(np.int64) * (bins + 1)
    diff = np.bincount(wide + i0[has] + 1, minlength=groups * (bins + 1)) - np.bincount(
        wide + i1[has], minlength=groups * (bins + 1)
    )
    whole = np.cumsum(diff.reshape(groups, bins + 1), axis=1)[:, :bins]
    return out.reshape(groups, bins) + whole


def overview_shares(
    index: TimelineIndex, bins: int, matched: np.ndarray | None, color_by: str = "kind"
) -> OverviewShares:
    """The shares of `index`'s whole span in `bins` bins (`matched`: per sorted position, None: all match).

    Where a row's samples overlap, a (row, bin) covered more than once counts its classes as shares
    of its cover, as the timeline's cells do, so no bin adds up past 1.
    """
    bins = max(1, int(bins))
    span = max(int(index.span), 1)
    rows = max(index.rows, 1)
    some = index.end > index.start
    cls = index.classes(color_by)
    slot_class = cls if matched is None else np.where(matched, cls, GREY)
    slot_class = slot_class[some].astype(np.uint8)
    classes = np.unique(slot_class)
    slot = np.searchsorted(classes, slot_class)
    width = span / bins
    a = index.start_f[some] / width
    b = index.end_f[some] / width
    if not index.overlaps:
        sums = bin_sums(a, b, slot, len(classes), bins)
    else:
        row = index.row[some]
        cover = np.maximum(bin_sums(a, b, row, rows, bins), 1.0)
        sums = np.zeros((len(classes), bins))
        for p in range(len(classes)):
            mine = slot == p
            sums[p] = (bin_sums(a[mine], b[mine], row[mine], rows, bins) / cover).sum(axis=0)
    return OverviewShares(span=span, bins=bins, classes=classes, shares=sums / rows)
