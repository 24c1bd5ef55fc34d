"""Level-of-detail answers for the timeline widget (pure polars/numpy, no UI).

`index` sorts one profile's samples by timeline row and offset once; `summaries` answers
a window with raw intervals or per-cell summaries, and the overview; `codec` turns an
answer into the JSON header and binary buffers the front end decodes.
"""

from .codec import encode_window, pack_cells, unpack_cells
from .index import GREY, KIND_CLASSES, MAX_CLASSES, TimelineIndex, build_index, samples_at
from .summaries import MAX_BINS, RAW_LIMIT, LodWindow, RawWindow, overview, window

__all__ = [
    "GREY",
    "KIND_CLASSES",
    "MAX_BINS",
    "MAX_CLASSES",
    "RAW_LIMIT",
    "LodWindow",
    "RawWindow",
    "TimelineIndex",
    "build_index",
    "encode_window",
    "overview",
    "pack_cells",
    "samples_at",
    "unpack_cells",
    "window",
]
