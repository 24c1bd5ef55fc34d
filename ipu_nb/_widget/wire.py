"""A message's binary buffers, encoded and decoded by the layouts of `ipu_nb._widget.protocol.LAYOUTS`.

The front end decodes the same layouts (js/kernel/generated.ts, written from that table), so
a buffer's order, element type and length are stated once.

>>> from ipu_nb._widget.protocol import OVERVIEW_SHARES
>>> header = {"type": "overview", "bins": 2, "span": 10, "planes": 1, "color_by": "kind"}
>>> buffers = encode_buffers(OVERVIEW_SHARES, header, {"classes": [3], "shares": [0.25, 1.5]})
>>> [len(b) for b in buffers]
[1, 8]
>>> decode_buffers(OVERVIEW_SHARES, header, buffers)["shares"].tolist()
[0.25, 1.5]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .protocol import LAYOUTS, Buffer, Dtype, Layout

__all__ = ["DTYPES", "WireError", "buffer_length", "decode_buffers", "encode_buffers", "layout_of"]

#: The numpy dtype of each buffer element type (little-endian).
DTYPES: dict[Dtype, str] = {"u8": "<u1", "u16": "<u2", "u32": "<u4", "f32": "<f4", "f64": "<f8"}


class WireError(ValueError):
    """Buffers that do not match their message's layout (a count, a length or a missing header key)."""


def layout_of(header: Mapping[str, Any]) -> Layout | None:
    """The layout of the buffers a message with this `header` carries (None: it carries none)."""
    for layout in LAYOUTS:
        if header.get("type") == layout.message and all(header.get(k, None) == v for k, v in layout.when):
            return layout
    return None


def _sent(buffer: Buffer, header: Mapping[str, Any]) -> bool:
    return buffer.only_with is None or bool(header.get(buffer.only_with))


def buffer_length(buffer: Buffer, header: Mapping[str, Any]) -> int | None:
    """Elements `buffer` holds for `header` (None: any number); `WireError` when a length key is not an integer."""
    counts: list[int] = []
    for key in buffer.length:
        value = header.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise WireError(f"buffer {buffer.name!r} needs the header's {' and '.join(buffer.length)} as integers")
        counts.append(value)
    return math.prod(counts) if buffer.length else None


def _needs(layout: Layout, header: Mapping[str, Any]) -> None:
    missing = [key for key in layout.needs if key not in header]
    if missing:
        raise WireError(f"{layout.name} header needs {', '.join(missing)}")


def encode_buffers(layout: Layout, header: Mapping[str, Any], columns: Mapping[str, Any]) -> list[bytes]:
    """The buffers of `layout` for `header`, in order, from `columns` (array-likes or bytes, by buffer name).

    Each column is cast to its buffer's little-endian type and must have the length the header
    says; buffers the header leaves out (`Buffer.only_with`) are not sent.
    """
    _needs(layout, header)
    out = []
    for buffer in layout.buffers:
        if not _sent(buffer, header):
            continue
        if buffer.name not in columns:
            raise WireError(f"{layout.name}: no column for buffer {buffer.name!r}")
        value = columns[buffer.name]
        array = np.frombuffer(value, DTYPES[buffer.dtype]) if isinstance(value, bytes) else np.asarray(value)
        expected = buffer_length(buffer, header)
        if expected is not None and array.size != expected:
            raise WireError(f"{layout.name} buffer {buffer.name!r}: {array.size} elements, the header says {expected}")
        out.append(array.astype(DTYPES[buffer.dtype], copy=False).tobytes())
    return out


def decode_buffers(layout: Layout, header: Mapping[str, Any], buffers: Sequence[bytes]) -> dict[str, np.ndarray]:
    """Each buffer of `layout` as a numpy array by name (the inverse of `encode_buffers`); `WireError` on a mismatch."""
    _needs(layout, header)
    sent = [b for b in layout.buffers if _sent(b, header)]
    if len(buffers) != len(sent):
        raise WireError(f"{layout.name}: expected {len(sent)} buffers, got {len(buffers)}")
    out = {}
    for buffer, data in zip(sent, buffers, strict=True):
        dtype = np.dtype(DTYPES[buffer.dtype])
        expected = buffer_length(buffer, header)
        if len(data) % dtype.itemsize or (expected is not None and len(data) != expected * dtype.itemsize):
            raise WireError(f"{layout.name} buffer {buffer.name!r}: {len(data)} bytes do not match the header")
        out[buffer.name] = np.frombuffer(data, dtype)
    return out
