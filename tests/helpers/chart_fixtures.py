"""Profiles for the chart, report, HTML and magics tests: a hand-written one with hostile strings, a
"nasty" one whose names hold everything a renderer can choke on (with helpers that export it in a
child process), and numpy-built ones of any size (fast: no per-sample Python)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
from builders import S, T, columns_from_tiles, profile_from_tiles, profile_of, write_with_pycapnp

import ipu_nb
from ipu_nb import charts
from ipu_nb._charts.spec import Chart
from ipu_nb._model.columns import Columns, Strings
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


#: Profile strings no renderer may choke on: each is a kernel, an operation, a metadata name and a value.
NASTY_NAMES: tuple[str, ...] = (
    "nul\x00byte",
    "soh\x01 esc\x1b[31m bel\x07",
    "tab\tnew\nline\rreturn",
    "del\x7f c1\x80\x85\x9f",
    "line\u2028separator",
    "para\u2029graph \u2028\u2028twice",
    "non\ufffechar\uffff",
    "plane\U0001fffe \U0010ffff \ufdd0",
    "bidi\u202eoverride\u202c \u2066isolate\u2069",
    "ge\u200bmm zero\u2060width\ufeff soft\u00adhyphen",  # would look like "gemm zerowidth softhyphen"
    "</script><script>alert(3)</script>",
    "\"'&<>",
    "back\\slash\\",
    "\\u{1}",  # a literal backslash-u-brace: must stay distinct from "\x01"
    "\x01",
    "\\\x01",
    "{{ 7*7 }} ${x} `y` %s {0}",
    "a.b[0]['c'].d\\.e",
    "constructor",
    "toString",
    "__proto__",
    "(no kernel)",
    "(empty)",
    "long " + "x" * 4000 + " a",
    "long " + "x" * 4000 + " b",  # differs from the previous one only after any sensible cut
)


def shows_safely(char: str) -> bool:
    """An independent statement of what drawn text may hold: an XML 1.0 Char that is no control,
    line/paragraph separator, bidi mark/embedding/override/isolate, surrogate, noncharacter or
    invisible look-alike maker (soft hyphen, zero-width space, word joiner, invisible operators, BOM)."""
    cp = ord(char)
    xml = cp in (0x9, 0xA, 0xD) or 0x20 <= cp <= 0xD7FF or 0xE000 <= cp <= 0xFFFD or 0x10000 <= cp <= 0x10FFFF
    noncharacter = 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE
    bidi = cp in (0x061C, 0x200E, 0x200F) or 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069
    invisible = cp in (0x00AD, 0x200B, 0xFEFF) or 0x2060 <= cp <= 0x2064
    return (
        xml and not noncharacter and not bidi and not invisible and unicodedata.category(char) not in ("Cc", "Zl", "Zp")
    )


#: Names that must come out exactly as they went in.
ORDINARY_NAMES: tuple[str, ...] = (
    "gemm_f32",
    "café crème",
    "矩阵乘法",
    "🚀 fused 👩\u200d👩\u200d👧 ✔\ufe0f",
    "ConvPartial<half,float>",
    "C:\\models\\bert",
    "a.b[0]",
)
#: Metadata names on every nasty sample (the most common, so they reach every Gantt tooltip).
NASTY_KEY = "a.b[0]['c']"
NASTY_KEY_2 = 'say "hi" \\u{1} \x01 \u2028\\'
#: Every character of the nasty strings that must never reach a renderer raw.
RAW_CHARACTERS = frozenset(c for name in (*NASTY_NAMES, NASTY_KEY_2) for c in name if not shows_safely(c))


def nasty_tiles(stretch: int = 0) -> list[T]:
    """One sample per name (kernel, operation, metadata name and value all that name) over four tiles.

    ``stretch`` lengthens every third sample by that many cycles (and shortens the next by
    half as many): an "after" profile to compare with the plain one.
    """
    names = NASTY_NAMES + ORDINARY_NAMES
    tiles: list[list[S]] = [[] for _ in range(4)]
    for i, name in enumerate(names):
        start = 100 * (i // 4)
        meta = [(NASTY_KEY, name), (NASTY_KEY_2, name), (name, name), ("layer", str(i % 3))]
        change = (stretch, -(stretch // 2), 0)[i % 3]
        tiles[i % 4].append(S(start, start + 40 + i + change, "compute", name, name, phase=i, metadata=meta))
    tiles[0].append(S(10_000, 10_100, "compute", "no kernel here", "", phase=len(names)))  # the empty kernel
    tiles[1].append(S(10_000, 10_050, "exchange", "exchange", "", phase=len(names)))
    return [T(tile, samples) for tile, samples in zip((0, 1, 64, 1471), tiles, strict=True)]


def nasty_profile() -> Profile:
    return profile_from_tiles(nasty_tiles())


def nasty_after() -> Profile:
    """The nasty profile after a change: some samples longer, some shorter (`nasty_tiles`)."""
    return profile_from_tiles(nasty_tiles(stretch=30))


def write_nasty(path: Path) -> Path:
    return write_with_pycapnp(columns_from_tiles(nasty_tiles()), path)


#: Every chart builder, the way each can show profile strings (group names, legends, facets, tooltips).
NASTY_CHARTS: dict[str, Callable[[Profile], Chart]] = {
    "breakdown-kernel": lambda p: charts.breakdown(p, by="kernel", top=100),
    "breakdown-operation": lambda p: charts.breakdown(p, by="operation", measure="workCycles", top=100),
    "breakdown-metadata": lambda p: charts.breakdown(p, by="metadata", metadata_key=NASTY_KEY, top=100),
    "breakdown-hostile-key": lambda p: charts.breakdown(p, by="metadata", metadata_key=NASTY_NAMES[4], top=5),
    "tile_heatmap": lambda p: charts.tile_heatmap(p),
    "histogram-kernel": lambda p: charts.duration_distribution(p, "kernel", top=100),
    "ecdf-operation": lambda p: charts.duration_distribution(p, "operation", style="ecdf", top=100),
    "active_tiles": lambda p: charts.active_tiles(p),
    "phase_waterfall": lambda p: charts.phase_waterfall(p),
    "gantt-kernel": lambda p: charts.gantt(p, color="kernel"),
    "gantt-operation": lambda p: charts.gantt(p, color="operation", kind="compute"),
    "delta_waterfall-kernel": lambda p: charts.delta_waterfall(ipu_nb.compare(p, nasty_after()), limit=100),
    "delta_waterfall-metadata": lambda p: charts.delta_waterfall(
        ipu_nb.compare(p, nasty_after(), by="metadata", metadata_key=NASTY_KEY_2), limit=5
    ),
    "delta_heatmap": lambda p: charts.delta_heatmap(ipu_nb.compare(p, nasty_after(), by="tile")),
    "delta_distribution": lambda p: charts.delta_distribution(p, nasty_after(), kernel=NASTY_NAMES[9]),
    "delta_distribution-ecdf": lambda p: charts.delta_distribution(p, nasty_after(), style="ecdf", kind="compute"),
    "recoverable_cycles": lambda p: charts.recoverable_cycles(p, kind=None),
    "critical_tiles": lambda p: charts.critical_tiles(p),
    "what_if": lambda p: charts.what_if(ipu_nb.what_if(p, {NASTY_NAMES[9]: 0.5, NASTY_NAMES[1]: 2.0})),
    "what_if-per-superstep": lambda p: charts.what_if(ipu_nb.what_if(p, {NASTY_NAMES[4]: 0.0}), cumulative=False),
}
EXPORT_FORMATS = ("html", "svg", "png", "pdf", "json")


def export_nasty_charts(directory: Path) -> subprocess.CompletedProcess[str]:
    """Export every `NASTY_CHARTS` chart in every format, in a child process (a renderer abort kills only it).

    Writes ``<chart>.<format>`` into ``directory``; prints one line per finished export, and
    ``FAILED <chart> <format>: <error>`` on stderr for an export that raised (the others go on).
    """
    code = (
        "import sys; from pathlib import Path; import chart_fixtures as f; from ipu_nb import charts\n"
        "p = f.nasty_profile(); out = Path(sys.argv[1])\n"
        "for name, build in f.NASTY_CHARTS.items():\n"
        "    for fmt in f.EXPORT_FORMATS:\n"
        "        try:\n"
        "            charts.save(build(p), out / f'{name}.{fmt}', scale=1.0)\n"
        "        except Exception as exc:\n"
        "            print(f'FAILED {name} {fmt}: {type(exc).__name__}: {exc}', file=sys.stderr, flush=True)\n"
        "        else:\n"
        "            print(name, fmt, flush=True)\n"
    )
    return run_isolated(code, str(directory))


#: The nasty report's title (see `save_nasty_report`).
NASTY_REPORT_TITLE = "report " + NASTY_NAMES[4] + NASTY_NAMES[9] + NASTY_NAMES[0]


def save_nasty_report(path: Path, *, static: bool) -> subprocess.CompletedProcess[str]:
    """`save_report` of every `NASTY_CHARTS` chart, the profile, query results, a table, its findings, a
    comparison and the names as paragraphs, in a child process (a renderer abort kills only it)."""
    code = (
        "import sys; import chart_fixtures as f; import ipu_nb\n"
        "p = f.nasty_profile()\n"
        "items = [build(p) for build in f.NASTY_CHARTS.values()]\n"
        "items += [p, ipu_nb.query(p, group_by='operation', samples=60), p.samples.head(60)]\n"
        "items += [ipu_nb.query(p, group_by='metadata', metadata_key=f.NASTY_KEY_2, limit=0)]\n"
        "items += [ipu_nb.findings(p, min_share=0), ipu_nb.compare(p, f.nasty_after())]\n"
        "items += list(f.NASTY_NAMES)\n"
        "ipu_nb.save_report(sys.argv[1], *items, title=f.NASTY_REPORT_TITLE, description='\\n'.join(f.NASTY_NAMES),"
        " static=sys.argv[2] == 'static')\n"
    )
    return run_isolated(code, str(path), "static" if static else "interactive")


def run_isolated(code: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run Python ``code`` in a fresh interpreter that can import the test helpers; capture its output."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


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
    return profile_of(sized_columns(per_tile, tiles, seed))


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
