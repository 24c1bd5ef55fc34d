"""The widget's findings panel (issue 14): `ipu_nb.findings` as rows the front end lists.

Each row carries the widget state that shows its finding (its `Query` as the ``filters``
trait and the offsets of the supersteps concerned), so a click applies exactly that.
"""

from __future__ import annotations

from .._supersteps import Findings
from .protocol import FindingRow

__all__ = ["finding_rows"]


def finding_rows(found: Findings) -> list[FindingRow]:
    """The findings, best first, as the panel's rows."""
    rows: list[FindingRow] = []
    for rank, finding in enumerate(found.items, 1):
        state = finding.state
        rows.append(
            {
                "rank": rank,
                "category": finding.category,
                "subject": finding.subject,
                "message": finding.message,
                "cycles": finding.cycles,
                "ms": finding.ms,
                "share": finding.share,
                "filters": state["filters"],
                "view": state["view"],
            }
        )
    return rows
