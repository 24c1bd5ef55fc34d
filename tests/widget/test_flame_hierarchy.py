"""The flame graph's hierarchy (``ProfileWidget.flame_hierarchy``): each order's tree against a plain
group-by over python dicts, its cache, its Δ against a baseline, and the trait in state and code."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
import traitlets
from builders import S, T, profile_from_tiles

from ipu_nb._model.vocabulary import FLAME_HIERARCHIES, NO_KERNEL
from ipu_nb._profile import Profile
from ipu_nb._query import Query, make_query
from ipu_nb._widget.flame import flame_tree, hierarchy_keys
from ipu_nb._widget.widget import ProfileWidget

#: The orders a user can choose, as the keys each means (written out: not read from the code tested).
ORDERS = {
    "kind/kernel/phase/operation": ("kind", "kernel", "phase", "operation"),
    "kind/kernel/operation/phase": ("kind", "kernel", "operation", "phase"),
    "kind/operation/kernel": ("kind", "operation", "kernel"),
}


def make_profile(scale: int = 1) -> Profile:
    """Five tiles; operations run by two kernels, phase 3 in two epochs on odd tiles, an empty kernel."""
    tiles = []
    for t in range(5):
        samples, cursor = [], 0
        for p in range(4):
            samples.append(S(cursor, cursor + 30 + t, kind="synchronization", operation="sync", kernel="", phase=2 * p))
            cursor += 30 + t
            op = ("gemm", "copy", "gemm big")[(t + p) % 3]
            kernel = ("k_gemm", "k_copy")[(t * p) % 2]
            duration = (100 + 23 * ((t * 3 + p) % 5)) * scale
            epoch = 1 if p == 1 and t % 2 else 0
            samples.append(S(cursor, cursor + duration, "compute", op, kernel, phase=2 * p + 1, epoch=epoch))
            cursor += duration
        tiles.append(T(t, samples))
    return profile_from_tiles(tiles)


@pytest.fixture(scope="module")
def profile() -> Profile:
    return make_profile()


def plain_groups(profile: Profile, keys: tuple[str, ...]) -> dict[tuple[Any, ...], tuple[int, set[int]]]:
    """Per value of `keys`: summed durations and the epochs seen (a dict over the samples' rows)."""
    sums: dict[tuple[Any, ...], int] = defaultdict(int)
    epochs: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for row in profile.samples.iter_rows(named=True):
        key = tuple(str(row[k]) if k in ("kind", "kernel", "operation") else row[k] for k in keys)
        sums[key] += row["duration"]
        epochs[key].add(row["epoch"])
    return {k: (sums[k], epochs[k]) for k in sums}


def recorded(widget: ProfileWidget) -> list[dict[str, Any]]:
    """The messages `widget` sends from now on, in order."""
    sent: list[dict[str, Any]] = []
    widget.send = lambda content, buffers=None: sent.append(content)
    return sent


def expected_name(key: str, value: Any, epochs: set[int]) -> str:
    if key == "phase":
        return f"phase {value}/{min(epochs)}" if len(epochs) == 1 else f"phase {value} ({len(epochs)} epochs)"
    if key == "kernel" and value == "":
        return NO_KERNEL
    return str(value)


def test_the_offered_orders_are_the_issue_s_and_the_default_is_the_old_tree() -> None:
    assert set(FLAME_HIERARCHIES) == set(ORDERS)
    assert FLAME_HIERARCHIES[0] == "kind/kernel/phase/operation"
    for name, keys in ORDERS.items():
        assert hierarchy_keys(name) == keys
    with pytest.raises(ValueError, match="flame hierarchy 'kind/phase' is not one of"):
        hierarchy_keys("kind/phase")


@pytest.mark.parametrize("hierarchy", list(ORDERS))
def test_each_node_is_the_plain_group_by_of_its_levels_and_its_path_selects_it(
    profile: Profile, hierarchy: str
) -> None:
    keys = ORDERS[hierarchy]
    tree = flame_tree(profile, None, Query(), min_share=0, hierarchy=hierarchy)
    assert tree["levels"] == list(keys)
    nodes = tree["nodes"]
    assert nodes[0]["value"] == tree["total"] == sum(profile.samples["duration"].to_list())
    seen: dict[int, set[tuple[Any, ...]]] = defaultdict(set)
    for node in nodes[1:]:
        level, path = node["level"], node["path"]
        assert path is not None and list(path) == list(keys[:level])
        assert nodes[node["parent"]]["level"] == level - 1
        assert nodes[node["parent"]]["path"] == {k: path[k] for k in keys[: level - 1]}
        groups = plain_groups(profile, keys[:level])
        value, epochs = groups[tuple(path[k] for k in keys[:level])]
        assert node["value"] == value, node
        assert node["name"] == expected_name(keys[level - 1], path[keys[level - 1]], epochs)
        # Its path as filters selects exactly its samples.
        q = make_query(**{"phases" if k == "phase" else k: v for k, v in path.items()})
        assert profile.filter(q)["duration"].sum() == node["value"], path
        seen[level].add(tuple(path.values()))
    # Every group of every level is a node (min_share=0: nothing merged).
    for level in range(1, len(keys) + 1):
        assert seen[level] == set(plain_groups(profile, keys[:level])), (hierarchy, level)


@pytest.mark.parametrize("hierarchy", list(ORDERS))
def test_small_boxes_merge_per_parent_in_every_order(profile: Profile, hierarchy: str) -> None:
    tree = flame_tree(profile, None, Query(), min_share=0.06, hierarchy=hierarchy)
    nodes = tree["nodes"]
    merged = [n for n in nodes if n["path"] is None]
    assert merged and all(n["name"] == "…" for n in merged)
    floor = tree["total"] * 0.06
    for i, node in enumerate(nodes):
        children = [n for n in nodes if n["parent"] == i]
        if children:
            assert sum(c["value"] for c in children) == node["value"]
            assert sum(c["path"] is None for c in children) <= 1
        if node["path"] is None:
            assert not children
        elif i:
            assert node["value"] >= floor


def test_the_widget_trait_chooses_the_tree_sent_and_the_cache_serves_no_stale_one(profile: Profile) -> None:
    widget = ProfileWidget(profile)
    sent = recorded(widget)
    assert widget.flame_hierarchy == "kind/kernel/phase/operation"
    for hierarchy in ("kind/operation/kernel", "kind/kernel/operation/phase", "kind/kernel/phase/operation"):
        sent.clear()
        widget.flame_hierarchy = hierarchy
        pushes = [m for m in sent if m["type"] == "flame"]
        assert len(pushes) == 1
        push = pushes[0]
        assert push["levels"] == list(ORDERS[hierarchy])
        reference = flame_tree(profile, None, Query(), hierarchy=hierarchy)
        assert push["nodes"] == reference["nodes"]
    # The same filters in another order answer from another entry.
    widget.filters = {"kind": "compute"}
    a = widget._answers.flame(widget._shown_now(), "kind/operation/kernel")
    b = widget._answers.flame(widget._shown_now(), "kind/kernel/phase/operation")
    assert [n["path"] for n in a["nodes"][1:3]] != [n["path"] for n in b["nodes"][1:3]]
    assert a["levels"] != b["levels"]


def test_an_area_s_flame_graph_follows_the_hierarchy(profile: Profile) -> None:
    widget = ProfileWidget(profile, flame_hierarchy="kind/operation/kernel")
    sent = recorded(widget)
    widget.selection = {"start": 0, "end": 400, "tiles": None}
    push = next(m for m in reversed(sent) if m["type"] == "flame")
    assert push["area"] is True and push["levels"] == ["kind", "operation", "kernel"]
    assert all(n["path"] is None or list(n["path"]) == push["levels"][: n["level"]] for n in push["nodes"])


def test_a_bad_hierarchy_is_a_trait_error_and_changes_nothing(profile: Profile) -> None:
    widget = ProfileWidget(profile, flame_hierarchy="kind/kernel/operation/phase")
    bad: Any
    for bad in ("kernel/kind", "", 3, None, "KIND/KERNEL/PHASE/OPERATION"):
        with pytest.raises(traitlets.TraitError, match="flame_hierarchy"):
            widget.flame_hierarchy = bad
        assert widget.flame_hierarchy == "kind/kernel/operation/phase"
    with pytest.raises(traitlets.TraitError, match="flame_hierarchy"):
        ProfileWidget(profile, state={"flame_hierarchy": "operation"})


def test_the_hierarchy_is_kept_in_state_and_code(profile: Profile, tmp_path: Any) -> None:
    widget = ProfileWidget(profile, flame_hierarchy="kind/operation/kernel")
    assert widget.state["flame_hierarchy"] == "kind/operation/kernel"
    again = ProfileWidget(profile, state=widget.state)
    assert again.flame_hierarchy == "kind/operation/kernel"
    again.state = {**widget.state, "flame_hierarchy": "kind/kernel/operation/phase"}
    assert again.flame_hierarchy == "kind/kernel/operation/phase"
    # The code rebuilds the widget from its state: run it with `profile` bound, as its comment asks.
    code = widget.to_code()
    assert "'flame_hierarchy': 'kind/operation/kernel'" in code
    namespace: dict[str, Any] = {}
    exec(code.replace("widget\n", "", 1) if code.endswith("widget\n") else code, {"profile": profile}, namespace)
    assert namespace["state"]["flame_hierarchy"] == "kind/operation/kernel"


@pytest.mark.parametrize("hierarchy", list(ORDERS))
def test_the_delta_flame_sums_the_baseline_along_each_order_s_paths(hierarchy: str) -> None:
    before, after = make_profile(), make_profile(scale=2)
    widget = ProfileWidget(after, baseline=before, flame_hierarchy=hierarchy)
    sent = recorded(widget)
    widget._views.send("flame")
    push = next(m for m in reversed(sent) if m["type"] == "flame")
    keys = ORDERS[hierarchy]
    assert push["levels"] == list(keys)
    theirs = {level: plain_groups(before, keys[:level]) for level in range(len(keys) + 1)}
    deltas = push["deltas"]
    assert len(deltas) == len(push["nodes"])
    for node, delta in zip(push["nodes"], deltas, strict=True):
        if node["path"] is None:
            assert delta is None
            continue
        level = node["level"]
        value = theirs[level].get(tuple(node["path"][k] for k in keys[:level]), (0, set()))[0]
        assert delta == node["value"] - value, node
    assert any(d for d in deltas if d)  # the compute samples doubled: the test can fail


def test_a_bad_hierarchy_from_the_browser_gets_an_error_reply_and_the_value_back(profile: Profile) -> None:
    widget = ProfileWidget(profile)
    sent = recorded(widget)
    resent: list[list[str]] = []
    widget.send_state = lambda key=None: resent.append(list(key or []))
    widget.set_state({"flame_hierarchy": "<script>/kind"})
    errors = [m for m in sent if m["type"] == "error"]
    assert len(errors) == 1 and "flame_hierarchy" in errors[0]["message"]
    assert widget.flame_hierarchy == "kind/kernel/phase/operation"
    assert resent and "flame_hierarchy" in resent[-1]
    sent.clear()
    widget.set_state({"flame_hierarchy": "kind/operation/kernel"})  # a good one is taken, its graph sent
    assert widget.flame_hierarchy == "kind/operation/kernel"
    assert [m["levels"] for m in sent if m["type"] == "flame"] == [["kind", "operation", "kernel"]]
