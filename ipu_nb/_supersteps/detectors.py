"""`findings()`: concrete, ranked statements of where a profile's cycles go and what fixing them would save.

Each detector reads the superstep structure (`structure.measure`) or the query core, and
every finding carries the cycles at stake, the `Query` whose filters show it and a
widget state (filters and a view range). The rules and thresholds are documented in
docs/reference/supersteps.md#findings.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from .._model.index import int_extreme
from .._query import NO_KERNEL, Query, QueryError, make_query, query
from .._query.filters_codec import filters_of
from .balance import balance_of
from .structure import STEP, Measured, balance, measure, tile_sums
from .text import count_text, cycles_text, kernel_text, ms_text, percent_text, query_flags, ratio_text

if TYPE_CHECKING:
    from .._model.vocabulary import Kind
    from .._profile import Profile

__all__ = ["CATEGORIES", "Finding", "Findings", "drained", "finding_steps", "findings"]

T = TypeVar("T")

#: Every category, in the order ties in cycles at stake are ranked.
CATEGORIES: tuple[str, ...] = (
    "straggler-tile",
    "imbalanced-kernel",
    "imbalanced-phase",
    "idle-tiles",
    "exchange-dominated",
    "sync-dominated",
    "long-tail-kernel",
)


@dataclass(frozen=True)
class Finding:
    """One ranked statement: what, how many cycles are at stake, and how to look at it.

    Attributes
    ----------
    category : str
        One of `CATEGORIES`.
    subject : str
        What it is about: ``tile 812``, ``phase 17/0``, ``kernel "gemm"``, ...
    cycles : int
        Cycles at stake (what fixing it would save, or the time it takes).
    message : str
        One sentence with the numbers.
    query : Query
        Filters that select the samples it is about (``ipu_nb.query(profile, finding.query)``).
    view : tuple[int, int]
        Offsets [start, end) of the supersteps concerned, for the timeline.
    share : float
        ``cycles`` ÷ the profile span.
    ms : float
        ``cycles`` in milliseconds.
    tile : int or None
        The physical tile it names (the straggler, a phase's critical tile), or None.
    """

    category: str
    subject: str
    cycles: int
    message: str
    query: Query
    view: tuple[int, int]
    share: float
    ms: float
    tile: int | None = None

    @property
    def flags(self) -> str:
        """`query`'s filters as ``profile-query`` flags."""
        return query_flags(self.query)

    def record(self, rank: int) -> dict[str, Any]:
        """Its fields as a table row or JSON object has them, after its `rank`."""
        return {
            "rank": rank,
            "category": self.category,
            "subject": self.subject,
            "cycles": self.cycles,
            "ms": self.ms,
            "share": self.share,
            "message": self.message,
            "flags": self.flags,
        }

    @property
    def state(self) -> dict[str, Any]:
        """A `ProfileWidget` state that shows the finding: ``{"filters": {...}, "view": [start, end]}``."""
        return {"filters": filters_of(self.query), "view": list(self.view)}


@dataclass(frozen=True, eq=False)
class Findings:
    """`findings()`'s answer: the ranked findings, the thresholds used, and the profile's clock and span.

    ``frame`` is the table form; ``to_markdown()``, ``to_text()`` and ``to_json()`` write it.
    Iterating yields `Finding` objects, best first.
    """

    items: tuple[Finding, ...]
    thresholds: dict[str, float | int]
    profile_span_cycles: int
    clock_hz: int
    tile_count: int
    sample_count: int

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Finding]:
        return iter(self.items)

    def __getitem__(self, index: int) -> Finding:
        return self.items[index]

    @cached_property
    def frame(self) -> pl.DataFrame:
        """One row per finding, best first: ``rank``, ``category``, ``subject``, ``cycles``, ``ms``,
        ``share``, ``message``, ``flags`` (the query as ``profile-query`` flags), ``view_start``,
        ``view_end``."""
        rows = [
            {**f.record(rank), "view_start": f.view[0], "view_end": f.view[1]} for rank, f in enumerate(self.items, 1)
        ]
        return pl.DataFrame(rows, schema=_FRAME_SCHEMA)

    def to_markdown(self) -> str:
        """A Markdown table of the findings; profile strings are escaped (no HTML or markup gets through)."""
        from .output import findings_markdown

        return findings_markdown(self)

    def to_text(self) -> str:
        """``ipu-nb profile-findings`` text output."""
        from .output import findings_text

        return findings_text(self)

    def to_json(self) -> str:
        """``ipu-nb profile-findings --json`` output."""
        from .output import findings_json

        return findings_json(self)

    def _repr_html_(self) -> str:
        """The findings table, every string escaped (also what `ipu_nb.save_report` shows)."""
        from .output import findings_html

        return findings_html(self)

    def __repr__(self) -> str:
        lines = [f"<Findings: {len(self.items)} over a span of {self.profile_span_cycles:,} cycles>"]
        lines += [f"  {rank}. [{f.category}] {f.message}" for rank, f in enumerate(self.items[:10], 1)]
        if len(self.items) > 10:
            lines.append(f"  … {len(self.items) - 10} more")
        return "\n".join(lines)


_FRAME_SCHEMA = {
    "rank": pl.Int64,
    "category": pl.String,
    "subject": pl.String,
    "cycles": pl.Int64,
    "ms": pl.Float64,
    "share": pl.Float64,
    "message": pl.String,
    "flags": pl.String,
    "view_start": pl.Int64,
    "view_end": pl.Int64,
}


# --------------------------------------------------------------------------- thresholds

_DEFAULTS: dict[str, float | int] = {
    "min_share": 0.005,
    "straggler_share": 0.1,
    "min_critical_phases": 2,
    "tail_ratio": 2.0,
    "dominated_share": 0.5,
    "per_category": 5,
    "limit": 0,
}


def _checked_thresholds(values: dict[str, Any]) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    for name, default in _DEFAULTS.items():
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise QueryError(f"{name} must be a number, got {value!r}")
        if isinstance(default, int):
            if value != int(value) or value < 0 or (name == "min_critical_phases" and value < 1):
                raise QueryError(f"{name} must be a whole number >= {1 if name == 'min_critical_phases' else 0}")
            out[name] = int(value)
            continue
        value = float(value)
        if name == "tail_ratio":
            if not (math.isfinite(value) and value >= 1.0):
                raise QueryError(f"tail_ratio must be a finite number >= 1, got {value!r}")
        elif not 0.0 <= value <= 1.0:
            raise QueryError(f"{name} must be between 0 and 1, got {value!r}")
        out[name] = value
    return out


# --------------------------------------------------------------------------- the detectors


@dataclass(frozen=True)
class _Context:
    """What every detector reads: the profile's scale and both superstep structures."""

    profile: Profile
    span: int
    all: Measured  # every sample
    compute: Measured  # compute samples only: the work a phase's tiles share
    thresholds: dict[str, float | int]

    @property
    def floor(self) -> float:
        """The fewest cycles at stake a finding needs: `min_share` of the span, and at least one."""
        return max(float(self.thresholds["min_share"]) * self.span, 1.0)

    def share(self, cycles: float) -> float:
        return cycles / self.span if self.span else 0.0

    def stake(self, cycles: float) -> str:
        """``310,000 cycles (0.207 ms, 9.1% of the profile span)``."""
        ms = ms_text(self.profile.ms(float(round(cycles))))
        return f"{cycles_text(cycles)} cycles ({ms} ms, {percent_text(self.share(cycles))} of the profile span)"

    def view(self, start: int, end: int) -> tuple[int, int]:
        """[start, end) as a valid timeline view: non-empty and inside the profile span."""
        limit = max(self.span, 1)
        end = min(max(end, start + 1), limit)
        return min(start, end - 1), end

    def finding(
        self,
        category: str,
        subject: str,
        cycles: float,
        message: str,
        q: Query,
        view: tuple[int, int],
        tile: int | None = None,
    ) -> Finding:
        whole = round(cycles)
        return Finding(
            category=category,
            subject=subject,
            cycles=whole,
            message=message,
            query=q,
            view=self.view(*view),
            share=self.share(whole),
            ms=self.profile.ms(float(whole)),
            tile=tile,
        )


def _step_name(row: dict[str, Any]) -> str:
    return f"{row['phase']}/{row['epoch']}"


def _stragglers(c: _Context) -> list[Finding]:
    """Tiles critical in at least `straggler_share` of the compute phases (and `min_critical_phases`)."""
    steps = c.compute.steps
    total = steps.height
    out = []
    tiles = balance_of(c.compute).filter(
        (pl.col("critical_count") >= c.thresholds["min_critical_phases"])
        & (pl.col("critical_share") >= c.thresholds["straggler_share"])
    )
    for row in tiles.iter_rows(named=True):
        tile = row["tile"]
        held = steps.filter(pl.col("critical_tile") == tile)
        cycles = row["recoverable_cycles"]
        message = (
            f"tile {tile} is critical in {percent_text(row['critical_share'])} of compute phases "
            f"({row['critical_count']:,} of {total:,}); balancing them would save {c.stake(cycles)}"
        )
        view = (int_extreme(held.get_column("start"), "min"), int_extreme(held.get_column("end")))
        out.append(
            c.finding(
                "straggler-tile", f"tile {tile}", cycles, message, make_query(kind="compute", tiles=tile), view, tile
            )
        )
    return out


def _imbalanced_phases(c: _Context) -> list[Finding]:
    """Each compute phase: what balancing its compute over the tiles that compute would save."""
    out = []
    steps = c.compute.steps.filter(pl.col("recoverable_cycles") >= c.floor - 0.5)
    for row in steps.iter_rows(named=True):
        name = _step_name(row)
        message = (
            f"phase {name} ({kernel_text(row['dominant_kernel'])}) is imbalanced: tile {row['critical_tile']} "
            f"computes for {row['critical_cycles']:,} cycles against a mean of {cycles_text(row['mean_tile_cycles'])} "
            f"over {row['tile_count']:,} tiles; balancing would save {c.stake(row['recoverable_cycles'])}"
        )
        q = make_query(kind="compute", phases=row["phase"])
        out.append(
            c.finding(
                "imbalanced-phase",
                f"phase {name}",
                row["recoverable_cycles"],
                message,
                q,
                (row["start"], row["end"]),
                row["critical_tile"],
            )
        )
    return out


def _imbalanced_kernels(c: _Context) -> list[Finding]:
    """Per compute kernel: Σ over its phases of what balancing its own samples over their tiles would save.

    The same number as ``supersteps(profile, kind="compute", kernel=K).recoverable_cycles.sum()``.
    """
    samples = c.compute.samples.lazy()
    end = pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)
    per_step = balance(tile_sums(samples, c.compute.keys, by=("kernel",)), by=("kernel",))
    bounds = samples.group_by("kernel", "_step").agg(start=pl.col("offset").cast(pl.Int64).min(), end=end.max())
    per_kernel = (
        per_step.join(bounds, on=["kernel", "_step"])
        .group_by(pl.col("kernel").cast(pl.String))
        .agg(
            phases=pl.len(),
            recoverable=pl.col("recoverable_cycles").sum(),
            critical=pl.col("critical_cycles").sum(),
            mean=pl.col("mean_tile_cycles").sum(),
            start=pl.col("start").min(),
            end=pl.col("end").max(),
        )
        .collect()
    )
    out = []
    for row in per_kernel.iter_rows(named=True):
        ratio = row["critical"] / row["mean"] if row["mean"] else 1.0
        message = (
            f"{kernel_text(row['kernel'])} is imbalanced across tiles in {count_text(row['phases'], 'compute phase')}: "
            f"its busiest tiles run {ratio_text(ratio)} the mean; balancing its work would save "
            f"{c.stake(row['recoverable'])}"
        )
        q = make_query(kind="compute", kernel=row["kernel"])
        subject = kernel_text(row["kernel"])
        out.append(c.finding("imbalanced-kernel", subject, row["recoverable"], message, q, (row["start"], row["end"])))
    return out


def _idle_tiles(c: _Context) -> list[Finding]:
    """Tiles with a sample but no compute in a compute phase, and what spreading the compute over them would save.

    Per compute phase, work ÷ computing tiles − work ÷ all tiles with a sample there.
    """
    present = c.all.steps.select(*STEP, _all="tile_count")
    steps = c.compute.steps.join(present, on=STEP).filter(pl.col("_all") > pl.col("tile_count"))
    if steps.height == 0:
        return []
    work = pl.col("compute_cycles").cast(pl.Float64)
    stake = work / pl.col("tile_count").cast(pl.Float64) - work / pl.col("_all").cast(pl.Float64)
    steps = steps.with_columns(_idle=pl.col("_all") - pl.col("tile_count"), _stake=stake)
    cycles = float(steps.get_column("_stake").sum())
    idle = float(steps.get_column("_idle").mean())  # type: ignore[arg-type]
    tiles = float(steps.get_column("_all").mean())  # type: ignore[arg-type]
    message = (
        f"on average {cycles_text(idle)} of {cycles_text(tiles)} tiles {'is' if round(idle) == 1 else 'are'} idle "
        f"while others compute, in {steps.height:,} of {count_text(c.compute.steps.height, 'compute phase')}; "
        "spreading the work over them would save "
        f"up to {c.stake(cycles)}"
    )
    view = (int_extreme(steps.get_column("start"), "min"), int_extreme(steps.get_column("end")))
    return [c.finding("idle-tiles", "idle tiles", cycles, message, make_query(kind="idle"), view)]


def _stretches(scores: list[float]) -> list[tuple[int, int]]:
    """Disjoint runs [first, last] of positive total score, scanning left to right.

    A run starts at a positive score, grows while its running total stays positive and
    ends where that total peaked; the scan resumes right after it.
    """
    runs, i, n = [], 0, len(scores)
    while i < n:
        if scores[i] <= 0:
            i += 1
            continue
        total = best = 0.0
        last = j = i
        while j < n:
            total += scores[j]
            if total <= 0:
                break
            if total > best:
                best, last = total, j
            j += 1
        runs.append((i, last))
        i = last + 1
    return runs


def _dominated(c: _Context, spans: pl.DataFrame, kind: Kind, category: str) -> list[Finding]:
    """Stretches of consecutive supersteps (execution order) that spend more than `dominated_share` in `kind`.

    A superstep's time in `kind` is the union of its `kind` intervals (``spans``: what
    ``supersteps(profile, kind=kind)`` reports as its span); a stretch is a run of
    `_stretches` over (time in kind − dominated_share × span).
    """
    in_kind = spans.filter(pl.col("kind") == kind).select("_step", _inside="span_cycles")
    steps = c.all.steps.join(in_kind, on="_step", how="left", maintain_order="left")
    inside = steps.get_column("_inside").fill_null(0).cast(pl.Float64).to_list()
    span = steps.get_column("span_cycles").cast(pl.Float64).to_list()
    theta = float(c.thresholds["dominated_share"])
    rows = steps.select(*STEP, "start", "end").to_dicts()
    out = []
    for first, last in _stretches([x - theta * t for x, t in zip(inside, span, strict=True)]):
        cycles, total = sum(inside[first : last + 1]), sum(span[first : last + 1])
        group = rows[first : last + 1]
        share = percent_text(cycles / total if total else 0.0)
        if first == last:
            where = f"phase {_step_name(group[0])}"
            said = f"{where} spends {share} of its time in {kind}"
        else:
            where = f"phases {_step_name(group[0])} to {_step_name(group[-1])}"
            said = f"{where} ({len(group):,} supersteps) spend {share} of their time in {kind}"
        phases = sorted({r["phase"] for r in group})
        view = (min(r["start"] for r in group), max(r["end"] for r in group))
        q = make_query(kind=kind, phases=phases)
        out.append(c.finding(category, where, cycles, f"{said}: {c.stake(cycles)}", q, view))
    return out


def _long_tails(c: _Context) -> list[Finding]:
    """Compute kernels whose p95 is at least `tail_ratio` times their p50 (the query core's percentiles).

    At stake: Σ over the kernel's phases of (its longest sample there − its p50), clipped at 0.
    """
    groups = query(c.profile, kind="compute", group_by="kernel", limit=0).groups
    tails = []
    for row in groups.iter_rows(named=True):
        p50, p95 = row["p50_cycles"], row["p95_cycles"]
        ratio = p95 / p50 if p50 else (math.inf if p95 else 1.0)
        if row["name"] != NO_KERNEL and ratio >= c.thresholds["tail_ratio"]:
            tails.append((row["name"], p50, p95, ratio))
    if not tails:
        return []
    names = [t[0] for t in tails]
    end = pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)
    longest = (
        c.compute.samples.lazy()
        .filter(pl.col("kernel").is_in(names))
        .group_by(pl.col("kernel").cast(pl.String), *STEP)
        .agg(
            longest=pl.col("duration").cast(pl.Int64).max(), start=pl.col("offset").cast(pl.Int64).min(), end=end.max()
        )
        .collect()
    )
    out = []
    for name, p50, p95, ratio in tails:
        rows = longest.filter(pl.col("kernel") == name).with_columns(excess=(pl.col("longest") - p50).clip(0))
        cycles = int(rows.get_column("excess").sum())
        worst = rows.sort(["excess", "start"], descending=[True, False]).row(0, named=True)
        message = (
            f"{kernel_text(name)} has a long tail: p95 {p95:,} cycles is {ratio_text(ratio)} its p50 of {p50:,}; "
            f"at the median its slowest samples would shorten its {count_text(rows.height, 'phase')} by up to "
            f"{c.stake(cycles)}"
        )
        q = make_query(kind="compute", kernel=name)
        out.append(c.finding("long-tail-kernel", kernel_text(name), cycles, message, q, (worst["start"], worst["end"])))
    return out


def findings(
    profile: Profile,
    *,
    min_share: float = 0.005,
    straggler_share: float = 0.1,
    min_critical_phases: int = 2,
    tail_ratio: float = 2.0,
    dominated_share: float = 0.5,
    per_category: int = 5,
    limit: int = 0,
) -> Findings:
    """Concrete findings about a profile, ranked by the cycles at stake.

    Categories (docs/reference/supersteps.md#findings has each rule): straggler
    tiles, imbalanced kernels and phases (recoverable cycles over the compute samples),
    tiles idle while others compute, exchange- and sync-dominated stretches, and compute
    kernels with a long tail (p95 ÷ p50). Findings may overlap (a straggler's phases are
    also imbalanced phases), so their cycles do not add up.

    Parameters
    ----------
    min_share : float
        Keep a finding only if its cycles at stake are at least this share of the profile
        span (and at least one cycle). Default 0.005 (0.5%).
    straggler_share, min_critical_phases : float, int
        A straggler is critical in at least this share of the compute phases, and in at
        least this many. Defaults 0.1 and 2.
    tail_ratio : float
        A long tail has p95 ≥ tail_ratio × p50. Default 2.0.
    dominated_share : float
        A stretch spends more than this share of its time in exchange (or sync). Default 0.5.
    per_category : int
        At most this many findings per category, the best ones (0 = no cap). Default 5.
    limit : int
        At most this many findings in all (0 = no limit).

    Raises
    ------
    QueryError
        A threshold out of range.
    """
    thresholds = _checked_thresholds(
        {
            "min_share": min_share,
            "straggler_share": straggler_share,
            "min_critical_phases": min_critical_phases,
            "tail_ratio": tail_ratio,
            "dominated_share": dominated_share,
            "per_category": per_category,
            "limit": limit,
        }
    )
    return drained(finding_steps(profile, thresholds))


def finding_steps(
    profile: Profile, thresholds: dict[str, float | int] | None = None
) -> Generator[None, None, Findings]:
    """`findings` in steps: yields between its parts and returns the `Findings`.

    Each part (collecting the superstep structure, the per-kind spans, the detectors)
    takes up to a few seconds at ten million samples; the widget's background work runs
    one at a time while the view is still. `thresholds` are checked ones (default: the
    defaults of `findings`).

    >>> steps = finding_steps(profile)
    >>> drained(steps).sample_count == profile.sample_count
    True
    """
    thresholds = _checked_thresholds(_DEFAULTS) if thresholds is None else thresholds
    span = profile.span_cycles
    everything = measure(profile, Query())
    yield
    spans = everything.kind_spans(("exchange", "synchronization"))  # the kinds `_dominated` reads
    yield
    context = _Context(
        profile=profile,
        span=span,
        all=everything,
        compute=measure(profile, make_query(kind="compute")),
        thresholds=thresholds,
    )
    yield
    found = [*_stragglers(context), *_imbalanced_kernels(context), *_imbalanced_phases(context), *_idle_tiles(context)]
    found += [
        *_dominated(context, spans, "exchange", "exchange-dominated"),
        *_dominated(context, spans, "synchronization", "sync-dominated"),
    ]
    yield
    found += _long_tails(context)
    found = [f for f in found if f.cycles >= context.floor]
    found.sort(key=lambda f: (-f.cycles, CATEGORIES.index(f.category), f.subject))
    cap, kept, counts = int(thresholds["per_category"]), [], dict.fromkeys(CATEGORIES, 0)
    for f in found:
        if cap and counts[f.category] >= cap:
            continue
        counts[f.category] += 1
        kept.append(f)
    if thresholds["limit"]:
        kept = kept[: int(thresholds["limit"])]
    return Findings(
        items=tuple(kept),
        thresholds=thresholds,
        profile_span_cycles=span,
        clock_hz=profile.clock_hz,
        tile_count=profile.tile_count,
        sample_count=profile.sample_count,
    )


def drained(steps: Generator[None, None, T]) -> T:
    """Run a stepped computation (such as `finding_steps`) to its end and return its value."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
