"""`query` and its answer, `QueryResult`: groups and samples as frames, text and JSON as the runtime prints them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from .._model.index import index_of
from .._model.vocabulary import GROUP_FIELDS, SAMPLE_FIELDS, SCALAR_FIELDS
from . import render
from .flags import Query, check_metadata_key, make_query
from .head import asks_for_head, head_answer, head_text
from .keywords import QueryFlags
from .plan import aggregate, empty_samples, longest, with_ms
from .predicate import filtered
from .signature import keyword_signature
from .window import clip_to_window

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._model.profile import ProfileData
    from .head import Semantics

__all__ = ["HeadQueryResult", "QueryResult", "head_query", "query"]


@dataclass(frozen=True, eq=False)
class QueryResult:
    """The answer of one `query`: groups and samples as polars frames, plus the report scalars.

    Attributes
    ----------
    query : Query
        The validated query that produced this result.
    groups : pl.DataFrame
        One row per group in report order: ``name``, ``dimensions`` (list of
        {name, value}), ``sample_count``, ``tile_count``, ``phase_count``,
        ``phase_cycles``, ``phase_ms``, ``work_cycles``, ``average_active_tiles``,
        ``mean_cycles``, ``p50_cycles``, ``p95_cycles``, ``maximum_cycles``,
        ``first_offset``, ``last_offset``.
        With ``clip=True`` every statistic is of the samples' parts inside the window
        (docs/reference/query.md#clip); the counts are unchanged.
    samples : pl.DataFrame
        The ``query.samples`` longest matching samples: ``sample`` (id), ``tile``,
        ``offset``, ``duration``, ``phase``, ``epoch``, ``kind``, ``operation``,
        ``kernel`` and ``metadata`` (list of {name, value} in stored order). With
        ``clip=True`` they are the samples with the most cycles inside the window,
        and ``clipped_cycles`` (after ``duration``) holds those cycles.
    clock_hz, tile_count, sample_count, matched_sample_count, profile_span_cycles : int
    profile_span_ms : float
    at_offset : int or None
    """

    query: Query
    groups: pl.DataFrame
    samples: pl.DataFrame
    clock_hz: int
    tile_count: int
    sample_count: int
    matched_sample_count: int
    profile_span_cycles: int
    profile_span_ms: float
    at_offset: int | None

    def _records(self) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
        scalars = {field: getattr(self, attribute) for attribute, field in SCALAR_FIELDS.items()}
        if self.query.window is not None:
            start, end = self.query.window
            scalars["window"] = {"start": start, "end": end, "clip": self.query.clip}
        groups = []
        for g in self.groups.iter_rows(named=True):
            group = {field: g[column] for column, field in GROUP_FIELDS.items()}
            group["dimensions"] = {d["name"]: d["value"] for d in g["dimensions"]}
            groups.append(group)
        samples = [
            {field: s[column] for column, field in SAMPLE_FIELDS.items() if column in s}
            for s in self.samples.iter_rows(named=True)
        ]
        return scalars, groups, samples

    def to_json(self) -> str:
        """`profile-query --json` output with its trailing newline (docs/reference/query.md#json-output)."""
        return render.query_json(*self._records())

    def to_text(self) -> str:
        """`profile-query` text output with its trailing newline (docs/reference/query.md#text-output)."""
        return render.query_text(*self._records())

    def _repr_html_(self) -> str:
        from .repr_html import query_result_html

        return query_result_html(self)

    def __repr__(self) -> str:
        return (
            f"<QueryResult group_by={self.query.group_by}: {self.groups.height} groups, "
            f"{self.matched_sample_count}/{self.sample_count} samples matched, {self.samples.height} listed>"
        )


@keyword_signature(QueryFlags)
def query(
    profile: ProfileData,
    query: Query | None = None,
    *,
    semantics: Semantics = "ba7339c",
    shared_clock: bool = False,
    at_offset: int | None = None,
    **flags: Unpack[QueryFlags],
) -> QueryResult:
    """Run `profile-query` on a profile (docs/reference/query.md): groups and longest samples as polars frames.

    Parameters
    ----------
    profile : Profile
        An opened profile (`ipu_nb.open_profile`).
    query : Query, optional
        The query; default `Query()` (group by kernel, sort by phase cycles, limit 20).
    semantics : {"ba7339c", "head"}, default "ba7339c"
        Whose `profile-query`: the runtime at ba7339c, or the newest one (a `HeadQueryResult`,
        docs/reference/head.md#from-python), which alone takes `shared_clock` and `at_offset`.
    shared_clock : bool, default False
        With ``semantics="head"``: keep the leading interval the newest runtime crops.
    at_offset : int, optional
        With ``semantics="head"``: the samples running at this offset of its clock.
    **flags
        Override fields of ``query``, one keyword per `Query` field, e.g. ``kind="compute"``,
        ``tiles=[5, 9]``, ``metadata="layer=3"``, ``group_by="metadata", metadata_key="layer"``
        (docs/reference/query.md#from-python; `help(ipu_nb.query)` lists them all).

    Raises
    ------
    QueryError
        A bad flag (``usage`` True) or ``group_by="metadata"`` without ``metadata_key``.

    Warns
    -----
    QueryWarning
        ``metadata_key`` without ``group_by="metadata"``: it has no effect.

    Examples
    --------
    >>> result = ipu_nb.query(profile, group_by="phase", limit=3, samples=1)
    >>> print(result.to_text(), end="")  # tab-separated, as the runtime prints it
    tiles=16 samples=384/384 spanCycles=461169 spanMs=0.307446 clockHz=1500000000 at=-
    name        phases  tiles  samples  phaseCycles  phaseMs   workCycles  avgActiveTiles  mean      p50    p95    max
    phase 14/0  1       16     32       60720        0.040480  487667      8.03            15239.59  16441  16476  44270
    phase 2/0   1       16     32       60590        0.040393  487998      8.05            15249.94  16452  16487  44132
    phase 4/0   1       16     32       57896        0.038597  437610      7.56            13675.31  12352  13847  45544
    sample tile=450 offset=73788 duration=45544 phase=4/0 kind=synchronization kernel="" operation="sync before ...
    >>> result.groups.get_column("phase_cycles").to_list()
    [60720, 60590, 57896]
    """
    if (semantics != "ba7339c" or shared_clock is not False or at_offset is not None) and asks_for_head(
        query, semantics, shared_clock, at_offset, dict(flags)
    ):
        return head_query(profile, query, shared_clock=shared_clock, at_offset=at_offset, **flags)
    q = make_query(query, **flags)
    check_metadata_key(q)
    index = index_of(profile)
    extra = (index.first_values(q.metadata_key),) if q.group_by == "metadata" and q.metadata_key is not None else ()
    matching = filtered(profile, q, extra)
    if q.clip:
        assert q.window is not None  # make_query refuses clip without a window
        matching = clip_to_window(matching, q.window)
    plans = [matching.select(pl.len()), aggregate(profile, matching, q)]
    if q.samples:
        plans.append(longest(matching, min(q.samples, max(profile.sample_count, 1)), clipped=q.clip))
    frames = pl.collect_all(plans)
    matched = int(frames[0].item())
    groups = with_ms(frames[1], profile.clock_hz)
    if q.samples:
        top = frames[2]
        samples = top.with_columns(index.metadata_lists(top.get_column("sample").to_numpy(), strings=True))
    else:
        samples = empty_samples(clipped=q.clip)
    span = index.span_cycles
    return QueryResult(
        query=q,
        groups=groups,
        samples=samples,
        clock_hz=profile.clock_hz,
        tile_count=profile.tile_count,
        sample_count=profile.sample_count,
        matched_sample_count=matched,
        profile_span_cycles=span,
        profile_span_ms=profile.ms(float(span)),
        at_offset=q.at,
    )


@dataclass(frozen=True, eq=False)
class HeadQueryResult(QueryResult):
    """A `QueryResult` of the newest runtime's query (``semantics="head"``): the same frames and JSON, its own text.

    Offsets (``first_offset``, ``last_offset``, the samples' ``offset``) are on the shared
    clock less `crop_cycles`; ``at_offset`` is the ``at_offset`` filter; `query` holds the
    other flags as given (docs/reference/head.md#from-python).

    Attributes
    ----------
    shared_clock : bool
        Whether the leading interval was kept (no crop).
    cycle_origin : int
        The counter value of offset 0 before the crop (docs/reference/head.md#the-shared-clock-and-the-crop).
    crop_cycles : int
        The cycles cropped from the start of the shared clock.
    """

    shared_clock: bool = False
    cycle_origin: int = 0
    crop_cycles: int = 0

    def to_text(self) -> str:
        """The newest runtime's `profile-query` text with its trailing newline (docs/reference/head.md#text-output)."""
        return head_text(*self._records())

    def __repr__(self) -> str:
        return (
            f"<HeadQueryResult group_by={self.query.group_by} shared_clock={self.shared_clock}: "
            f"{self.groups.height} groups, {self.matched_sample_count}/{self.sample_count} samples matched, "
            f"{self.samples.height} listed>"
        )


def head_query(
    profile: ProfileData,
    query: Query | None = None,
    *,
    shared_clock: bool = False,
    at_offset: int | None = None,
    **flags: Unpack[QueryFlags],
) -> HeadQueryResult:
    """The newest runtime's `profile-query` (docs/reference/head.md#profile-query): ``query(..., semantics="head")``.

    Raises
    ------
    QueryError
        A bad flag value, or a flag the newest runtime lacks (``usage`` True).

    >>> result = head_query(profile, group_by="kind", sort_by="name", limit=2)
    >>> print(result.to_text().splitlines()[1].split()[0])
    name="compute"
    """
    return HeadQueryResult(**head_answer(profile, query, shared_clock=shared_clock, at_offset=at_offset, **flags))
