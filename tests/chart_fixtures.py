"""Profiles for the chart, report, HTML and magics tests: a hand-written one with hostile strings,
and numpy-built ones of any size (fast: no per-sample Python)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyarrow as pa
from builders import S, T, columns_from_tiles, profile_from_tiles, write_with_pycapnp

from ipu_nb._load._columns import Columns, Strings
from ipu_nb._load._frames import build_profile
from ipu_nb._profile import Profile

HOSTILE = "<img src=x onerror=alert(1)></script>"
HOSTILE_KERNEL = "</script><script>alert(2)</script>"


def hostile_tiles() -> list[T]:
    """Three tiles, a hostile operation/kernel/metadata string, an idle tile and an inactive compute sample."""
    meta = [("layer", "0"), (HOSTILE, HOSTILE)]
    return [
        T(
            0,
            [
                S(1000, 1600, "synchronization", "sync", "", phase=0),
                S(1600, 2000, "exchange", "exchange for gemm", "", phase=0),
                S(2000, 5000, "compute", HOSTILE, HOSTILE_KERNEL, phase=1, metadata=meta),
            ],
        ),
        T(
            2,
            [
                S(50, 700, "synchronization", "sync", "", phase=0),
                S(700, 1100, "exchange", "exchange for gemm", "", phase=0),
                S(1100, 2100, "compute", "gemm", "gemm_f32", phase=1, metadata=[("layer", "1")]),
            ],
        ),
        T(
            64,
            [
                S(0, 1500, "synchronization", "sync", "", phase=0),
                S(1500, 1900, "exchange", "exchange for gemm", "", phase=0),
                S(1900, 1950, "compute", "idle during gemm", "gemm_f32", phase=1, metadata=[("active", "false")]),
            ],
        ),
        T(1471, []),
    ]


def hostile_profile() -> Profile:
    return profile_from_tiles(hostile_tiles())


def write_hostile(path: Path) -> Path:
    return write_with_pycapnp(columns_from_tiles(hostile_tiles()), path)


def sized_columns(per_tile: int, tiles: int = 1472, seed: int = 0) -> Columns:
    """A phase-like profile: per tile, repeating (sync, exchange, compute) samples, contiguous, random lengths."""
    rng = np.random.default_rng(seed)
    n = tiles * per_tile
    kinds = np.tile(np.array([2, 0, 1], dtype=np.uint16), per_tile // 3 + 1)[:per_tile]
    kind = np.tile(kinds, tiles)
    durations = rng.integers(50, 5000, size=n).astype(np.uint32)
    skew = rng.integers(0, 10_000, size=tiles).astype(np.uint32)
    local = np.tile(np.arange(per_tile, dtype=np.uint32), tiles)
    ends = np.cumsum(durations.reshape(tiles, per_tile), axis=1, dtype=np.uint64) + skew[:, None]
    starts = ends - durations.reshape(tiles, per_tile)
    kernel_codes = (rng.integers(0, 4, size=n) * (kind == 1)).astype(np.uint32)
    kernels = pa.array(["", "gemm_f32", "gelu", "copy_u64"], type=pa.string())
    operations = pa.array(["sync", "exchange", "compute"], type=pa.string())
    op_codes = np.select([kind == 2, kind == 0], [0, 1], 2).astype(np.uint32)
    u32 = np.uint32
    return Columns(
        schema_version=3,
        clock_hz=1_500_000_000,
        tiles=np.arange(tiles, dtype=u32),
        tile_sample_counts=np.full(tiles, per_tile, dtype=np.int64),
        local_index=local,
        phase=(local // 2).astype(u32),
        epoch=np.zeros(n, dtype=u32),
        kind=kind,
        start=(starts.reshape(-1) % 2**32).astype(u32),
        end=(ends.reshape(-1) % 2**32).astype(u32),
        operation=Strings(op_codes, operations),
        kernel=Strings(kernel_codes, kernels),
        metadata_counts=np.zeros(n, dtype=np.int64),
        metadata_name=Strings.from_list([]),
        metadata_value=Strings.from_list([]),
        exchange_event_cycles=np.zeros(n, dtype=u32),
        activity_counts=np.zeros(n, dtype=np.int64),
    )


def sized_profile(per_tile: int, tiles: int = 1472, seed: int = 0) -> Profile:
    return build_profile(sized_columns(per_tile, tiles, seed))


def spec_rows(spec: dict) -> int:
    """Data rows embedded in a Vega-Lite spec (named datasets plus inline values, at any depth)."""
    total = sum(len(rows) for rows in spec.get("datasets", {}).values())

    def walk(node: object) -> int:
        if isinstance(node, dict):
            own = 0
            data = node.get("data")
            if isinstance(data, dict) and isinstance(data.get("values"), list):
                own = len(data["values"])
            return own + sum(walk(v) for k, v in node.items() if k != "datasets")
        if isinstance(node, list):
            return sum(walk(v) for v in node)
        return 0

    return total + walk({k: v for k, v in spec.items() if k != "datasets"})


_LOADING = re.compile(
    r"""(?:\b(?:src|href|action|poster|data|srcset)\s*=\s*["']?\s*(?:https?:)?//)"""
    r"""|(?:url\(\s*["']?\s*(?:https?:)?//)|(?:@import\s+["']?(?:https?:)?//)""",
    re.IGNORECASE,
)
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)


def external_references(document: str) -> list[str]:
    """Every way the HTML could reach the network: remote src/href/url()/@import anywhere, and any
    http(s) URL outside the inlined Vega bundle (whose only URLs are XML namespaces and unused links)."""
    found = [m.group(0) for m in _LOADING.finditer(document)]
    # XML namespace names (inline SVG) are identifiers, never fetched.
    ours = re.sub(r"""\sxmlns(?::\w+)?=["'][^"']*["']""", "", without_vega_bundle(document))
    found += re.findall(r"https?://[^\s\"'<>)]+", ours)
    return found


def without_vega_bundle(document: str) -> str:
    """The document minus the inlined Vega/Vega-Lite/vega-embed library (our own markup and data only)."""
    return _SCRIPT.sub(
        lambda m: "<script></script>" if "vegaEmbed" in m.group(2) and len(m.group(2)) > 100_000 else m.group(0),
        document,
    )
