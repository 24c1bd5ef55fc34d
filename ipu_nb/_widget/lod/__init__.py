"""Level-of-detail answers for the timeline widget (pure polars/numpy, no UI).

`index` sorts one profile's samples by timeline row and offset once; `summaries` answers
a window with raw intervals or per-cell summaries, and the overview; `blocks` answers the
front end's cache blocks (a level and block index each); `codec` turns an answer into the
JSON header and binary buffers the front end decodes.
"""

from .blocks import MAX_BLOCK_BINS, MAX_LEVEL, Block, block_range, blocks
from .codec import encode_window, pack_cells, unpack_cells
from .index import GREY, KIND_CLASSES, MAX_CLASSES, TimelineIndex, build_index, count_in, samples_at
from .summaries import MAX_BINS, RAW_LIMIT, LodWindow, RawWindow, overview, summarise, window

__all__ = [
    "GREY",
    "KIND_CLASSES",
    "MAX_BINS",
    "MAX_BLOCK_BINS",
    "MAX_CLASSES",
    "MAX_LEVEL",
    "RAW_LIMIT",
    "Block",
    "LodWindow",
    "RawWindow",
    "TimelineIndex",
    "block_range",
    "blocks",
    "build_index",
    "count_in",
    "encode_window",
    "overview",
    "pack_cells",
    "samples_at",
    "summarise",
    "unpack_cells",
    "window",
]
