"""``widget.to_code()``: the Python that reproduces a widget's view with the public API.

The code opens the profile, then builds what the widget shows (its groups, the samples
matching its filters, the cursor's samples, the selected area's aggregate and samples) with
`ipu_nb.query` and `Profile.filter`, naming every active filter, the area and the grouping;
last, the widget itself from its `state`. Every value goes in as a Python literal
(``repr``), so profile strings cannot break out of the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._query import Query
from .._query.filters_codec import FILTER_KEYS
from .selection import area_query

__all__ = ["Baseline", "view_code"]


def _filter_flags(filters: Mapping[str, Any]) -> dict[str, Any]:
    """The widget's active filters as `ipu_nb.query` keywords (unset ones left out)."""
    out: dict[str, Any] = {}
    for key in FILTER_KEYS:
        value = filters.get(key)
        if value is None or value == []:
            continue
        if key == "metadata":
            value = [tuple(pair) for pair in value]
        elif key == "window":
            value = tuple(value)
        out[key] = value
    return out


def _ints(values: list[int]) -> str:
    """A list of ints, runs of four or more consecutive ones as ranges: ``[*range(0, 40), 45]``."""
    parts: list[str] = []
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        if j - i >= 3:
            parts.append(f"*range({values[i]}, {values[j] + 1})")
        else:
            parts.extend(map(str, values[i : j + 1]))
        i = j + 1
    if len(parts) == 1 and parts[0].startswith("*"):
        return f"list({parts[0][1:]})"
    return f"[{', '.join(parts)}]"


def _compact(value: Any) -> str:
    """`value` as a one-line Python literal (strings through ``repr``, so any text stays data)."""
    if isinstance(value, list) and value and all(type(v) is int for v in value):
        return _ints(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_compact, value)) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_compact, value)) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _literal(value: Any) -> str:
    """A dict one key a line, values compact; anything else compact."""
    if isinstance(value, dict) and value:
        return "{\n" + "".join(f"    {k!r}: {_compact(v)},\n" for k, v in value.items()) + "}"
    return _compact(value)


@dataclass(frozen=True)
class Baseline:
    """What `view_code` needs of a widget's baseline: its file, and whether clocks may differ."""

    path: Path | None
    allow_clock_mismatch: bool = False


def _widget_line(baseline: Baseline | None) -> str:
    if baseline is None:
        return "widget = ipu_nb.ProfileWidget(profile, state=state)"
    clocks = ", allow_clock_mismatch=True" if baseline.allow_clock_mismatch else ""
    return f"widget = ipu_nb.ProfileWidget(after, baseline=baseline{clocks}, state=state)"


def _grouping(q: Query) -> str:
    return f"group_by={q.group_by!r}" + (f", metadata_key={q.metadata_key!r}" if q.metadata_key is not None else "")


def _opened(name: str, path: Path | None) -> str:
    """The line that binds `name` to the profile read from `path` (a comment asking for it without one).

    The path is written resolved, so the code runs from any working directory.
    """
    if path is None:
        return f"# This profile was not read from a file: bind `{name}` to it before running the rest."
    return f"{name} = ipu_nb.open_profile({str(Path(path).resolve())!r})"


def view_code(
    path: Path | None,
    filters: Mapping[str, Any],
    base: Query,
    at: int | None,
    selection: Mapping[str, Any] | None,
    state: Mapping[str, Any],
    baseline: Baseline | None = None,
) -> str:
    """The code for a view: `filters` (the normalised trait), `base` (its `Query`, with the
    grouping), the cursor `at`, the area `selection` and the widget's `state`.

    With a `baseline` (`Baseline`: the widget compares `path` with it), both profiles are
    opened, ``profile`` is the one the state shows, and the widget is rebuilt with both. On the
    newest runtime's clocks (the state's ``clock``), the frames are built from ``clocked``, the
    profile on that clock.
    """
    lines = ["import ipu_nb", ""]
    if baseline is None:
        lines.append(_opened("profile", path))
    else:
        shown = "baseline" if state.get("showing") == "baseline" else "after"
        lines += [
            _opened("after", path),
            _opened("baseline", baseline.path),
            f"profile = {shown}  # the profile shown (widget.showing)",
        ]
    data = "profile"
    clock = state.get("clock", "tile")
    if clock != "tile":  # the frames below read offsets on the widget's clock, as the newest runtime does
        data = "clocked"
        lines.append(f"clocked = profile.on_clock({clock!r})  # offsets on widget.clock")
    flags = _filter_flags(filters)
    lines.append(f"filters = {_literal(flags)}")
    grouping = _grouping(base)
    lines += [
        f"groups = ipu_nb.query({data}, **filters, {grouping}).groups  # widget.groups",
        f"samples = {data}.filter(**filters)  # widget.filtered",
    ]
    if at is not None:
        lines.append(f"at_slice = {data}.filter(**filters, at={at!r})  # widget.at_slice")
    if selection is not None:
        q = area_query(base, selection)
        if q is None:
            lines.append(
                f"# The selected area {dict(selection)!r} misses the filters' window or tiles: it holds no sample."
            )
        else:
            area: dict[str, Any] = {"window": q.window}
            if q.tiles:
                area["tiles"] = list(q.tiles)
            lines += [
                f"area = {_literal(area)}  # widget.selection, within the filters",
                f"selection_groups = ipu_nb.query({data}, **{{**filters, **area}}, clip=True,"
                f" {grouping}).groups  # widget.selection_groups",
                f"selection_samples = {data}.filter(**{{**filters, **area}}, clip=True).drop('metadata')"
                "  # widget.selection_samples",
            ]
    lines += [
        "",
        "# The same view in a widget:",
        f"state = {_literal(dict(state))}",
        _widget_line(baseline),
        "widget",
    ]
    return "\n".join(lines) + "\n"
