"""Self-contained offline HTML reports: charts, tables and text in one file with no external URL.

Vega, Vega-Lite and vega-embed come inline from vl-convert's bundle; each
chart's spec sits in a ``<script type="application/json">`` written by
`ipu_nb._markup.sanitize.script_safe_json`, so no profile string can close the script
or inject markup; text goes through `ipu_nb._markup.sanitize.html_text`. ``static=True``
inlines vl-convert's SVG renderings instead (no JavaScript at all).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

import polars as pl

from .._markup.sanitize import html_text, script_safe_json
from .._markup.tables import STYLE, frame_html
from .._version import __version__
from .view import is_widget, view_items

__all__ = ["report_html", "save_report"]

_STYLE = """<style>
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1200px; color: #222; }
h1 { font-size: 22px; margin-bottom: 4px; }
.ipu-nb-description { color: #555; margin-top: 0; }
.ipu-nb-item { margin: 18px 0; }
.ipu-nb-chart { min-height: 40px; }
.ipu-nb-footer { color: #888; font-size: 11px; margin-top: 32px; }
</style>"""

_EMBED = """<script>
(function () {
  var specs = document.querySelectorAll("script.ipu-nb-spec");
  for (var i = 0; i < specs.length; i++) {
    (function (el) {
      var target = document.getElementById(el.getAttribute("data-target"));
      vegaEmbed(target, JSON.parse(el.textContent), { actions: false, renderer: "svg" })
        .then(function () { target.setAttribute("data-ipu-nb-rendered", "ok"); })
        .catch(function (err) {
          target.textContent = "chart failed to render: " + err;
          target.setAttribute("data-ipu-nb-rendered", "error");
        });
    })(specs[i]);
  }
})();
</script>"""


@functools.lru_cache(maxsize=2)
def _vega_bundle(vl_version: str | None) -> str:
    """vl-convert's Vega + Vega-Lite + vega-embed bundle, made safe to inline in a ``<script>``."""
    import vl_convert as vlc

    bundle = vlc.javascript_bundle(vl_version=vl_version)  # type: ignore[call-arg]  # the stub makes the optional snippet required
    # Inside JS strings and regexes `<\/` equals `</`; this keeps the HTML parser in the script.
    bundle = re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)
    return bundle.replace("<!--", "<\\!--")


#: ipu-nb objects a report shows through their notebook repr (each escapes every profile string).
_REPR_ITEMS = ("Profile", "QueryResult", "Comparison", "Findings")


def _is_chart(item: object) -> bool:
    import altair as alt

    return isinstance(item, alt.TopLevelMixin)


def _item_html(item: object, index: int, static: bool) -> tuple[str, bool]:
    """(HTML of one report item, whether it needs the Vega scripts)."""
    if _is_chart(item):
        from .._charts.spec import to_spec, vegalite_version

        spec = to_spec(item)  # type: ignore[arg-type]
        if static:
            import vl_convert as vlc

            svg = vlc.vegalite_to_svg(spec, vl_version=vegalite_version())
            return f'<div class="ipu-nb-item ipu-nb-chart">{svg}</div>', False
        target = f"ipu-nb-chart-{index}"
        return (
            f'<div class="ipu-nb-item ipu-nb-chart" id="{target}"></div>'
            f'<script type="application/json" class="ipu-nb-spec" data-target="{target}">'
            f"{script_safe_json(spec)}</script>",
            True,
        )
    if isinstance(item, str):
        return f'<p class="ipu-nb-item">{html_text(item)}</p>', False
    if isinstance(item, pl.DataFrame):
        return f'<div class="ipu-nb-item">{STYLE}<div class="ipu-nb-repr">{frame_html(item)}</div></div>', False
    repr_html = getattr(item, "_repr_html_", None)
    if type(item).__name__ in _REPR_ITEMS and callable(repr_html):
        return f'<div class="ipu-nb-item">{repr_html()}</div>', False  # escaped by ipu_nb._markup
    raise TypeError(
        f"cannot put a {type(item).__name__} in a report: pass Altair charts, polars DataFrames, "
        "Profiles, QueryResults, Comparisons, Findings, ProfileWidgets or plain text"
    )


def _expanded(items: Iterable[object]) -> list[object]:
    """The items with each `ProfileWidget` replaced by the items of its view (`ipu_nb._report.view`)."""
    out: list[object] = []
    for item in items:
        out.extend(view_items(item) if is_widget(item) else [item])
    return out


def report_html(
    items: Iterable[object], *, title: str = "ipu-nb report", description: str | None = None, static: bool = False
) -> str:
    """The report document as a string (see `save_report`)."""
    parts: list[str] = []
    needs_vega = False
    for index, item in enumerate(_expanded(items)):
        fragment, vega = _item_html(item, index, static)
        parts.append(fragment)
        needs_vega |= vega
    head_script = ""
    if needs_vega:
        from .._charts.spec import vegalite_version

        head_script = f"<script>{_vega_bundle(vegalite_version())}</script>"
    desc = f'<p class="ipu-nb-description">{html_text(description)}</p>' if description else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{html_text(title)}</title>'
        f'<meta name="generator" content="ipu-nb {html_text(__version__)}">{_STYLE}{head_script}</head>\n'
        f"<body><h1>{html_text(title)}</h1>{desc}\n"
        + "\n".join(parts)
        + f'\n<div class="ipu-nb-footer">Written by ipu-nb {html_text(__version__)}; works offline.</div>\n'
        + (_EMBED if needs_vega else "")
        + "\n</body></html>\n"
    )


def save_report(
    path: str | Path,
    *items: object,
    title: str = "ipu-nb report",
    description: str | None = None,
    static: bool = False,
) -> Path:
    """Write charts, tables and text to one self-contained HTML file that works offline.

    Parameters
    ----------
    path : str or Path
        Where to write the ``.html`` file (parent folders are created).
    *items : Altair chart, polars DataFrame, Profile, QueryResult, Comparison, Findings, ProfileWidget or str
        In order: charts are drawn interactively (or as inline SVG with
        ``static``), DataFrames as tables (first 50 rows), Profiles,
        QueryResults and Comparisons as their summaries, `Findings` as the
        ranked table of sentences with their cycles at stake, strings as
        paragraphs. A `ProfileWidget` puts in its current view: the
        ``charts.timeline`` of it, the selected area's summary and groups
        (when an area is selected), the ``groups`` table and its markers.
        All text escaped.
    title, description : str
        Page heading and an optional line under it.
    static : bool, default False
        Inline SVG renderings instead of the ≈0.9 MB Vega bundle: smaller, no JavaScript, not interactive.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> path = ipu_nb.save_report("report.html", charts.breakdown(profile), title="MLP")
    >>> path.name, "<title>MLP</title>" in path.read_text(encoding="utf-8")
    ('report.html', True)
    >>> found = ipu_nb.findings(profile)
    >>> ipu_nb.save_report("findings.html", found, charts.recoverable_cycles(profile), title="MLP findings").name
    'findings.html'
    """
    path = Path(path)
    document = report_html(items, title=title, description=description, static=static)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8")
    return path
