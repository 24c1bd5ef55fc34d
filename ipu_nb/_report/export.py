"""Exporting charts: the spec without URLs, and PNG/SVG/PDF through vl-convert (offline).

Every export goes through `to_spec`, which passes the spec through
`ipu_nb._markup.sanitize.safe_spec`: a chart not built by `ipu_nb.charts`, holding raw
profile strings, exports too instead of aborting the process inside vl-convert.
"""

from __future__ import annotations

from pathlib import Path

from .._charts.spec import Chart, to_spec, vegalite_version

__all__ = ["save"]

_SAVE_FORMATS = (".png", ".svg", ".pdf", ".html", ".json")


def save(chart: Chart, path: str | Path, *, scale: float = 2.0, title: str | None = None) -> Path:
    """Write one chart to PNG, SVG or PDF (rendered offline by vl-convert), HTML or JSON.

    ``.html`` is a self-contained `ipu_nb.save_report` with this one chart;
    ``.json`` is the Vega-Lite spec. ``scale`` multiplies PNG pixel size.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _SAVE_FORMATS:
        raise ValueError(
            f"cannot save a chart as {suffix or 'a file without extension'}: use {', '.join(_SAVE_FORMATS)}"
        )
    if suffix == ".html":
        from .report import save_report

        return save_report(path, chart, title=title or "ipu-nb chart")
    spec = to_spec(chart)
    if suffix == ".json":
        import json

        path.write_text(json.dumps(spec, indent=2), encoding="utf-8")
        return path
    import vl_convert as vlc

    version = vegalite_version()
    if suffix == ".png":
        path.write_bytes(vlc.vegalite_to_png(spec, vl_version=version, scale=scale))
    elif suffix == ".svg":
        path.write_text(vlc.vegalite_to_svg(spec, vl_version=version), encoding="utf-8")
    else:
        path.write_bytes(vlc.vegalite_to_pdf(spec, vl_version=version))
    return path
