"""Level-of-detail answers for the timeline widget (pure polars/numpy, no UI).

`build` sorts one profile's samples by timeline row and offset once, on a thread
(`IndexBuild`), into the `index`; until it is ready its file-order columns answer the
same windows (`runs.FileRuns` when the file lists them tile by tile, as the runtime
writes them, read in place; else `UnsortedSamples`). `summaries` answers
a window with raw intervals or per-cell summaries, and the overview; `shares` makes the summaries
the front end draws (each colour class's share of each cell), in one C pass for the cache blocks;
`cells` the dominant class and coverage level of each cell in one byte; `blocks` answers the
front end's cache blocks (a level and block index each); `codec` turns an answer into the
JSON header and binary buffers the front end decodes.
"""

from .activity import ACTIVITY_CLASSES, activity_index, bounds_clock
from .blocks import BLOCK_RAW_LIMIT, MAX_BLOCK_BINS, MAX_LEVEL, Block, block_range, blocks
from .build import (
    IndexBuild,
    TimelineIndexError,
    build_index,
    file_runs,
    sorted_index,
    timeline_facts,
    unsorted_samples,
)
from .cells import CellWindow, cell_bytes, summary_cells
from .codec import encode_window, pack_cells, unpack_cells
from .index import (
    GREY,
    KIND_CLASSES,
    MAX_CLASSES,
    TimelineFacts,
    TimelineIndex,
    UnsortedSamples,
    Windowed,
    count_in,
    samples_at,
)
from .runs import FileRuns
from .shares import ShareWindow, quantise, share_window
from .summaries import MAX_BINS, RAW_LIMIT, LodWindow, RawWindow, overview, summarise, window

__all__ = [
    "ACTIVITY_CLASSES",
    "BLOCK_RAW_LIMIT",
    "GREY",
    "KIND_CLASSES",
    "MAX_BINS",
    "MAX_BLOCK_BINS",
    "MAX_CLASSES",
    "MAX_LEVEL",
    "RAW_LIMIT",
    "Block",
    "CellWindow",
    "FileRuns",
    "IndexBuild",
    "LodWindow",
    "RawWindow",
    "ShareWindow",
    "TimelineFacts",
    "TimelineIndex",
    "TimelineIndexError",
    "UnsortedSamples",
    "Windowed",
    "activity_index",
    "block_range",
    "blocks",
    "bounds_clock",
    "build_index",
    "cell_bytes",
    "count_in",
    "encode_window",
    "file_runs",
    "overview",
    "pack_cells",
    "quantise",
    "samples_at",
    "share_window",
    "sorted_index",
    "summarise",
    "summary_cells",
    "timeline_facts",
    "unpack_cells",
    "unsorted_samples",
    "window",
]
