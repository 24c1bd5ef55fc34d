"""The query core: `profile-query` (SPEC §3) as one lazy polars plan.

`query(profile, ...)` filters the samples, aggregates them per group (counts,
union-of-intervals phase cycles, integer-indexed percentiles), sorts and cuts the
groups, and picks the longest samples. `QueryResult` renders SPEC §4 text and JSON
byte for byte through `_format`.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

from . import _format

if TYPE_CHECKING:
    from ._model.profile import Profile

__all__ = [
    "GROUP_BYS",
    "KINDS",
    "SORT_BYS",
    "Query",
    "QueryError",
    "QueryResult",
    "filter_samples",
    "inspect_operations",
    "make_query",
    "parse_metadata_filter",
    "query",
]

GroupBy = Literal["kind", "kernel", "operation", "phase", "tile", "metadata"]
SortBy = Literal["phase-cycles", "work-cycles", "maximum-cycles", "samples", "name"]

GROUP_BYS: tuple[str, ...] = ("kind", "kernel", "operation", "phase", "tile", "metadata")
SORT_BYS: tuple[str, ...] = ("phase-cycles", "work-cycles", "maximum-cycles", "samples", "name")
KINDS: tuple[str, ...] = ("compute", "exchange", "synchronization", "idle")

NO_KERNEL = "(no kernel)"
MISSING = "(missing)"
_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1
_SORT_COLUMN = {
    "phase-cycles": "phase_cycles",
    "work-cycles": "work_cycles",
    "maximum-cycles": "maximum_cycles",
    "samples": "sample_count",
}
_PAIR = pl.Struct({"name": pl.String, "value": pl.String})
#: High bits of the one-column sort key available for (group, phase, epoch); wider ids take a multi-column sort.
_KEY_BITS = 32


class QueryError(ValueError):
    """A query that cannot run: a bad flag value (`usage` True) or a missing requirement."""

    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class Query:
    """One `profile-query` invocation; field names follow the flags (SPEC §3).

    ``metadata`` holds ``(name, value)`` pairs, value None meaning "has an entry
    with that name". ``limit`` 0 means unlimited. Values use the CLI's spelling
    (``sort_by="phase-cycles"``), so a UI state and a command line map one to one.
    """

    group_by: GroupBy = "kernel"
    sort_by: SortBy = "phase-cycles"
    kind: str | None = None
    kernel: str | None = None
    operation_contains: str | None = None
    tiles: tuple[int, ...] = field(default=())
    phases: tuple[int, ...] = field(default=())
    metadata: tuple[tuple[str, str | None], ...] = field(default=())
    metadata_key: str | None = None
    at: int | None = None
    limit: int = 20
    samples: int = 0


# --------------------------------------------------------------------------- flags


def _int(value: Any, what: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise QueryError(f"{what} must be an integer, got {value!r}")
    value = int(value)
    if not 0 <= value <= maximum:
        raise QueryError(f"{what} must be between 0 and {maximum}, got {value}")
    return value


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, (int, np.integer)) else value
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise QueryError(f"{what} must be an integer or a list of integers, got {value!r}")
    return tuple(_int(v, what, _U32_MAX) for v in items)


def parse_metadata_filter(text: str) -> tuple[str, str | None]:
    """``"name"`` or ``"name=value"`` (split at the first ``=``) as a filter pair."""
    name, eq, value = text.partition("=")
    if not name:
        raise QueryError(f"--metadata needs a NAME or NAME=VALUE with a non-empty NAME, got {text!r}")
    return name, (value if eq else None)


def _metadata(value: Any) -> tuple[tuple[str, str | None], ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (parse_metadata_filter(value),)
    if isinstance(value, Mapping):
        value = list(value.items())
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and not isinstance(value[1], tuple):
        value = [value]
    pairs = []
    for item in value:
        if isinstance(item, str):
            pairs.append(parse_metadata_filter(item))
            continue
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise QueryError(f"metadata filter must be 'name', 'name=value' or (name, value), got {item!r}")
        name, val = item
        if not isinstance(name, str) or not (val is None or isinstance(val, str)):
            raise QueryError(f"metadata filter names and values must be strings, got {item!r}")
        if not name:
            raise QueryError("metadata filter name must not be empty")
        pairs.append((name, val))
    return tuple(pairs)


def _optional_str(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise QueryError(f"{what} must be a string, got {value!r}")
    return value


def _validated(q: Query) -> Query:
    """Check every field and normalise convenient spellings to the canonical ones."""
    if q.group_by not in GROUP_BYS:
        raise QueryError(f"group_by must be one of {', '.join(GROUP_BYS)}; got {q.group_by!r}")
    if q.sort_by not in SORT_BYS:
        raise QueryError(f"sort_by must be one of {', '.join(SORT_BYS)}; got {q.sort_by!r}")
    if q.kind is not None and q.kind not in KINDS:
        raise QueryError(f"kind must be one of {', '.join(KINDS)}; got {q.kind!r}")
    return dataclasses.replace(
        q,
        kernel=_optional_str(q.kernel, "kernel"),
        operation_contains=_optional_str(q.operation_contains, "operation_contains"),
        metadata_key=_optional_str(q.metadata_key, "metadata_key"),
        tiles=_ints(q.tiles, "tiles"),
        phases=_ints(q.phases, "phases"),
        metadata=_metadata(q.metadata),
        at=None if q.at is None else _int(q.at, "at", _U64_MAX),
        limit=_int(q.limit, "limit", _U64_MAX),
        samples=_int(q.samples, "samples", _U64_MAX),
    )


def make_query(query: Query | None = None, **flags: Any) -> Query:
    """A validated `Query`: ``query`` (default `Query()`) with ``flags`` overriding its fields.

    Flags accept convenient forms: ``tiles=5`` or ``[5, 9]``, ``metadata="name=value"``,
    ``["a", "b=c"]`` or ``[("a", None)]``.

    Raises
    ------
    QueryError
        An unknown flag name or a bad value (``usage`` True).
    """
    if query is not None and not isinstance(query, Query):
        raise QueryError(f"query must be an ipu_nb.Query, got {type(query).__name__}")
    names = {f.name for f in dataclasses.fields(Query)}
    unknown = sorted(set(flags) - names)
    if unknown:
        raise QueryError(f"unknown query flag {unknown[0]!r}; expected one of {', '.join(sorted(names))}")
    return _validated(dataclasses.replace(query or Query(), **flags))


def _require_metadata_key(q: Query) -> None:
    if q.group_by == "metadata" and q.metadata_key is None:
        raise QueryError("--group-by metadata requires --metadata-key NAME", usage=False)


# --------------------------------------------------------------------------- per-profile facts

_FACTS: weakref.WeakKeyDictionary[Profile, dict[str, Any]] = weakref.WeakKeyDictionary()


def _facts(profile: Profile) -> dict[str, Any]:
    """Cheap per-profile constants, computed once: bit widths for the sort key, metadata order."""
    facts = _FACTS.get(profile)
    if facts is None:
        facts = {}
        _FACTS[profile] = facts
    return facts


def _fact(profile: Profile, name: str, compute: Any) -> Any:
    facts = _facts(profile)
    if name not in facts:
        facts[name] = compute()
    return facts[name]


def _max_bits(series: pl.Series) -> int:
    top = series.max() if len(series) else 0
    return int(top or 0).bit_length()


def _code(text: str) -> int:
    """Physical code of `text` in polars' global categories (the same for every Categorical column)."""
    return int(pl.select(pl.lit(text).cast(pl.Categorical).to_physical()).item())


def _global_codes(column: str, dtype: pl.DataType) -> pl.Expr:
    """The column's strings as codes in the global categories, so `_code` values compare with them.

    Free for the loader's default Categorical columns; other string dtypes are re-encoded.
    """
    if dtype == pl.Categorical():
        return pl.col(column).to_physical().cast(pl.UInt64)
    return pl.col(column).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.UInt64)


def _code_bits(profile: Profile, frame: str, column: str) -> int:
    """Bit width of the largest global code in `frame.column` (cached per profile)."""

    def compute() -> int:
        data: pl.DataFrame = getattr(profile, frame)
        return _max_bits(data.select(_global_codes(column, data.schema[column])).to_series())

    return _fact(profile, f"{frame}.{column}_bits", compute)


def _metadata_index(profile: Profile) -> tuple[np.ndarray, np.ndarray | None]:
    """Metadata owner ids in ascending order, and the row permutation that sorts them.

    The permutation is None when the frame is already in (sample, position) order,
    as `build_profile` writes it; otherwise it is a stable sort by (sample, position).
    """

    def compute() -> tuple[np.ndarray, np.ndarray | None]:
        owners = profile.metadata.get_column("sample").to_numpy()
        positions = profile.metadata.get_column("position").to_numpy()
        if len(owners) < 2:
            return owners, None
        same = owners[1:] == owners[:-1]
        if bool(np.all(owners[1:] >= owners[:-1])) and bool(np.all(positions[1:][same] > positions[:-1][same])):
            return owners, None
        order = np.lexsort((positions, owners))
        return owners[order], order

    return _fact(profile, "metadata_index", compute)


def _rows_of_samples(profile: Profile, samples: np.ndarray) -> np.ndarray:
    """Row numbers in `profile.samples` of the given sample ids (the identity for loaded profiles)."""

    def compute() -> np.ndarray | None:
        ids = profile.samples.get_column("sample").to_numpy()
        if np.array_equal(ids, np.arange(len(ids), dtype=ids.dtype)):
            return None
        rows = np.full(int(ids.max()) + 1 if len(ids) else 0, -1, dtype=np.int64)
        rows[ids] = np.arange(len(ids), dtype=np.int64)
        return rows

    rows = _fact(profile, "rows_of_samples", compute)
    if rows is None:
        return samples.astype(np.int64)
    inside = samples < len(rows)
    out = np.full(len(samples), -1, dtype=np.int64)
    out[inside] = rows[samples[inside]]
    return out


def _metadata_rows(profile: Profile, name: str, value: str | None) -> np.ndarray:
    """Indices (in sorted metadata order) of the entries named `name` (with `value`, if given)."""
    entries = pl.col("name") == name
    if value is not None:
        entries = entries & (pl.col("value") == value)
    _, order = _metadata_index(profile)
    hits = profile.metadata.select(entries.fill_null(False)).to_series().to_numpy()
    return np.flatnonzero(hits if order is None else hits[order])


def _metadata_mask(profile: Profile, filters: tuple[tuple[str, str | None], ...]) -> np.ndarray:
    """Per sample row: does some entry match, for every filter (each may be met by a different entry)."""
    owners, _ = _metadata_index(profile)
    mask = np.ones(profile.samples.height, dtype=bool)
    for name, value in filters:
        rows = _rows_of_samples(profile, owners[_metadata_rows(profile, name, value)])
        hit = np.zeros(profile.samples.height, dtype=bool)
        hit[rows[rows >= 0]] = True
        mask &= hit
    return mask


def _first_values(profile: Profile, key: str) -> pl.Series:
    """Per sample row, the value of its first entry named `key` by position (null when none)."""
    owners, order = _metadata_index(profile)
    found = _metadata_rows(profile, key, None)
    first = found[np.r_[True, owners[found[1:]] != owners[found[:-1]]]] if len(found) else found
    rows = _rows_of_samples(profile, owners[first])
    source = first if order is None else order[first]
    index = np.full(profile.samples.height, -1, dtype=np.int64)
    index[rows[rows >= 0]] = source[rows >= 0]
    gather = pl.Series(index, dtype=pl.Int64)
    gather = gather.set(gather < 0, None)
    return profile.metadata.get_column("value").gather(gather).alias("_mvalue")


# --------------------------------------------------------------------------- the plan


def _filtered(profile: Profile, q: Query, extra: tuple[pl.Series, ...] = ()) -> pl.LazyFrame:
    """The samples (plus `extra` per-row columns) matching every filter of `q`, in file order.

    Metadata filters become a boolean row mask computed on the long metadata frame
    (a scatter by sample id), far cheaper than a join at a million samples.
    """
    base = profile.samples
    columns = list(extra)
    if q.metadata:
        columns.append(pl.Series("_meta", _metadata_mask(profile, q.metadata)))
    if columns:
        base = base.with_columns(columns)
    predicates: list[pl.Expr] = []
    if q.metadata:
        predicates.append(pl.col("_meta"))
    if q.kind is not None:
        predicates.append(pl.col("kind") == q.kind)
    if q.kernel is not None:
        predicates.append((pl.col("kernel") == q.kernel).fill_null(False))
    if q.operation_contains is not None:
        predicates.append(pl.col("operation").cast(pl.String).str.contains(q.operation_contains, literal=True))
    if q.tiles:
        predicates.append(pl.col("tile").is_in(pl.Series(q.tiles, dtype=pl.UInt32).implode()))
    if q.phases:
        predicates.append(pl.col("phase").is_in(pl.Series(q.phases, dtype=pl.UInt32).implode()))
    if q.at is not None:
        at = pl.lit(q.at, dtype=pl.UInt64)
        predicates.append((pl.col("offset") <= at) & (at < pl.col("offset") + pl.col("duration").cast(pl.UInt64)))
    lf = base.lazy()
    if predicates:
        lf = lf.filter(*predicates)
    return lf.drop("_meta") if q.metadata else lf


def _group_columns(profile: Profile, lf: pl.LazyFrame, q: Query) -> tuple[pl.LazyFrame, pl.Expr, int, pl.Expr]:
    """Add the integer group id ``gid``; return (frame, name source, gid bit width, name expression).

    Groups are keyed by their displayed name, so ids that print alike share one id
    (an empty kernel and a kernel named ``(no kernel)``; a missing value and ``(missing)``).
    For ``phase`` the id is the (phase, epoch) pair packed into one integer.
    """
    gb = q.group_by
    if gb == "kind":
        gid = pl.col("kind").to_physical()
        return lf.with_columns(gid=gid.cast(pl.UInt64)), pl.col("kind").first(), 2, pl.col("_src").cast(pl.String)
    if gb == "phase":
        phase_bits, epoch_bits = _phase_bits(profile)
        return lf.with_columns(gid=_phase_epoch(epoch_bits)), pl.lit(None), phase_bits + epoch_bits, pl.lit(None)
    if gb == "tile":
        bits = _fact(profile, "tile_bits", lambda: _max_bits(profile.samples.get_column("tile")))
        return lf.with_columns(gid=pl.col("tile").cast(pl.UInt64)), pl.lit(None), bits, pl.lit(None)
    if gb in ("kernel", "operation"):
        column = gb
        bits = _code_bits(profile, "samples", column)
        physical = _global_codes(column, profile.samples.schema[column])
        if gb == "kernel":
            no_kernel = _code(NO_KERNEL)
            bits = max(bits, no_kernel.bit_length())
            physical = pl.when(pl.col("kernel") == "").then(pl.lit(no_kernel, pl.UInt64)).otherwise(physical)
            name = pl.col("_src").cast(pl.String).replace("", NO_KERNEL)
        else:
            name = pl.col("_src").cast(pl.String)
        return lf.with_columns(gid=physical), pl.col(column).first(), bits, name
    # metadata: the value of the first entry named KEY (by position), joined in by `query`
    bits = _code_bits(profile, "metadata", "value")
    missing = _code(MISSING)
    bits = max(bits, missing.bit_length())
    lf = lf.with_columns(gid=_global_codes("_mvalue", profile.metadata.schema["value"]).fill_null(missing))
    name = pl.col("_src").cast(pl.String).fill_null(MISSING)
    return lf, pl.col("_mvalue").first(), bits, name


def _phase_bits(profile: Profile) -> tuple[int, int]:
    phase = _fact(profile, "phase_bits", lambda: _max_bits(profile.samples.get_column("phase")))
    epoch = _fact(profile, "epoch_bits", lambda: _max_bits(profile.samples.get_column("epoch")))
    return phase, epoch


def _phase_epoch(epoch_bits: int) -> pl.Expr:
    """(phase, epoch) packed into one u64: phase in the high bits, so the order is (phase, epoch)."""
    return pl.col("phase").cast(pl.UInt64) * 2**epoch_bits + pl.col("epoch").cast(pl.UInt64)


def _phase_cycles(lf: pl.LazyFrame, gid_bits: int, phase_bits: int, epoch_bits: int, by_phase: bool) -> pl.LazyFrame:
    """Per gid: ``phase_cycles`` (Σ union length per (phase, epoch)) and ``phase_count``.

    Fast path (partition id in 31 bits): sort the starts and the ends of each
    partition *independently*, as two one-column u64 keys (partition, offset) and
    (partition, end). Pairing the i-th smallest start with the i-th smallest end
    keeps every point's coverage count, hence the union; and with both sorted, each
    interval adds ``end − max(start, previous end)`` when positive (touching merge).
    Otherwise one multi-column sort by (gid, phase/epoch, start) and a running maximum
    of ends, made monotone across partitions by a partition-index prefix.
    """
    end = pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)
    pe_bits = 0 if by_phase else phase_bits + epoch_bits
    if gid_bits + pe_bits <= _KEY_BITS - 1:
        partition = pl.col("gid") if by_phase else pl.col("gid") * 2**pe_bits + _phase_epoch(epoch_bits)
        rows = lf.select(
            _starts=(partition * 2**32 + pl.col("offset")).sort(),
            _ends=(partition * 2**33 + pl.col("offset") + pl.col("duration").cast(pl.UInt64)).sort(),
        )
        part = pl.col("_starts") // 2**32
        new = (part != part.shift(1)).fill_null(True)
        start = (pl.col("_starts") % 2**32).cast(pl.Int64)
        stop = (pl.col("_ends") % 2**33).cast(pl.Int64)
        previous = pl.when(new).then(None).otherwise(stop.shift(1))
        gain = (stop - pl.max_horizontal(start, previous)).clip(0)
        rows = rows.select(gid=(part // 2**pe_bits).set_sorted(), _new=new, _gain=gain)
    else:
        rows = lf.select("gid", _pe=_phase_epoch(epoch_bits), _start=pl.col("offset").cast(pl.Int64), _end=end)
        rows = rows.sort("gid", "_pe", "_start")
        boundary = (pl.col("gid") != pl.col("gid").shift(1)) | (pl.col("_pe") != pl.col("_pe").shift(1))
        rows = rows.with_columns(_new=boundary.fill_null(True))
        prefix = pl.col("_new").cast(pl.Int64).cum_sum() * 2**33
        covered = (prefix + pl.col("_end")).cum_max().shift(1)
        gain = ((prefix + pl.col("_end")) - pl.max_horizontal(prefix + pl.col("_start"), covered)).clip(0)
        rows = rows.select(pl.col("gid").set_sorted(), "_new", _gain=gain)
    # gid is sorted here: the flag lets the group-by slice instead of hashing.
    return rows.group_by("gid").agg(
        phase_cycles=pl.col("_gain").sum().cast(pl.Int64), phase_count=pl.col("_new").sum().cast(pl.Int64)
    )


def _percentiles(lf: pl.LazyFrame, gid_bits: int) -> pl.LazyFrame:
    """Per gid: p50, p95 and maximum of the durations, indexed with integer arithmetic (SPEC §3).

    One narrow sort by (gid, duration); each group's durations are then ascending, so
    ``get`` picks d[(n−1)·50 div 100] without sorting per group.
    """
    if gid_bits <= _KEY_BITS:
        rows = lf.select(_key=pl.col("gid") * 2**32 + pl.col("duration").cast(pl.UInt64)).sort("_key")
        rows = rows.select(gid=(pl.col("_key") // 2**32).set_sorted(), _d=(pl.col("_key") % 2**32).cast(pl.Int64))
    else:
        rows = lf.select("gid", _d=pl.col("duration").cast(pl.Int64)).sort("gid", "_d")
        rows = rows.with_columns(pl.col("gid").set_sorted())
    n = pl.len().cast(pl.Int64)
    return rows.group_by("gid").agg(
        p50_cycles=pl.col("_d").get((n - 1) * 50 // 100),
        p95_cycles=pl.col("_d").get((n - 1) * 95 // 100),
        maximum_cycles=pl.col("_d").last(),
    )


def _aggregate(profile: Profile, lf: pl.LazyFrame, q: Query) -> pl.LazyFrame:
    """Per-group statistics of SPEC §3, sorted and cut to the limit.

    Three branches over the same filtered frame, joined on the group id: plain
    aggregates, the union-of-intervals phase cycles and the percentiles.
    """
    lf, source, gid_bits, name = _group_columns(profile, lf, q)
    phase_bits, epoch_bits = _phase_bits(profile)
    by_phase = q.group_by == "phase"
    plain = lf.group_by("gid").agg(
        _src=source,
        _tile=pl.col("tile").first(),
        phase=pl.col("phase").first(),
        epoch=pl.col("epoch").first(),
        sample_count=pl.len().cast(pl.Int64),
        tile_count=pl.col("tile").n_unique().cast(pl.Int64),
        work_cycles=pl.col("duration").cast(pl.Int64).sum(),
        first_offset=pl.col("offset").min().cast(pl.Int64),
        last_offset=(pl.col("offset").cast(pl.Int64) + pl.col("duration").cast(pl.Int64)).max(),
    )
    grouped = plain.join(_phase_cycles(lf, gid_bits, phase_bits, epoch_bits, by_phase), on="gid").join(
        _percentiles(lf, gid_bits), on="gid"
    )
    grouped = grouped.with_columns(_names(q, name)).with_columns(_derived())
    if q.sort_by == "name":
        grouped = grouped.sort(["name", "first_offset"])
    else:
        grouped = grouped.sort([_SORT_COLUMN[q.sort_by], "first_offset", "name"], descending=[True, False, False])
    if q.limit:
        grouped = grouped.head(min(q.limit, max(profile.sample_count, 1)))  # groups <= samples
    return grouped.select(
        "name",
        "dimensions",
        "sample_count",
        "tile_count",
        "phase_count",
        "phase_cycles",
        "work_cycles",
        "average_active_tiles",
        "mean_cycles",
        "p50_cycles",
        "p95_cycles",
        "maximum_cycles",
        "first_offset",
        "last_offset",
    )


def _with_ms(groups: pl.DataFrame, clock_hz: int) -> pl.DataFrame:
    """Insert ``phase_ms`` = (cycles × 1000.0) / clockHz, computed element by element in numpy.

    (polars turns a division by a scalar into a multiplication by its reciprocal,
    which changes the last bit; SPEC §4 fixes the operation order.)
    """
    cycles = groups.get_column("phase_cycles").to_numpy().astype(np.float64)
    ms = (cycles * 1000.0) / float(clock_hz) if clock_hz else np.zeros(len(cycles))
    return groups.insert_column(groups.columns.index("phase_cycles") + 1, pl.Series("phase_ms", ms, pl.Float64))


def _pair(name: str, value: pl.Expr) -> pl.Expr:
    return pl.struct(name=pl.lit(name, pl.String), value=value.cast(pl.String))


def _names(q: Query, name: pl.Expr) -> list[pl.Expr]:
    """``name`` and ``dimensions`` (a list of {name, value}, names sorted) of each group."""
    gb = q.group_by
    if gb == "phase":
        return [
            pl.format("phase {}/{}", "phase", "epoch").alias("name"),
            pl.concat_list(_pair("epoch", pl.col("epoch")), _pair("phase", pl.col("phase"))).alias("dimensions"),
        ]
    if gb == "tile":
        return [
            pl.format("tile {}", "_tile").alias("name"),
            pl.concat_list(_pair("physicalTile", pl.col("_tile"))).alias("dimensions"),
        ]
    if gb == "metadata":
        assert q.metadata_key is not None
        return [
            name.alias("name"),
            pl.concat_list(_pair("metadataKey", pl.lit(q.metadata_key)), _pair("metadataValue", name)).alias(
                "dimensions"
            ),
        ]
    return [name.alias("name"), pl.lit([], dtype=pl.List(_PAIR)).alias("dimensions")]


def _derived() -> list[pl.Expr]:
    """The ratio columns, each in SPEC §4's operation order (the order changes the last bit).

    Both operands are columns: polars divides column by column exactly, whereas a
    column divided by a scalar may become a multiplication by its reciprocal.
    """
    phase = pl.col("phase_cycles").cast(pl.Float64)
    work = pl.col("work_cycles").cast(pl.Float64)
    return [
        pl.when(pl.col("phase_cycles") > 0).then(work / phase).otherwise(0.0).alias("average_active_tiles"),
        (work / pl.col("sample_count").cast(pl.Float64)).alias("mean_cycles"),
    ]


def _longest(lf: pl.LazyFrame, n: int) -> pl.LazyFrame:
    """The `n` longest samples: duration desc, tile asc, offset asc, file order."""
    return (
        lf.sort(["duration", "tile", "offset", "sample"], descending=[True, False, False, False])
        .head(n)
        .select(
            "sample",
            "tile",
            "offset",
            "duration",
            "phase",
            "epoch",
            pl.col("kind").cast(pl.String),
            pl.col("operation").cast(pl.String),
            pl.col("kernel").cast(pl.String),
        )
    )


def _metadata_starts(profile: Profile) -> np.ndarray:
    """``starts[i]:starts[i + 1]`` are sample id i's entries in sorted metadata order."""

    def compute() -> np.ndarray:
        owners, _ = _metadata_index(profile)
        ids = profile.samples.get_column("sample")
        size = max(int(ids.max()) + 1 if len(ids) else 0, int(owners[-1]) + 1 if len(owners) else 0)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(owners, minlength=size), out=starts[1:])
        return starts

    return _fact(profile, "metadata_starts", compute)


def _metadata_lists(profile: Profile, samples: np.ndarray, *, strings: bool) -> pl.Series:
    """Each sample's metadata as a list of {name, value} in stored order.

    Only the entries of the given samples are gathered (none at all when they are
    every sample in order), then wrapped as one Arrow list array over offsets.
    """
    import pyarrow as pa

    _, order = _metadata_index(profile)
    starts = _metadata_starts(profile)
    samples = samples.astype(np.int64)
    lo, hi = starts[samples], starts[samples + 1]
    counts = hi - lo
    offsets = np.zeros(len(samples) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    entries = profile.metadata.select("name", "value")
    everything = order is None and offsets[-1] == entries.height and bool(np.all(lo == offsets[:-1]))
    if not everything:
        rows = np.repeat(lo - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        if order is not None:
            rows = order[rows]
        entries = entries[pl.Series(rows, dtype=pl.Int64)]
    if strings:
        entries = entries.select(pl.col("name").cast(pl.String), pl.col("value").cast(pl.String))
    struct = entries.select(pl.struct("name", "value").alias("metadata")).to_series().to_arrow()
    lists = pa.LargeListArray.from_arrays(pa.array(offsets, type=pa.int64()), struct)
    return pl.Series("metadata", lists)


# --------------------------------------------------------------------------- results


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
    samples : pl.DataFrame
        The ``query.samples`` longest matching samples: ``sample`` (id), ``tile``,
        ``offset``, ``duration``, ``phase``, ``epoch``, ``kind``, ``operation``,
        ``kernel`` and ``metadata`` (list of {name, value} in stored order).
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
        scalars = {
            "clockHz": self.clock_hz,
            "tileCount": self.tile_count,
            "sampleCount": self.sample_count,
            "matchedSampleCount": self.matched_sample_count,
            "profileSpanCycles": self.profile_span_cycles,
            "profileSpanMs": self.profile_span_ms,
            "atOffset": self.at_offset,
        }
        groups = []
        for g in self.groups.iter_rows(named=True):
            groups.append(
                {
                    "name": g["name"],
                    "dimensions": {d["name"]: d["value"] for d in g["dimensions"]},
                    "sampleCount": g["sample_count"],
                    "tileCount": g["tile_count"],
                    "phaseCount": g["phase_count"],
                    "phaseCycles": g["phase_cycles"],
                    "phaseMs": g["phase_ms"],
                    "workCycles": g["work_cycles"],
                    "averageActiveTiles": g["average_active_tiles"],
                    "meanCycles": g["mean_cycles"],
                    "p50Cycles": g["p50_cycles"],
                    "p95Cycles": g["p95_cycles"],
                    "maximumCycles": g["maximum_cycles"],
                    "firstOffset": g["first_offset"],
                    "lastOffset": g["last_offset"],
                }
            )
        samples = [
            {
                "physicalTile": s["tile"],
                "offset": s["offset"],
                "duration": s["duration"],
                "phase": s["phase"],
                "epoch": s["epoch"],
                "kind": s["kind"],
                "operation": s["operation"],
                "kernel": s["kernel"],
                "metadata": s["metadata"],
            }
            for s in self.samples.iter_rows(named=True)
        ]
        return scalars, groups, samples

    def to_json(self) -> str:
        """`profile-query --json` output, byte for byte (SPEC §4), with its trailing newline."""
        return _format.query_json(*self._records())

    def to_text(self) -> str:
        """`profile-query` text output, byte for byte (SPEC §4), with its trailing newline."""
        return _format.query_text(*self._records())

    def _repr_html_(self) -> str:
        from ._html.reprs import query_result_html

        return query_result_html(self)

    def __repr__(self) -> str:
        return (
            f"<QueryResult group_by={self.query.group_by}: {self.groups.height} groups, "
            f"{self.matched_sample_count}/{self.sample_count} samples matched, {self.samples.height} listed>"
        )


def query(profile: Profile, query: Query | None = None, **flags: Any) -> QueryResult:
    """Run `profile-query` on a profile (SPEC §3): groups and longest samples as polars frames.

    Parameters
    ----------
    profile : Profile
        An opened profile (`ipu_nb.open_profile`).
    query : Query, optional
        The query; default `Query()` (group by kernel, sort by phase cycles, limit 20).
    **flags
        Override fields of ``query``: ``kind="compute"``, ``tiles=[5, 9]``,
        ``metadata="layer=3"``, ``group_by="metadata", metadata_key="layer"``, ...

    Raises
    ------
    QueryError
        A bad flag (``usage`` True) or ``group_by="metadata"`` without ``metadata_key``.

    Examples
    --------
    >>> result = ipu_nb.query(profile, group_by="phase", samples=3)  # doctest: +SKIP
    >>> print(result.to_text())  # doctest: +SKIP
    """
    q = make_query(query, **flags)
    _require_metadata_key(q)
    extra = (_first_values(profile, q.metadata_key),) if q.group_by == "metadata" and q.metadata_key is not None else ()
    filtered = _filtered(profile, q, extra)
    plans = [filtered.select(pl.len()), _aggregate(profile, filtered, q)]
    if q.samples:
        plans.append(_longest(filtered, min(q.samples, max(profile.sample_count, 1))))
    frames = pl.collect_all(plans)
    matched = int(frames[0].item())
    groups = _with_ms(frames[1], profile.clock_hz)
    if q.samples:
        longest = frames[2]
        samples = longest.with_columns(_metadata_lists(profile, longest.get_column("sample").to_numpy(), strings=True))
    else:
        samples = _empty_samples()
    span = _fact(profile, "span_cycles", lambda: profile.span_cycles)
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


def _empty_samples() -> pl.DataFrame:
    return pl.DataFrame(
        schema={
            "sample": pl.UInt32,
            "tile": pl.UInt32,
            "offset": pl.UInt64,
            "duration": pl.UInt32,
            "phase": pl.UInt32,
            "epoch": pl.UInt32,
            "kind": pl.String,
            "operation": pl.String,
            "kernel": pl.String,
            "metadata": pl.List(_PAIR),
        }
    )


def filter_samples(profile: Profile, query: Query | None = None, **flags: Any) -> pl.DataFrame:
    """The samples matching the query's filters, in file order, with their metadata.

    Only the filters count (kind, kernel, operation_contains, tiles, phases, metadata,
    at); grouping, sorting and limits are ignored. The result has every
    ``profile.samples`` column plus ``metadata``: a list of {name, value} in stored order.
    """
    q = make_query(query, **flags)
    matched = _filtered(profile, q).collect()
    return matched.with_columns(_metadata_lists(profile, matched.get_column("sample").to_numpy(), strings=False))


def inspect_operations(profile: Profile) -> pl.DataFrame:
    """`profile-inspect` (SPEC §4b): per operation, over its distinct (phase, epoch) the maximum duration.

    Columns ``operation`` (String, byte order), ``phases``, ``cycles`` (sum of the
    per-phase maxima) and ``max_phase_cycles``.
    """
    return (
        profile.samples.lazy()
        .group_by("phase", "epoch", "operation")
        .agg(longest=pl.col("duration").max().cast(pl.Int64))
        .group_by(pl.col("operation").cast(pl.String))
        .agg(
            phases=pl.len().cast(pl.Int64),
            cycles=pl.col("longest").sum(),
            max_phase_cycles=pl.col("longest").max(),
        )
        .sort("operation")
        .collect()
    )
