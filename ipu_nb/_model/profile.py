"""`Profile`: one decoded cycle profile as polars frames plus its scalars."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from .._query.keywords import FilterFlags, QueryFlags
from .._query.signature import keyword_signature

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._query import Query, QueryResult

__all__ = ["Profile"]


@dataclass(frozen=True, eq=False)
class Profile:
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
        Long form, one row per entry: ``sample``, ``position``, ``name``, ``value``.
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

    samples: pl.DataFrame
    metadata: pl.DataFrame
    exchange_activities: pl.DataFrame
    tiles: pl.DataFrame
    clock_hz: int
    schema_version: int
    granularity: str
    path: Path | None = None

    @property
    def tile_count(self) -> int:
        """Tile entries in the file (profiled tiles, including ones with no samples)."""
        return self.tiles.height

    @property
    def sample_count(self) -> int:
        """All samples in the file."""
        return self.samples.height

    @property
    def span_cycles(self) -> int:
        """``profileSpanCycles``: max over samples of offset + duration (docs/reference/format.md#profile-span)."""
        if self.samples.height == 0:
            return 0
        value = self.samples.select((pl.col("offset") + pl.col("duration")).max()).item()
        return int(value)

    def ms(self, cycles: int | float) -> float:
        """Cycles to milliseconds at this profile's clock (0.0 when clockHz is 0)."""
        return (cycles * 1000.0) / self.clock_hz if self.clock_hz else 0.0

    @keyword_signature(QueryFlags)
    def query(self, query: Query | None = None, **flags: Unpack[QueryFlags]) -> QueryResult:
        """Run `ipu_nb.query` on this profile: ``query`` (a `Query`, optional) with ``flags`` overriding its fields."""
        from .._query import query as run_query

        return run_query(self, query, **flags)

    @keyword_signature(FilterFlags)
    def filter(self, query: Query | None = None, **flags: Unpack[FilterFlags]) -> pl.DataFrame:
        """The samples matching the filters of ``query`` and ``flags``, with their metadata (a list-of-struct column).

        The keywords are the query's filters plus ``clip``: ``window=(start, end)`` keeps
        the samples with a cycle in that offset range, and ``clip=True`` adds a
        ``clipped_cycles`` column, each one's cycles inside it. Grouping, sorting and
        limits do not apply (a `QueryError` names such a keyword; a ``query`` may hold them).
        """
        from .._query import filter_samples

        return filter_samples(self, query, **flags)

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
        from .._trace import write_trace

        return write_trace(self, path, query, progress=progress).path

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
        from .._fleet.labels import checked
        from .._fleet.parquet import default_label, write_profile

        if label is None:
            if self.path is None:
                raise ValueError("label= is required: this profile was not read from a file")
            label = default_label(Path(self.path.name))
        root = Path(folder)
        write_profile(self, root, label, checked(labels or {}, "labels"))
        return root

    def _repr_html_(self) -> str:
        from .._html.reprs import profile_html

        return profile_html(self)

    def __repr__(self) -> str:
        where = f" from {self.path}" if self.path else ""
        return (
            f"<Profile{where}: {self.tile_count} tiles, {self.sample_count} samples, "
            f"{self.granularity} granularity, clockHz={self.clock_hz}, schema v{self.schema_version}>"
        )
