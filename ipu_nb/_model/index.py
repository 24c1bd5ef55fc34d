"""`ProfileIndex`: what the query core, the widget and the exports look up in a profile, computed once per profile.

A profile is never mutated, so the facts derived from it (sample id → row, the order of
its metadata entries, each sample's first value of a key, the bit widths of its codes,
its span) are computed on first use and kept for its lifetime. `index_of` hands out the
one index of a profile; everything that maps ids to rows or gathers a sample's metadata
goes through it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from .metadata import CompactMetadata
    from .profile import ProfileData

__all__ = ["ProfileIndex", "global_code", "global_codes", "index_of", "int_extreme"]

_T = TypeVar("_T")


def global_code(text: str) -> int:
    """Physical code of `text` in polars' global categories (the same for every Categorical column)."""
    return int(pl.select(pl.lit(text).cast(pl.Categorical).to_physical()).item())


def global_codes(column: str, dtype: pl.DataType) -> pl.Expr:
    """The column's strings as codes in the global categories, so `global_code` values compare with them.

    Free for the loader's default Categorical columns; other string dtypes are re-encoded.
    """
    if dtype == pl.Categorical():
        return pl.col(column).to_physical().cast(pl.UInt64)
    return pl.col(column).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.UInt64)


def int_extreme(series: pl.Series, which: str = "max", empty: int = 0) -> int:
    """The largest (or, ``which="min"``, smallest) value of an integer column; `empty` when it has none."""
    value = series.max() if which == "max" else series.min()
    # polars types a Series' extreme as any literal; an integer column's is an int (or None when empty).
    return empty if value is None else int(value)  # type: ignore[arg-type]


#: The code standing for a null name or value: no string's (category codes count up from 0).
_NO_CODE = 2**32 - 1


def _codes(series: pl.Series) -> tuple[np.ndarray, pl.Categories]:
    """The strings of `series` as u32 category codes, null as `_NO_CODE` (no copy for a Categorical
    column without nulls), and the categories that give a string's code."""
    if not isinstance(series.dtype, pl.Categorical):
        series = series.cast(pl.String).cast(pl.Categorical)
    assert isinstance(series.dtype, pl.Categorical)
    physical = series.to_physical().cast(pl.UInt32)
    if physical.null_count():
        physical = physical.fill_null(_NO_CODE)
    return physical.to_numpy(), series.dtype.categories


def _codes_of(categories: pl.Categories, texts: list[str]) -> np.ndarray | None:
    """The codes of `texts` in `categories` (looked up, never added); None when one has none."""
    try:
        return np.array([categories[text] for text in texts], dtype=np.uint32)
    except KeyError:
        return None


#: Up to this many wanted codes `_find` compares with each in turn: faster than a table look-up per code.
_FEW = 8


def _find(codes: np.ndarray, wanted: np.ndarray) -> list[np.ndarray]:
    """Per code of `wanted` (distinct codes): the indices of the `codes` equal to it, ascending.

    A scan per wanted code when they are few, else one look-up per code in a table of them.
    """
    if len(wanted) <= _FEW:
        return [np.flatnonzero(codes == code) for code in wanted]
    table = np.full(int(wanted.max()) + 2, -1, dtype=np.int32)  # the last slot: every larger code
    table[wanted] = np.arange(len(wanted), dtype=np.int32)
    every = np.take(table, codes, mode="clip")
    hits = np.flatnonzero(every >= 0)
    which = every[hits]
    order = np.argsort(which.astype(np.uint16) if len(wanted) <= 2**16 else which, kind="stable")  # radix
    bounds = np.searchsorted(which[order], np.arange(len(wanted) + 1))
    ordered = hits[order]
    return [ordered[bounds[i] : bounds[i + 1]] for i in range(len(wanted))]


def _meets_all(height: int, met: list[np.ndarray]) -> np.ndarray:
    """Per row: whether it is among the rows of every one of `met` (the rows meeting each condition)."""
    times = np.zeros(height, dtype=np.int32)  # per row: how many of the conditions it meets
    for hit in met:
        if not len(hit):  # no entry meets this condition
            return np.zeros(height, dtype=bool)
        times[hit] += 1  # buffered: a row listed twice counts once
    return times == len(met)


def _max_bits(series: pl.Series) -> int:
    return int_extreme(series).bit_length()


class ProfileIndex:
    """Lookups over one profile's frames, each computed on first use (`index_of` gives the shared one).

    Sample ids and rows: ``profile.samples`` row ``r`` holds sample id ``ids[r]``; for
    loaded profiles the two are the same, and every mapping below is then the identity
    without any array. Metadata: the entries in (sample, position) order, as `order`
    permutes the frame (None when it is already in that order, as the loader writes it).
    """

    def __init__(self, profile: ProfileData) -> None:
        self._profile = weakref.ref(profile)
        self._facts: dict[str, Any] = {}

    @property
    def profile(self) -> ProfileData:
        profile = self._profile()
        assert profile is not None, "a ProfileIndex outlived its profile"
        return profile

    def _fact(self, name: str, compute: Callable[[], _T]) -> _T:
        if name not in self._facts:
            self._facts[name] = compute()
        value: _T = self._facts[name]
        return value

    # ---- samples -------------------------------------------------------------------------

    @property
    def span_cycles(self) -> int:
        """``profileSpanCycles``: the largest offset + duration (docs/reference/query.md#report-fields)."""
        return self._fact("span_cycles", lambda: self.profile.span_cycles)

    def bits(self, column: str) -> int:
        """Bit width of the largest value of the integer column ``samples[column]``."""
        return self._fact(f"bits.{column}", lambda: _max_bits(self.profile.samples.get_column(column)))

    def distinct(self, column: str) -> pl.Series:
        """The distinct values of the column ``samples[column]`` (for a string filter to test once each)."""
        return self._fact(f"distinct.{column}", lambda: self.profile.samples.get_column(column).unique())

    def code_bits(self, frame: str, column: str) -> int:
        """Bit width of the largest global code in the string column ``frame.column``."""

        def compute() -> int:
            compact = self.profile.compact_metadata if frame == "metadata" else None
            data: pl.DataFrame = compact.pairs if compact is not None else getattr(self.profile, frame)
            return _max_bits(data.select(global_codes(column, data.schema[column])).to_series())

        return self._fact(f"code_bits.{frame}.{column}", compute)

    def _rows_by_id(self) -> np.ndarray | None:
        """``rows[id]``: the row of each sample id (-1 where no sample has it); None when ids are rows."""

        def compute() -> np.ndarray | None:
            ids = self.profile.samples.get_column("sample").to_numpy()
            if np.array_equal(ids, np.arange(len(ids), dtype=ids.dtype)):
                return None
            rows = np.full(int(ids.max()) + 1 if len(ids) else 0, -1, dtype=np.int64)
            rows[ids] = np.arange(len(ids), dtype=np.int64)
            return rows

        return self._fact("rows_by_id", compute)

    @property
    def ids_are_rows(self) -> bool:
        """Whether sample id i is row i for every sample (true for every loaded profile)."""
        return self._rows_by_id() is None

    def rows_of(self, ids: np.ndarray) -> np.ndarray:
        """Rows in ``profile.samples`` of the given sample ids (-1 for an id no sample has)."""
        rows = self._rows_by_id()
        ids = np.asarray(ids)
        if rows is None:
            out = ids.astype(np.int64)
            out[(out < 0) | (out >= self.profile.samples.height)] = -1
            return out
        inside = (ids >= 0) & (ids < len(rows))
        out = np.full(len(ids), -1, dtype=np.int64)
        out[inside] = rows[ids[inside]]
        return out

    def row_of(self, sid: int) -> int:
        """The row of sample id `sid` (-1 when no sample has it, also for any integer no u32 id can be)."""
        if not 0 <= sid < 2**32:
            return -1
        return int(self.rows_of(np.array([sid], dtype=np.int64))[0])

    def is_sample(self, sid: int) -> bool:
        """Whether some sample has id `sid`."""
        return self.row_of(sid) >= 0

    def by_id(self, row_mask: np.ndarray) -> np.ndarray:
        """A per-row boolean array re-indexed by sample id (False for ids no sample has)."""
        if self.ids_are_rows:
            return row_mask
        ids = self.profile.samples.get_column("sample").to_numpy()
        out = np.zeros(int(ids.max()) + 1, dtype=bool)
        out[ids] = row_mask
        return out

    # ---- metadata ------------------------------------------------------------------------

    def _metadata_order(self) -> tuple[np.ndarray, np.ndarray | None]:
        """Metadata owner ids in ascending order, and the row permutation that sorts them (None: sorted).

        Only for metadata given as a frame: compact metadata is in that order, its owners implied by its starts.
        """

        def compute() -> tuple[np.ndarray, np.ndarray | None]:
            meta = self.profile.metadata
            owners = meta.get_column("sample").to_numpy()
            positions = meta.get_column("position").to_numpy()
            if len(owners) < 2:
                return owners, None
            same = owners[1:] == owners[:-1]
            if bool(np.all(owners[1:] >= owners[:-1])) and bool(np.all(positions[1:][same] > positions[:-1][same])):
                return owners, None
            order = np.lexsort((positions, owners))
            return owners[order], order

        return self._fact("metadata_order", compute)

    def _metadata_starts(self) -> np.ndarray:
        """``starts[i]:starts[i + 1]`` are sample id i's entries in sorted metadata order."""

        def compute() -> np.ndarray:
            compact = self.profile.compact_metadata
            if compact is not None:
                return compact.starts
            owners, _ = self._metadata_order()
            ids = self.profile.samples.get_column("sample")
            size = max(int(ids.max()) + 1 if len(ids) else 0, int(owners[-1]) + 1 if len(owners) else 0)  # type: ignore[arg-type]
            starts = np.zeros(size + 1, dtype=np.int64)
            np.cumsum(np.bincount(owners, minlength=size), out=starts[1:])
            return starts

        return self._fact("metadata_starts", compute)

    def _entries_named(self, name: str, value: str | None) -> np.ndarray:
        """Indices (in sorted metadata order) of the entries named `name` (with `value`, if given)."""
        entries = pl.col("name") == name
        if value is not None:
            entries = entries & (pl.col("value") == value)
        compact = self.profile.compact_metadata
        if compact is not None:
            pairs = np.flatnonzero(compact.pairs.select(entries.fill_null(False)).to_series().to_numpy())
            codes = compact.pair_rows()
            return pairs if codes is None else np.sort(np.concatenate([np.zeros(0, np.int64), *_find(codes, pairs)]))
        _, order = self._metadata_order()
        hits = self.profile.metadata.select(entries.fill_null(False)).to_series().to_numpy()
        return np.flatnonzero(hits if order is None else hits[order])

    def _owners(self, entries: np.ndarray) -> np.ndarray:
        """The owner sample id of each of the given entries (indices in sorted metadata order)."""
        compact = self.profile.compact_metadata
        if compact is not None:
            return compact.owners(entries)
        owners, _ = self._metadata_order()
        return owners[entries]

    def metadata_dtype(self, column: str) -> pl.DataType:
        """The dtype of ``profile.metadata[column]`` (without building a compact profile's long frame)."""
        compact = self.profile.compact_metadata
        frame = compact.pairs if compact is not None and column in ("name", "value") else self.profile.metadata
        return frame.schema[column]

    def _metadata_codes(self) -> tuple[np.ndarray, tuple[np.ndarray, pl.Categories], tuple[np.ndarray, pl.Categories]]:
        """Per metadata entry (stored order): its sample id, and the codes of its name and of its value."""

        def compute() -> tuple[np.ndarray, tuple[np.ndarray, pl.Categories], tuple[np.ndarray, pl.Categories]]:
            meta = self.profile.metadata
            return meta.get_column("sample").to_numpy(), _codes(meta["name"]), _codes(meta["value"])

        return self._fact("metadata_codes", compute)

    def metadata_mask(self, filters: tuple[tuple[str, str | None], ...]) -> np.ndarray:
        """Per sample row: for every ``(name, value)`` filter some entry matches (each may be met by another entry).

        One pass over the metadata entries for all the filters together, by category code: the
        entries of each wanted name, among them those of each wanted value, then per sample the
        number of filters it meets, which must be all of them.

        >>> int(index_of(profile).metadata_mask((("layer", "0"), ("layer", None))).sum()) > 0
        True
        """
        height = self.profile.samples.height
        conditions = list(dict.fromkeys(filters))
        if not conditions:
            return np.ones(height, dtype=bool)
        nothing = np.zeros(height, dtype=bool)
        compact = self.profile.compact_metadata
        if compact is not None:
            return self._compact_mask(compact, conditions)
        owners, (name_codes, names_in), (value_codes, values_in) = self._metadata_codes()
        values: dict[str, list[str]] = {}  # per wanted name, in order: the values its pair conditions want
        for name, value in conditions:
            values.setdefault(name, []).extend(() if value is None else (value,))
        names = list(values)
        name_only = {name for name, value in conditions if value is None}
        wanted_names = _codes_of(names_in, names)
        wanted_values = _codes_of(values_in, [v for name in names for v in values[name]])
        if wanted_names is None or wanted_values is None:  # a name or value no entry has
            return nothing
        met: list[np.ndarray] = []
        at = 0
        for name, entries in zip(names, _find(name_codes, wanted_names), strict=True):
            rows = self.rows_of(owners[entries])
            wanted = wanted_values[at : at + len(values[name])]
            at += len(wanted)
            hits = [rows] if name in name_only else []
            hits += [rows[found] for found in _find(value_codes[entries], wanted)]
            met += [hit[hit >= 0] for hit in hits]
        return _meets_all(height, met)

    def _compact_mask(self, compact: CompactMetadata, conditions: list[tuple[str, str | None]]) -> np.ndarray:
        """`metadata_mask` over pair codes: each condition is the set of pairs meeting it, then the owners of
        the entries holding one of those (one pass over the codes per condition)."""
        height = self.profile.samples.height
        met = []
        for name, value in conditions:
            test = pl.col("name") == name
            if value is not None:
                test = test & (pl.col("value") == value)
            pairs = compact.pairs.select(test.fill_null(False)).to_series().to_numpy()
            if not pairs.any():
                return np.zeros(height, dtype=bool)
            hit = pairs if compact.codes is None else pairs[compact.codes]
            ids = np.flatnonzero(compact.any_per_owner(hit))
            rows = self.rows_of(ids)
            met.append(rows[rows >= 0])
        return _meets_all(height, met)

    def first_values(self, key: str) -> pl.Series:
        """Per sample row, the value of its first entry named `key` by position (null when none), as ``_mvalue``."""
        found = self._entries_named(key, None)
        owners = self._owners(found)
        keep = np.r_[True, owners[1:] != owners[:-1]] if len(found) else np.zeros(0, dtype=bool)
        first, rows = found[keep], self.rows_of(owners[keep])
        compact = self.profile.compact_metadata
        if compact is not None:
            source = compact.pair_rows(first)
            values = compact.pairs.get_column("value")
        else:
            _, order = self._metadata_order()
            source = first if order is None else order[first]
            values = self.profile.metadata.get_column("value")
        index = np.full(self.profile.samples.height, -1, dtype=np.int64)
        assert source is not None
        index[rows[rows >= 0]] = source[rows >= 0]
        gather = pl.Series(index, dtype=pl.Int64)
        gather = gather.set(gather < 0, None)
        return values.gather(gather).alias("_mvalue")

    def _entry_ranges(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per id, its first entry and entry count in sorted metadata order; and the offsets of a list per id."""
        starts = self._metadata_starts()
        ids = np.asarray(ids).astype(np.int64)
        if len(ids) and (ids.min() < 0 or ids.max() >= len(starts) - 1):  # unknown ids: no entries
            ids = np.where((ids >= 0) & (ids < len(starts) - 1), ids, len(starts) - 1)
            starts = np.append(starts, starts[-1])
        lo = starts[ids]
        counts = starts[ids + 1] - lo
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return lo, counts, offsets

    def _entry_rows(self, lo: np.ndarray, counts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Rows of ``profile.metadata`` holding the entries of the given ranges, in stored order."""
        rows = np.repeat(lo.astype(np.int64) - offsets[:-1], counts) + np.arange(offsets[-1], dtype=np.int64)
        if self.profile.compact_metadata is not None:
            return rows
        _, order = self._metadata_order()
        return rows if order is None else order[rows]

    def entry_rows(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``profile.metadata`` rows of the entries of `ids` (id by id, stored order), and the count per id."""
        lo, counts, offsets = self._entry_ranges(ids)
        return self._entry_rows(lo, counts, offsets), counts

    def metadata_of(self, ids: np.ndarray) -> pl.DataFrame:
        """The metadata entries (``profile.metadata`` rows) of the given sample ids, id by id in stored order."""
        rows, _ = self.entry_rows(ids)
        compact = self.profile.compact_metadata
        if compact is None:
            return self.profile.metadata[pl.Series(rows, dtype=pl.Int64)]
        owners = compact.owners(rows)
        entries = compact.names_values(rows)
        return pl.DataFrame(
            [
                pl.Series("sample", owners.astype(np.uint32)),
                pl.Series("position", (rows - compact.starts[owners].astype(np.int64)).astype(np.uint32)),
                entries.get_column("name"),
                entries.get_column("value"),
            ]
        )

    def metadata_lists(self, ids: np.ndarray, *, strings: bool) -> pl.Series:
        """Each sample's metadata as a list of {name, value} in stored order (``metadata``).

        Only the entries of the given samples are gathered (none at all when they are
        every sample in order), then wrapped as one Arrow list array over offsets.
        """
        import pyarrow as pa

        lo, counts, offsets = self._entry_ranges(ids)
        compact = self.profile.compact_metadata
        if compact is not None:
            everything = offsets[-1] == compact.entry_count and bool(np.all(lo == offsets[:-1]))
            entries = compact.names_values(None if everything else self._entry_rows(lo, counts, offsets))
        else:
            _, order = self._metadata_order()
            entries = self.profile.metadata.select("name", "value")
            everything = order is None and offsets[-1] == entries.height and bool(np.all(lo == offsets[:-1]))
            if not everything:
                entries = entries[pl.Series(self._entry_rows(lo, counts, offsets), dtype=pl.Int64)]
        if strings:
            entries = entries.select(pl.col("name").cast(pl.String), pl.col("value").cast(pl.String))
        struct = entries.select(pl.struct("name", "value").alias("metadata")).to_series().to_arrow()
        lists = pa.LargeListArray.from_arrays(pa.array(offsets, type=pa.int64()), struct)
        return pl.Series("metadata", lists)


_INDEXES: weakref.WeakKeyDictionary[ProfileData, ProfileIndex] = weakref.WeakKeyDictionary()


def index_of(profile: ProfileData) -> ProfileIndex:
    """The `ProfileIndex` of `profile`, created on first use and dropped with the profile."""
    index = _INDEXES.get(profile)
    if index is None:
        index = _INDEXES[profile] = ProfileIndex(profile)
    return index
