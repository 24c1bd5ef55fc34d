"""Trace-event JSON text from samples: metadata events naming the tracks, one complete ("X") event per sample.

A sample becomes ``{"name": operation, "cat": kind, "ph": "X", "ts": µs, "dur": µs, "pid":
column + 1, "tid": tile + 1, "args": {...}}`` with args ``tile``, ``kind``, ``kernel``,
``phase``, ``epoch``, ``cycles`` (its duration), ``offset`` (cycles), ``sample`` (its id)
and ``metadata``: an object of its entries in stored order (a repeated name gets `` (2)``,
`` (3)`` … so none is lost). Strings are escaped once per distinct value with the query
runtime's JSON escaping, and every line is assembled by polars, a chunk of samples at a time.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
import pyarrow as pa

from ..._model.index import index_of
from ..._model.json_text import json_string
from .layout import TRACE_PID_OFFSET, TRACE_TID_OFFSET, column_of, microseconds, row_of, trace_nanoseconds

if TYPE_CHECKING:
    from ..._model.profile import ProfileData

__all__ = ["sample_events", "track_events"]


def _quoted(values: pl.Series) -> pl.Series:
    """Each string as a JSON string literal (escaping each distinct value once)."""
    strings = values.cast(pl.String)
    distinct = strings.unique()
    table = pl.DataFrame(
        {"_s": distinct, "_q": [json_string(v) for v in distinct.to_list()]},
        schema={"_s": pl.String, "_q": pl.String},
    )
    return strings.to_frame("_s").join(table, on="_s", how="left", maintain_order="left", nulls_equal=True)["_q"]


def _keys(names: pl.Series, owners: np.ndarray) -> pl.Series:
    """Entry names as object keys: a name repeated within one sample gets `` (2)``, `` (3)`` … after the first."""
    key = (owners.astype(np.int64) << 32) | names.to_physical().to_numpy().astype(np.int64)
    if pl.Series(key).n_unique() == len(key):  # the usual case: no sample repeats a name
        return names.cast(pl.String)
    frame = pl.DataFrame({"_owner": owners, "name": names.cast(pl.String)})
    repeat = pl.int_range(pl.len(), dtype=pl.Int64).over("_owner", "name")
    return frame.select(
        pl.when(repeat == 0).then(pl.col("name")).otherwise(pl.format("{} ({})", pl.col("name"), repeat + 1))
    ).to_series()


def _metadata_objects(profile: ProfileData, ids: np.ndarray) -> pl.Series:
    """Per sample id, the body of its metadata JSON object (``"name":"value",…``; empty when it has none)."""
    rows, counts = index_of(profile).entry_rows(ids)
    entries = profile.metadata[pl.Series(rows, dtype=pl.Int64)]
    owners = np.repeat(np.arange(len(ids), dtype=np.int64), counts)
    keys = _keys(entries["name"], owners)
    pairs = pl.select(pl.concat_str(_quoted(keys), pl.lit(":"), _quoted(entries["value"]))).to_series()
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), pairs.to_arrow())
    return pl.Series("_meta", lists).list.join(",")


def sample_events(profile: ProfileData, samples: pl.DataFrame) -> str:
    """The complete events of `samples` (rows of ``profile.samples``), one per line, comma-separated."""
    if samples.height == 0:
        return ""
    start = trace_nanoseconds(pl.col("offset"), profile.clock_hz)
    end = trace_nanoseconds(pl.col("offset").cast(pl.UInt64) + pl.col("duration"), profile.clock_hz)
    operation = _quoted(samples["operation"])
    kind = samples["kind"].cast(pl.String)
    name = pl.Series("_name", operation).zip_with(operation != '""', _quoted(kind))
    frame = samples.select(
        pl.col("sample", "tile", "phase", "epoch", "offset", "duration"),
        start.alias("_start"),
        end.alias("_end"),
    ).with_columns(
        name,
        pl.Series("_kind", kind),
        _quoted(samples["kernel"]).alias("_kernel"),
        _metadata_objects(profile, samples["sample"].to_numpy()),
    )
    text = pl.concat_str(
        pl.lit('{"name":'),
        pl.col("_name"),
        pl.lit(',"cat":"'),
        pl.col("_kind"),
        pl.lit('","ph":"X","ts":'),
        microseconds(pl.col("_start")),
        pl.lit(',"dur":'),
        microseconds(pl.col("_end") - pl.col("_start")),
        pl.lit(',"pid":'),
        (column_of(pl.col("tile")) + TRACE_PID_OFFSET).cast(pl.String),
        pl.lit(',"tid":'),
        (pl.col("tile").cast(pl.Int64) + TRACE_TID_OFFSET).cast(pl.String),
        pl.lit(',"args":{"tile":'),
        pl.col("tile").cast(pl.String),
        pl.lit(',"kind":"'),
        pl.col("_kind"),
        pl.lit('","kernel":'),
        pl.col("_kernel"),
        pl.lit(',"phase":'),
        pl.col("phase").cast(pl.String),
        pl.lit(',"epoch":'),
        pl.col("epoch").cast(pl.String),
        pl.lit(',"cycles":'),
        pl.col("duration").cast(pl.String),
        pl.lit(',"offset":'),
        pl.col("offset").cast(pl.String),
        pl.lit(',"sample":'),
        pl.col("sample").cast(pl.String),
        pl.lit(',"metadata":{'),
        pl.col("_meta"),
        pl.lit("}}}"),
    )
    return frame.select(text.str.join(",\n")).item()


def track_events(tiles: pl.Series) -> str:
    """Metadata events naming and ordering the tracks of the given physical tiles (and of their columns)."""
    grid = pl.DataFrame({"tile": tiles.cast(pl.Int64).unique().sort()}).with_columns(
        column_of(pl.col("tile")).alias("column"), row_of(pl.col("tile")).alias("row")
    )
    events: list[dict[str, object]] = []
    for column in grid["column"].unique().sort().to_list():
        pid = column + TRACE_PID_OFFSET
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"IPU column {column}"}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": column}})
    for tile, column, row in grid.iter_rows():
        ids = {"pid": column + TRACE_PID_OFFSET, "tid": tile + TRACE_TID_OFFSET}
        events.append({"name": "thread_name", "ph": "M", **ids, "args": {"name": f"tile {tile}"}})
        events.append({"name": "thread_sort_index", "ph": "M", **ids, "args": {"sort_index": row}})
    return ",\n".join(json.dumps(event, separators=(",", ":")) for event in events)
