"""`ProfileData`: one decoded cycle profile as polars frames plus its scalars, and what follows from them alone.

The layers below the public `ipu_nb.Profile` (the loader, the writers, the query core)
take and build this; `ipu_nb.Profile` is the same dataclass with the methods that reach
those layers (``query``, ``filter``, ``to_trace``, ``to_parquet``, the HTML repr).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

__all__ = ["ProfileData"]


@dataclass(frozen=True, eq=False)
class ProfileData:
    """A cycle profile's frames and scalars, built once at load and never mutated (`ipu_nb.Profile` documents them).

    Compared and hashed by identity, so per-profile caches (`ipu_nb._model.index.index_of`)
    can key on it.
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

    def __repr__(self) -> str:
        where = f" from {self.path}" if self.path else ""
        return (
            f"<{type(self).__name__}{where}: {self.tile_count} tiles, {self.sample_count} samples, "
            f"{self.granularity} granularity, clockHz={self.clock_hz}, schema v{self.schema_version}>"
        )
