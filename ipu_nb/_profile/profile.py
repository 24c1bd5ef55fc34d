"""`Profile`: the public face of one decoded profile, its frames and scalars plus what the layers below offer on it.

The frames and the data methods are `ipu_nb._model.profile.ProfileData`'s, which the loader
builds and the query core takes; this class adds the methods that reach the query core,
the writers and the notebook repr, so it sits above all of them. Every profile a user gets
is one (`open_profile` wraps the loader's; `Profile.of` wraps any other).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._model.profile import ProfileData
from .._query import filter_samples
from .._query import query as run_query
from .._query.head.clock import CLOCKS, head_clock
from .._query.keywords import FilterFlags, QueryFlags
from .._query.signature import keyword_signature

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._model.vocabulary import Semantics
    from .._query import Query, QueryResult

__all__ = ["Profile"]


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Profile(ProfileData):
    """A cycle profile, built once at load and never mutated (two can be open side by side).

    Attributes
    ----------
    samples : pl.DataFrame
        One row per sample in file order: ``sample`` (u32 id), ``tile`` (physical id),
        ``tile_index``, ``local_index``, ``phase``, ``epoch``, ``kind`` (Enum),
        ``operation`` and ``kernel`` (Categorical), ``start``/``end`` (raw u32 counters),
        ``offset`` (u64, docs/reference/format.md#offsets-and-durations), ``duration`` (u32),
        ``exchange_event_cycles`` (u32) and ``inactive`` (compute samples whose metadata says ``active=false``;
        timelines draw them as idle).
    metadata : pl.DataFrame
        Long form, one row per entry: ``sample``, ``position``, ``name``, ``value``. A loaded
        profile holds its entries as codes (2 bytes an entry) and builds this frame on first use;
        queries and filters never need it.
    exchange_activities : pl.DataFrame
        Newer writers' exchange activities: ``sample``, ``position``, ``kind``,
        ``start``, ``end``, ``offset``, ``duration`` (empty for older files).
    tiles : pl.DataFrame
        One row per tile entry in file order: ``tile_index``, ``tile``,
        ``sample_count``, ``base`` (first sample's start counter, null if none).
    clock_hz, schema_version : int
        The file's header scalars.
    granularity : str
        Inferred collection level: graph, region, phase, step or unknown.
    path : Path or None
        Where it was read from.
    """

    @classmethod
    def of(cls, data: ProfileData) -> Profile:
        """`data` as a `Profile`: itself when it is one, else one holding the same frames and scalars (no copy).

        >>> ipu_nb.Profile.of(profile) is profile
        True
        """
        if isinstance(data, cls):
            return data
        given = {
            field.name: getattr(data, field.name)
            for field in dataclasses.fields(ProfileData)
            if field.name != "metadata"
        }
        # A compact one stays compact, its frame unbuilt (the field takes either).
        return cls(**given, metadata=data.metadata_source())  # type: ignore[arg-type]

    @keyword_signature(QueryFlags)
    def query(
        self,
        query: Query | None = None,
        *,
        semantics: Semantics = "ba7339c",
        shared_clock: bool = False,
        at_offset: int | None = None,
        **flags: Unpack[QueryFlags],
    ) -> QueryResult:
        """Run `ipu_nb.query` on this profile: ``query`` (a `Query`, optional) with ``flags`` overriding its fields."""
        return run_query(self, query, semantics=semantics, shared_clock=shared_clock, at_offset=at_offset, **flags)

    @keyword_signature(FilterFlags)
    def filter(self, query: Query | None = None, **flags: Unpack[FilterFlags]) -> pl.DataFrame:
        """The samples matching the filters of ``query`` and ``flags``, with their metadata (a list-of-struct column).

        The keywords are the query's filters plus ``clip``: ``window=(start, end)`` keeps
        the samples with a cycle in that offset range, and ``clip=True`` adds a
        ``clipped_cycles`` column, each one's cycles inside it. Grouping, sorting and
        limits do not apply (a `QueryError` names such a keyword; a ``query`` may hold them).
        """
        return filter_samples(self, query, **flags)

    def on_clock(self, clock: str) -> Profile:
        """This profile with its offsets on `clock`: ``"tile"`` (itself, each tile from 0, the default
        semantics), or the newest runtime's ``"cropped"`` or ``"shared"`` clock (one origin for every
        tile; cropped at the last tile's first sample, samples left with no cycles dropped; ids kept).

        >>> profile.on_clock("tile") is profile
        True
        >>> int(profile.on_clock("shared").samples["offset"].min())
        0
        """
        if clock not in CLOCKS:
            raise ValueError(f"on_clock: clock must be one of {', '.join(map(repr, CLOCKS))}, got {clock!r}")
        if clock == "tile":
            return self
        return Profile.of(head_clock(self, shared_clock=clock == "shared").profile)

    def to_trace(
        self, path: str | os.PathLike[str], query: Query | None = None, *, progress: bool | None = None
    ) -> Path:
        """Write the samples (those matching `query`'s filters, if given) as a Chrome/Perfetto JSON trace.

        One track per tile, grouped by IPU column; one slice per sample, named by its
        operation, with kind, kernel, phase, epoch, cycles, offset and metadata as args;
        time in µs at the profile's clock from each tile's first sample. Streamed in
        chunks; gzip-compressed when `path` ends in ``.gz``. Open it in ui.perfetto.dev
        or chrome://tracing. `progress` as in `open_profile`. Returns the path.

        >>> profile.to_trace("trace.json", ipu_nb.Query(kind="compute")).name
        'trace.json'
        """
        from .exports import export_trace

        return export_trace(self, path, query, progress=progress).path

    def to_parquet(
        self,
        folder: str | os.PathLike[str],
        label: str | None = None,
        *,
        labels: Mapping[str, Any] | None = None,
    ) -> Path:
        """Write the frames into the Parquet dataset at `folder`, under partition ``profile=<label>``.

        Tables ``samples``, ``metadata``, ``exchange_activities`` and ``tiles`` (these
        frames) and ``profiles`` (one row: the scalars, the source path and `labels`),
        each hive-partitioned by `label` (default: the file name without its suffix);
        writing a label again replaces it. `ipu_nb.scan_parquet` reads the dataset back
        lazily, and DuckDB or Spark read the same files (docs/reference/fleet.md#parquet-datasets).
        Returns the folder.

        >>> profile.to_parquet("dataset", labels={"batch": 8}).name
        'dataset'
        """
        from .exports import export_parquet

        return export_parquet(self, folder, label, labels=labels)

    def _repr_html_(self) -> str:
        from .repr_html import profile_html

        return profile_html(self)
