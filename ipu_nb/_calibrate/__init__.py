"""The newest runtime's calibration: per-call cycles of kernel calls for a cost table.

The rules: docs/reference/head.md#profile-calibrate.

`measure` collects each call's cycles per (kernel, dimensions); `calibration` the order
statistics, the `Calibration` result and its JSON file.
"""

from .calibration import DEFAULT_TARGET, Calibration, CalibrationError, calibrate
from .measure import EXCLUDED_NAMES, call_cycles, measurements, per_call_cycles

__all__ = [
    "DEFAULT_TARGET",
    "EXCLUDED_NAMES",
    "Calibration",
    "CalibrationError",
    "calibrate",
    "call_cycles",
    "measurements",
    "per_call_cycles",
]
