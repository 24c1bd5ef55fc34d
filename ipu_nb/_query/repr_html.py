"""A `QueryResult`'s notebook repr: the text output's header line as a summary, the groups and the top samples."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from .._markup.tables import MAX_ROWS, STYLE, summary_html, table_html

if TYPE_CHECKING:
    from .result import QueryResult

__all__ = ["query_result_html"]

# Query-result table columns: (JSON field, docs/reference/query.md#key-order; heading; format).
_GROUP_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("name", "name", "text"),
    ("phase_count", "phases", "int"),
    ("tile_count", "tiles", "int"),
    ("sample_count", "samples", "int"),
    ("phase_cycles", "phaseCycles", "int"),
    ("phase_ms", "phaseMs", "ms"),
    ("work_cycles", "workCycles", "int"),
    ("average_active_tiles", "avgActiveTiles", "2f"),
    ("mean_cycles", "mean", "2f"),
    ("p50_cycles", "p50", "int"),
    ("p95_cycles", "p95", "int"),
    ("maximum_cycles", "max", "int"),
)
_SAMPLE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("tile", "tile", "int"),
    ("offset", "offset", "int"),
    ("duration", "duration", "int"),
    ("phase", "phase", "int"),
    ("epoch", "epoch", "int"),
    ("kind", "kind", "text"),
    ("kernel", "kernel", "text"),
    ("operation", "operation", "text"),
    ("metadata", "metadata", "meta"),
)


def query_result_html(result: QueryResult) -> str:
    """The text output's header line as a summary, then the groups table and any top samples, escaped.

    The header: docs/reference/query.md#header-line.
    """
    at = getattr(result, "at_offset", None)
    items: list[tuple[str, object]] = [
        ("tiles", f"{result.tile_count:,}"),
        ("samples", f"{result.matched_sample_count:,}/{result.sample_count:,}"),
        ("spanCycles", f"{result.profile_span_cycles:,}"),
        ("spanMs", f"{float(result.profile_span_ms):.6f}"),
        ("clockHz", f"{result.clock_hz:,}"),
        ("at", "-" if at is None else at),
    ]
    query = getattr(result, "query", None)
    if query is not None and getattr(query, "group_by", None):
        items.insert(0, ("groupBy", query.group_by))
    window = getattr(query, "window", None)
    if window is not None:
        clipped = " clipped" if getattr(query, "clip", False) else ""
        items.append(("window", f"{window[0]:,}:{window[1]:,}{clipped}"))
    groups: pl.DataFrame = result.groups
    parts = [summary_html(items), table_html(groups.head(MAX_ROWS).to_dicts(), _GROUP_COLUMNS, total=groups.height)]
    samples: pl.DataFrame | None = getattr(result, "samples", None)
    if samples is not None and samples.height:
        columns = _SAMPLE_COLUMNS
        if "clipped_cycles" in samples.columns:  # a clipped query's: the cycles inside the window, after duration
            columns = (*columns[:3], ("clipped_cycles", "clippedCycles", "int"), *columns[3:])
        parts.append("<div>longest samples</div>")
        parts.append(table_html(samples.head(MAX_ROWS).to_dicts(), columns, total=samples.height))
    return f'{STYLE}<div class="ipu-nb-repr">{"".join(parts)}</div>'
