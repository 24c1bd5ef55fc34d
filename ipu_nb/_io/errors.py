"""The errors of profiles written and labelled as a dataset: the Parquet writer raises them, and so do fleets.

`FleetError` is a request that cannot be carried out as asked (a label no dataset can
hold, columns that clash); `LabelError` one profile's labels that cannot be read or
stored. Both are public (`ipu_nb.FleetError`, `ipu_nb.LabelError`); `ipu_nb._fleet.errors`
adds what goes wrong with one profile of a fleet.
"""

from __future__ import annotations

__all__ = ["FleetError", "LabelError"]


class FleetError(ValueError):
    """A fleet that cannot be built or run as asked (the request, not one profile, is wrong)."""


class LabelError(ValueError):
    """One profile's labels cannot be read: a missing or malformed sidecar, a name the pattern does not match."""
