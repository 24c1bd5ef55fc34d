"""The newest runtime's renderer's split of exchange samples: display segments and accounting parts.

Per (epoch, phase), the exchange samples with cycles and an event window give the phase's
*bounds*: the last entry (largest start), the last exit (largest end) and the event start
(last exit less the longest window). For display, an exchange sample with activities and a
window becomes synchronization up to the last entry, then its window swept as the
renderer labels it (send and receive open: ``sendReceive``; else ``send``, ``receive``,
``partnerBusy``, or ``exchangeIdle`` with none), each activity placed at the event start
plus its offsets and clamped to the sample's part of ``[entry, exit]``, then
synchronization to its end; every other sample is one piece of its kind (inactive compute:
idle). For accounting, an exchange sample of a phase with bounds splits into "exchange
boundary wait" before the last entry, exchange up to the last exit, and "exchange boundary
sampling" after it. docs/reference/head.md#exchange-activity-on-the-timeline.

The bounds are taken on `clock` (by default the samples' own offsets), the pieces come back
on the samples' offsets: a sample's shift between the two is kept. One deviation from the
renderer: a piece never reaches past its sample's end (the renderer's leading
synchronization may, under the samples drawn after it).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from .._model.columns import ACTIVITY_KINDS
from .._model.profile import ProfileData
from .._model.vocabulary import ACCOUNTING_PARTS, STEP_KINDS
from .._query.head.clock import cycle_origin, raw_offsets

__all__ = [
    "ACCOUNTING_PARTS",
    "DISPLAY_CLASSES",
    "accounting_parts",
    "bounds_clock",
    "display_segments",
    "phase_bounds",
    "profile_pieces",
]

#: A display piece's class: 1 + index here (the step kinds first, in the file's enumerant order, then what an
#: exchange window holds, in the renderer's colour table order).
DISPLAY_CLASSES: tuple[str, ...] = (*STEP_KINDS, "send", "receive", "sendReceive", "partnerBusy", "exchangeIdle")

_EXCHANGE = STEP_KINDS.index("exchange")
_SYNC = DISPLAY_CLASSES.index("synchronization") + 1
_IDLE = DISPLAY_CLASSES.index("idle") + 1
_SWEEP = {name: DISPLAY_CLASSES.index(name) + 1 for name in ("sendReceive", "send", "receive", "partnerBusy")}
_NONE = DISPLAY_CLASSES.index("exchangeIdle") + 1
_TIME_BITS = 36
"""Cycle offsets on any clock stay below 2**36 (a u32 counter read against an origin, plus a u32 duration)."""


def _kind_codes(samples: pl.DataFrame) -> np.ndarray:
    """Each sample's step kind code (`STEP_KINDS` order), inactive compute as idle."""
    kind = samples.get_column("kind").to_physical().to_numpy().astype(np.int64)
    if "inactive" in samples.columns:
        kind = np.where(samples.get_column("inactive").to_numpy(), STEP_KINDS.index("idle"), kind)
    return kind


def phase_bounds(samples: pl.DataFrame, clock: np.ndarray | None = None) -> pl.DataFrame:
    """Per (epoch, phase) with an exchange sample of cycles and window: ``entry``, ``exit`` and ``event_start``.

    `clock`: each sample's offset to take the bounds on (default its ``offset``).

    >>> s = pl.DataFrame({"epoch": [0, 0], "phase": [1, 1], "kind": ["exchange"] * 2, "offset": [0, 5],
    ...                   "duration": [20, 10], "exchange_event_cycles": [8, 6]})
    >>> phase_bounds(s.with_columns(pl.col("kind").cast(pl.Enum(STEP_KINDS)))).row(0)
    (0, 1, 5, 20, 12)
    """
    at = samples.get_column("offset").to_numpy().astype(np.int64) if clock is None else np.asarray(clock, np.int64)
    duration = samples.get_column("duration").to_numpy().astype(np.int64)
    window = samples.get_column("exchange_event_cycles").to_numpy().astype(np.int64)
    kind = samples.get_column("kind").to_physical().to_numpy()
    keep = (kind == _EXCHANGE) & (duration > 0) & (window > 0)
    frame = pl.DataFrame(
        {
            "epoch": samples.get_column("epoch").filter(pl.Series(keep)),
            "phase": samples.get_column("phase").filter(pl.Series(keep)),
            "_at": at[keep],
            "_end": at[keep] + duration[keep],
            "_window": window[keep],
        }
    )
    return (
        frame.group_by("epoch", "phase")
        .agg(entry=pl.col("_at").max(), exit=pl.col("_end").max(), _w=pl.col("_window").max())
        .with_columns(event_start=pl.col("exit") - pl.col("_w"))
        .drop("_w")
        .sort("epoch", "phase")
    )


def _bounds_of(
    samples: pl.DataFrame, clock: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per sample: whether its phase has bounds, and the phase's entry, exit and event start (0 where none)."""
    bounds = phase_bounds(samples, clock)
    joined = (
        samples.select("epoch", "phase")
        .with_row_index("_row")
        .join(bounds, on=["epoch", "phase"], how="left")
        .sort("_row")
    )
    has = joined.get_column("entry").is_not_null().to_numpy()
    entry, exit_, event = (
        joined.get_column(c).fill_null(0).to_numpy().astype(np.int64) for c in ("entry", "exit", "event_start")
    )
    return has, entry, exit_, event


def bounds_clock(profile: ProfileData, per_tile: bool) -> np.ndarray | None:
    """Each sample's offset to take the phase bounds on: the device-wide one when `per_tile`, else None (its own)."""
    if not per_tile:
        return None
    return raw_offsets(profile.samples.get_column("start").to_numpy(), cycle_origin(profile)).astype(np.int64)


def profile_pieces(profile: ProfileData, per_tile: bool = True) -> pl.DataFrame:
    """`display_segments` of every sample of `profile`, with its ``tile`` and ``activity`` (the class's name).

    `per_tile`: the profile's offsets are each tile's own (the phase bounds are then taken on the
    device-wide clock, as the widget does); else they are on one clock for every tile.

    >>> pieces = profile_pieces(profile)
    >>> pieces.columns, int(pieces["duration"].sum()) == int(profile.samples["duration"].sum())
    (['sample', 'tile', 'offset', 'duration', 'activity'], True)
    """
    samples = profile.samples
    pieces = display_segments(samples, profile.exchange_activities, bounds_clock(profile, per_tile))
    activity = pl.col("cls").replace_strict(range(1, len(DISPLAY_CLASSES) + 1), DISPLAY_CLASSES, return_dtype=pl.String)
    return pieces.join(samples.select("sample", "tile"), on="sample", how="left", maintain_order="left").select(
        "sample", "tile", "offset", "duration", activity=activity
    )


def display_segments(samples: pl.DataFrame, activities: pl.DataFrame, clock: np.ndarray | None = None) -> pl.DataFrame:
    """Every sample's display pieces: ``sample``, ``offset``, ``duration`` (on the samples' offsets) and ``cls``.

    `samples` needs ``sample``, ``offset``, ``duration``, ``kind``, ``epoch``, ``phase`` and
    ``exchange_event_cycles`` (``inactive`` if there), `activities` ``sample``, ``kind``,
    ``start`` and ``end`` (offsets in the window). ``cls`` is 1 + an index of
    `DISPLAY_CLASSES`. Pieces are in sample order (as `samples` lists them), then offset;
    neighbouring pieces of one sample and class are one piece; a sample that is not split is
    one piece as it is (zero-length ones too), so the pieces' cycles are the samples'.
    """
    n = samples.height
    ids = samples.get_column("sample").to_numpy().astype(np.int64)
    offset = samples.get_column("offset").to_numpy().astype(np.int64)
    duration = samples.get_column("duration").to_numpy().astype(np.int64)
    window = samples.get_column("exchange_event_cycles").to_numpy().astype(np.int64)
    kind = _kind_codes(samples)
    at = offset if clock is None else np.asarray(clock, dtype=np.int64)
    shift = at - offset
    # The samples' rows holding each activity (activities of samples not listed are left out).
    slot = np.full(int(ids.max()) + 1 if n else 0, -1, dtype=np.int64)
    slot[ids] = np.arange(n)
    owner = activities.get_column("sample").to_numpy().astype(np.int64)
    listed = owner < len(slot)
    listed[listed] = slot[owner[listed]] >= 0
    act_row = slot[owner[listed]]
    described = np.zeros(n, dtype=bool)
    described[act_row] = True
    has, entry, exit_, event = _bounds_of(samples, clock)
    split = (kind == _EXCHANGE) & described & (window > 0) & (duration > 0) & has
    cls = np.where(kind == _EXCHANGE, _EXCHANGE + 1, kind + 1).astype(np.int64)
    whole = np.flatnonzero(~split)
    parts = [(whole, offset[whole], offset[whole] + duration[whole], cls[whole])]
    rows = np.flatnonzero(split)
    if len(rows):
        parts.append(
            _runs_merged(_split_pieces(rows, at, duration, entry, exit_, event, act_row, activities, listed, split))
        )
    row, lo, hi, c = _runs_merged(parts)
    keep = (hi > lo) | ~split[row]
    row, lo, hi, c = row[keep], lo[keep], hi[keep], c[keep]
    # Back on the samples' offsets (split pieces were made on the clock).
    lo = np.where(split[row], lo - shift[row], lo)
    hi = np.where(split[row], hi - shift[row], hi)
    row, lo, hi, c = _merged(row, lo, hi, c)
    return pl.DataFrame(
        {
            "sample": ids[row].astype(np.uint32),
            "offset": lo.astype(np.uint64),
            "duration": (hi - lo).astype(np.uint32),
            "cls": c.astype(np.uint8),
        }
    )


def _split_pieces(
    rows: np.ndarray,
    at: np.ndarray,
    duration: np.ndarray,
    entry: np.ndarray,
    exit_: np.ndarray,
    event: np.ndarray,
    act_row: np.ndarray,
    activities: pl.DataFrame,
    listed: np.ndarray,
    split: np.ndarray,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The pieces of the split samples `rows` on the clock: leading sync, the swept window, trailing sync
    (three lists, each sorted by row then offset)."""
    start, end = at[rows], at[rows] + duration[rows]
    xs = np.maximum(start, entry[rows])
    xe = np.minimum(end, exit_[rows])
    lead_end = np.minimum(xs, end)
    trail_start = np.maximum(xe, lead_end)
    sync = np.full(len(rows), _SYNC, dtype=np.int64)
    lead, trail = (rows, start, lead_end, sync), (rows, trail_start, end, sync)
    # The activities of split samples, clamped into [xs, xe] of their sample.
    mine = split[act_row]
    a_row = act_row[mine]
    pos = np.full(len(at), -1, dtype=np.int64)
    pos[rows] = np.arange(len(rows))
    a_at = pos[a_row]
    a_start = activities.get_column("start").to_numpy()[listed][mine].astype(np.int64)
    a_end = activities.get_column("end").to_numpy()[listed][mine].astype(np.int64)
    a_kind = activities.get_column("kind").to_physical().to_numpy()[listed][mine].astype(np.int64)
    lo_bound, hi_bound, base = xs[a_at], xe[a_at], event[a_row]
    a_lo = np.maximum(lo_bound, np.minimum(hi_bound, base + a_start))
    a_hi = np.maximum(lo_bound, np.minimum(hi_bound, base + a_end))
    kept = a_hi > a_lo
    a_at, a_lo, a_hi, a_kind = a_at[kept], a_lo[kept], a_hi[kept], a_kind[kept]
    # The sweep: each kept activity opens at its start and closes at its end; each window with cycles
    # adds its two ends as boundaries that change nothing.
    swept = np.flatnonzero(xe > xs)
    times = np.concatenate([a_lo, a_hi, xs[swept], xe[swept]])
    owner = np.concatenate([a_at, a_at, swept, swept])
    step = np.concatenate([np.ones(len(a_lo)), -np.ones(len(a_hi)), np.zeros(2 * len(swept))]).astype(np.int64)
    kinds = np.concatenate([a_kind, a_kind, np.full(2 * len(swept), -1)])
    # One key (owner above the cycle bits): events of a time may come in any order, only the state after them counts.
    order = np.argsort((owner << _TIME_BITS) + times)
    times, owner, step, kinds = times[order], owner[order], step[order], kinds[order]
    depth = {name: np.cumsum(np.where(kinds == ACTIVITY_KINDS.index(name), step, 0)) > 0 for name in ACTIVITY_KINDS}
    sending, receiving, busy = depth["send"], depth["receive"], depth["partnerBusy"]
    label = np.select(
        [sending & receiving, sending, receiving, busy],
        [_SWEEP["sendReceive"], _SWEEP["send"], _SWEEP["receive"], _SWEEP["partnerBusy"]],
        _NONE,
    )
    same = owner[1:] == owner[:-1]
    sweep = (rows[owner[:-1][same]], times[:-1][same], times[1:][same], label[:-1][same])
    return [lead, sweep, trail]


def _runs_merged(
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pieces ``(row, lo, hi, class)`` of several lists, each sorted by row then offset, as one list so sorted.

    Within a row the lists' pieces must follow one another in list order (a stable merge by row keeps them so).
    """
    row = np.concatenate([p[0] for p in parts])
    order = np.argsort(row, kind="stable")  # a merge of sorted runs
    return row[order], *(np.concatenate([p[k] for p in parts])[order] for k in (1, 2, 3))  # type: ignore[return-value]


def _merged(
    row: np.ndarray, lo: np.ndarray, hi: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Neighbouring pieces (sorted by row, then offset) of one row and class that touch, as one piece."""
    if len(row) < 2:
        return row, lo, hi, c
    joins = (row[1:] == row[:-1]) & (c[1:] == c[:-1]) & (lo[1:] == hi[:-1]) & (hi[1:] > lo[1:]) & (hi[:-1] > lo[:-1])
    first = np.r_[True, ~joins]
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], len(row)] - 1
    return row[starts], lo[starts], hi[ends], c[starts]


def accounting_parts(samples: pl.DataFrame, clock: np.ndarray | None = None) -> pl.DataFrame:
    """Every exchange sample of a phase with bounds cut into its accounting parts, on the samples' offsets.

    Columns ``sample``, ``part`` (0, 1, 2: `ACCOUNTING_PARTS`), ``offset`` and ``duration``,
    the parts with cycles only, in sample then part order; a sample with none keeps its
    exchange part (part 1) whole. Samples of other kinds, or of phases without bounds, are
    left out: they count as they are.
    """
    n = samples.height
    ids = samples.get_column("sample").to_numpy().astype(np.int64)
    offset = samples.get_column("offset").to_numpy().astype(np.int64)
    duration = samples.get_column("duration").to_numpy().astype(np.int64)
    at = offset if clock is None else np.asarray(clock, dtype=np.int64)
    has, entry, exit_, _ = _bounds_of(samples, clock)
    rows = np.flatnonzero((_kind_codes(samples) == _EXCHANGE) & has)
    start, end = at[rows], at[rows] + duration[rows]
    wait_end = np.maximum(start, np.minimum(end, entry[rows]))
    xs, xe = np.maximum(start, entry[rows]), np.minimum(end, exit_[rows])
    after = np.maximum(start, exit_[rows])
    lo = np.stack([start, xs, after], axis=1)
    hi = np.stack([wait_end, xe, end], axis=1)
    keep = hi > lo
    none = ~keep.any(axis=1)
    keep[none, 1] = True
    lo[none, 1], hi[none, 1] = start[none], end[none]
    r, part = np.nonzero(keep)
    shift = (at - offset)[rows[r]]
    del n
    return pl.DataFrame(
        {
            "sample": ids[rows[r]].astype(np.uint32),
            "part": part.astype(np.uint8),
            "offset": (lo[r, part] - shift).astype(np.uint64),
            "duration": (hi[r, part] - lo[r, part]).astype(np.uint32),
        }
    )
