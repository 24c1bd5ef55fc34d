"""Chart data: pure polars/numpy aggregations that `ipu_nb.charts` draws.

Every function here reduces samples to a frame whose height depends on the
tiles, bins or groups asked for, never on the sample count, so a chart of a
million-sample profile embeds a few hundred rows and no raw samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from .._markup.sanitize import distinct_names, safe_field
from .._model.grid import GRID_COLUMNS
from .._model.index import int_extreme

__all__ = [
    "SAMPLE_GROUPS",
    "Distribution",
    "active_tiles_frame",
    "distribution_frame",
    "gantt_frame",
    "grid_position",
    "spec_percentile",
    "tile_grid_frame",
]

#: Kinds drawn as work in "active tiles" views; idle samples (and inactive compute) are not activity.
ACTIVE_KINDS: tuple[str, ...] = ("compute", "exchange", "synchronization")

#: Groupings of samples by name (a samples DataFrame may also be grouped by any of its columns).
SAMPLE_GROUPS = ("kind", "kernel", "operation", "phase", "tile")


def grid_position(tile: pl.Expr) -> list[pl.Expr]:
    """``row`` and ``column`` of a physical tile id on the C600 grid."""
    return [(tile // GRID_COLUMNS).alias("row"), (tile % GRID_COLUMNS).alias("column")]


def _busy() -> pl.Expr:
    """Samples that occupy the tile: not idle, and not compute flagged ``active=false``."""
    return (pl.col("kind").cast(pl.String) != "idle") & ~pl.col("inactive").fill_null(False)


def _working() -> pl.Expr:
    """Samples doing work: compute (unless ``active=false``) and exchange; sync and idle are waiting."""
    return pl.col("kind").cast(pl.String).is_in(["compute", "exchange"]) & ~pl.col("inactive").fill_null(False)


def _end() -> pl.Expr:
    return pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)


def _with_inactive(samples: pl.DataFrame) -> pl.DataFrame:
    if "inactive" in samples.columns:
        return samples
    return samples.with_columns(pl.lit(False).alias("inactive"))


def spec_percentile(sorted_durations: np.ndarray, percent: int) -> int:
    """The query core's percentile: ``d[(n−1)·p div 100]`` of ascending durations (n > 0).

    The rule: docs/reference/query.md#percentiles.
    """
    n = len(sorted_durations)
    return int(sorted_durations[(n - 1) * percent // 100])


def tile_grid_frame(samples: pl.DataFrame, tiles: pl.Series | None = None) -> pl.DataFrame:
    """Per physical tile of the selection: cycles, busy cycles, shares of the window, grid row and column.

    The window is the selection's extent (first offset to last end over all its
    samples), so a phase selection shows each tile's occupancy inside that phase.
    ``share`` is the tile's selected cycles over the window; ``busy_share`` counts
    only working samples (compute not flagged ``active=false``, and exchange):
    synchronization and idle are time spent waiting.
    ``tiles`` lists every tile to draw (all of the profile's, zero-filled);
    by default only tiles with a selected sample appear.
    """
    samples = _with_inactive(samples)
    per_tile = samples.group_by("tile").agg(
        pl.len().cast(pl.Int64).alias("samples"),
        pl.col("duration").cast(pl.Int64).sum().alias("cycles"),
        pl.col("duration").cast(pl.Int64).filter(_working()).sum().alias("busy_cycles"),
    )
    window = int(samples.select(_end().max() - pl.col("offset").cast(pl.Int64).min()).item() or 0)
    base = (
        pl.DataFrame({"tile": tiles.cast(pl.Int64).unique()})
        if tiles is not None
        else per_tile.select(pl.col("tile").cast(pl.Int64))
    )
    frame = (
        base.join(per_tile.with_columns(pl.col("tile").cast(pl.Int64)), on="tile", how="left")
        .with_columns(pl.col("samples", "cycles", "busy_cycles").fill_null(0))
        .with_columns(
            (pl.col("cycles") / window if window else pl.lit(0.0)).alias("share"),
            (pl.col("busy_cycles") / window if window else pl.lit(0.0)).alias("busy_share"),
            *grid_position(pl.col("tile")),
        )
        .sort("tile")
    )
    return frame


def _integral(sorted_points: np.ndarray, prefix: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Σ_i max(0, t − x_i) for each t, from ascending x and its prefix sums (exact in int64)."""
    count = np.searchsorted(sorted_points, t, side="left")
    return count * t - prefix[count]


def active_tiles_frame(samples: pl.DataFrame, bins: int = 400) -> pl.DataFrame:
    """Average number of tiles busy in each kind over equal time bins (exact, no sampling).

    The busy-tile count is a step function; its integral over ``[0, t]`` is
    Σ max(0, t − start) − Σ max(0, t − end), evaluated at the bin edges with
    sorted prefix sums, so a bin's value is the exact mean count over the bin.
    Returns ``bins × kinds`` rows: kind, start, end (cycles), active_tiles.
    """
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    samples = _with_inactive(samples)
    busy = samples.filter(_busy()).select(
        pl.col("kind").cast(pl.String),
        pl.col("offset").cast(pl.Int64).alias("start"),
        _end().alias("end"),
    )
    span = int_extreme(busy.get_column("end")) if busy.height else 0
    edges = np.unique(np.linspace(0, max(span, 1), bins + 1).round().astype(np.int64))
    widths = np.diff(edges)
    frames = []
    for kind in ACTIVE_KINDS:
        part = busy.filter(pl.col("kind") == kind)
        if part.height == 0:
            continue
        starts = np.sort(part.get_column("start").to_numpy())
        ends = np.sort(part.get_column("end").to_numpy())
        f = _integral(starts, np.concatenate(([0], np.cumsum(starts))), edges) - _integral(
            ends, np.concatenate(([0], np.cumsum(ends))), edges
        )
        frames.append(
            pl.DataFrame(
                {
                    "kind": [kind] * len(widths),
                    "start": edges[:-1],
                    "end": edges[1:],
                    "active_tiles": np.diff(f) / widths,
                }
            )
        )
    if not frames:
        return pl.DataFrame(schema={"kind": pl.String, "start": pl.Int64, "end": pl.Int64, "active_tiles": pl.Float64})
    return pl.concat(frames)


def _group_column(samples: pl.DataFrame, group_by: str) -> pl.Expr:
    if group_by == "phase":
        return pl.format("phase {}/{}", pl.col("phase"), pl.col("epoch"))
    if group_by == "tile":
        return pl.format("tile {}", pl.col("tile"))
    if group_by in samples.columns:
        return pl.col(group_by).cast(pl.String)
    raise ValueError(f"cannot group samples by {group_by!r}: use one of {', '.join(SAMPLE_GROUPS)}")


def grouped_durations(samples: pl.DataFrame, group_by: str, top: int) -> tuple[pl.DataFrame, int]:
    """(group, duration) for the ``top`` groups with the most work cycles, and the total group count.

    Groups are the raw values (the empty kernel is its own group, named "" here).
    """
    keyed = samples.select(_group_column(samples, group_by).alias("group"), pl.col("duration").cast(pl.Int64))
    ranking = (
        keyed.group_by("group")
        .agg(pl.col("duration").sum().alias("work"), pl.len().alias("n"))
        .sort(["work", "group"], descending=[True, False])
    )
    keep = ranking.head(top).get_column("group")
    return keyed.filter(pl.col("group").is_in(keep.implode())), ranking.height


@dataclass(frozen=True)
class Distribution:
    """Duration distributions of the top groups, binned so the data size is independent of sample count.

    ``histogram``: group, start, end (bin edges in cycles), count, share (of the group's samples).
    ``ecdf``: group, duration, fraction — ``points + 1`` quantile points per group.
    ``markers``: group, stat (p50 or p95, indexed as docs/reference/query.md#percentiles says), cycles, samples.
    ``group`` is the group's name, "(no kernel)" for the empty kernel (made distinct
    from a kernel of that name); ``order`` lists the groups as drawn (by name).
    """

    histogram: pl.DataFrame
    ecdf: pl.DataFrame
    markers: pl.DataFrame
    group_count: int
    log: bool
    order: tuple[str, ...] = ()


def distribution_frame(
    samples: pl.DataFrame,
    group_by: str = "kernel",
    *,
    top: int = 8,
    bins: int = 40,
    log: bool | None = None,
    points: int = 100,
) -> Distribution:
    """Bin the durations of the ``top`` groups (by work cycles) on shared edges.

    ``log`` None picks geometric bins when durations span more than two decades.
    """
    if bins < 1 or points < 1 or top < 1:
        raise ValueError("bins, points and top must be at least 1")
    keyed, group_count = grouped_durations(samples, group_by, top)
    hist_rows: list[pl.DataFrame] = []
    ecdf_rows: list[pl.DataFrame] = []
    marker_rows: list[dict[str, object]] = []
    durations = keyed.get_column("duration").to_numpy()
    keyed = keyed.sort("group")
    raw = keyed.get_column("group").unique(maintain_order=True).to_list()
    names = dict(zip(raw, distinct_names(raw, empty="(no kernel)" if group_by == "kernel" else "(empty)"), strict=True))
    if len(durations):
        lo, hi = int(durations.min()), int(durations.max())
        if log is None:
            log = hi > 100 * max(lo, 1)
        if log:
            edges = np.unique(np.geomspace(max(lo, 1), hi + 1, bins + 1))
            edges[0] = min(edges[0], lo)  # zero-length samples land in the first bin
        else:
            edges = np.linspace(lo, hi + 1, bins + 1)
        for (raw_group,), part in keyed.group_by("group", maintain_order=True):
            group = names[raw_group]
            d = np.sort(part.get_column("duration").to_numpy())
            counts, _ = np.histogram(d, bins=edges)
            hist_rows.append(
                pl.DataFrame(
                    {"start": edges[:-1], "end": edges[1:], "count": counts.astype(np.int64), "share": counts / len(d)}
                ).with_columns(pl.lit(group, dtype=pl.String).alias("group"))
            )
            index = (np.arange(points + 1) * (len(d) - 1)) // points
            ecdf_rows.append(
                pl.DataFrame({"duration": d[index].astype(np.int64), "fraction": (index + 1) / len(d)})
                .with_columns(pl.lit(group, dtype=pl.String).alias("group"))
                .unique("duration", keep="last", maintain_order=True)
            )
            for stat, percent in (("p50", 50), ("p95", 95)):
                marker_rows.append(
                    {"group": group, "stat": stat, "cycles": spec_percentile(d, percent), "samples": len(d)}
                )
    hist_schema = {"group": pl.String, "start": pl.Float64, "end": pl.Float64, "count": pl.Int64, "share": pl.Float64}
    ecdf_schema = {"group": pl.String, "duration": pl.Int64, "fraction": pl.Float64}
    marker_schema = {"group": pl.String, "stat": pl.String, "cycles": pl.Int64, "samples": pl.Int64}
    histogram = (
        pl.concat(hist_rows).select(list(hist_schema)).filter(pl.col("count") > 0)
        if hist_rows
        else pl.DataFrame(schema=hist_schema)
    )
    ecdf = pl.concat(ecdf_rows).select(list(ecdf_schema)) if ecdf_rows else pl.DataFrame(schema=ecdf_schema)
    markers = pl.DataFrame(marker_rows, schema=marker_schema)
    return Distribution(histogram, ecdf, markers, group_count, bool(log), tuple(names.values()))


def gantt_frame(samples: pl.DataFrame) -> pl.DataFrame:
    """The columns a Gantt bar needs, strings as plain text (Categorical/Enum do not serialise)."""
    samples = _with_inactive(samples)
    wanted = [c for c in ("sample", "tile", "phase", "epoch", "kind", "operation", "kernel") if c in samples.columns]
    return samples.select(
        *[pl.col(c).cast(pl.String) if c in ("kind", "operation", "kernel") else pl.col(c) for c in wanted],
        # The runtime's timeline draws compute flagged active=false as idle; the stored kind stays in `kind`.
        pl.when(pl.col("inactive").fill_null(False))
        .then(pl.lit("idle"))
        .otherwise(pl.col("kind").cast(pl.String))
        .alias("drawn_as"),
        pl.col("offset").cast(pl.Int64).alias("start"),
        _end().alias("end"),
        pl.col("duration").cast(pl.Int64),
    ).sort(["tile", "start"])


def metadata_entries(samples: pl.DataFrame, metadata: pl.DataFrame | None = None) -> pl.DataFrame:
    """(sample, name, value) of the selected samples' metadata, in entry order.

    From the samples' own ``metadata`` list column (`Profile.filter` output) or,
    without it, from the profile's long ``metadata`` frame.
    """
    schema = {"sample": pl.UInt32, "name": pl.String, "value": pl.String}
    if "sample" not in samples.columns:
        return pl.DataFrame(schema=schema)
    if "metadata" in samples.columns:
        long = samples.select("sample", "metadata").explode("metadata").drop_nulls("metadata").unnest("metadata")
    elif metadata is not None:
        ids = samples.get_column("sample").implode()
        long = metadata.filter(pl.col("sample").is_in(ids)).sort(["sample", "position"])
    else:
        return pl.DataFrame(schema=schema)
    return long.select(
        pl.col("sample").cast(pl.UInt32), pl.col("name").cast(pl.String), pl.col("value").cast(pl.String)
    )


def metadata_columns(entries: pl.DataFrame, top: int) -> tuple[pl.DataFrame, list[tuple[str, str]]]:
    """Each sample's first value of the ``top`` most common metadata names, one column per name.

    Returns (sample + the columns, [(column, name)]). Columns are named by
    `ipu_nb._markup.sanitize.safe_field`, never by the names: a profile string never
    names a chart field (it becomes the column's title).
    """
    if entries.height == 0 or top < 1:
        return pl.DataFrame(schema={"sample": pl.UInt32}), []
    names = (
        entries.group_by("name")
        .agg(pl.col("sample").n_unique().alias("samples"))
        .sort(["samples", "name"], descending=[True, False])
        .head(top)
        .get_column("name")
        .to_list()
    )
    fields = {name: safe_field("metadata", i) for i, name in enumerate(names)}
    wide = (
        entries.filter(pl.col("name").is_in(names))
        .with_columns(pl.col("name").replace_strict(fields).alias("field"))
        .group_by(["sample", "field"], maintain_order=True)
        .agg(pl.col("value").first())
        .pivot(on="field", index="sample", values="value")
    )
    return wide.select("sample", *fields.values()), [(fields[n], n) for n in names]
