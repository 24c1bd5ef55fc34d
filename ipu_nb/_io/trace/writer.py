"""`write_trace`: stream a profile's samples to a Chrome/Perfetto JSON trace file, a chunk at a time.

Memory stays at one chunk of text (`CHUNK_SAMPLES` samples) whatever the profile's size;
the file appears only once complete (`atomic_output`), gzip-compressed when its name ends
in ``.gz`` (both viewers open ``.json.gz`` directly).
"""

from __future__ import annotations

import gzip
import json
import os
from contextlib import ExitStack
from pathlib import Path
from typing import IO, TYPE_CHECKING, NamedTuple

import numpy as np
import polars as pl

from ... import _progress
from ..._files import atomic_output
from ..._version import __version__
from .events import sample_events, track_events

if TYPE_CHECKING:
    from ..._model.profile import ProfileData

__all__ = ["CHUNK_SAMPLES", "GZIP_LEVEL", "Written", "write_trace"]

#: Samples turned into text at once: about 40 MB of JSON.
CHUNK_SAMPLES = 50_000
#: Fast over small: JSON traces compress ~10x even at level 1, and level 6 takes several times longer.
GZIP_LEVEL = 1

_COLUMNS = ("sample", "tile", "phase", "epoch", "kind", "operation", "kernel", "offset", "duration")


class Written(NamedTuple):
    """What `write_trace` wrote: the file, its slices (one per sample) and its tracks (one per tile)."""

    path: Path
    slices: int
    tracks: int


def _other_data(profile: ProfileData, exported: int) -> dict[str, object]:
    return {
        "source": f"ipu-nb {__version__}",
        "profile": str(profile.path) if profile.path is not None else None,
        "clockHz": profile.clock_hz,
        "schemaVersion": profile.schema_version,
        "granularity": profile.granularity,
        "samples": exported,
        "time": (
            "per-tile offset (each tile's first sample at 0), in microseconds at clockHz"
            if profile.clock_hz > 0
            else "per-tile offset; clockHz is 0, so one cycle is shown as one nanosecond"
        ),
    }


def write_trace(
    profile: ProfileData,
    path: str | os.PathLike[str],
    mask: np.ndarray | None = None,
    *,
    progress: bool | None = None,
) -> Written:
    """Write the samples where `mask` (one bool per row of ``profile.samples``) is true, or all of them, as a trace.

    The query core picks the samples (`ipu_nb.Profile.to_trace` takes a query's filters);
    see there for the layout.
    """
    target = Path(path)
    rows = profile.samples.select(_COLUMNS)
    if mask is not None:
        rows = rows.filter(pl.Series(mask, dtype=pl.Boolean))
    total = rows.height
    large = total >= _progress.AUTO_PROGRESS_SAMPLES
    with ExitStack() as stack:
        raw = stack.enter_context(atomic_output(target))
        out: IO[bytes] | gzip.GzipFile = raw
        if target.suffix.lower() == ".gz":
            out = stack.enter_context(gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=GZIP_LEVEL, mtime=0))
        report = stack.enter_context(_progress.progress_bar(progress, f"writing {target.name}", large=large))
        out.write(b'{"traceEvents":[\n')
        tracks = track_events(rows["tile"])
        out.write(tracks.encode())
        for lo in range(0, total, CHUNK_SAMPLES):
            if lo or tracks:
                out.write(b",\n")
            out.write(sample_events(profile, rows.slice(lo, CHUNK_SAMPLES)).encode())
            if report is not None:
                report(min(lo + CHUNK_SAMPLES, total), total)
        tail = json.dumps(_other_data(profile, total), ensure_ascii=False, separators=(",", ":"))
        out.write(f'\n],"otherData":{tail}}}\n'.encode())
    return Written(target, total, rows["tile"].n_unique())
