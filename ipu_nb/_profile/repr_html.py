"""A `Profile`'s notebook repr: its source, a summary line and its per-kind and top-kernel tables, escaped."""

from __future__ import annotations

import polars as pl

from .._markup.sanitize import html_text
from .._markup.tables import STYLE, frame_columns, frame_html, summary_html, table_html
from .._model.profile import ProfileData

__all__ = ["profile_html"]


def _ms(cycles: int, clock_hz: int) -> str:
    return f"{(cycles * 1000.0) / clock_hz:.6f}" if clock_hz else "0.000000"


def profile_html(profile: ProfileData) -> str:
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
        f"<div>top kernels by work cycles</div>{table_html(top.to_dicts(), frame_columns(top), total=kernels.height)}"
    )
    return f'{STYLE}<div class="ipu-nb-repr">{body}</div>'
