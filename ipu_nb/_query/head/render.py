"""The newest runtime's `profile-query` text, byte for byte (docs/reference/head.md#text-output).

Its JSON is the same document as the default semantics' (`ipu_nb._query.render.query_json`);
only the text differs: ``key=value`` lines, group names and strings written as Rust's
``{:?}`` writes them (`rust_debug_str`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..render import rust_debug_str

__all__ = ["head_text"]


def head_text(
    scalars: Mapping[str, Any], groups: Sequence[Mapping[str, Any]], samples: Sequence[Mapping[str, Any]]
) -> str:
    """The text report from the records `ipu_nb._query.render.query_json` takes, with its trailing newline.

    >>> print(head_text(
    ...     {"tileCount": 2, "matchedSampleCount": 1, "sampleCount": 3, "profileSpanCycles": 90,
    ...      "profileSpanMs": 6e-05},
    ...     [{"name": 'a"b', "phaseCount": 1, "tileCount": 1, "sampleCount": 1, "phaseCycles": 90,
    ...       "workCycles": 90, "firstOffset": 0, "lastOffset": 90, "p95Cycles": 90, "maximumCycles": 90}],
    ...     [],
    ... ), end="")
    tiles=2 matched=1/3 spanCycles=90 spanMs=0.000060
    name="a\\"b" phases=1 tiles=1 samples=1 timelineCycles=90 workCycles=90 range=0..90 p95=90 max=90
    """
    lines = [
        f"tiles={scalars['tileCount']} matched={scalars['matchedSampleCount']}/{scalars['sampleCount']} "
        f"spanCycles={scalars['profileSpanCycles']} spanMs={scalars['profileSpanMs']:.6f}"
    ]
    for g in groups:
        lines.append(
            f"name={rust_debug_str(g['name'])} phases={g['phaseCount']} tiles={g['tileCount']} "
            f"samples={g['sampleCount']} timelineCycles={g['phaseCycles']} workCycles={g['workCycles']} "
            f"range={g['firstOffset']}..{g['lastOffset']} p95={g['p95Cycles']} max={g['maximumCycles']}"
        )
    for s in samples:
        lines.append(
            f"sample tile={s['physicalTile']} range={s['offset']}..{s['offset'] + s['duration']} "
            f"cycles={s['duration']} phase={s['phase']}/{s['epoch']} "
            f"operation={rust_debug_str(s['operation'])} kernel={rust_debug_str(s['kernel'])}"
        )
    return "\n".join(lines) + "\n"
