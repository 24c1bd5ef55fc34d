"""Rich HTML reprs of `Profile` and `QueryResult`: a summary line and tables, every string escaped.

Profile strings (operations, kernels, metadata) are untrusted, so every value
passes through `ipu_nb._html.sanitize.html_text` (a visible label, HTML-escaped)
here; nothing else builds markup from them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from .sanitize import html_text

if TYPE_CHECKING:
    from .._model.profile import Profile
    from .._query import QueryResult

__all__ = ["STYLE", "frame_html", "profile_html", "query_result_html", "summary_html"]

#: Row cap of any HTML table: a repr must stay small whatever the query's --limit.
MAX_ROWS = 50

STYLE = """<style>
.ipu-nb-repr { font-family: system-ui, sans-serif; font-size: 13px; }
.ipu-nb-repr .ipu-nb-summary { margin: 4px 0; color: #333; }
.ipu-nb-repr table.ipu-nb-table { border-collapse: collapse; margin: 4px 0 8px 0; }
.ipu-nb-repr table.ipu-nb-table th, .ipu-nb-repr table.ipu-nb-table td {
  padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
.ipu-nb-repr table.ipu-nb-table th { background: #f4f4f4; }
.ipu-nb-repr table.ipu-nb-table td.ipu-nb-text { text-align: left; }
.ipu-nb-repr .ipu-nb-clip { display: inline-block; max-width: 36em; overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
.ipu-nb-repr .ipu-nb-note { color: #777; font-size: 12px; }
.ipu-nb-repr table.ipu-nb-table td.ipu-nb-wrap {
  text-align: left; white-space: normal; min-width: 24em; max-width: 64em; }
</style>"""

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


def _cell(value: Any, fmt: str) -> str:
    if value is None:
        return '<td class="ipu-nb-text"></td>'
    if fmt == "int":
        return f"<td>{html_text(f'{int(value):,}')}</td>"
    if fmt == "ms":
        return f"<td>{html_text(f'{float(value):.6f}')}</td>"
    if fmt == "2f":
        return f"<td>{html_text(f'{float(value):,.2f}')}</td>"
    if fmt == "wrap":  # running text (a sentence): wrapped, never clipped
        return f'<td class="ipu-nb-text ipu-nb-wrap">{html_text(value)}</td>'
    if fmt == "code":
        shown = html_text(value)
        return f'<td class="ipu-nb-text" title="{shown}"><code class="ipu-nb-clip">{shown}</code></td>'
    if fmt == "meta":
        entries = value if isinstance(value, list) else []
        text = ", ".join(f"{e.get('name')}={e.get('value')}" for e in entries if isinstance(e, dict))
        shown = html_text(text)
        return f'<td class="ipu-nb-text" title="{shown}"><span class="ipu-nb-clip">{shown}</span></td>'
    if isinstance(value, float):
        return f"<td>{html_text(f'{value:.6g}')}</td>"
    if isinstance(value, int):
        return f"<td>{html_text(f'{value:,}')}</td>"
    text = html_text(value)
    shown = f'<span class="ipu-nb-clip">{text}</span>' if text else "<em>(empty)</em>"
    return f'<td class="ipu-nb-text" title="{text}">{shown}</td>'


def table_html(rows: Sequence[dict[str, Any]], columns: Iterable[tuple[str, str, str]], *, total: int) -> str:
    """An escaped HTML table of ``rows`` (dicts), noting how many of ``total`` are shown."""
    columns = [c for c in columns if not rows or c[0] in rows[0]]
    head = "".join(f"<th>{html_text(title)}</th>" for _, title, _ in columns)
    body = "".join("<tr>" + "".join(_cell(row.get(key), fmt) for key, _, fmt in columns) + "</tr>" for row in rows)
    note = f'<div class="ipu-nb-note">{len(rows):,} of {total:,} rows shown</div>' if total > len(rows) else ""
    return f'<table class="ipu-nb-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}'


def frame_html(frame: pl.DataFrame, *, max_rows: int = MAX_ROWS) -> str:
    """Any polars DataFrame as an escaped HTML table (at most ``max_rows`` rows)."""
    fmt = {name: ("int" if dtype.is_integer() else "text") for name, dtype in frame.schema.items()}
    columns = [(name, name, fmt[name]) for name in frame.columns]
    return table_html(frame.head(max_rows).to_dicts(), columns, total=frame.height)


def summary_html(items: Sequence[tuple[str, object]]) -> str:
    """``key=value`` pairs as one escaped summary line."""
    parts = " ".join(f"<b>{html_text(k)}</b>={html_text(v)}" for k, v in items)
    return f'<div class="ipu-nb-summary">{parts}</div>'


def _ms(cycles: int, clock_hz: int) -> str:
    return f"{(cycles * 1000.0) / clock_hz:.6f}" if clock_hz else "0.000000"


def profile_html(profile: Profile) -> str:
    """Summary (source, tiles, samples, granularity, span, clock) and per-kind totals of a Profile."""
    span = profile.span_cycles
    items: list[tuple[str, object]] = [
        ("tiles", f"{profile.tile_count:,}"),
        ("samples", f"{profile.sample_count:,}"),
        ("granularity", profile.granularity),
        ("spanCycles", f"{span:,}"),
        ("spanMs", _ms(span, profile.clock_hz)),
        ("clockHz", f"{profile.clock_hz:,}"),
        ("schema", f"v{profile.schema_version}"),
    ]
    source = f'<div class="ipu-nb-summary">Profile <code>{html_text(profile.path)}</code></div>' if profile.path else ""
    kinds = (
        profile.samples.group_by("kind")
        .agg(
            pl.len().alias("samples"),
            pl.col("tile").n_unique().alias("tiles"),
            pl.col("duration").cast(pl.Int64).sum().alias("workCycles"),
        )
        .sort("workCycles", descending=True)
        .with_columns(pl.col("kind").cast(pl.String))
    )
    kernels = (
        profile.samples.filter(pl.col("kernel").cast(pl.String) != "")
        .group_by(pl.col("kernel").cast(pl.String))
        .agg(pl.len().alias("samples"), pl.col("duration").cast(pl.Int64).sum().alias("workCycles"))
        .sort(["workCycles", "kernel"], descending=[True, False])
    )
    top = kernels.head(10)
    body = (
        f"{source}{summary_html(items)}<div>samples by kind</div>{frame_html(kinds)}"
        f"<div>top kernels by work cycles</div>{table_html(top.to_dicts(), _frame_columns(top), total=kernels.height)}"
    )
    return f'{STYLE}<div class="ipu-nb-repr">{body}</div>'


def _frame_columns(frame: pl.DataFrame) -> list[tuple[str, str, str]]:
    return [(n, n, "int" if t.is_integer() else "text") for n, t in frame.schema.items()]


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
