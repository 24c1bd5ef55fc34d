"""A profile as a Chrome/Perfetto JSON trace (docs/guide/trace.md): open it in ui.perfetto.dev or chrome://tracing.

`layout` says where a sample goes (one thread per tile, one process per IPU column) and
how cycles become trace time; `events` turns samples into trace-event JSON text, a chunk
at a time; `writer` streams the chunks to a file (gzip when it ends in ``.gz``).
"""

from .layout import TRACE_PID_OFFSET, TRACE_TID_OFFSET, column_of, trace_nanoseconds
from .writer import Written, write_trace

__all__ = ["TRACE_PID_OFFSET", "TRACE_TID_OFFSET", "Written", "column_of", "trace_nanoseconds", "write_trace"]
