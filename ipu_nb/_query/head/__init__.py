"""The newest runtime's `profile-query` (``semantics="head"``), beside the default one (docs/reference/head.md).

`semantics` names the two; `clock` the shared clock and its crop; `run` the query on the
default semantics' plan; `render` its text. `ipu_nb._query.result` wraps the answer in a
`HeadQueryResult`. The exchange anatomy and calibration of the same runtime are analyses
(`ipu_nb._exchange`, `ipu_nb._calibrate`).
"""

from .clock import HeadClock, cycle_origin, head_clock, raw_offsets
from .render import head_text
from .run import asks_for_head, check_head_query, head_answer
from .semantics import DEFAULT_SEMANTICS, SEMANTICS, Semantics, check_semantics

__all__ = [
    "DEFAULT_SEMANTICS",
    "SEMANTICS",
    "HeadClock",
    "Semantics",
    "asks_for_head",
    "check_head_query",
    "check_semantics",
    "cycle_origin",
    "head_answer",
    "head_clock",
    "head_text",
    "raw_offsets",
]
