"""`ProfileWidget`: the timeline, overview, flame graph and inspector in a notebook.

The front end never holds the profile: it asks the kernel for what it draws
(custom messages answered by `ipu_nb._lod`, binary buffers for bulk data) and
writes its selections back through small synced traits, so every UI state is a
`Query` and a polars DataFrame in Python.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import anywidget
import numpy as np
import polars as pl
import traitlets

from . import _lod
from ._profile import Profile
from ._query import GROUP_BYS, KINDS, Query, QueryError, _metadata_mask

__all__ = ["ProfileWidget"]

_STATIC = Path(__file__).parent / "static"
_BUNDLE = _STATIC / "widget.js"
_STYLE = _STATIC / "widget.css"
FILTER_KEYS = ("kind", "kernel", "operation_contains", "tiles", "phases", "metadata")
OVERVIEW_BINS = 1024
LABEL_LIMIT = 20_000
GROUP_ROWS = 12
TOP = 10


def _empty_filters() -> dict[str, Any]:
    return {"kind": None, "kernel": None, "operation_contains": None, "tiles": [], "phases": [], "metadata": []}


def _parse_metadata(entry: Any) -> tuple[str, str | None]:
    """``"name"`` or ``"name=value"`` (split at the first ``=``) to a Query pair."""
    if not isinstance(entry, str):
        raise traitlets.TraitError(f"filters['metadata'] entries must be strings like 'name=value', got {entry!r}")
    name, sep, value = entry.partition("=")
    if not name:
        raise traitlets.TraitError(
            f"filters['metadata'] entry {entry!r} has an empty name; write 'name' or 'name=value'"
        )
    return name, (value if sep else None)


def normalise_filters(value: Any) -> dict[str, Any]:
    """Validate a (possibly partial) filters dict and fill in the missing keys."""
    if value is None:
        return _empty_filters()
    if not isinstance(value, dict):
        raise traitlets.TraitError(f"filters must be a dict with keys {', '.join(FILTER_KEYS)}; got {value!r}")
    unknown = sorted(set(value) - set(FILTER_KEYS))
    if unknown:
        raise traitlets.TraitError(f"unknown filters key(s) {unknown}; expected some of {', '.join(FILTER_KEYS)}")
    out = _empty_filters()
    for key in ("kind", "kernel", "operation_contains"):
        v = value.get(key)
        if v is not None and not isinstance(v, str):
            raise traitlets.TraitError(f"filters[{key!r}] must be a string or None, got {v!r}")
        out[key] = v if v != "" or key == "kernel" else None
    if out["kind"] is not None and out["kind"] not in KINDS:
        raise traitlets.TraitError(f"filters['kind'] must be one of {', '.join(KINDS)}, got {out['kind']!r}")
    for key in ("tiles", "phases"):
        items = value.get(key) or []
        if isinstance(items, (str, bytes)) or not all(isinstance(i, int) and i >= 0 for i in items):
            raise traitlets.TraitError(f"filters[{key!r}] must be a list of non-negative ints, got {items!r}")
        out[key] = sorted({int(i) for i in items})
    metadata = value.get("metadata") or []
    if isinstance(metadata, str):
        metadata = [metadata]
    for entry in metadata:
        _parse_metadata(entry)
    out["metadata"] = list(dict.fromkeys(metadata))
    return out


def query_from_state(filters: dict[str, Any], group_by: str, metadata_key: str | None) -> Query:
    """The `Query` a widget state stands for (without ``at``)."""
    f = normalise_filters(filters)
    return Query(
        group_by=group_by,  # type: ignore[arg-type]
        metadata_key=metadata_key,
        kind=f["kind"],
        kernel=f["kernel"],
        operation_contains=f["operation_contains"],
        tiles=tuple(f["tiles"]),
        phases=tuple(f["phases"]),
        metadata=tuple(_parse_metadata(m) for m in f["metadata"]),
    )


def _row_mask_to_ids(profile: Profile, rows: np.ndarray) -> np.ndarray:
    """A per-row mask re-indexed by sample id (the identity for loaded profiles)."""
    ids = profile.samples.get_column("sample").to_numpy()
    if len(ids) and (ids[-1] != len(ids) - 1 or not np.array_equal(ids, np.arange(len(ids)))):
        out = np.zeros(int(ids.max()) + 1, dtype=bool)
        out[ids] = rows
        return out
    return rows


def filter_mask(profile: Profile, filters: dict[str, Any]) -> np.ndarray:
    """Per sample id, whether it matches ``filters`` (SPEC §3 semantics, no ``at``).

    The same set as ``profile.filter(...)`` (tested), but a boolean array, cheap to
    recompute on every filter change: categorical columns are compared by code.
    """
    f = normalise_filters(filters)
    samples = profile.samples
    expr = pl.lit(True)
    if f["kind"] is not None:
        expr &= pl.col("kind") == f["kind"]
    if f["kernel"] is not None:
        expr &= pl.col("kernel") == f["kernel"]
    if f["operation_contains"] is not None:
        ops = samples.select(pl.col("operation").unique())
        hits = ops.filter(pl.col("operation").cast(pl.String).str.contains(f["operation_contains"], literal=True))
        expr &= pl.col("operation").to_physical().is_in(hits.get_column("operation").to_physical().implode())
    if f["tiles"]:
        expr &= pl.col("tile").is_in(f["tiles"])
    if f["phases"]:
        expr &= pl.col("phase").is_in(f["phases"])
    rows = samples.select(expr.alias("m")).get_column("m").to_numpy()
    if rows.shape != (samples.height,):
        rows = np.broadcast_to(rows, (samples.height,)).copy()
    if f["metadata"]:
        rows = rows & _metadata_mask(profile, tuple(_parse_metadata(m) for m in f["metadata"]))
    return _row_mask_to_ids(profile, rows)


def _bundle_path(path: Path) -> Path | str:
    return path if path.exists() else ""


class ProfileWidget(anywidget.AnyWidget):
    """Interactive timeline of one profile whose selections sync back to Python.

    Parameters
    ----------
    profile : Profile
        The profile to show; it stays in the kernel (the browser only receives windows).
    **traits
        Initial values of the traits below.

    Examples
    --------
    >>> widget = ipu_nb.ProfileWidget(profile)  # doctest: +SKIP
    >>> widget.filters = {"kind": "compute", "metadata": ["layer=3"]}  # doctest: +SKIP
    >>> widget.at = 120_000  # doctest: +SKIP
    >>> widget.at_slice  # doctest: +SKIP
    """

    _esm = _bundle_path(_BUNDLE)
    _css = _bundle_path(_STYLE)

    filters = traitlets.Dict(default_value=_empty_filters()).tag(sync=True)
    """dict: ``kind``, ``kernel``, ``operation_contains`` (str or None), ``tiles``, ``phases``
    (lists of int) and ``metadata`` (list of ``"name"`` / ``"name=value"``), all ANDed."""
    at = traitlets.Int(None, allow_none=True).tag(sync=True)
    """int or None: the cursor, a per-tile offset in cycles (default None)."""
    view = traitlets.List(traitlets.Int(), default_value=[0, 1], minlen=2, maxlen=2).tag(sync=True)
    """[start, end]: the visible range of offsets (default: the whole profile)."""
    selected = traitlets.Int(None, allow_none=True).tag(sync=True)
    """int or None: id of the inspected sample (default None)."""
    group_by = traitlets.Enum(GROUP_BYS, default_value="kernel").tag(sync=True)
    """str: grouping of `groups` (kind, kernel, operation, phase, tile or metadata)."""
    metadata_key = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    """str or None: the key for ``group_by="metadata"``."""
    color_by = traitlets.Enum(("kind", "kernel"), default_value="kind").tag(sync=True)
    """str: timeline colours, "kind" (default) or "kernel"."""
    info = traitlets.Dict(read_only=True).tag(sync=True)
    """dict: header facts the front end shows (tiles, samples, span, clock, rows, legends)."""

    def __init__(self, profile: Profile, **traits: Any) -> None:
        if not isinstance(profile, Profile):
            raise TypeError(f"ProfileWidget(profile): expected an ipu_nb.Profile, got {type(profile).__name__}")
        if not _BUNDLE.exists():
            raise FileNotFoundError(
                f"the widget's front end {_BUNDLE} is missing: run `npm ci && npm run build` in the ipu-nb checkout"
            )
        self._profile = profile
        self._index = _lod.build_index(profile.samples, profile.tiles)
        ids = profile.samples.get_column("sample").to_numpy()
        self._rows: np.ndarray | None = None  # sample id -> row, when they differ
        if not np.array_equal(ids, np.arange(len(ids))):
            self._rows = np.full(int(ids.max()) + 1, -1, dtype=np.int64)
            self._rows[ids] = np.arange(len(ids))
        self._mask: np.ndarray | None = None
        self._sorted_mask: np.ndarray | None = None
        self._cache: dict[tuple, tuple[dict, list[bytes]]] = {}
        self._stale: set[str] = set()
        span = max(self._index.span, 1)
        traits.setdefault("view", [0, span])
        traits["filters"] = normalise_filters(traits.get("filters"))
        super().__init__(**traits)
        kernels = profile.samples.get_column("kernel").cast(pl.String).unique().sort().to_list()
        self.set_trait(
            "info",
            {
                "tiles": profile.tile_count,
                "samples": profile.sample_count,
                "span": self._index.span,
                "clock_hz": profile.clock_hz,
                "granularity": profile.granularity,
                "rows": self._index.row_tiles.tolist(),
                "legend": {"kind": self._index.legend("kind"), "kernel": self._index.legend("kernel")},
                "kernels": kernels[:500],
            },
        )
        self._update_mask()
        self.on_msg(self._on_message)

    # ---- traits -----------------------------------------------------------------------------

    @traitlets.validate("filters")
    def _valid_filters(self, proposal: Any) -> dict[str, Any]:
        return normalise_filters(proposal["value"])

    @traitlets.validate("view")
    def _valid_view(self, proposal: Any) -> list[int]:
        start, end = (int(v) for v in proposal["value"])
        if end <= start:
            raise traitlets.TraitError(f"view must be [start, end] with start < end, got {[start, end]}")
        return [start, end]

    @traitlets.validate("at")
    def _valid_at(self, proposal: Any) -> int | None:
        at = proposal["value"]
        if at is not None and at < 0:
            raise traitlets.TraitError(f"at must be a non-negative offset or None, got {at}")
        return at

    @traitlets.validate("selected")
    def _valid_selected(self, proposal: Any) -> int | None:
        sid = proposal["value"]
        if sid is not None and not 0 <= sid < self._profile.sample_count:
            raise traitlets.TraitError(f"selected must be a sample id in 0..{self._profile.sample_count - 1} or None")
        return sid

    @traitlets.observe("filters")
    def _filters_changed(self, change: Any) -> None:
        # The flame graph, overview and panel follow the next timeline window, so the
        # greyed timeline (the view's reaction to a filter change) is drawn first.
        self._update_mask()
        self._stale.update(("flame", "overview", "panel"))

    @traitlets.observe("at", "selected")
    def _cursor_changed(self, change: Any) -> None:
        self._send_panel()

    def _update_mask(self) -> None:
        mask = filter_mask(self._profile, self.filters)
        self._mask = None if mask.all() else mask
        self._sorted_mask = None if self._mask is None else self._mask[self._index.sample]
        self._cache.clear()

    # ---- Python-side views --------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        """The profile shown."""
        return self._profile

    @property
    def query(self) -> Query:
        """The `Query` equivalent to the current filters and grouping (``at`` not included)."""
        return query_from_state(self.filters, self.group_by, self.metadata_key)

    @property
    def filtered(self) -> pl.DataFrame:
        """Samples matching the filters: ``profile.filter(widget.query)``."""
        return self._profile.filter(self.query)

    @property
    def at_slice(self) -> pl.DataFrame:
        """Samples matching the filters and active at `at` (empty when `at` is None)."""
        if self.at is None:
            return self._profile.filter(dataclasses.replace(self.query, at=0)).clear()
        return self._profile.filter(dataclasses.replace(self.query, at=self.at))

    @property
    def selected_sample(self) -> pl.DataFrame:
        """The selected sample as one row of `Profile.filter`'s frame (no rows when none)."""
        q = Query()
        if self.selected is None:
            return self._profile.filter(dataclasses.replace(q, tiles=(0,), phases=(0,), kind="idle")).clear()
        row = self._profile.samples.row(self._row_of(self.selected), named=True)
        found = self._profile.filter(dataclasses.replace(q, tiles=(row["tile"],), phases=(row["phase"],)))
        return found.filter(pl.col("sample") == self.selected)

    @property
    def groups(self) -> pl.DataFrame:
        """``ipu_nb.query(profile, widget.query).groups``: the aggregation for the current state."""
        from ._query import query

        return query(self._profile, self.query).groups

    # ---- messages -----------------------------------------------------------------------------

    def _row_of(self, sid: int) -> int:
        return sid if self._rows is None else int(self._rows[sid])

    def _on_message(self, _widget: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        try:
            if kind == "window":
                self._answer_window(content)
            elif kind == "hover":
                reply = {"type": "hover", "view": content.get("view"), "id": content.get("id")}
                self.send({**reply, "sample": self._describe_at(content)})
            elif kind == "pick":
                self._pick(content)
            elif kind == "groups":
                self._send_groups(content.get("id"))
            elif kind == "hello":
                self._stale.clear()
                self._send_overview()
                self._send_flame()
                self._send_panel()
        except (TypeError, ValueError, KeyError, QueryError) as error:
            self.send({"type": "error", "message": f"{type(error).__name__}: {error}"})

    def window_answer(self, start: int, end: int, pixels: int) -> tuple[dict[str, Any], list[bytes]]:
        """The reply to a window request: JSON header and binary buffers (cached per state)."""
        key = (int(start), int(end), int(pixels), self.color_by)
        hit = self._cache.get(key)
        if hit is None:
            answer = _lod.window(self._index, key[0], key[1], key[2], self._sorted_mask, self.color_by)
            hit = _lod.encode_window(answer)
            if len(self._cache) > 16:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = hit
        return hit

    def _answer_window(self, content: dict[str, Any]) -> None:
        start, end = int(content["start"]), int(content["end"])
        pixels = max(1, min(int(content.get("pixels", 1000)), 8192))
        header, buffers = self.window_answer(start, end, pixels)
        reply = {"type": "window", "view": content.get("view"), "id": content.get("id"), "color_by": self.color_by}
        reply.update(header)
        if content.get("labels") and header["mode"] == "raw" and header["count"] <= LABEL_LIMIT:
            names, codes = self._labels(np.frombuffer(buffers[4], "<u4"))
            reply["labels"] = names
            buffers = [*buffers, codes.astype("<u4").tobytes()]
        self.send(reply, buffers)
        self._send_stale()

    def _send_stale(self) -> None:
        """Send the views a filter change left out of date."""
        stale, self._stale = self._stale, set()
        for name in ("overview", "panel", "flame"):
            if name in stale:
                getattr(self, f"_send_{name}")()

    def _labels(self, ids: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Operation names of the given samples: a table of distinct names and an index per sample."""
        rows = ids.astype(np.int64) if self._rows is None else self._rows[ids]
        ops = self._profile.samples.get_column("operation").gather(rows)
        _, first, inverse = np.unique(ops.to_physical().to_numpy(), return_index=True, return_inverse=True)
        return ops.gather(first).cast(pl.String).to_list(), inverse

    def _row_sample(self, content: dict[str, Any]) -> int | None:
        return self._index.sample_at(int(content["row"]), int(content["x"]))

    def _describe_at(self, content: dict[str, Any]) -> dict[str, Any] | None:
        sid = self._row_sample(content)
        return None if sid is None else self._describe(sid, metadata=False)

    def _pick(self, content: dict[str, Any]) -> None:
        x = int(content["x"])
        sid = self._row_sample(content)
        with self.hold_trait_notifications():
            self.at = x
            self.selected = sid

    def _describe(self, sid: int, metadata: bool = True) -> dict[str, Any]:
        row = self._profile.samples.row(self._row_of(sid), named=True)
        out = {
            "sample": sid,
            "tile": row["tile"],
            "kind": row["kind"],
            "inactive": row["inactive"],
            "operation": row["operation"],
            "kernel": row["kernel"],
            "phase": row["phase"],
            "epoch": row["epoch"],
            "offset": row["offset"],
            "duration": row["duration"],
            "local_index": row["local_index"],
            "start": row["start"],
            "end": row["end"],
            "matched": bool(self._mask is None or self._mask[sid]),
        }
        if metadata:
            entries = self._profile.metadata.filter(pl.col("sample") == sid).sort("position")
            out["metadata"] = [[n, v] for n, v in entries.select("name", "value").iter_rows()]
        return out

    # ---- pushes to the front end ---------------------------------------------------------------

    def _send_overview(self) -> None:
        idx = self._index
        compute = (idx.kind_class == _lod.KIND_CLASSES.index("compute") + 1) & (idx.end > idx.start)
        active = _lod.overview(idx, compute, OVERVIEW_BINS)
        matched = (
            active if self._sorted_mask is None else _lod.overview(idx, compute & self._sorted_mask, OVERVIEW_BINS)
        )
        self.send(
            {"type": "overview", "bins": OVERVIEW_BINS, "span": idx.span, "filtered": self._sorted_mask is not None},
            [active.astype("<f4").tobytes(), matched.astype("<f4").tobytes()],
        )

    def _send_panel(self) -> None:
        self.send({"type": "panel", "at": self._at_summary(), "selected": self._selected_detail()})

    def _selected_detail(self) -> dict[str, Any] | None:
        return None if self.selected is None else self._describe(self.selected)

    def _at_summary(self) -> dict[str, Any] | None:
        if self.at is None:
            return None
        s = self._profile.samples
        hit = (pl.col("offset") <= self.at) & (pl.col("offset") + pl.col("duration").cast(pl.UInt64) > self.at)
        frame = s.filter(hit)
        if self._mask is not None and frame.height:
            frame = frame.filter(pl.Series(self._mask[frame.get_column("sample").to_numpy()]))

        def top(column: str, empty: str = "(empty)") -> list[list[Any]]:
            counts = frame.group_by(column).len().sort(["len", column], descending=[True, False]).head(TOP)
            return [[str(k) if k else empty, n] for k, n in counts.iter_rows()]

        entries = self._profile.metadata.filter(pl.col("sample").is_in(frame.get_column("sample").implode()))
        meta = (
            entries.group_by("name", "value")
            .len()
            .sort(["len", "name", "value"], descending=[True, False, False])
            .head(TOP)
        )
        return {
            "at": self.at,
            "count": frame.height,
            "tiles": frame.get_column("tile").n_unique(),
            "kinds": top("kind"),
            "operations": top("operation"),
            "kernels": top("kernel", "(no kernel)"),
            "metadata": [[f"{n}={v}", c] for n, v, c in meta.iter_rows()],
        }

    def _send_groups(self, request_id: Any = None) -> None:
        """The top groups of `groups` for the side panel (asked for after the timeline is drawn)."""
        from ._query import query

        try:
            result = query(self._profile, dataclasses.replace(self.query, limit=GROUP_ROWS))
        except QueryError as error:
            self.send({"type": "groups", "id": request_id, "group_by": self.group_by, "error": str(error), "rows": []})
            return
        columns = ["name", "dimensions", "sample_count", "phase_cycles", "work_cycles", "average_active_tiles"]
        rows = [
            {**row, "dimensions": {d["name"]: d["value"] for d in row["dimensions"]}}
            for row in result.groups.select(columns).iter_rows(named=True)
        ]
        self.send({"type": "groups", "id": request_id, "group_by": self.group_by, "error": None, "rows": rows})

    def _send_flame(self) -> None:
        self.send({"type": "flame", **flame_tree(self._profile, self._mask, self.filters)})


FLAME_KEYS = (("kind",), ("kernel",), ("phase", "epoch"), ("operation",))


def flame_tree(profile: Profile, mask: np.ndarray | None, filters: dict[str, Any], min_share: float = 1 / 1500) -> dict:
    """Summed durations of the matching samples: kind → kernel → phase/epoch → operation.

    Nodes below ``min_share`` of the total are merged into one ``…`` node per parent, so
    the tree stays small at any profile size. When the filters name an operation, its
    metadata entries (``name=value``, summed over the samples carrying each) come as a
    separate list, since entries of one sample overlap.
    """
    samples = profile.samples
    ids = samples.get_column("sample").to_numpy()
    if mask is not None:
        samples = samples.filter(pl.Series(mask[ids]))
    base = samples.group_by("kind", "kernel", "phase", "epoch", "operation").agg(
        value=pl.col("duration").cast(pl.UInt64).sum()
    )
    total = int(base.get_column("value").sum()) if base.height else 0
    nodes: list[dict[str, Any]] = [{"name": "all", "level": 0, "value": total, "parent": -1, "path": {}}]
    floor = total * min_share
    parents: dict[tuple, int] = {(): 0}
    kept_parents: pl.DataFrame | None = None
    cols: list[str] = []
    for depth, keys in enumerate(FLAME_KEYS, start=1):
        parent_cols = list(cols)
        cols = [*cols, *keys]
        level = base.group_by(cols).agg(pl.col("value").sum())
        if kept_parents is not None:
            level = level.join(kept_parents, on=parent_cols, how="semi", nulls_equal=True)
        big = level.filter(pl.col("value") >= floor).sort("value", descending=True)
        small = level.filter(pl.col("value") < floor)
        kept_parents = big.select(cols)
        next_parents: dict[tuple, int] = {}
        for row in big.iter_rows(named=True):
            parent = parents[tuple(row[c] for c in parent_cols)]
            path = dict(nodes[parent]["path"])
            if keys == ("phase", "epoch"):
                name = f"phase {row['phase']}/{row['epoch']}"
                path["phase"] = row["phase"]
            else:
                value = row[keys[0]]
                name = value if keys != ("kernel",) or value else "(no kernel)"
                path[keys[0]] = value
            next_parents[tuple(row[c] for c in cols)] = len(nodes)
            nodes.append({"name": name, "level": depth, "value": row["value"], "parent": parent, "path": path})
        if small.height:
            rest = (
                small.group_by(parent_cols).agg(pl.col("value").sum())
                if parent_cols
                else small.select(pl.col("value").sum())
            )
            for row in rest.iter_rows(named=True):
                parent = parents[tuple(row[c] for c in parent_cols)]
                nodes.append({"name": "…", "level": depth, "value": row["value"], "parent": parent, "path": None})
        parents = next_parents
    out: dict[str, Any] = {"total": total, "nodes": nodes, "metadata": []}
    if filters.get("operation_contains") and samples.height:
        out["metadata"] = _metadata_totals(profile, samples)
    return out


def _metadata_totals(profile: Profile, samples: pl.DataFrame, top: int = 60) -> list[dict[str, Any]]:
    """Per metadata entry ``name=value`` of `samples`: their summed cycles and count."""
    owners = profile.metadata.get_column("sample").to_numpy()
    ids = samples.get_column("sample").to_numpy()
    size = int(max(owners.max() if len(owners) else 0, ids.max())) + 1
    duration = np.zeros(size, dtype=np.int64)
    chosen = np.zeros(size, dtype=bool)
    duration[ids] = samples.get_column("duration").to_numpy()
    chosen[ids] = True
    hit = chosen[owners]
    frame = profile.metadata.select("name", "value").filter(pl.Series(hit))
    # Group on the categorical codes (cheaper), then read the strings of the top rows only.
    top_rows = (
        frame.select(pl.col("name").to_physical(), pl.col("value").to_physical())
        .with_columns(cycles=pl.Series(duration[owners[hit]]), row=pl.int_range(pl.len(), dtype=pl.UInt32))
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
