"""`profile-query` as the newest runtime answers it (docs/reference/head.md#profile-query), as plain fields.

The same plan as the default semantics (`ipu_nb._query.plan.aggregate`, `longest`) runs on
the profile as `head_clock` crops it, with three differences the runtime's newest query
makes: offsets on the shared clock, samples left with no cycles dropped before any filter,
and ``phaseCycles`` as one union per group. The flags the newest runtime lacks (metadata
filters and key, ``at``, and ipu-nb's ``operation``, ``window`` and ``clip``) are refused.
`head_answer` returns the fields of `ipu_nb._query.result.HeadQueryResult`, which wraps them.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import polars as pl

from ..._model.index import index_of
from ..flags import _U64_MAX, Query, QueryError, _bool, _int, make_query
from ..plan import aggregate, empty_samples, longest, with_ms
from ..predicate import filtered
from .clock import head_clock
from .semantics import DEFAULT_SEMANTICS, check_semantics

if TYPE_CHECKING:
    from ..._model.profile import ProfileData

__all__ = ["asks_for_head", "check_head_query", "head_answer"]

#: The `Query` fields the newest runtime's query has no counterpart for, with what to say instead.
_REFUSED = {
    "metadata": "metadata filters are not part of the newest runtime's profile-query",
    "metadata_key": "metadata_key is not part of the newest runtime's profile-query "
    "(group_by='metadata' groups by the first entry named '' there)",
    "at": "at is the default semantics' per-tile offset; the newest runtime's is at_offset=",
    "operation": "operation is an ipu-nb extension of the default semantics",
    "window": "window is an ipu-nb extension of the default semantics",
    "clip": "clip is an ipu-nb extension of the default semantics",
}


def check_head_query(q: Query) -> None:
    """A `QueryError` (usage) for the first field of `q` the newest runtime's query has no counterpart for."""
    defaults = Query()
    for name, message in _REFUSED.items():
        if getattr(q, name) != getattr(defaults, name):
            raise QueryError(f"{message}; semantics='head' refuses {name}={getattr(q, name)!r}")


def head_answer(
    profile: ProfileData,
    query: Query | None = None,
    *,
    shared_clock: Any = False,
    at_offset: Any = None,
    **flags: Any,
) -> dict[str, Any]:
    """The fields of the newest runtime's answer: `query`'s and `flags`' (`ipu_nb.query`'s, less those it
    lacks), `at_offset` a cropped offset the samples must run at.

    Raises
    ------
    QueryError
        A bad flag value, or a flag the newest runtime lacks (``usage`` True).
    """
    q = make_query(query, **flags)
    check_head_query(q)
    shared = _bool(shared_clock, "shared_clock")
    at = None if at_offset is None else _int(at_offset, "at_offset", _U64_MAX)
    clock = head_clock(profile, shared)
    cropped = clock.profile
    plan = dataclasses.replace(q, at=at, metadata_key="" if q.group_by == "metadata" else None)
    index = index_of(cropped)
    extra = (index.first_values(""),) if plan.metadata_key is not None else ()
    matching = filtered(cropped, plan, extra)
    plans = [matching.select(pl.len()), aggregate(cropped, matching, plan, phase_union=False)]
    if q.samples:
        plans.append(longest(matching, min(q.samples, max(profile.sample_count, 1))))
    frames = pl.collect_all(plans)
    if q.samples:
        top = frames[2]
        samples = top.with_columns(index.metadata_lists(top.get_column("sample").to_numpy(), strings=True))
    else:
        samples = empty_samples()
    return {
        "query": q,
        "groups": with_ms(frames[1], profile.clock_hz),
        "samples": samples,
        "clock_hz": profile.clock_hz,
        "tile_count": profile.tile_count,
        "sample_count": profile.sample_count,
        "matched_sample_count": int(frames[0].item()),
        "profile_span_cycles": clock.span_cycles,
        "profile_span_ms": profile.ms(float(clock.span_cycles)),
        "at_offset": at,
        "shared_clock": shared,
        "cycle_origin": clock.origin,
        "crop_cycles": clock.crop,
    }


def asks_for_head(
    query: Query | None, semantics: Any, shared_clock: Any, at_offset: Any, flags: dict[str, Any]
) -> bool:
    """Whether `ipu_nb.query`'s ``semantics``, ``shared_clock`` and ``at_offset`` ask for the newest runtime.

    The default semantics refuses the other two, which belong to the newest runtime (after
    any bad flag value, reported first as without them).
    """
    if check_semantics(semantics) != DEFAULT_SEMANTICS:
        return True
    make_query(query, **flags)
    if _bool(shared_clock, "shared_clock"):
        raise QueryError("shared_clock=True needs semantics='head': the runtime at ba7339c has no shared clock")
    if at_offset is not None:
        raise QueryError(
            f"at_offset={at_offset!r} needs semantics='head'; the default semantics' per-tile offset filter is at="
        )
    return False
