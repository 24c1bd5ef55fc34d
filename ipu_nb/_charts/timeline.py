"""The widget's timeline as an Altair chart: tile rows × time bins of a window, binned in polars.

Each (row, bin) cell is coloured as the widget's light theme colours it, conserving area: the
cycle-weighted mean, per sRGB channel, of the colours of the samples covering it, the cycles no
sample covers counting as the white background. A sample's colour is its kind's
(`ipu_nb.palette()`), with ``color_by="kernel"`` its kernel class's (`ipu_nb._model.kernel_classes`:
the kernels ranked over the whole profile, as the widget's legend), and with ``color_by="activity"``
each exchange sample is drawn as its display pieces (`ipu_nb._exchange.display.profile_pieces`:
boundary wait as synchronization, send, receive, both, partner busy, exchange idle), as the widget
does. When there are more tiles than rows, consecutive tiles (in the order given) share a row and
are averaged the same way. The chart embeds at most `MAX_CELLS` rectangles (neighbouring cells of
one colour are merged), never raw samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import altair as alt
import polars as pl

from .._exchange.display import profile_pieces
from .._markup.sanitize import label
from .._model.kernel_classes import kernel_colours
from .._model.palette import WINDOW_PALETTE, palette
from .._terminal import printable
from .common import as_profile, chart_data

if TYPE_CHECKING:
    from .._profile import Profile

__all__ = ["BACKGROUND", "CELL_PX", "COLOR_COLUMNS", "MAX_CELLS", "timeline", "timeline_cells"]

#: The colour of cycles no sample covers (the widget's light plot background).
BACKGROUND: tuple[int, int, int] = (255, 255, 255)
#: Pixels of chart width per time bin.
CELL_PX = 4
#: The most (row, bin) cells a chart has: the rows are bounded by this over the bins.
MAX_CELLS = 16_000
_ROW_HEIGHT = 6
#: The colourings `timeline` draws (the widget's): the column of the samples (or pieces) each colours by.
COLOR_COLUMNS: dict[str, str] = {"kind": "kind", "kernel": "kernel", "activity": "activity"}


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def bin_edges(start: int, end: int, bins: int, k: pl.Expr) -> pl.Expr:
    """Offset where bin `k` of `bins` over ``[start, end)`` begins (integers, so cycles add up exactly)."""
    return start + (k * (end - start)) // bins


def timeline_cells(
    samples: pl.DataFrame,
    tiles: Sequence[int],
    window: tuple[int, int],
    bins: int,
    rows: int,
    key: str = "kind",
    colours: dict[str, str] | None = None,
) -> pl.DataFrame:
    """The colour of each covered (row, bin) cell: ``row``, ``bin``, ``r``, ``g``, ``b`` (0..255 floats).

    `samples` has ``tile``, ``offset``, ``duration`` and the column `key`; `tiles` are the
    physical ids drawn, top to bottom (others left out), spread over `rows` rows of consecutive
    tiles; the window ``[start, end)`` is cut into `bins` bins whose edges are `bin_edges`. A
    sample's colour is ``colours[its key]`` (``"#rrggbb"``; default the kind palette; a missing
    key is "", and a sample whose key has no colour is left out). A cell's colour is
    Σ(cycles × colour) plus the uncovered cycles × `BACKGROUND`, over the cell's cycles (tiles
    in the row × bin width). Cells no sample covers are left out.
    """
    start, end = window
    length = end - start
    n = len(tiles)
    order = pl.DataFrame(
        {"tile": list(tiles), "row": [i * rows // n for i in range(n)]}, schema={"tile": pl.Int64, "row": pl.Int64}
    )
    per_row = order.group_by("row").agg(pl.len().alias("members"))
    table = pl.DataFrame(
        [
            {"key": name, "cr": c[0], "cg": c[1], "cb": c[2]}
            for name, c in ((k, _rgb(v)) for k, v in (palette() if colours is None else colours).items())
        ],
        schema={"key": pl.String, "cr": pl.Int64, "cg": pl.Int64, "cb": pl.Int64},
    )
    first = pl.max_horizontal(pl.col("offset").cast(pl.Int64), pl.lit(start)) - start
    last = pl.min_horizontal(pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64), pl.lit(end)) - start
    k = pl.col("bin")
    lo = (k * length) // bins
    hi = ((k + 1) * length) // bins
    covered = (
        samples.lazy()
        .select(pl.col("tile").cast(pl.Int64), pl.col(key).cast(pl.String).fill_null("").alias("key"), s=first, e=last)
        .filter(pl.col("e") > pl.col("s"))
        .join(order.lazy(), on="tile")
        .join(table.lazy(), on="key")
        .with_columns(
            bin=pl.int_ranges(
                ((pl.col("s") + 1) * bins - 1) // length, (pl.col("e") * bins - 1) // length + 1, dtype=pl.Int64
            )
        )
        .explode("bin")
        .with_columns(cycles=pl.min_horizontal("e", hi) - pl.max_horizontal("s", lo))
        .group_by("row", "bin")
        .agg(
            cycles=pl.col("cycles").sum(),
            r=(pl.col("cycles") * pl.col("cr")).sum(),
            g=(pl.col("cycles") * pl.col("cg")).sum(),
            b=(pl.col("cycles") * pl.col("cb")).sum(),
        )
        .join(per_row.lazy(), on="row")
        .with_columns(capacity=pl.max_horizontal(pl.col("members") * (hi - lo), "cycles"))
    )
    gap = pl.col("capacity") - pl.col("cycles")
    return (
        covered.select(
            "row",
            "bin",
            *(((pl.col(c) + gap * v) / pl.col("capacity")).alias(c) for c, v in zip("rgb", BACKGROUND, strict=True)),
        )
        .sort("row", "bin")
        .collect()
    )


def _runs(cells: pl.DataFrame, window: tuple[int, int], bins: int) -> pl.DataFrame:
    """Cells of a row next to each other and of one colour as one rectangle: ``row``, ``x0``, ``x1``, ``color``."""
    start, end = window
    hexed = pl.format(
        "#{}{}{}", *(pl.col(c).round().cast(pl.Int64).map_elements(lambda v: f"{v:02x}", pl.String) for c in "rgb")
    )
    k = pl.col("bin")
    new_run = (
        (pl.col("row") != pl.col("row").shift(1))
        | (k != k.shift(1) + 1)
        | (pl.col("color") != pl.col("color").shift(1))
    ).fill_null(True)
    return (
        cells.with_columns(color=hexed)
        .with_columns(run=new_run.cum_sum())
        .group_by("run", maintain_order=True)
        .agg(
            pl.col("row").first(),
            pl.col("bin").min().alias("b0"),
            pl.col("bin").max().alias("b1"),
            pl.col("color").first(),
        )
        .select(
            "row",
            x0=bin_edges(start, end, bins, pl.col("b0")),
            x1=bin_edges(start, end, bins, pl.col("b1") + 1),
            color="color",
        )
    )


def _row_labels(tiles: Sequence[int], rows: int) -> list[str]:
    """Each row's label: its tile, or its first and last tile when it holds several."""
    n = len(tiles)
    members: list[list[int]] = [[] for _ in range(rows)]
    for i, t in enumerate(tiles):
        members[i * rows // n].append(t)
    return [str(m[0]) if len(m) == 1 else f"{m[0]}…{m[-1]} ({len(m)})" for m in members]


def _drawn(
    source: Any, profile: Profile, samples: pl.DataFrame, color_by: str
) -> tuple[pl.DataFrame, dict[str, str] | None]:
    """(what is drawn, its colours by `COLOR_COLUMNS` key or None for the kind palette): the samples, or
    in colour mode "activity" their display pieces (a widget's on its clock: one for every tile unless
    ``"tile"``)."""
    if color_by == "kernel":
        return samples, kernel_colours(profile.samples)
    if color_by == "activity":
        pieces = profile_pieces(profile, per_tile=getattr(source, "clock", "tile") == "tile")
        return pieces.filter(pl.col("sample").is_in(samples.get_column("sample").implode())), {
            **palette(),
            **WINDOW_PALETTE,
        }
    return samples, None


def _source(source: Any, window: Any, tiles: Any) -> tuple[Profile, pl.DataFrame, tuple[int, int], list[int]]:
    """(profile, samples drawn, window, tiles in row order) of a Profile or a `ProfileWidget` source."""
    profile, query = as_profile(source)
    if profile is None:
        raise TypeError(f"charts.timeline: expected a Profile or ProfileWidget, got {type(source).__name__}")
    widget = query is not None
    limit = max(profile.span_cycles, 8)
    if window is None:
        window = tuple(source.view) if widget else (0, max(profile.span_cycles, 1))
    try:
        start, end = (int(v) for v in window)
        ok = all(isinstance(v, int) and not isinstance(v, bool) for v in window) and 0 <= start < end <= limit
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"charts.timeline: window must be (start, end) with integers 0 <= start < end <= {limit}")
    known = profile.tiles.get_column("tile").unique(maintain_order=True).to_list()
    if tiles is None:
        order = list(source.timeline_tiles) if widget else sorted(known)
    else:
        if isinstance(tiles, (str, bytes)) or not isinstance(tiles, Sequence):
            raise TypeError("charts.timeline: tiles must be a list of physical tile ids")
        known_set = set(known)
        bad = [t for t in tiles if isinstance(t, bool) or not isinstance(t, int) or t not in known_set]
        if bad:
            raise ValueError(f"charts.timeline: tiles must be physical tile ids of this profile, got {bad[0]!r}")
        order = list(dict.fromkeys(tiles))
    if not order:
        raise ValueError("charts.timeline: no tile to draw")
    samples = profile.filter(query, window=(start, end)) if widget else profile.filter(window=(start, end))
    return profile, samples, (start, end), order


def timeline(
    source: Any,
    window: tuple[int, int] | list[int] | None = None,
    tiles: Sequence[int] | None = None,
    color_by: str = "kind",
    width: int = 800,
) -> alt.Chart:
    """The timeline of `window` (offsets ``(start, end)``; default the whole profile) as tile rows × time bins.

    A `ProfileWidget` source draws its current view: its `view` as the window, the samples
    its filters keep (the others as background) and its rows in its order, pinned first.
    `tiles` picks physical tiles in the order to draw (default every tile, by id). Colours are
    the widget's, area-conserving (the module docstring says how): by sample kind, or with
    ``color_by="kernel"`` by kernel class, the ranking over the whole profile, or with
    ``color_by="activity"`` exchange samples as their activities. A widget's own mode is not
    followed by default: ``charts.timeline(widget, color_by=widget.color_by)`` draws it. One bin per `CELL_PX` pixels
    of `width`, at most `MAX_CELLS` cells, so rows hold several tiles when there are many.

    >>> charts.timeline(profile, window=(0, 100_000), width=400, color_by="kernel")  # doctest: +SKIP
    alt.Chart(...)
    """
    if not isinstance(color_by, str) or color_by not in COLOR_COLUMNS:
        accepted = ", ".join(repr(c) for c in COLOR_COLUMNS)
        raise ValueError(f"charts.timeline: color_by must be one of {accepted}, got {printable(repr(color_by))}")
    if isinstance(width, bool) or not isinstance(width, int) or not 100 <= width <= 4000:
        raise ValueError(f"charts.timeline: width must be an integer number of pixels in 100..4000, got {width!r}")
    profile, samples, (start, end), order = _source(source, window, tiles)
    bins = max(1, min(width // CELL_PX, end - start))
    rows = max(1, min(len(order), MAX_CELLS // bins))
    drawn, colours = _drawn(source, profile, samples, color_by)
    cells = timeline_cells(drawn, order, (start, end), bins, rows, key=COLOR_COLUMNS[color_by], colours=colours)
    labels = _row_labels(order, rows)
    rects = _runs(cells, (start, end), bins).with_columns(
        tiles=pl.col("row").replace_strict(list(range(rows)), labels, return_dtype=pl.String)
    )
    values = chart_data(rects).to_dicts()
    title = label(f"timeline {start:,}–{end:,} cycles ({len(order)} tiles, {rows} rows × {bins} bins)")
    return (
        alt.Chart(alt.InlineData(values=values))
        .mark_rect()
        .encode(
            x=alt.X("x0:Q", title="offset (cycles)", scale=alt.Scale(domain=[start, end], nice=False)),
            x2="x1:Q",
            y=alt.Y("tiles:N", title="tiles", sort=labels, scale=alt.Scale(domain=labels)),
            color=alt.Color("color:N", scale=None),
            tooltip=[alt.Tooltip("tiles:N"), alt.Tooltip("x0:Q", format=","), alt.Tooltip("x1:Q", format=",")],
        )
        .properties(title=title, width=width, height=max(60, min(rows * _ROW_HEIGHT, 600)))
    )
