"""What a cache entry stores of a profile: its frames, with the metadata as the pair codes the loader holds.

``metadata.arrow`` holds one row per entry: ``sample`` and ``position`` (read only when
someone builds the long ``metadata`` frame: mapped, they cost no memory until then) and
``pair``, a u16 code into the table of distinct (name, value) pairs, which rides along
as an Arrow IPC file in the table's schema metadata. A profile with too many distinct pairs
stores ``name`` and ``value`` per entry instead. ``samples.arrow`` has one more column,
each sample's end in the entries. Everything read back is checked: a code past the pairs,
ends that go backwards or do not end at the entry count make the entry a miss.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from .._model.metadata import CompactMetadata, owner_ids, positions
from .._model.profile import ProfileData
from ._columns import Unencodable

__all__ = ["PAIRS_FRAME", "assemble", "embed_pairs", "split_pairs", "stored_frames"]

#: The name under which the pairs frame goes through `encode_frames` (never a file of its own).
PAIRS_FRAME = "pairs"
_PAIRS_KEY = b"ipu-nb.pairs"
_END = "_metadata_end"


def _of_frame(frame: pl.DataFrame, samples: int) -> CompactMetadata | None:
    """A long frame in the loader's form (by sample id then position, ids below `samples`) as `CompactMetadata`."""
    if set(frame.columns) != {"sample", "position", "name", "value"}:
        return None
    owners = frame.get_column("sample").to_numpy()
    if len(owners) and (int(owners.min()) < 0 or int(owners.max()) >= samples or np.any(owners[1:] < owners[:-1])):
        return None
    counts = np.bincount(owners.astype(np.int64), minlength=samples)
    if not np.array_equal(frame.get_column("position").to_numpy(), positions(counts)):
        return None
    starts = np.zeros(samples + 1, dtype=np.uint64)
    np.cumsum(counts, out=starts[1:])
    return CompactMetadata(starts, None, frame.select("name", "value"))


def stored_frames(profile: ProfileData) -> tuple[dict[str, pl.DataFrame], pl.DataFrame | None]:
    """The frames to write (samples with each one's entry end; metadata as codes) and the pairs frame, if coded."""
    n = profile.samples.height
    compact = profile.compact_metadata or _of_frame(profile.metadata, n)
    if compact is None or len(compact.starts) != n + 1:
        raise Unencodable("metadata not grouped by sample row")
    counts = np.diff(compact.starts.astype(np.int64))
    columns: dict[str, pl.Series] = {
        "sample": pl.Series("sample", owner_ids(counts)),
        "position": pl.Series("position", positions(counts)),
    }
    if compact.codes is None:
        columns |= {name: compact.pairs.get_column(name) for name in ("name", "value")}
    else:
        columns["pair"] = pl.Series("pair", compact.codes)
    frames = {
        "samples": profile.samples.with_columns(pl.Series(_END, compact.starts[1:])),
        "metadata": pl.DataFrame(columns),
        "exchange_activities": profile.exchange_activities,
        "tiles": profile.tiles,
    }
    return frames, (compact.pairs if compact.codes is not None else None)


def embed_pairs(metadata: pa.Table, pairs: pa.Table) -> pa.Table:
    """`metadata` with the encoded `pairs` table in its schema metadata (an Arrow IPC file, hex)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, pairs.schema) as writer:
        writer.write_table(pairs)
    return metadata.replace_schema_metadata({_PAIRS_KEY: sink.getvalue().to_pybytes().hex().encode()})


def split_pairs(metadata: pa.Table) -> tuple[pa.Table, pa.Table | None]:
    """(`metadata` without it, the pairs table `embed_pairs` put in); ValueError if it is not one."""
    hexed = (metadata.schema.metadata or {}).get(_PAIRS_KEY)
    if hexed is None:
        return metadata, None
    pairs = pa.ipc.open_file(pa.BufferReader(bytes.fromhex(hexed.decode("ascii")))).read_all()
    return metadata.replace_schema_metadata(None), pairs


def assemble(frames: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame | CompactMetadata] | None:
    """The profile's frames from the decoded stored ones (`stored_frames`), or None if they do not fit together."""
    samples, metadata = frames["samples"], frames["metadata"]
    if _END not in samples.columns or samples.schema[_END] not in (pl.UInt32, pl.UInt64):
        return None
    ends = samples.get_column(_END).to_numpy()
    starts = np.zeros(len(ends) + 1, dtype=ends.dtype)
    starts[1:] = ends
    if len(ends) and (bool(np.any(starts[1:] < starts[:-1])) or int(starts[-1]) != metadata.height):
        return None
    if not len(ends) and metadata.height:
        return None
    stored = metadata.select("sample", "position")
    pairs = frames.get(PAIRS_FRAME)
    if pairs is None:
        if metadata.columns != ["sample", "position", "name", "value"]:
            return None
        compact = CompactMetadata(starts, None, metadata.select("name", "value"), stored)
    else:
        if metadata.columns != ["sample", "position", "pair"] or metadata.schema["pair"] != pl.UInt16:
            return None
        if pairs.columns != ["name", "value"]:
            return None
        code = metadata.get_column("pair")
        most = pc.max(code.to_arrow()).as_py() if metadata.height else None
        if most is not None and most >= pairs.height:
            return None
        compact = CompactMetadata(starts, code.to_numpy(), pairs, stored)
    return {
        "samples": samples.drop(_END),
        "metadata": compact,
        "exchange_activities": frames["exchange_activities"],
        "tiles": frames["tiles"],
    }
