"""The widget's flame graph: summed durations of the matching samples as a pruned tree (pure polars)."""

from __future__ import annotations

import numpy as np
import polars as pl

from .._exchange.display import ACCOUNTING_PARTS
from .._model.vocabulary import FLAME_HIERARCHIES, NO_KERNEL
from .._profile import Profile
from .._query import Query, index_of
from .protocol import FlameMetadata, FlameNode, FlameTree

__all__ = ["DEFAULT_HIERARCHY", "FLAME_HIERARCHIES", "accounting_samples", "flame_tree", "hierarchy_keys"]

#: The hierarchy shown unless another is chosen (``ProfileWidget.flame_hierarchy``).
DEFAULT_HIERARCHY = FLAME_HIERARCHIES[0]


def hierarchy_keys(hierarchy: str) -> tuple[str, ...]:
    """The levels below the root of `hierarchy` (one of `FLAME_HIERARCHIES`), outermost first.

    A node's path holds one filter per level above and at it (``phase`` selects every epoch of a
    phase, so a phase level groups by phase alone): focusing a node selects exactly its samples.

    >>> hierarchy_keys("kind/operation/kernel")
    ('kind', 'operation', 'kernel')
    >>> hierarchy_keys("kernel")
    Traceback (most recent call last):
    ...
    ValueError: flame hierarchy 'kernel' is not one of 'kind/kernel/phase/operation', \
'kind/kernel/operation/phase', 'kind/operation/kernel'
    """
    if hierarchy not in FLAME_HIERARCHIES:
        known = ", ".join(map(repr, FLAME_HIERARCHIES))
        raise ValueError(f"flame hierarchy {hierarchy!r} is not one of {known}")
    return tuple(hierarchy.split("/"))


def _phase_name(phase: int, epochs: int, epoch: int) -> str:
    """``phase P/E`` as the query core names a (phase, epoch) group; one node covers every epoch of a phase."""
    return f"phase {phase}/{epoch}" if epochs == 1 else f"phase {phase} ({epochs} epochs)"


def flame_tree(
    profile: Profile,
    mask: np.ndarray | None,
    q: Query,
    min_share: float = 1 / 4000,
    samples: pl.DataFrame | None = None,
    hierarchy: str = DEFAULT_HIERARCHY,
) -> FlameTree:
    """Summed durations of the matching samples, one level per key of `hierarchy` (`hierarchy_keys`;
    by default kind → kernel → phase → operation), which the tree's ``levels`` repeats.

    Each node's ``path`` holds the filters selecting exactly its samples. Nodes below
    ``min_share`` of the total are merged into one ``…`` node per parent (path None), so
    the tree stays small at any profile size (a 1/4000 share is under a pixel of any screen;
    ~1,600 nodes for the full-size demo profile); the front end merges what is narrower than
    a pixel at its width. When the query's filters name an operation (exactly or by substring),
    its metadata entries (name and value apart, summed over the samples carrying each) come
    as a separate list, since entries of one sample overlap. `samples` (default
    ``profile.samples``) are the rows to sum ``duration`` over: an area's, its clipped cycles.
    """
    keys = hierarchy_keys(hierarchy)
    samples = profile.samples if samples is None else samples
    ids = samples.get_column("sample").to_numpy()
    if mask is not None:
        samples = samples.filter(pl.Series(mask[ids]))
    base = samples.group_by("kind", "kernel", "phase", "epoch", "operation").agg(
        value=pl.col("duration").cast(pl.UInt64).sum()
    )
    total = int(base.get_column("value").sum()) if base.height else 0
    nodes: list[FlameNode] = [{"name": "all", "level": 0, "value": total, "parent": -1, "path": {}}]
    parents: dict[tuple, int] = {(): 0}
    for depth, (key, big, rest) in enumerate(_levels(base, total * min_share, keys), start=1):
        cols = list(keys[:depth])
        parent_cols = cols[:-1]
        next_parents: dict[tuple, int] = {}
        for row in big.iter_rows(named=True):
            parent = parents[tuple(row[c] for c in parent_cols)]
            path = dict(nodes[parent]["path"] or {})
            value = row[key]
            path[key] = value
            if key == "phase":
                name = _phase_name(value, row["epochs"], row["epoch"])
            else:
                name = value if key != "kernel" or value else NO_KERNEL
            next_parents[tuple(row[c] for c in cols)] = len(nodes)
            nodes.append({"name": name, "level": depth, "value": row["value"], "parent": parent, "path": path})
        for row in rest.iter_rows(named=True):
            parent = parents[tuple(row[c] for c in parent_cols)]
            nodes.append({"name": "…", "level": depth, "value": row["value"], "parent": parent, "path": None})
        parents = next_parents
    out: FlameTree = {"total": total, "levels": list(keys), "nodes": nodes, "metadata": []}
    if (q.operation or q.operation_contains) and samples.height:
        out["metadata"] = _metadata_totals(profile, samples)
    return out


def _levels(base: pl.DataFrame, floor: float, keys: tuple[str, ...]) -> list[tuple[str, pl.DataFrame, pl.DataFrame]]:
    """Per level of `keys`: its key, its nodes reaching `floor` (largest first) and, per parent
    kept, the summed value of its children below it (in parent order; none where there are none).

    A node's value is at least any of its descendants' (durations are never negative), so a node
    reaching the floor has every ancestor reaching it: each level is cut on its own, and all of
    them in one collect (small frames, where one engine run beats several).
    """
    plans: list[pl.LazyFrame] = []
    for depth in range(1, len(keys) + 1):
        cols = list(keys[:depth])
        parent_cols = cols[:-1]
        level = (
            base.lazy()
            .group_by(cols)
            .agg(pl.col("value").sum(), epochs=pl.col("epoch").n_unique(), epoch=pl.col("epoch").min())
        )
        big = level.filter(pl.col("value") >= floor).sort(["value", *cols], descending=[True, *([False] * depth)])
        if parent_cols:
            kept_parent = pl.col("value").sum().over(parent_cols) >= floor
            small = level.filter((pl.col("value") < floor) & kept_parent)
            rest = small.group_by(parent_cols).agg(pl.col("value").sum()).sort(parent_cols)
        else:  # the root's children: the root is always kept
            small = level.filter(pl.col("value") < floor)
            rest = small.select(pl.col("value").sum(), _n=pl.len()).filter(pl.col("_n") > 0)
        plans += [big, rest]
    frames = pl.collect_all(plans, engine="in-memory")
    return [(key, frames[2 * i], frames[2 * i + 1]) for i, key in enumerate(keys)]


def _metadata_totals(profile: Profile, samples: pl.DataFrame, top: int = 60) -> list[FlameMetadata]:
    """Per metadata entry (name, value) of `samples`: their summed cycles and count."""
    rows, counts = index_of(profile).entry_rows(samples.get_column("sample").to_numpy())
    frame = profile.metadata.select("name", "value")[pl.Series(rows, dtype=pl.Int64)]
    cycles = np.repeat(samples.get_column("duration").to_numpy().astype(np.int64), counts)
    # Group on the categorical codes (cheaper), then read the strings of the top rows only.
    top_rows = (
        frame.select(pl.col("name").to_physical(), pl.col("value").to_physical())
        .with_columns(cycles=pl.Series(cycles), row=pl.int_range(pl.len(), dtype=pl.UInt32))
        .group_by("name", "value")
        .agg(pl.col("cycles").sum(), samples=pl.len(), row=pl.col("row").first())
    )
    strings = frame[top_rows.get_column("row")].select(pl.col("name", "value").cast(pl.String))
    entries = (
        pl.concat([strings, top_rows.select("cycles", "samples")], how="horizontal")
        .sort(["cycles", "name", "value"], descending=[True, False, False])
        .head(top)
    )
    return [{"name": n, "value": v, "cycles": c, "samples": k} for n, v, c, k in entries.iter_rows()]


def accounting_samples(
    samples: pl.DataFrame, parts: pl.DataFrame, within: tuple[int, int] | None = None
) -> pl.DataFrame:
    """`samples` as the newest runtime's flame graph counts them: each exchange sample of a phase with bounds
    replaced by its accounting parts (`ipu_nb._exchange.display.accounting_parts`, `parts`), the boundary
    wait and sampling as synchronization with their name for kernel; the columns `flame_tree` sums (kernel
    as text). `within`: an area's ``[start, end)``, each part counted with its cycles inside it (`samples`
    then holds the area's samples, with their cycles inside it as ``duration``).
    """
    columns = ["sample", "kind", "kernel", "phase", "epoch", "operation", "duration"]
    if within is not None:
        start, end = within
        offset = pl.col("offset").cast(pl.Int64)
        lo = pl.max_horizontal(offset, pl.lit(start))
        hi = pl.min_horizontal(offset + pl.col("duration").cast(pl.Int64), pl.lit(end))
        parts = parts.with_columns(duration=pl.max_horizontal(hi - lo, pl.lit(0)).cast(pl.UInt32))
    split = parts.select("sample", "part", "duration").join(samples.drop("duration"), on="sample", how="inner")
    kind, kernel = pl.col("kind"), pl.col("kernel").cast(pl.String)
    for part, (name, counted) in enumerate(ACCOUNTING_PARTS):
        if counted != "exchange":
            here = pl.col("part") == part
            kind = pl.when(here).then(pl.lit(counted, dtype=samples.schema["kind"])).otherwise(kind)
            kernel = pl.when(here).then(pl.lit(name)).otherwise(kernel)
    split = split.with_columns(kind=kind, kernel=kernel)
    whole = samples.filter(~pl.col("sample").is_in(parts.get_column("sample").implode()))
    return pl.concat(
        [whole.select(columns).with_columns(pl.col("kernel").cast(pl.String)), split.select(columns)], how="vertical"
    )
