"""Shared pieces of `ipu_nb.charts`: chart sources (Profile, QueryResult, DataFrame), kind colours, errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt
import polars as pl

from .._markup.sanitize import label, label_frame
from .._model.palette import palette
from .._model.vocabulary import GROUP_FIELDS
from .._query.flags import FILTERS, check_keywords

__all__ = [
    "KIND_COLORS",
    "SelectionTooLargeError",
    "as_profile",
    "chart_data",
    "group_title",
    "groups_of",
    "is_profile",
    "kind_scale",
    "samples_of",
    "spec_names",
]

#: One colour per sample kind, shared by every chart and the widget (`ipu_nb.palette()`).
KIND_COLORS: dict[str, str] = palette()


class SelectionTooLargeError(ValueError):
    """A chart that draws individual samples was given more than it can show legibly."""


def kind_scale(kinds: tuple[str, ...] = tuple(KIND_COLORS)) -> alt.Scale:
    """A colour scale with the fixed kind palette (so colours mean the same in every chart)."""
    return alt.Scale(domain=list(kinds), range=[KIND_COLORS[k] for k in kinds])


def is_profile(source: object) -> bool:
    """Whether ``source`` is a `Profile` (imported lazily: the charts never load the profile module first)."""
    from .._profile import Profile

    return isinstance(source, Profile)


def as_profile(source: object) -> tuple[Any, Any]:
    """(Profile, the widget's Query or None) for a Profile or a `ProfileWidget`; (None, None) otherwise.

    A widget counts as its profile under its current filters, so ``charts.tile_heatmap(widget)``
    draws what the widget shows (duck-typed: importing the widget module here would load anywidget).
    """
    if is_profile(source):
        return source, None
    profile = getattr(source, "profile", None)
    if is_profile(profile) and hasattr(source, "filtered"):
        return profile, source.query  # type: ignore[attr-defined]
    return None, None


def _is_query_result(source: object) -> bool:
    # HeadQueryResult (semantics="head") is a QueryResult too.
    return any(t.__name__ == "QueryResult" for t in type(source).__mro__) and hasattr(source, "groups")


def samples_of(source: Any, filters: Mapping[str, Any]) -> tuple[pl.DataFrame, pl.Series | None, int]:
    """(selected samples, all tiles to draw or None, clock Hz or 0) of a chart source under `filters`."""
    check_keywords(filters, FILTERS, "filter")
    profile, base = as_profile(source)
    if profile is not None:
        samples = profile.filter(base, **filters) if filters or base is not None else profile.samples
        return samples, profile.tiles.get_column("tile"), profile.clock_hz
    if filters:
        raise TypeError(f"filters ({', '.join(filters)}) apply to a Profile source; filter the DataFrame instead")
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        missing = [c for c in ("tile", "offset", "duration", "kind") if c not in source.columns]
        if missing:
            raise ValueError(f"samples DataFrame lacks column(s) {', '.join(missing)}: pass profile.filter(...) output")
        return source, None, 0
    if _is_query_result(source):
        raise TypeError("this chart draws samples: pass the Profile (with the same flags) instead of a QueryResult")
    raise TypeError(f"expected a Profile, ProfileWidget or samples DataFrame, got {type(source).__name__}")


#: QueryResult.groups columns (snake_case) to the JSON field names charts show (docs/reference/query.md#key-order).
_SPEC_NAMES = {column: field for column, field in GROUP_FIELDS.items() if column != field}


def spec_names(groups: pl.DataFrame) -> pl.DataFrame:
    """Groups with the JSON field names (``phaseCycles``…), whichever spelling they came in.

    The names: docs/reference/query.md#key-order.
    """
    return groups.rename({k: v for k, v in _SPEC_NAMES.items() if k in groups.columns and v not in groups.columns})


def group_title(group_by: str, q: Any) -> str:
    """What a groups chart's title says it groups by (``metadata layer`` for a metadata key), as a label."""
    key = getattr(q, "metadata_key", None)
    return label(f"metadata {key}" if group_by == "metadata" and key is not None else group_by)


def groups_of(source: Any, query_flags: Mapping[str, Any]) -> tuple[pl.DataFrame, str, Any]:
    """(groups table, what it is grouped by — a `Query.group_by` value or "group" —, the Query or None)."""
    if _is_query_result(source):
        if query_flags:
            raise TypeError("query flags apply to a Profile source; this QueryResult is already computed")
        q = getattr(source, "query", None)
        return spec_names(source.groups), str(getattr(q, "group_by", None) or "group"), q
    profile, base = as_profile(source)
    if profile is not None:
        from .._query import query

        result = query(profile, base, **query_flags)
        return spec_names(result.groups), result.query.group_by, result.query
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    if isinstance(source, pl.DataFrame):
        if query_flags:
            raise TypeError("query flags apply to a Profile source, not a DataFrame")
        if "name" not in source.columns:
            raise ValueError("groups DataFrame needs a 'name' column (QueryResult.groups layout)")
        return spec_names(source), "group", None
    raise TypeError(f"expected a Profile, ProfileWidget, QueryResult or groups DataFrame, got {type(source).__name__}")


def chart_data(frame: pl.DataFrame) -> pl.DataFrame:
    """What a chart may embed: no nested columns, and every string a label (`ipu_nb._markup.sanitize.label`).

    Every frame handed to Altair passes here, so no profile string reaches a
    renderer unescaped; Categorical/Enum columns become plain strings on the way.
    """
    keep = [c for c, t in frame.schema.items() if not isinstance(t, (pl.Struct, pl.List, pl.Array, pl.Object))]
    return label_frame(frame.select(keep))
