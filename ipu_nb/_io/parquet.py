"""Profiles as a Parquet dataset: one folder per table, hive-partitioned by profile label
(docs/reference/fleet.md#parquet-datasets).

::

    FOLDER/samples/profile=<label>/part-0.parquet
    FOLDER/metadata/profile=<label>/part-0.parquet
    FOLDER/exchange_activities/profile=<label>/part-0.parquet
    FOLDER/tiles/profile=<label>/part-0.parquet
    FOLDER/profiles/profile=<label>/part-0.parquet   (one row: scalars, source path, labels)

The label is percent-encoded in the directory name (as hive writers do; polars, DuckDB
and Spark decode it), so ``/``, ``=``, ``%`` and ``..`` are safe in it; the one value hive
readers take for null, ``__HIVE_DEFAULT_PARTITION__`` (however encoded), is refused as a
label, and a default label (a file name) that would be it is escaped instead
(`default_label`). The partition column ``profile`` is in the path, not in the files.
Each file is written atomically; writing a label again replaces what it held.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from .._files import atomic_output
from .._model.text import is_text, path_text
from .errors import FleetError

if TYPE_CHECKING:
    from .._model.profile import ProfileData

__all__ = [
    "HIVE_NULL",
    "PARTITION",
    "TABLES",
    "ParquetDataset",
    "check_label",
    "default_label",
    "scan_parquet",
    "write_profile",
]

#: The hive partition column: each profile's label.
PARTITION = "profile"
#: The dataset's tables, each a folder: the `Profile` frames, then one row per profile.
TABLES: tuple[str, ...] = ("samples", "metadata", "exchange_activities", "tiles", "profiles")
_FILE = "part-0.parquet"
_MAX_ENCODED = 200  # a directory name is at most 255 bytes, and "profile=" comes first
#: The partition value hive readers (polars, DuckDB, Spark) read as null, percent-encoded or not.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


class ParquetDataset(NamedTuple):
    """Lazy frames over every profile of a dataset, each with the ``profile`` (label) column last.

    ``samples``, ``metadata``, ``exchange_activities`` and ``tiles`` are the `Profile`
    frames; ``profiles`` has one row per profile: ``path`` (where it was read from),
    ``clock_hz``, ``schema_version``, ``granularity``, ``tile_count``, ``sample_count``,
    ``span_cycles`` and the profile's labels.
    """

    samples: pl.LazyFrame
    metadata: pl.LazyFrame
    exchange_activities: pl.LazyFrame
    tiles: pl.LazyFrame
    profiles: pl.LazyFrame


def check_label(label: Any) -> str:
    """`label` if it can name a partition that reads back as itself: a non-empty string, not `HIVE_NULL`,
    whose encoded form fits a directory name.
    """
    if not isinstance(label, str) or not label:
        raise FleetError(f"a profile label must be a non-empty string, got {label!r}")
    if "\0" in label:
        raise FleetError(f"a profile label must not contain NUL characters, got {label!r}")
    if label == HIVE_NULL:
        raise FleetError(f"profile label {label!r} reads back as null (hive's name for no value); choose another")
    if not is_text(label):
        raise FleetError(f"a profile label must be valid Unicode text (no lone surrogates), got {label!r}")
    if len(_encode(label)) > _MAX_ENCODED:
        raise FleetError(f"profile label {label[:40]!r}... is too long ({_MAX_ENCODED} bytes percent-encoded at most)")
    return label


def default_label(name: Path) -> str:
    r"""The label a profile gets when none is given: `name` (a file name, or a path below a folder) without its suffix.

    Escaped so that it reads back as written: when that would be `HIVE_NULL`, the suffix
    is kept (and ``./`` goes in front of a name without one); a file name's bytes that
    are no UTF-8 are written as ``\xNN``.

    >>> default_label(Path("run-8.capnp")), default_label(Path("2024/run-8.capnp"))
    ('run-8', '2024/run-8')
    >>> default_label(Path("__HIVE_DEFAULT_PARTITION__.capnp"))
    '__HIVE_DEFAULT_PARTITION__.capnp'
    """
    stem = path_text(name.with_suffix("") if name.name else name)
    if stem != HIVE_NULL:
        return stem
    whole = path_text(name)
    return whole if whole != HIVE_NULL else f"./{whole}"


def _encode(label: str) -> str:
    return urllib.parse.quote(label, safe="")


def _decode(directory: str) -> str:
    return urllib.parse.unquote(directory.partition("=")[2])


def _partition(folder: Path, table: str, label: str) -> Path:
    return folder / table / f"{PARTITION}={_encode(label)}"


def _profile_row(profile: ProfileData, labels: Mapping[str, Any]) -> pl.DataFrame:
    row: dict[str, pl.Series] = {
        "path": pl.Series([path_text(profile.path) if profile.path is not None else None], dtype=pl.String),
        "clock_hz": pl.Series([profile.clock_hz], dtype=pl.UInt64),
        "schema_version": pl.Series([profile.schema_version], dtype=pl.UInt32),
        "granularity": pl.Series([profile.granularity], dtype=pl.String),
        "tile_count": pl.Series([profile.tile_count], dtype=pl.Int64),
        "sample_count": pl.Series([profile.sample_count], dtype=pl.Int64),
        "span_cycles": pl.Series([profile.span_cycles], dtype=pl.Int64),
    }
    for name, value in labels.items():
        if name in row or name == PARTITION:
            raise FleetError(f"label {name!r} clashes with a column of the profiles table; rename it")
        if value is not None:  # an absent column reads as null; a null column would have no type to agree on
            row[name] = pl.Series([value])
    return pl.DataFrame(row)


def write_profile(
    profile: ProfileData, folder: Path, label: str, labels: Mapping[str, Any] | None = None
) -> dict[str, int]:
    """Write `profile`'s tables under `label` (replacing what that label held); rows written per table."""
    label = check_label(label)
    frames = {
        "samples": profile.samples,
        "metadata": profile.metadata,
        "exchange_activities": profile.exchange_activities,
        "tiles": profile.tiles,
        "profiles": _profile_row(profile, labels or {}),  # last: a listed profile has all its tables
    }
    for table, frame in frames.items():
        directory = _partition(folder, table, label)
        directory.mkdir(parents=True, exist_ok=True)
        with atomic_output(directory / _FILE) as out:
            frame.write_parquet(out)
    return {table: frame.height for table, frame in frames.items()}


def _files(folder: Path, table: str) -> list[Path]:
    return sorted((folder / table).glob(f"{PARTITION}=*/*.parquet"))


def scan_parquet(folder: str | os.PathLike[str]) -> ParquetDataset:
    """Lazy polars frames over every profile written to `folder` (`Profile.to_parquet`, `Fleet.to_parquet`).

    Each frame has the profile's columns and dtypes, then ``profile`` (its label, a
    string). Nothing is read until a frame is collected, and filters on ``profile`` skip
    the other profiles' files.

    Raises
    ------
    FileNotFoundError
        `folder` does not exist, or holds no profile.

    Examples
    --------
    >>> profile.to_parquet("dataset", label="mlp")
    PosixPath('dataset')
    >>> data = ipu_nb.scan_parquet("dataset")
    >>> data.samples.group_by("profile").agg(pl.len()).collect().rows()
    [('mlp', 384)]
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"no Parquet dataset at {root}: not a directory")
    if not _files(root, "profiles"):
        raise FileNotFoundError(f"no Parquet dataset at {root}: no profile written there (profiles/ is empty)")
    frames = {}
    for table in TABLES[:-1]:
        frames[table] = pl.scan_parquet(
            root / table / "**" / "*.parquet", hive_partitioning=True, hive_schema={PARTITION: pl.String}
        )
    # One small file per profile, whose label columns may differ: read and stacked by column name.
    rows = [
        pl.read_parquet(path).with_columns(pl.lit(_decode(path.parent.name), dtype=pl.String).alias(PARTITION))
        for path in _files(root, "profiles")
    ]
    frames["profiles"] = pl.concat(rows, how="diagonal_relaxed").lazy()
    return ParquetDataset(**frames)
