"""Reference decoder: pycapnp attribute access, schema-driven and slow (tens of µs a sample).

It is the yardstick the fast decoder is tested against, and a fallback.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._model.columns import SUPPORTED_SCHEMA_VERSIONS, Columns, Strings
from .._schema import load_schema
from ._errors import ProfileFormatError, UnsupportedSchemaVersionError

__all__ = ["decode_reference", "decode_reference_bytes"]

# Generous but finite: a valid profile needs about file-size/8 words of traversal.
_TRAVERSAL_FACTOR = 4


def decode_reference(path: str | Path) -> Columns:
    """Decode a profile file with pycapnp."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ProfileFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_reference_bytes(data, where=str(path))


def decode_reference_bytes(data: bytes, where: str = "<bytes>") -> Columns:
    """Decode one framed message held in memory."""
    schema = load_schema()
    limit = max(1 << 20, len(data) // 8 * _TRAVERSAL_FACTOR)
    try:
        with schema.Profile.from_bytes(data, traversal_limit_in_words=limit, nesting_limit=64) as root:
            return _columns(root)
    except UnsupportedSchemaVersionError as exc:
        exc.args = (f"{where}: {exc}",)
        raise
    except ProfileFormatError as exc:
        raise ProfileFormatError(f"{where}: {exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProfileFormatError(f"{where}: invalid profile data: {exc}") from None
    except Exception as exc:  # pycapnp raises KjException for every wire-format fault
        if type(exc).__name__ == "KjException":
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ProfileFormatError(f"{where}: corrupt Cap'n Proto message: {text}") from None
        raise


def _columns(root: object) -> Columns:
    version = int(root.schemaVersion)  # type: ignore[attr-defined]
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise UnsupportedSchemaVersionError(version, SUPPORTED_SCHEMA_VERSIONS)
    tiles: list[int] = []
    counts: list[int] = []
    ints: list[tuple[int, int, int, int, int, int, int]] = []
    operations: list[str] = []
    kernels: list[str] = []
    meta_counts: list[int] = []
    names: list[str] = []
    values: list[str] = []
    act_counts: list[int] = []
    acts: list[tuple[int, int, int]] = []
    for tile in root.tiles:  # type: ignore[attr-defined]
        tiles.append(tile.physicalTile)
        samples = tile.samples
        counts.append(len(samples))
        for sample in samples:
            step = sample.step
            kind = step._get("kind")
            kind_raw = (
                kind if isinstance(kind, int) else int(kind.raw) if hasattr(kind, "raw") else _KIND_INDEX[str(kind)]
            )
            ints.append(
                (
                    step.localIndex,
                    step.phase,
                    step.epoch,
                    kind_raw,
                    sample.startCycle,
                    sample.endCycle,
                    step.exchangeEventCycles,
                )
            )
            operations.append(step.operation)
            kernels.append(step.kernel)
            entries = step.metadata
            meta_counts.append(len(entries))
            for entry in entries:
                names.append(entry.name)
                values.append(entry.value)
            activities = step.exchangeActivities
            act_counts.append(len(activities))
            for activity in activities:
                akind = activity._get("kind")
                akind_raw = (
                    akind
                    if isinstance(akind, int)
                    else int(akind.raw)
                    if hasattr(akind, "raw")
                    else _ACT_INDEX[str(akind)]
                )
                acts.append((akind_raw, activity.startCycle, activity.endCycle))
    table = np.array(ints, dtype=np.int64).reshape(-1, 7)
    act_table = np.array(acts, dtype=np.int64).reshape(-1, 3)
    return Columns(
        schema_version=version,
        clock_hz=int(root.clockHz),  # type: ignore[attr-defined]
        tiles=np.array(tiles, dtype=np.uint32),
        tile_sample_counts=np.array(counts, dtype=np.int64),
        local_index=table[:, 0].astype(np.uint32),
        phase=table[:, 1].astype(np.uint32),
        epoch=table[:, 2].astype(np.uint32),
        kind=table[:, 3].astype(np.uint16),
        start=table[:, 4].astype(np.uint32),
        end=table[:, 5].astype(np.uint32),
        exchange_event_cycles=table[:, 6].astype(np.uint32),
        operation=Strings.from_list(operations),
        kernel=Strings.from_list(kernels),
        metadata_counts=np.array(meta_counts, dtype=np.int64),
        metadata_name=Strings.from_list(names),
        metadata_value=Strings.from_list(values),
        activity_counts=np.array(act_counts, dtype=np.int64),
        activity_kind=act_table[:, 0].astype(np.uint16),
        activity_start=act_table[:, 1].astype(np.uint32),
        activity_end=act_table[:, 2].astype(np.uint32),
    )


_KIND_INDEX = {"exchange": 0, "compute": 1, "synchronization": 2, "idle": 3}
_ACT_INDEX = {"send": 0, "receive": 1, "partnerBusy": 2}
