"""Per-call cycles of every compute kernel call, keyed by kernel and dimensions, over several profiles.

The newest runtime's calibration (docs/reference/head.md#profile-calibrate): every compute
sample with a kernel, on every tile, uncropped and zero-length ones included. A sample
that stands for several merged calls (its first ``invocations`` entry, a u32, at least 1)
counts its duration divided among them, rounded up. Its dimensions are its metadata but
``reason``, ``value`` and ``invocations``, the later of two entries of one name winning.

A key is encoded as one string (`_encoded`) whose byte order is the runtime's key order
(kernel, then the dimensions' (name, value) pairs in name order), so grouping and sorting
stay in polars however many keys a profile has (one per call where each call's metadata
differs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from .._model.index import index_of

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = ["EXCLUDED_NAMES", "call_cycles", "measurements", "per_call_cycles"]

#: Metadata names that are not dimensions of a measurement.
EXCLUDED_NAMES: tuple[str, ...] = ("reason", "value", "invocations")
_U32_MAX = 2**32 - 1
#: Ends each encoded string: below every character a string can continue with (NUL is escaped above it).
_END = "\x00\x01"


def _encoded(text: pl.Expr) -> pl.Expr:
    """`text` with NUL escaped and `_END` appended: a sequence of these compares as the sequence of strings."""
    return text.cast(pl.String).str.replace_all("\x00", "\x00\x02", literal=True) + pl.lit(_END)


def _invocations(values: pl.Expr) -> pl.Expr:
    """A metadata value parsed as Rust parses a u32 (one optional ``+``, ASCII digits), else 1; at least 1."""
    text = values.cast(pl.String)
    valid = text.str.contains(r"^\+?[0-9]+$").fill_null(False)
    significant = text.str.strip_prefix("+").str.strip_chars_start("0")
    number = pl.when(significant == "").then(pl.lit(0, pl.UInt64)).otherwise(significant.cast(pl.UInt64, strict=False))
    fits = significant.str.len_bytes() <= 10
    parsed = pl.when(valid & fits & (number <= _U32_MAX)).then(number).otherwise(pl.lit(1, pl.UInt64))
    return pl.max_horizontal(parsed, pl.lit(1, pl.UInt64))


def _dimensions(profile: ProfileData, samples: pl.Series) -> pl.DataFrame:
    """Per id of `samples` with dimensions: ``_dims`` (its pairs, encoded, by name), ``names`` and ``values``."""
    meta = profile.metadata.filter(
        pl.col("sample").is_in(samples.implode()) & ~pl.col("name").cast(pl.String).is_in(list(EXCLUDED_NAMES))
    )
    by_name = meta.select(
        "sample", "position", _name=pl.col("name").cast(pl.String), _value=pl.col("value").cast(pl.String)
    ).sort("sample", "_name", "position")
    last = (pl.col("sample") != pl.col("sample").shift(-1)) | (pl.col("_name") != pl.col("_name").shift(-1))
    pairs = by_name.filter(last.fill_null(True)).with_columns(
        _pair=_encoded(pl.col("_name")) + _encoded(pl.col("_value"))
    )
    return pairs.group_by("sample", maintain_order=True).agg(
        _dims=pl.col("_pair").str.join(""), names=pl.col("_name"), values=pl.col("_value")
    )


def per_call_cycles(profile: ProfileData) -> pl.DataFrame:
    """One row per compute kernel call of `profile`: ``_key`` (kernel and dimensions, encoded), ``kernel``,
    ``names``, ``values`` (its dimensions in name order) and ``cycles`` (its per-call cycles)."""
    first = index_of(profile).first_values("invocations")
    calls = (
        profile.samples.with_columns(first)
        .filter((pl.col("kind") == "compute") & (pl.col("kernel").cast(pl.String) != ""))
        .select(
            "sample",
            kernel=pl.col("kernel").cast(pl.String),
            _duration=pl.col("duration").cast(pl.UInt64),
            _invocations=_invocations(pl.col("_mvalue")),
        )
    )
    dims = _dimensions(profile, calls.get_column("sample"))
    return calls.join(dims, on="sample", how="left", maintain_order="left").select(
        _key=_encoded(pl.col("kernel")) + pl.col("_dims").fill_null(""),
        kernel="kernel",
        names=pl.col("names").fill_null(pl.lit([], dtype=pl.List(pl.String))),
        values=pl.col("values").fill_null(pl.lit([], dtype=pl.List(pl.String))),
        cycles=((pl.col("_duration") + pl.col("_invocations") - 1) // pl.col("_invocations")).cast(pl.Int64),
    )


def call_cycles(profiles: Sequence[ProfileData]) -> pl.DataFrame:
    """Every profile's calls per key, keys in the runtime's order: ``kernel``, ``names``, ``values``, ``cycles``
    (a sorted list)."""
    calls = pl.concat([per_call_cycles(p) for p in profiles], how="vertical")
    return (
        calls.group_by("_key")
        .agg(pl.col("kernel", "names", "values").first(), pl.col("cycles").sort())
        .sort("_key")
        .drop("_key")
    )


def measurements(profiles: Sequence[ProfileData]) -> pl.DataFrame:
    """The runtime's measurements, in its order: ``kernel``, ``dimensions`` (list of {name, value}), ``samples``,
    ``minimum_cycles``, ``median_cycles`` (sorted[(n−1)·50 div 100]), ``p95_cycles``, ``maximum_cycles``."""
    keyed = call_cycles(profiles).with_row_index("_row")
    n = pl.col("cycles").list.len().cast(pl.Int64)
    pairs = (
        keyed.select("_row", "names", "values")
        .explode("names", "values")
        .filter(pl.col("names").is_not_null())
        .group_by("_row", maintain_order=True)
        .agg(dimensions=pl.struct(name="names", value="values"))
    )
    empty = pl.lit([], dtype=pl.List(pl.Struct({"name": pl.String, "value": pl.String})))
    return keyed.join(pairs, on="_row", how="left", maintain_order="left").select(
        "kernel",
        pl.col("dimensions").fill_null(empty),
        samples=n,
        minimum_cycles=pl.col("cycles").list.first(),
        median_cycles=pl.col("cycles").list.get((n - 1) * 50 // 100),
        p95_cycles=pl.col("cycles").list.get((n - 1) * 95 // 100),
        maximum_cycles=pl.col("cycles").list.last(),
    )
