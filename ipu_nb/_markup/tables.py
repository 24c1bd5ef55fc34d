"""The pieces of every notebook repr (`Profile`, `QueryResult`, `Comparison`, `Findings`): summary lines and tables.

Profile strings (operations, kernels, metadata) are untrusted, so every value
passes through `ipu_nb._markup.sanitize.html_text` (a visible label, HTML-escaped)
here; the reprs build their markup from these helpers only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import polars as pl

from .sanitize import html_text

__all__ = ["MAX_ROWS", "STYLE", "frame_columns", "frame_html", "summary_html", "table_html"]

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


def frame_columns(frame: pl.DataFrame) -> list[tuple[str, str, str]]:
    """`table_html` columns for every column of `frame`, headed by its name: integers as numbers, the rest as text."""
    return [(name, name, "int" if dtype.is_integer() else "text") for name, dtype in frame.schema.items()]


def frame_html(frame: pl.DataFrame, *, max_rows: int = MAX_ROWS) -> str:
    """Any polars DataFrame as an escaped HTML table (at most ``max_rows`` rows).

    >>> print(frame_html(pl.DataFrame({"kernel": ["<b>"], "cycles": [1200]})))
    <table class="ipu-nb-table">...<td class="ipu-nb-text" title="&lt;b&gt;">...<td>1,200</td>...
    """
    return table_html(frame.head(max_rows).to_dicts(), frame_columns(frame), total=frame.height)


def summary_html(items: Sequence[tuple[str, object]]) -> str:
    """``key=value`` pairs as one escaped summary line."""
    parts = " ".join(f"<b>{html_text(k)}</b>={html_text(v)}" for k, v in items)
    return f'<div class="ipu-nb-summary">{parts}</div>'
