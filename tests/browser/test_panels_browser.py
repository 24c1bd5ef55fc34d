"""The side panels in a real JupyterLab + Chromium: the flame graph's hierarchy chosen in its select, the
side panel widened by dragging its edge with no number of the Δ table cut, and every cut name's title."""

from __future__ import annotations

from typing import Any

import pytest
from lab import open_widget, settle

pytestmark = pytest.mark.browser

SMALL = [
    "import ipu_nb, os, tempfile\n"
    "d = tempfile.mkdtemp(dir='.')\n"
    "ipu_nb.generate_profile(os.path.join(d, 'p.capnp'), 'mlp', 'phase', tiles=64, phases=12, seed=0)\n"
    "profile = ipu_nb.open_profile(os.path.join(d, 'p.capnp'), progress=False)\n"
    "widget = ipu_nb.ProfileWidget(profile)\nwidget",
]

# Two profiles of different sizes, so the Δ columns hold large and signed numbers.
PAIR = [
    "import ipu_nb, os, tempfile\n"
    "d = tempfile.mkdtemp(dir='.')\n"
    "ipu_nb.generate_profile(os.path.join(d, 'before.capnp'), 'mlp', 'phase', tiles=256, phases=20, seed=0)\n"
    "ipu_nb.generate_profile(os.path.join(d, 'after.capnp'), 'mlp', 'phase', tiles=256, phases=27, seed=1)\n"
    "before = ipu_nb.open_profile(os.path.join(d, 'before.capnp'), progress=False)\n"
    "after = ipu_nb.open_profile(os.path.join(d, 'after.capnp'), progress=False)\n"
    "widget = ipu_nb.ProfileWidget(after, baseline=before)\nwidget",
]

# Plain sums per flame path in python dicts, one loop over the samples (not the widget's answers).
REFERENCE = """
import collections as _c
def _flame_reference(keys):
    sums = [_c.defaultdict(int) for _ in keys]
    for row in widget.profile.samples.select(*keys, 'duration').iter_rows(named=True):
        path = []
        for i, k in enumerate(keys):
            v = row[k]
            path.append(str(v) if k != 'kernel' else (str(v) or '(no kernel)'))
            sums[i][' / '.join(path)] += row['duration']
    return [dict(s) for s in sums]
"""

BOXES_JS = """() => [...document.querySelectorAll('.ipu-nb-flame-node')]
  .filter((b) => b.dataset.name !== undefined && !b.classList.contains('ipu-nb-flame-ancestor'))
  .map((b) => [Number(b.dataset.level), b.dataset.name, Number(b.dataset.value)])"""

#: Every number cell of the group (Δ) table: its text and whether it shows whole.
NUMBERS_JS = """() => [...document.querySelectorAll('.ipu-nb-group-table td:not(.ipu-nb-group-name)')]
  .map((c) => [c.textContent, c.scrollWidth <= c.clientWidth])"""

#: Every element of the side panel cut with an ellipsis now: its title and whole text (an input's value).
CUT_JS = """() => [...document.querySelectorAll('.ipu-nb-inspector *, .ipu-nb-crumbs *')]
  .filter((e) => getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth)
  .map((e) => [e.className, e.title, e.tagName === 'INPUT' ? e.value : e.textContent])"""


def boxes_by_level(page: Any) -> dict[int, list[tuple[str, int]]]:
    out: dict[int, list[tuple[str, int]]] = {}
    for level, name, value in page.evaluate(BOXES_JS):
        out.setdefault(level, []).append((name, value))
    return out


def test_choosing_the_hierarchy_sets_the_trait_and_the_boxes_follow_python(lab_page: Any) -> None:
    nb = open_widget(lab_page, SMALL)
    page = nb.page
    assert nb.kernel("widget.flame_hierarchy") == "kind/kernel/phase/operation"
    options = page.eval_on_selector_all(".ipu-nb-flame-hierarchy option", "os => os.map((o) => o.value)")
    assert options == nb.kernel("list(ipu_nb._model.vocabulary.FLAME_HIERARCHIES)")
    nb.kernel("0", code=REFERENCE)
    for hierarchy in ("kind/operation/kernel", "kind/kernel/operation/phase"):
        page.select_option(".ipu-nb-flame-hierarchy", value=hierarchy)
        assert nb.poll("widget.flame_hierarchy", lambda v, h=hierarchy: v == h) == hierarchy
        page.wait_for_selector(f'.ipu-nb-flame[data-levels="{hierarchy}"]', timeout=30_000)
        keys = hierarchy.split("/")
        reference = nb.kernel(f"_flame_reference({keys[:3]!r})")
        boxes = boxes_by_level(page)
        assert set(boxes) >= {1, 2, 3}, boxes.keys()
        # Level 1 (kinds): every box is Python's sum for its kind.
        kinds = reference[0]
        assert sorted(boxes[1]) == sorted((k, v) for k, v in kinds.items() if (k, v) in boxes[1])
        assert all(kinds[name] == value for name, value in boxes[1])
        assert max(v for _, v in boxes[1]) == max(kinds.values())
        # Levels 2 and 3: each box's name and cycles are one of Python's groups at that depth.
        for level in (2, 3):
            groups = reference[level - 1]
            by_name: dict[str, set[int]] = {}
            for path, value in groups.items():
                by_name.setdefault(path.split(" / ")[-1], set()).add(value)
            for name, value in boxes[level]:
                assert value in by_name.get(name, set()), (hierarchy, level, name, value)
            assert max(v for _, v in boxes[level]) == max(groups.values()), (hierarchy, level)
        # The second level names what the hierarchy says: operations, or kernels.
        second = {name for name, _ in boxes[2]}
        column = keys[1]
        names = set(nb.kernel(f"[str(x) or '(no kernel)' for x in widget.profile.samples[{column!r}].unique()]"))
        assert second <= names, (hierarchy, second - names)
    # From Python: the select follows the trait.
    nb.kernel("0", code="widget.flame_hierarchy = 'kind/kernel/phase/operation'")
    page.wait_for_function(
        "() => document.querySelector('.ipu-nb-flame-hierarchy').value === 'kind/kernel/phase/operation'",
        timeout=30_000,
    )
    page.wait_for_selector('.ipu-nb-flame[data-levels="kind/kernel/phase/operation"]', timeout=30_000)


def drag_side_edge(page: Any, dx: float) -> None:
    """Drag the side panel's left edge by `dx` pixels (negative: leftwards), in small steps."""
    box = page.locator(".ipu-nb-side-handle").bounding_box()
    assert box is not None and box["height"] > 0
    x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 100)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=12)
    page.mouse.up()


def side_width(page: Any) -> float:
    return float(page.eval_on_selector(".ipu-nb-inspector", "e => e.getBoundingClientRect().width"))


def test_dragging_the_side_edge_widens_it_and_no_number_of_the_delta_table_is_cut(lab_page: Any) -> None:
    nb = open_widget(lab_page, PAIR)
    page = nb.page
    page.set_viewport_size({"width": 2000, "height": 1300})  # room to widen the panel by 300 px
    page.wait_for_selector(".ipu-nb-group-table tr[data-delta]", timeout=60_000)
    assert nb.kernel("widget.view") == [0, nb.kernel("max(widget.info['span'], 1)")]  # the whole view
    numbers = page.evaluate(NUMBERS_JS)
    assert len(numbers) >= 9, numbers
    assert all(whole for _, whole in numbers), [t for t, whole in numbers if not whole]
    before = side_width(page)
    timeline = page.eval_on_selector(".ipu-nb-left", "e => e.clientWidth")
    drag_side_edge(page, -300)
    page.wait_for_function(
        f"() => document.querySelector('.ipu-nb-inspector').getBoundingClientRect().width > {before}"
    )
    settle(page)
    after = side_width(page)
    assert after == pytest.approx(before + 300, abs=3), (before, after)
    assert page.eval_on_selector(".ipu-nb-left", "e => e.clientWidth") < timeline - 250  # the timeline made room
    # Wider, the Δ table shows whole: every number, and the table without scrolling sideways.
    numbers = page.evaluate(NUMBERS_JS)
    assert numbers and all(whole for _, whole in numbers), [t for t, whole in numbers if not whole]
    assert not any(text.endswith("…") for text, _ in numbers)
    scroller = page.eval_on_selector(".ipu-nb-table-scroll", "e => [e.scrollWidth, e.clientWidth]")
    assert scroller[0] <= scroller[1], scroller
    # The numbers are Python's: each row's samples, and the names' titles are the groups' names.
    rows = nb.kernel(
        "[[r['name'] or '(empty)', f\"{r['sample_count']:,}\"] for r in widget.groups.head(12).iter_rows(named=True)]"
    )
    shown = page.eval_on_selector_all(
        ".ipu-nb-group-table tr[data-delta], .ipu-nb-group-table tr:not(:first-child)",
        "rs => [...new Set(rs)].map((r) => [r.querySelector('.ipu-nb-group-name').title, r.children[4].textContent])",
    )
    assert shown == rows
    # Far past the bounds: the timeline keeps its room, and the width stays for this widget's life.
    drag_side_edge(page, -3000)
    page.wait_for_function(
        f"() => document.querySelector('.ipu-nb-inspector').getBoundingClientRect().width > {after + 5}"
    )
    widest = side_width(page)
    main = page.eval_on_selector(".ipu-nb-main", "e => e.clientWidth")
    assert widest <= main - 490 + 1, (widest, main)
    assert page.eval_on_selector(".ipu-nb-left", "e => e.clientWidth") >= 480
    nb.kernel("0", code="widget.filters = {'kind': 'compute'}")  # a redraw of the panels keeps the width
    page.wait_for_function("() => document.querySelector('.ipu-nb-flame-node[data-level=\"0\"]') !== null")
    settle(page)
    assert side_width(page) == pytest.approx(widest, abs=1)


def test_every_cut_name_in_the_side_panels_carries_its_whole_text_in_its_title(lab_page: Any) -> None:
    nb = open_widget(lab_page, SMALL)
    page = nb.page
    label = "a marker whose label is much longer than the markers list can show " * 3
    nb.kernel(
        "0",
        code=(
            "widget.group_by = 'operation'\n"
            "widget.at = widget.info['span'] // 3\n"
            "widget.selection = {'start': 0, 'end': widget.info['span'] // 2, 'tiles': None}\n"
            f"widget.add_marker(100, label={label.strip()!r})\n"
        ),
    )
    page.wait_for_selector(".ipu-nb-area[data-active='true'] .ipu-nb-area-longest", timeout=30_000)
    page.wait_for_selector(".ipu-nb-at .ipu-nb-list-row", timeout=30_000)
    page.locator(".ipu-nb-markers summary").click()
    settle(page)
    names = nb.kernel("[r or '(empty)' for r in widget.selection_groups.head(12)['name'].to_list()]")
    page.wait_for_function(
        "(n) => [...document.querySelectorAll('.ipu-nb-groups .ipu-nb-group-name')].map((c) => c.title)"
        ".join('\\n') === n.join('\\n')",
        arg=names,
        timeout=30_000,
    )
    cut = page.evaluate(CUT_JS)
    assert len(cut) >= 3, cut  # long operation names are cut: the check below can fail
    assert all(title == text for _, title, text in cut), [c for c in cut if c[1] != c[2]]
    # The group names are cut too, and the whole of each is Python's.
    titles = page.eval_on_selector_all(".ipu-nb-groups .ipu-nb-group-name", "cs => cs.map((c) => c.title)")
    assert titles == names
    marker = page.eval_on_selector(".ipu-nb-marker-label", "e => [e.title, e.value]")
    assert marker == [label.strip(), label.strip()]
