"""The newest runtime's exchange summary (`profile-inspect --semantics head`), per phase and in total.

Exchange samples with a window (``exchangeEventCycles`` > 0) are gathered per (epoch,
phase) on the shared clock, uncropped: the phase's measured length runs from the last
tile's entry to the last exit, its scheduled length is the longest window, the arrival
wait is the spread of the entries and the boundary is what the measured length exceeds
the scheduled one by. The role sums come from `ipu_nb._exchange.roles.role_cycles`. The
rules: docs/reference/head.md#profile-inspect.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._model.vocabulary import camel
from .._query.head import cycle_origin, raw_offsets
from .roles import role_cycles

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["PHASE_COLUMNS", "SUMMARY_FIELDS", "exchange_phases", "exchange_summary", "phase_table", "summary_line"]

#: `exchange_summary`'s keys, in the order of the runtime's line (whose names are these in camel case).
SUMMARY_FIELDS: tuple[str, ...] = (
    "clock_hz",
    "tiles",
    "samples",
    "exchange_samples",
    "described_exchange_samples",
    "send_intervals",
    "receive_intervals",
    "partner_busy_intervals",
    "estimated_send_work_cycles",
    "estimated_receive_work_cycles",
    "estimated_simultaneous_work_cycles",
    "estimated_partner_busy_work_cycles",
    "estimated_exchange_idle_work_cycles",
    "measured_exchange_phase_cycles",
    "scheduled_exchange_event_cycles",
    "exchange_arrival_wait_cycles",
    "exchange_phase_boundary_cycles",
)

#: `exchange_phases` columns: the phase, its counts, its four lengths, then its summed role cycles.
PHASE_COLUMNS: tuple[str, ...] = (
    "phase",
    "epoch",
    "samples",
    "described_samples",
    "measured_cycles",
    "scheduled_cycles",
    "arrival_wait_cycles",
    "boundary_cycles",
    "send_work_cycles",
    "receive_work_cycles",
    "simultaneous_work_cycles",
    "partner_busy_work_cycles",
    "idle_work_cycles",
)

_ROLE_SUMS = {
    "send_work_cycles": "send_cycles",
    "receive_work_cycles": "receive_cycles",
    "simultaneous_work_cycles": "simultaneous_cycles",
    "partner_busy_work_cycles": "partner_busy_cycles",
    "idle_work_cycles": "idle_cycles",
}


def _profile(source: ProfileData | str | os.PathLike[str]) -> ProfileData:
    if isinstance(source, (str, os.PathLike)):
        from .._profile import open_profile

        return open_profile(os.fspath(source))
    return source


def _windowed(profile: ProfileData) -> pl.DataFrame:
    """The exchange samples with a window: their phase, entry and exit on the shared clock, window, activity count."""
    samples = profile.samples.filter((pl.col("kind") == "exchange") & (pl.col("exchange_event_cycles") > 0))
    entry = raw_offsets(samples.get_column("start").to_numpy(), cycle_origin(profile))
    counts = profile.exchange_activities.group_by("sample").agg(activities=pl.len().cast(pl.Int64))
    return (
        samples.select("sample", "phase", "epoch", pl.col("exchange_event_cycles").cast(pl.Int64).alias("window"))
        .with_columns(
            entry=pl.Series(entry.astype(np.int64)),
            exit=pl.Series(entry.astype(np.int64)) + samples.get_column("duration").cast(pl.Int64),
        )
        .join(counts, on="sample", how="left")
        .with_columns(pl.col("activities").fill_null(0))
    )


def phase_table(profile: ProfileData) -> pl.DataFrame:
    """Per windowed exchange sample: phase, epoch, entry, exit, window, the phase's last entry, and its role cycles.

    The one table `exchange_phases`, `exchange_summary` and the anatomy chart's data read.
    Role cycles are 0 for a sample without activities (the runtime sums only described ones).
    """
    rows = _windowed(profile)
    described = rows.filter(pl.col("activities") > 0)
    roles = role_cycles(profile, described.get_column("sample").to_numpy(), described.get_column("window").to_numpy())
    rows = rows.join(roles, on="sample", how="left").with_columns(pl.col(roles.columns[1:]).fill_null(0))
    return rows.with_columns(last_entry=pl.col("entry").max().over("epoch", "phase"))


def exchange_phases(source: ProfileData | str | os.PathLike[str]) -> pl.DataFrame:
    """Per exchange phase, ordered by (epoch, phase): its lengths and the role cycles of its tiles, summed.

    Columns `PHASE_COLUMNS`: ``samples`` (exchange samples with a window) and
    ``described_samples`` (those with activities); ``measured_cycles`` (last exit less last
    entry), ``scheduled_cycles`` (the longest window), ``arrival_wait_cycles`` (last entry
    less first), ``boundary_cycles`` (measured less scheduled, at least 0); then the send,
    receive, simultaneous, partner-busy and idle work cycles of the role sweep, summed over
    the phase's samples (docs/reference/head.md#profile-inspect). `source` is a profile or a path.

    >>> phases = exchange_phases(ipu_nb.generate_profile("v5.capnp", tiles=8, phases=4, schema_version=5))
    >>> phases.columns[:4], phases.get_column("phase").to_list()
    (['phase', 'epoch', 'samples', 'described_samples'], [0, 2, 4, 6])
    """
    table = phase_table(_profile(source))
    grouped = table.group_by("epoch", "phase").agg(
        samples=pl.len().cast(pl.Int64),
        described_samples=(pl.col("activities") > 0).sum().cast(pl.Int64),
        _first=pl.col("entry").min(),
        _last=pl.col("entry").max(),
        _exit=pl.col("exit").max(),
        scheduled_cycles=pl.col("window").max(),
        **{name: pl.col(column).cast(pl.Int64).sum() for name, column in _ROLE_SUMS.items()},
    )
    measured = (pl.col("_exit") - pl.col("_last")).clip(0)
    return (
        grouped.with_columns(measured_cycles=measured, arrival_wait_cycles=pl.col("_last") - pl.col("_first"))
        .with_columns(boundary_cycles=(pl.col("measured_cycles") - pl.col("scheduled_cycles")).clip(0))
        .sort("epoch", "phase")
        .select([pl.col(c).cast(pl.UInt32) if c in ("phase", "epoch") else pl.col(c) for c in PHASE_COLUMNS])
    )


def exchange_summary(source: ProfileData | str | os.PathLike[str]) -> dict[str, int]:
    """The newest runtime's `profile-inspect` summary as a dict, keys `SUMMARY_FIELDS` (its line's, in snake case).

    The interval counts count every activity of the described samples, empty ones too; the
    work cycles are the role sweep's, summed over them; the four phase lengths are
    `exchange_phases`' columns, summed (docs/reference/head.md#profile-inspect). `source` is a
    profile or a path.

    >>> summary = exchange_summary(ipu_nb.generate_profile("v5.capnp", tiles=8, phases=4, schema_version=5))
    >>> summary["exchange_samples"], summary["scheduled_exchange_event_cycles"] > 0  # 8 tiles, 4 exchanges
    (32, True)
    """
    profile = _profile(source)
    phases = exchange_phases(profile)
    exchange = profile.samples.filter(pl.col("kind") == "exchange")
    described = phase_table(profile).filter(pl.col("activities") > 0).get_column("sample")
    kinds = profile.exchange_activities.filter(pl.col("sample").is_in(described.implode())).get_column("kind")
    counts = kinds.value_counts()
    by_kind = dict(counts.select(pl.col("kind").cast(pl.String), "count").iter_rows())
    total: dict[str, Any] = {c: int(phases.get_column(c).sum()) for c in PHASE_COLUMNS[4:]}
    return {
        "clock_hz": profile.clock_hz,
        "tiles": profile.tile_count,
        "samples": profile.sample_count,
        "exchange_samples": exchange.height,
        "described_exchange_samples": described.len(),
        "send_intervals": int(by_kind.get("send", 0)),
        "receive_intervals": int(by_kind.get("receive", 0)),
        "partner_busy_intervals": int(by_kind.get("partnerBusy", 0)),
        "estimated_send_work_cycles": total["send_work_cycles"],
        "estimated_receive_work_cycles": total["receive_work_cycles"],
        "estimated_simultaneous_work_cycles": total["simultaneous_work_cycles"],
        "estimated_partner_busy_work_cycles": total["partner_busy_work_cycles"],
        "estimated_exchange_idle_work_cycles": total["idle_work_cycles"],
        "measured_exchange_phase_cycles": total["measured_cycles"],
        "scheduled_exchange_event_cycles": total["scheduled_cycles"],
        "exchange_arrival_wait_cycles": total["arrival_wait_cycles"],
        "exchange_phase_boundary_cycles": total["boundary_cycles"],
    }


def summary_line(summary: dict[str, int]) -> str:
    """The runtime's one line (with its newline): ``clockHz=… tiles=… samples=…`` and the fields in order.

    >>> summary_line({field: 0 for field in SUMMARY_FIELDS}).split()[:4]
    ['clockHz=0', 'tiles=0', 'samples=0', 'exchangeSamples=0']
    """
    return " ".join(f"{camel(field)}={summary[field]}" for field in SUMMARY_FIELDS) + "\n"
