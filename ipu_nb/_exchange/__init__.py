"""The newest runtime's exchange anatomy: the role sweep of each exchange window and its per-phase summary.

`roles` splits each exchange sample's event window into sending, receiving, both, partner
busy and idle; `summary` gathers the phases and the totals `profile-inspect --semantics head`
prints (docs/reference/head.md#profile-inspect); `anatomy` the per-phase parts the chart stacks.
"""

from .anatomy import ANATOMY_PARTS, anatomy_frame
from .roles import ROLE_COLUMNS, role_cycles
from .summary import PHASE_COLUMNS, SUMMARY_FIELDS, exchange_phases, exchange_summary, summary_line

__all__ = [
    "ANATOMY_PARTS",
    "PHASE_COLUMNS",
    "ROLE_COLUMNS",
    "SUMMARY_FIELDS",
    "anatomy_frame",
    "exchange_phases",
    "exchange_summary",
    "role_cycles",
    "summary_line",
]
