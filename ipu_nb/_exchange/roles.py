"""The role sweep: how each exchange sample's event window splits into sending, receiving, both, waiting and idle.

The newest runtime reads an exchange activity's start and end as cycle offsets inside the
sample's exchange event window ``[0, exchangeEventCycles]``; it clamps each to the window,
drops those left empty, and sweeps the boundaries (docs/reference/head.md#the-role-sweep).
One vectorised pass over every activity of every sample: the boundaries sorted per sample,
the depth of each kind after each boundary a running sum (each kept activity adds one and
takes one away, so the sum is back to 0 at every sample's end), and each stretch between
two boundaries of a sample credited to the roles open during it.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .._model.columns import ACTIVITY_KINDS
from .._model.profile import ProfileData

__all__ = ["ROLE_COLUMNS", "role_cycles"]

#: Per sample, the runtime's five role sums, then the window split into disjoint parts (the renderer's
#: labels: both, send only, receive only, partner busy with neither, none).
ROLE_COLUMNS: tuple[str, ...] = (
    "send_cycles",
    "receive_cycles",
    "simultaneous_cycles",
    "partner_busy_cycles",
    "idle_cycles",
    "send_only_cycles",
    "receive_only_cycles",
    "partner_busy_only_cycles",
)


def role_cycles(profile: ProfileData, samples: np.ndarray, event_cycles: np.ndarray) -> pl.DataFrame:
    """Per sample id of `samples` (with its window length in `event_cycles`): the cycles of each role.

    Columns ``sample`` then `ROLE_COLUMNS` (UInt64), one row per given sample in the given
    order; a sample without activities (or whose activities all fall outside its window)
    is idle for its whole window.
    """
    samples = np.asarray(samples, dtype=np.int64)
    windows = np.asarray(event_cycles, dtype=np.int64)
    slot = np.full(int(samples.max()) + 1 if len(samples) else 0, -1, dtype=np.int64)
    slot[samples] = np.arange(len(samples))
    acts = profile.exchange_activities
    owner = acts.get_column("sample").to_numpy().astype(np.int64)
    mine = owner < len(slot)
    mine[mine] = slot[owner[mine]] >= 0
    row = slot[owner[mine]]
    window = windows[row]
    lo = np.minimum(acts.get_column("start").to_numpy()[mine].astype(np.int64), window)
    hi = np.minimum(acts.get_column("end").to_numpy()[mine].astype(np.int64), window)
    kind = acts.get_column("kind").to_physical().to_numpy()[mine].astype(np.int64)
    kept = hi > lo
    row, lo, hi, kind = row[kept], lo[kept], hi[kept], kind[kept]
    # Each kept activity is two boundaries: +1 of its kind at its start, -1 at its end.
    at = np.concatenate([lo, hi])
    owners = np.concatenate([row, row])
    step = np.concatenate([np.ones(len(lo), dtype=np.int64), -np.ones(len(hi), dtype=np.int64)])
    kinds = np.concatenate([kind, kind])
    order = np.lexsort((at, owners))
    at, owners, step, kinds = at[order], owners[order], step[order], kinds[order]
    depth = {name: np.cumsum(np.where(kinds == ACTIVITY_KINDS.index(name), step, 0)) for name in ACTIVITY_KINDS}
    sending, receiving, waiting = (depth[name] > 0 for name in ACTIVITY_KINDS)
    # The stretch after boundary i up to the next boundary of the same sample.
    same = np.zeros(len(at), dtype=bool)
    same[:-1] = owners[1:] == owners[:-1]
    stretch = np.zeros(len(at), dtype=np.int64)
    stretch[:-1] = np.where(same[:-1], at[1:] - at[:-1], 0)
    neither = ~sending & ~receiving
    parts = {
        "send_cycles": sending,
        "receive_cycles": receiving,
        "simultaneous_cycles": sending & receiving,
        "partner_busy_cycles": waiting,
        "idle_cycles": neither & ~waiting,
        "send_only_cycles": sending & ~receiving,
        "receive_only_cycles": receiving & ~sending,
        "partner_busy_only_cycles": neither & waiting,
    }
    n = len(samples)
    totals = {name: _sums(owners, stretch * mask, n) for name, mask in parts.items()}
    # Before a sample's first boundary and after its last, nothing is open: idle.
    first = np.ones(len(at), dtype=bool)
    first[1:] = owners[1:] != owners[:-1]
    idle = totals["idle_cycles"] + _sums(owners[first], at[first], n)
    last = ~same
    has = np.zeros(n, dtype=bool)
    has[owners] = True
    idle += np.where(has, 0, windows)
    idle += _sums(owners[last], windows[owners[last]] - at[last], n)
    totals["idle_cycles"] = idle
    return pl.DataFrame({"sample": samples.astype(np.uint32), **{c: totals[c].astype(np.uint64) for c in ROLE_COLUMNS}})


def _sums(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Per slot 0..n-1, the sum of the non-negative integer `values` at it (int64).

    Exact through float64: every slot's sum is at most its window, below 2**32.
    """
    return np.rint(np.bincount(index, weights=values.astype(np.float64), minlength=n)).astype(np.int64)
