"""ipu-nb: explore IPU cycle profiles in Jupyter.

Read the runtime's Cap'n Proto profiles into polars, query them exactly like
``profile-query``, drill down in a widget and chart the answer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from ._calibrate import Calibration, CalibrationError, calibrate
    from ._compare import Comparison, ComparisonError, ComparisonSummary, compare
    from ._exchange import exchange_phases, exchange_summary
    from ._fleet.comparison import FleetComparison
    from ._fleet.fleet import Fleet
    from ._io.capnp_writer import write_columns
    from ._io.errors import FleetError, LabelError
    from ._io.parquet import ParquetDataset, scan_parquet
    from ._load import NotAProfileError, ProfileFormatError, UnsupportedSchemaVersionError
    from ._magics import load_ipython_extension, unload_ipython_extension
    from ._model.palette import palette
    from ._profile import Profile, open_profile
    from ._query import FilterFlags, Filters, Query, QueryError, QueryFlags, QueryResult, QueryWarning, query
    from ._query.result import HeadQueryResult
    from ._report.report import save_report
    from ._supersteps import Finding, Findings, WhatIf, findings, supersteps, tile_balance, what_if
    from ._synth.generate import demo_profile_path, generate_columns, generate_profile
    from ._widget.widget import ProfileWidget

# Public name -> defining module. Imported on first use so `import ipu_nb` stays
# fast and the query core never pulls in the widget, IPython or Altair.
_EXPORTS = {
    "Calibration": "._calibrate",
    "CalibrationError": "._calibrate",
    "calibrate": "._calibrate",
    "exchange_phases": "._exchange",
    "exchange_summary": "._exchange",
    "HeadQueryResult": "._query",
    "Comparison": "._compare",
    "ComparisonError": "._compare",
    "ComparisonSummary": "._compare",
    "compare": "._compare",
    "Fleet": "._fleet.fleet",
    "FleetComparison": "._fleet.comparison",
    "FleetError": "._io.errors",
    "LabelError": "._io.errors",
    "ParquetDataset": "._io.parquet",
    "scan_parquet": "._io.parquet",
    "NotAProfileError": "._load",
    "Profile": "._profile",
    "palette": "._model.palette",
    "ProfileFormatError": "._load",
    "UnsupportedSchemaVersionError": "._load",
    "open_profile": "._profile",
    "FilterFlags": "._query",
    "Filters": "._query",
    "Query": "._query",
    "QueryError": "._query",
    "QueryFlags": "._query",
    "QueryResult": "._query",
    "QueryWarning": "._query",
    "query": "._query",
    "ProfileWidget": "._widget.widget",
    "save_report": "._report.report",
    "Finding": "._supersteps",
    "Findings": "._supersteps",
    "WhatIf": "._supersteps",
    "findings": "._supersteps",
    "supersteps": "._supersteps",
    "tile_balance": "._supersteps",
    "what_if": "._supersteps",
    "demo_profile_path": "._synth.generate",
    "generate_columns": "._synth.generate",
    "generate_profile": "._synth.generate",
    "write_columns": "._io.capnp_writer",
    "load_ipython_extension": "._magics",
    "unload_ipython_extension": "._magics",
}

__all__ = [
    "Calibration",
    "CalibrationError",
    "Comparison",
    "ComparisonError",
    "ComparisonSummary",
    "FilterFlags",
    "Filters",
    "Finding",
    "Findings",
    "Fleet",
    "FleetComparison",
    "FleetError",
    "HeadQueryResult",
    "LabelError",
    "NotAProfileError",
    "ParquetDataset",
    "Profile",
    "ProfileFormatError",
    "ProfileWidget",
    "Query",
    "QueryError",
    "QueryFlags",
    "QueryResult",
    "QueryWarning",
    "UnsupportedSchemaVersionError",
    "WhatIf",
    "__version__",
    "calibrate",
    "charts",
    "compare",
    "demo_profile_path",
    "exchange_phases",
    "exchange_summary",
    "findings",
    "generate_columns",
    "generate_profile",
    "load_ipython_extension",
    "open_profile",
    "palette",
    "query",
    "save_report",
    "scan_parquet",
    "supersteps",
    "tile_balance",
    "unload_ipython_extension",
    "what_if",
    "write_columns",
]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """The Jupyter server extension (`ipu_nb._server_extension`), enabled when the package is installed."""
    return [{"module": "ipu_nb._server_extension"}]


def __getattr__(name: str) -> Any:
    if name == "charts":
        return importlib.import_module(".charts", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ipu_nb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
