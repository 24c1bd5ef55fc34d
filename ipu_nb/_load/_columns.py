"""Frames to Arrow tables and back for the frame cache, text columns as integer codes.

Polars numbers category strings per process, in the order a process first registers them,
so a Categorical column written as it is (an Arrow dictionary) is renumbered, row by row,
into new memory when it is read back. Here every Categorical column of a profile is written
as plain ``uint32`` codes into one list of the profile's distinct texts, numbered in the
order of the writer's category ids, and every Enum column as its physical codes. Reading
registers that list again: in a process that had registered nothing else the ids come out
equal to the codes, and the columns go to polars as they lie in the (mapped) file;
otherwise they are renumbered first. Either way every code is checked against the list.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Unencodable", "decode_frames", "encode_frames"]

_KIND = b"ipu-nb.kind"
_CATEGORICAL = b"categorical"
_ENUM = b"enum"
_ENUM_VALUES = b"ipu-nb.categories"
_BATCH = 1 << 23  # rows renumbered at once when writing


class Unencodable(Exception):
    """A frame this format does not store (a null in a text column, a non-global Categorical)."""


def _global_categorical(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.Categorical) and dtype.categories.is_global()


def encode_frames(frames: dict[str, pl.DataFrame]) -> tuple[dict[str, pa.Table], pa.Array]:
    """Arrow tables of `frames` (text columns as codes) and the distinct texts the codes index."""
    ids_parts, text_parts = [], []
    for frame in frames.values():
        for name, dtype in frame.schema.items():
            if isinstance(dtype, pl.Categorical):
                column = frame.get_column(name)
                if not _global_categorical(dtype) or column.null_count():
                    raise Unencodable(f"column {name!r}: {dtype}, {column.null_count()} nulls")
                ids = _distinct(column.to_physical().to_numpy())
                ids_parts.append(ids)
                text_parts.append(pl.Series(ids).cat.to(dtype).cast(pl.String).to_arrow())
    if ids_parts:
        ids, first = np.unique(np.concatenate(ids_parts), return_index=True)
        texts = pa.concat_arrays([pa.array(part, type=pa.string()) for part in text_parts]).take(pa.array(first))
    else:
        ids, texts = np.zeros(0, dtype=np.uint32), pa.array([], type=pa.string())
    renumber = None
    if not np.array_equal(ids, np.arange(len(ids), dtype=np.uint32)):
        renumber = np.zeros(int(ids[-1]) + 1, dtype=np.uint32)
        renumber[ids] = np.arange(len(ids), dtype=np.uint32)
    tables = {name: _encode(frame, renumber) for name, frame in frames.items()}
    return tables, texts


def _distinct(codes: np.ndarray) -> np.ndarray:
    """The distinct values of `codes` (category ids, so their maximum is about the number of texts), sorted."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.uint32)
    present = np.zeros(int(codes.max()) + 1, dtype=bool)
    for lo in range(0, len(codes), _BATCH):
        present[codes[lo : lo + _BATCH]] = True
    return np.flatnonzero(present).astype(np.uint32)


def _encode(frame: pl.DataFrame, renumber: np.ndarray | None) -> pa.Table:
    fields, arrays = [], []
    for name, dtype in frame.schema.items():
        column = frame.get_column(name)
        if isinstance(dtype, pl.Categorical):
            codes = column.to_physical().to_numpy()
            if renumber is None:
                array: pa.Array | pa.ChunkedArray = pa.array(codes, type=pa.uint32())
            else:
                pieces = [renumber[codes[lo : lo + _BATCH]] for lo in range(0, len(codes), _BATCH)]
                array = pa.chunked_array([pa.array(p, type=pa.uint32()) for p in pieces], type=pa.uint32())
            fields.append(pa.field(name, pa.uint32(), nullable=False, metadata={_KIND: _CATEGORICAL}))
        elif isinstance(dtype, pl.Enum):
            array = column.to_physical().to_arrow()
            categories = json.dumps(dtype.categories.to_list()).encode()
            fields.append(pa.field(name, array.type, metadata={_KIND: _ENUM, _ENUM_VALUES: categories}))
        else:
            array = column.to_arrow()
            fields.append(pa.field(name, array.type))
        arrays.append(array)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def decode_frames(tables: dict[str, pa.Table], texts: pa.Array) -> dict[str, pl.DataFrame] | None:
    """The frames `encode_frames` wrote, or None if any code or column is not what it wrote."""
    registered = pl.Series(texts).cast(pl.Categorical)  # kept alive until the frames hold the ids
    ids = registered.to_physical().to_numpy().astype(np.uint32, copy=False)
    same = np.array_equal(ids, np.arange(len(ids), dtype=np.uint32))
    frames = {}
    for name, table in tables.items():
        frame = _decode(table, ids, same)
        if frame is None:
            return None
        frames[name] = frame
    del registered
    return frames


def _decode(table: pa.Table, ids: np.ndarray, same: bool) -> pl.DataFrame | None:
    columns: list[pl.Series] = []
    convert: list[pl.Expr] = []
    for field, array in zip(table.schema, table.columns, strict=True):
        kind = (field.metadata or {}).get(_KIND)
        if kind == _CATEGORICAL:
            if array.type != pa.uint32() or array.null_count:
                return None
            most = pc.max(array).as_py()
            if most is not None and most >= len(ids):
                return None
            if same:
                series = pl.Series(field.name, pl.from_arrow(array))
            else:
                renumbered = np.empty(len(array), dtype=np.uint32)
                at = 0
                for chunk in array.chunks:
                    np.take(ids, np.asarray(chunk), out=renumbered[at : at + len(chunk)])
                    at += len(chunk)
                series = pl.Series(field.name, renumbered)
            columns.append(series)
            convert.append(pl.col(field.name).cat.to(pl.Categorical))
        elif kind == _ENUM:
            try:
                categories = json.loads(field.metadata[_ENUM_VALUES])
            except (KeyError, ValueError):
                return None
            if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
                return None
            columns.append(pl.Series(field.name, pl.from_arrow(array)))
            convert.append(pl.col(field.name).cat.to(pl.Enum(categories)))
        else:
            columns.append(pl.Series(field.name, pl.from_arrow(array)))
    frame = pl.DataFrame(columns)
    # Side by side (polars checks each code names a category: a wrong one is an error, not a frame).
    return frame.with_columns(convert) if convert else frame
