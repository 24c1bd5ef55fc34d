"""`ProfileData`: one decoded cycle profile as polars frames plus its scalars, and what follows from them alone.

The layers below the public `ipu_nb.Profile` (the loader, the writers, the query core)
take and build this; `ipu_nb.Profile` is the same dataclass with the methods that reach
those layers (``query``, ``filter``, ``to_trace``, ``to_parquet``, the HTML repr).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import polars as pl

from .metadata import CompactMetadata

__all__ = ["ProfileData"]

_BUILDING = threading.Lock()  # one thread builds a profile's long metadata frame; others wait for it


class _Metadata:
    """The ``metadata`` field: given a frame or a `CompactMetadata`, read as the long frame.

    A compact one is kept as it is (the query core reads its codes, `ProfileData.compact_metadata`)
    and the frame is built from it on the first read, then kept.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self._given = f"_{name}_given"
        self._built = f"_{name}_built"

    @overload
    def __get__(self, profile: None, owner: Any = None) -> _Metadata: ...
    @overload
    def __get__(self, profile: ProfileData, owner: Any = None) -> pl.DataFrame: ...
    def __get__(self, profile: ProfileData | None, owner: Any = None) -> pl.DataFrame | _Metadata:
        if profile is None:
            raise AttributeError("metadata")  # no default value for the dataclass field
        given = profile.__dict__[self._given]
        if not isinstance(given, CompactMetadata):
            frame: pl.DataFrame = given
            return frame
        built = profile.__dict__.get(self._built)
        if built is None:
            with _BUILDING:
                built = profile.__dict__.get(self._built)
                if built is None:
                    built = profile.__dict__[self._built] = given.frame()
        return built

    def __set__(self, profile: ProfileData, value: pl.DataFrame | CompactMetadata) -> None:
        profile.__dict__[self._given] = value
        profile.__dict__.pop(self._built, None)


@dataclass(frozen=True, eq=False)
class ProfileData:
    """A cycle profile's frames and scalars, built once at load and never mutated (`ipu_nb.Profile` documents them).

    Compared and hashed by identity, so per-profile caches (`ipu_nb._model.index.index_of`)
    can key on it.
    """

    samples: pl.DataFrame
    if TYPE_CHECKING:  # read as the long frame; also given a `CompactMetadata` (by the loader and the cache)
        metadata: pl.DataFrame
    else:
        metadata: _Metadata = _Metadata()
    exchange_activities: pl.DataFrame
    tiles: pl.DataFrame
    clock_hz: int
    schema_version: int
    granularity: str
    path: Path | None = None

    @property
    def compact_metadata(self) -> CompactMetadata | None:
        """The metadata as the loader holds it (codes, `CompactMetadata`), or None when it was given as a frame."""
        given = self.__dict__["_metadata_given"]
        return given if isinstance(given, CompactMetadata) else None

    def metadata_source(self) -> pl.DataFrame | CompactMetadata:
        """What the profile was given as ``metadata``: another profile can share it without building the frame."""
        given: pl.DataFrame | CompactMetadata = self.__dict__["_metadata_given"]
        return given

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

    def __repr__(self) -> str:
        where = f" from {self.path}" if self.path else ""
        return (
            f"<{type(self).__name__}{where}: {self.tile_count} tiles, {self.sample_count} samples, "
            f"{self.granularity} granularity, clockHz={self.clock_hz}, schema v{self.schema_version}>"
        )
