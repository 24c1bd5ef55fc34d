"""Reopening from the frame cache maps its files: frames backed by them, every byte and code still verified.

The reference is a fresh decode of the same profile (``cache=False``); entries are damaged by
the test from real ones.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest
from builders import S, T, columns_from_tiles

from ipu_nb import write_columns
from ipu_nb._load import _cache, open_profile
from ipu_nb._load._cache import cache_key, load_cached, wait_for_writes

FRAMES = ("samples", "metadata", "exchange_activities", "tiles")


def _write(path: Path) -> Path:
    tiles = [
        T(
            t,
            [
                S(i, i + 2, "compute", f"op{i % 3}", f"k{t}", metadata=[("layer", str(i % 4)), ("active", "false")])
                for i in range(30)
            ],
        )
        for t in range(4)
    ] + [T(9, [S(1, 5, "idle", activities=[("send", 1, 2), ("receive", 2, 4)])])]
    return write_columns(columns_from_tiles(tiles, schema_version=4), path)


def _entry(path: Path, root: Path) -> Path:
    open_profile(path, progress=False)
    wait_for_writes()
    entry = root / cache_key(path)
    assert entry.is_dir()
    return entry


_REOPEN = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import polars as pl
    if sys.argv[2] == "busy":  # texts registered before the reopen: polars' ids are not the file's codes
        busy = pl.Series([f"registered first {i}" for i in range(1000)]).cast(pl.Categorical)
    import ipu_nb._load as load
    from ipu_nb._load import open_profile

    fresh = open_profile(sys.argv[1], cache=False, progress=False)
    load._decode = None  # the reopen must be a cache hit
    profile = open_profile(sys.argv[1], progress=False)
    frames = ("samples", "metadata", "exchange_activities", "tiles")
    same = all(getattr(profile, n).equals(getattr(fresh, n)) for n in frames)

    def mapped_from(column):  # the file mapping the column's values lie in, if any
        address = column.to_physical().to_arrow().buffers()[1].address
        with open("/proc/self/maps") as maps:
            for line in maps:
                span, *rest = line.split()
                lo, hi = (int(x, 16) for x in span.split("-"))
                if lo <= address < hi and len(rest) >= 5:
                    return rest[4].rsplit("/", 1)[-1]
        return None

    metadata = profile.metadata
    print(json.dumps({"same": same, "sample": mapped_from(metadata["sample"]), "name": mapped_from(metadata["name"])}))
    """
)


@pytest.mark.parametrize("process", ["fresh", "busy"])
def test_a_reopen_maps_the_cache_files(tmp_path: Path, cache_root: Path, process: str) -> None:
    path = _write(tmp_path / "p.capnp")
    _entry(path, cache_root)
    run = subprocess.run(
        [sys.executable, "-c", _REOPEN, str(path), process], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["same"]
    assert result["sample"] == "metadata.arrow"  # numbers straight from the mapped file
    # Text codes too, where polars numbers the texts as the file does; renumbered into memory otherwise.
    if process == "busy":  # a process with other texts renumbers the name codes into new memory
        assert result["name"] != "metadata.arrow"


@pytest.mark.parametrize("name", [*(f"{frame}.arrow" for frame in FRAMES), "categories.arrow"])
def test_a_flipped_byte_in_a_mapped_file_is_a_miss(tmp_path: Path, cache_root: Path, name: str) -> None:
    path = _write(tmp_path / "p.capnp")
    entry = _entry(path, cache_root)
    target = entry / name
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x10
    target.unlink()  # entries' files are never written in place; the damage is a new file
    target.write_bytes(bytes(data))
    target.chmod(0o600)
    assert load_cached(path, cache_key(path), cache_root) is None
    reopened = open_profile(path, progress=False)  # decoded again, and the entry replaced
    fresh = open_profile(path, cache=False, progress=False)
    for frame in FRAMES:
        assert getattr(reopened, frame).equals(getattr(fresh, frame)), frame


def _rewrite_with_checksums(entry: Path, name: str, data: bytes, key: str) -> None:
    """Replace file `name` of the entry by `data` with a manifest that vouches for it: damage no checksum sees."""
    (entry / name).unlink()
    (entry / name).write_bytes(data)
    (entry / name).chmod(0o600)
    manifest = _cache.read_manifest(entry)
    assert manifest is not None
    record = manifest["categories"] if name == "categories.arrow" else manifest["frames"][name.removesuffix(".arrow")]
    record.update(bytes=len(data), xxh3_64=_cache._checksum(data))
    (entry / "profile.json").unlink()
    (entry / "profile.json").write_text(json.dumps({**manifest, "digest": _cache._digest(manifest)}))
    (entry / "profile.json").chmod(0o600)
    assert _cache.read_manifest(entry) is not None


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def test_codes_past_the_texts_are_a_miss_even_when_checksummed(tmp_path: Path, cache_root: Path) -> None:
    # A categories file with fewer texts than the codes number: every code is checked, not trusted.
    path = _write(tmp_path / "p.capnp")
    entry = _entry(path, cache_root)
    _rewrite_with_checksums(entry, "categories.arrow", _ipc(pa.table({"value": ["only one"]})), entry.name)
    assert load_cached(path, cache_key(path), cache_root) is None


def test_an_enum_code_past_its_categories_is_a_miss(tmp_path: Path, cache_root: Path) -> None:
    path = _write(tmp_path / "p.capnp")
    entry = _entry(path, cache_root)
    table = pa.ipc.open_file(pa.py_buffer((entry / "samples.arrow").read_bytes())).read_all()
    index = table.schema.get_field_index("kind")
    field = table.schema.field(index)
    bad = pa.array([200] * len(table), type=field.type)
    damaged = table.set_column(index, field, bad)
    _rewrite_with_checksums(entry, "samples.arrow", _ipc(damaged), entry.name)
    assert load_cached(path, cache_key(path), cache_root) is None
