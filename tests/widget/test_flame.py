"""The widget's flame graph (`flame_tree`) against a plain per-sample aggregation, and its exact focus."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import polars as pl
import pytest
import traitlets
from budget import examples
from builders import S, T, profile_from_tiles
from hypothesis import given, settings
from hypothesis import strategies as st

import ipu_nb
from ipu_nb._query import Query, filter_mask, make_query
from ipu_nb._query.filters_codec import FILTER_KEYS, empty_filters, filters_of, filters_query, normalise_filters
from ipu_nb._widget.flame import flame_tree
from ipu_nb._widget.widget import ProfileWidget

#: Operations where one name contains another: an exact focus must not take the longer ones.
OPERATIONS = ("gemm", "gemm block", "big gemm", "copy")


@pytest.fixture(scope="module")
def profile():
    tiles = []
    for t in range(6):
        samples, cursor = [], 0
        for p in range(5):
            samples.append(S(cursor, cursor + 40 + t, kind="synchronization", operation="sync", kernel="", phase=2 * p))
            cursor += 40 + t
            op = OPERATIONS[(t + p) % len(OPERATIONS)]
            kernel = "gemm_f32" if "gemm" in op else "copy_u64"
            duration = 200 + 37 * ((t * 5 + p) % 7)
            # Phase 3 is run in two epochs on odd tiles: one flame node, as a focus selects both.
            epoch = 1 if p == 1 and t % 2 else 0
            meta = [("layer", str(p % 2)), ("op", op)]
            samples.append(
                S(cursor, cursor + duration, "compute", op, kernel, phase=2 * p + 1, epoch=epoch, metadata=meta)
            )
            cursor += duration
        tiles.append(T(t, samples))
    tiles.append(T(7, [S(0, 3, "compute", "tiny op", "tiny_kernel", phase=1)]))
    return profile_from_tiles(tiles)


def plain_sums(profile, keys: tuple[str, ...], rows=None) -> dict[tuple, int]:
    """Summed durations per value of `keys`, one Python loop over the samples."""
    out: dict[tuple, int] = defaultdict(int)
    for row in rows if rows is not None else profile.samples.iter_rows(named=True):
        out[tuple(row[k] for k in keys)] += row["duration"]
    return dict(out)


def test_every_node_sums_exactly_the_samples_its_path_selects(profile):
    tree = flame_tree(profile, None, Query(), min_share=0)
    nodes = tree["nodes"]
    assert tree["total"] == sum(plain_sums(profile, ()).values()) == nodes[0]["value"]
    keys = ("kind", "kernel", "phase", "operation")
    for node in nodes[1:]:
        path = node["path"]
        assert path is not None and node["level"] == len(path)
        level_keys = keys[: node["level"]]
        assert tuple(path) == level_keys
        expected = plain_sums(profile, level_keys)[tuple(path[k] for k in level_keys)]
        assert node["value"] == expected, node
        # Focusing the node (its path as filters) selects exactly the samples it sums.
        q = make_query(**{"phases" if k == "phase" else k: v for k, v in path.items()})
        assert profile.filter(q).get_column("duration").sum() == node["value"], path
        assert nodes[node["parent"]]["level"] == node["level"] - 1


def test_a_phase_run_in_two_epochs_is_one_node_named_for_them(profile):
    nodes = flame_tree(profile, None, Query(), min_share=0)["nodes"]
    names = []
    for node in (n for n in nodes if n["level"] == 3):
        path = node["path"]
        assert path is not None  # only the root has no path
        epochs = sorted(
            {r["epoch"] for r in profile.samples.iter_rows(named=True) if all(r[k] == v for k, v in path.items())}
        )
        phase = path["phase"]
        expected = f"phase {phase}/{epochs[0]}" if len(epochs) == 1 else f"phase {phase} ({len(epochs)} epochs)"
        assert node["name"] == expected
        names.append(node["name"])
    assert "phase 3 (2 epochs)" in names and "phase 5/0" in names


def test_small_nodes_merge_into_one_per_parent_and_keep_the_sums(profile):
    tree = flame_tree(profile, None, Query(), min_share=0.05)
    nodes = tree["nodes"]
    merged = [n for n in nodes if n["path"] is None]
    assert merged and all(n["name"] == "…" for n in merged)
    for i, node in enumerate(nodes):
        children = [n for n in nodes if n["parent"] == i]
        if children:
            assert sum(c["value"] for c in children) == node["value"]
        assert sum(1 for c in children if c["path"] is None) <= 1
        if node["path"] is None:  # a merged node is a leaf
            assert not children
    # The 3-cycle tiny kernel is far below 5%: it is inside a "…", not a node of its own.
    assert not any(n["name"] == "tiny_kernel" for n in nodes)


def reference_tree(rows: list[dict], min_share: float) -> list[tuple]:
    """The pruned tree written out plainly: (level, name, value, parent index, path) per node, each level
    its kept nodes (largest first, then by path) and then one "…" per kept parent of its smaller children."""
    keys = ("kind", "kernel", "phase", "operation")
    total = sum(r["duration"] for r in rows)
    floor = total * min_share
    out: list[tuple] = [(0, "all", total, -1, ())]
    kept = {(): 0}
    for depth in range(1, 5):
        sums: dict[tuple, int] = defaultdict(int)
        epochs: dict[tuple, set] = defaultdict(set)
        for r in rows:
            path = tuple(r[k] for k in keys[:depth])
            sums[path] += r["duration"]
            epochs[path].add(r["epoch"])
        children = [p for p in sums if p[:-1] in kept]
        big = sorted((p for p in children if sums[p] >= floor), key=lambda p: (-sums[p], *p))
        now = {}
        for p in big:
            name: object = p[-1]
            if depth == 2 and not name:
                name = "(no kernel)"
            if depth == 3:
                e = sorted(epochs[p])
                name = f"phase {p[-1]}/{e[0]}" if len(e) == 1 else f"phase {p[-1]} ({len(e)} epochs)"
            now[p] = len(out)
            out.append((depth, name, sums[p], kept[p[:-1]], p))
        rest: dict[tuple, int] = defaultdict(int)
        for p in children:
            if sums[p] < floor:
                rest[p[:-1]] += sums[p]
        for parent in sorted(rest):
            out.append((depth, "…", rest[parent], kept[parent], None))
        kept = now
    return out


@settings(max_examples=examples(60))
@given(st.data())
def test_the_tree_is_the_plain_pruned_tree(profile, data):
    keep = data.draw(st.lists(st.booleans(), min_size=profile.samples.height, max_size=profile.samples.height))
    share = data.draw(st.sampled_from([0.0, 1 / 4000, 0.01, 0.03, 0.08, 0.2, 0.6]))
    samples = profile.samples.filter(pl.Series(keep))
    tree = flame_tree(profile, None, Query(), min_share=share, samples=samples)
    got = [
        (n["level"], n["name"], n["value"], n["parent"], None if n["path"] is None else tuple(n["path"].values()))
        for n in tree["nodes"]
    ]
    assert got == reference_tree(list(samples.iter_rows(named=True)), share)


def test_focusing_an_operation_is_exact(profile):
    mask = filter_mask(profile, operation=["gemm"])
    tree = flame_tree(profile, mask, Query(operation=("gemm",)), min_share=0)
    ops = {n["name"] for n in tree["nodes"] if n["level"] == 4}
    assert ops == {"gemm"}  # not "gemm block" nor "big gemm"
    rows = [r for r in profile.samples.iter_rows(named=True) if r["operation"] == "gemm"]
    assert tree["total"] == sum(r["duration"] for r in rows)
    # Its metadata entries come with it (focused exactly, as by substring).
    layer = {(m["name"], m["value"]): m for m in tree["metadata"]}
    assert layer[("op", "gemm")]["cycles"] == tree["total"] and layer[("op", "gemm")]["samples"] == len(rows)
    contains = flame_tree(profile, filter_mask(profile, operation_contains="gemm"), Query(operation_contains="gemm"))
    assert {n["name"] for n in contains["nodes"] if n["level"] == 4} == {"gemm", "gemm block", "big gemm"}


def test_the_widget_filters_carry_exact_operations_and_a_window():
    assert set(empty_filters()) == set(FILTER_KEYS)
    f = normalise_filters({"operation": ["b", "a", "b"], "window": (3, 9)})
    assert f["operation"] == ["a", "b"] and f["window"] == [3, 9]
    assert normalise_filters({"operation": "gemm"})["operation"] == ["gemm"]
    assert filters_of(filters_query(f)) == f
    q = filters_query(f)
    assert (q.operation, q.window) == (("a", "b"), (3, 9))
    for bad, message in [
        ({"operation": [1]}, "operation must be a string or a list of strings"),
        ({"operation": {"a": 1}}, "operation must be a string or a list of strings"),
        ({"window": [5, 2]}, "window start must be less than its end"),
        ({"window": [0, 2**60]}, "at most 9007199254740991"),
    ]:
        with pytest.raises(ipu_nb.QueryError, match=message):
            normalise_filters(bad)


def test_a_widget_focused_on_an_operation_agrees_with_the_query_core(profile):
    widget = ProfileWidget(profile, group_by="operation")
    widget.filters = {"kind": "compute", "operation": ["gemm"]}
    expected = ipu_nb.query(profile, operation="gemm", kind="compute", group_by="operation")
    assert widget.groups.equals(expected.groups)
    assert widget.groups.get_column("name").to_list() == ["gemm"]
    assert widget.filtered.equals(profile.filter(operation=["gemm"], kind="compute"))
    tree = widget._answers.flame(widget._shown_now())
    assert tree["total"] == int(np.sum(widget.filtered.get_column("duration").to_numpy()))
    with pytest.raises(traitlets.TraitError, match="operation must be a string or a list of strings"):
        widget.filters = {"operation": [3]}
    assert widget.filters["operation"] == ["gemm"]
