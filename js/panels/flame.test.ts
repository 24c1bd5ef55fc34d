import assert from "node:assert/strict";
import { test } from "node:test";
import type { FlameNode } from "../kernel/protocol";
import { type Filters, noFilters } from "../kernel/types";
import {
  chainOf,
  clickFilters,
  crumbs,
  type FlameBox,
  focusFilters,
  hierarchyLabel,
  hierarchyLevels,
  layoutFlame,
  MIN_NODE_PX,
  mergedName,
  samplesPath,
  upTo,
} from "./flame";

const none: Filters = noFilters();
const words = { no_kernel: "(no kernel)", missing: "(missing)" };
/** The default hierarchy's levels (the kernel's "kind/kernel/phase/operation"). */
const LEVELS = ["kind", "kernel", "phase", "operation"];

test("focusing a node sets the filters along its path, the operation exactly, and keeps the others", () => {
  const f = focusFilters(
    { ...none, metadata: [["layer", "1"]], tiles: [3] },
    { kind: "compute", kernel: "", phase: 7 },
  );
  assert.deepEqual(f, { ...none, kind: "compute", kernel: "", phases: [7], metadata: [["layer", "1"]], tiles: [3] });
  const op = focusFilters({ ...none, operation_contains: "gemm" }, { kind: "compute", operation: "gemm block" });
  assert.deepEqual(op, { ...none, kind: "compute", operation: ["gemm block"], operation_contains: "gemm" });
});

test("a click on a node of the focus chain zooms out to it; one off the chain focuses it", () => {
  const deep: Filters = { ...none, kind: "compute", kernel: "gemm", phases: [3], operation: ["op"], tiles: [5] };
  // The kernel node above a focused operation: back to the kernel, the unrelated tile filter kept.
  assert.deepEqual(clickFilters(deep, 2, { kind: "compute", kernel: "gemm" }, LEVELS), {
    ...none,
    kind: "compute",
    kernel: "gemm",
    tiles: [5],
  });
  // A sibling kernel: focused, deeper levels as they were (the graph showed it under them).
  const shallow: Filters = { ...none, kind: "compute", operation_contains: "x" };
  assert.deepEqual(clickFilters(shallow, 2, { kind: "compute", kernel: "copy" }, LEVELS), {
    ...shallow,
    kernel: "copy",
  });
  assert.deepEqual(clickFilters(deep, 4, { kind: "compute", kernel: "gemm", phase: 3, operation: "op" }, LEVELS), deep);
});

test("the breadcrumb follows the focus chain and going up clears deeper levels", () => {
  const f: Filters = {
    ...none,
    kind: "compute",
    kernel: "gemm",
    phases: [7],
    operation: ["<b>x</b>"],
    metadata: [
      ["a", "1"],
      ["b", null],
      ["x=y", "z"],
    ],
  };
  assert.deepEqual(
    crumbs(f, words, LEVELS).map((c) => c.label),
    ["all", "compute", "gemm", "phase 7", "<b>x</b>", "a=1", "b", "x=y=z"],
  );
  assert.deepEqual(
    crumbs({ ...none, operation: ["a", "b"] }, words, LEVELS).map((c) => c.label),
    ["all", "2 operations"],
  );
  assert.deepEqual(
    crumbs({ ...none, operation_contains: "mm" }, words, LEVELS).map((c) => c.label),
    ["all", "contains: mm"],
  );
  assert.deepEqual(upTo(f, 5, LEVELS), { ...f, metadata: [["a", "1"]] });
  assert.deepEqual(upTo(f, 6, LEVELS), {
    ...f,
    metadata: [
      ["a", "1"],
      ["b", null],
    ],
  });
  assert.deepEqual(upTo(f, 2, LEVELS), { ...none, kind: "compute", kernel: "gemm" });
  assert.deepEqual(upTo({ ...f, operation_contains: "x" }, 3, LEVELS), {
    ...none,
    kind: "compute",
    kernel: "gemm",
    phases: [7],
  });
  assert.deepEqual(upTo(f, 0, LEVELS), none);
  // Several phases typed in the controls are not a flame focus: going up keeps them.
  assert.deepEqual(upTo({ ...none, kind: "idle", phases: [1, 2] }, 0, LEVELS), { ...none, phases: [1, 2] });
});

/** A tree as the kernel sends it: root, one kind, `kernels` kernels of the given sizes, each with `ops` equal operations. */
function tree(kernelSizes: number[], ops: number): FlameNode[] {
  const total = kernelSizes.reduce((a, b) => a + b, 0);
  const nodes: FlameNode[] = [
    { name: "all", level: 0, value: total, parent: -1, path: {} },
    { name: "compute", level: 1, value: total, parent: 0, path: { kind: "compute" } },
  ];
  const kernelIndex = kernelSizes.map((size, k) => {
    nodes.push({ name: `k${k}`, level: 2, value: size, parent: 1, path: { kind: "compute", kernel: `k${k}` } });
    return nodes.length - 1;
  });
  kernelSizes.forEach((size, k) => {
    for (let o = 0; o < ops; o++) {
      const path = { kind: "compute", kernel: `k${k}`, operation: `op${k}.${o}` };
      nodes.push({ name: `op${k}.${o}`, level: 3, value: size / ops, parent: kernelIndex[k], path });
    }
  });
  return nodes;
}

/** Independent checks on a layout: inside the width, no overlaps per level, no slivers. */
function checkBoxes(boxes: FlameBox[], width: number): void {
  const byLevel = new Map<number, FlameBox[]>();
  for (const b of boxes) byLevel.set(b.level, [...(byLevel.get(b.level) ?? []), b]);
  for (const [level, list] of byLevel) {
    list.sort((a, b) => a.left - b.left);
    list.forEach((b, i) => {
      assert.ok(b.width >= MIN_NODE_PX, `level ${level}: a ${b.width}px box`);
      assert.ok(b.left >= -1e-9 && b.left + b.width <= width + 1e-6, `level ${level}: outside [0, ${width}]`);
      if (i > 0) {
        const prev = list[i - 1];
        assert.ok(prev.left + prev.width <= b.left + 1e-6, `level ${level}: boxes ${i - 1} and ${i} overlap`);
      }
    });
  }
}

test("nodes narrower than a pixel merge into one box per run, and the sums are kept", () => {
  // One big kernel and 300 tiny ones: at 1000 px most operations are slivers.
  const sizes = [900_000, ...Array.from({ length: 300 }, () => 300)];
  const nodes = tree(sizes, 4);
  const width = 1000;
  const boxes = layoutFlame(nodes, 0, width);
  checkBoxes(boxes, width);
  const level = (l: number) => boxes.filter((b) => b.level === l);
  // The kernels: the big one stands alone, the 300 tiny ones (0.3 px each) are one box of 300.
  const kernels = level(2);
  assert.equal(kernels.length, 2);
  assert.equal(kernels[0].node, 2);
  assert.deepEqual([kernels[1].node, kernels[1].count, kernels[1].value], [-1, 300, 90_000]);
  // Operations: the big kernel's four are real boxes (225 px); the 1,200 others one merged box.
  const ops = level(3);
  assert.equal(ops.filter((b) => b.node >= 0).length, 4);
  const merged = ops.filter((b) => b.node < 0);
  assert.equal(merged.length, 1);
  assert.equal(merged[0].count, 1200);
  // Every level accounts for the whole total.
  for (const l of [0, 1, 2, 3]) {
    assert.equal(Math.round(level(l).reduce((s, b) => s + b.value, 0)), 990_000, `level ${l}`);
  }
  assert.ok(boxes.length < 12, `${boxes.length} boxes`);
});

test("a narrow run next to a gap is not merged across it", () => {
  // Kernel a has no operations (a leaf): its neighbours' operations are not adjacent.
  const nodes: FlameNode[] = [
    { name: "all", level: 0, value: 1003, parent: -1, path: {} },
    { name: "x", level: 1, value: 1, parent: 0, path: { kind: "x" } },
    { name: "a", level: 1, value: 1000, parent: 0, path: { kind: "a" } },
    { name: "y", level: 1, value: 2, parent: 0, path: { kind: "y" } },
    { name: "x1", level: 2, value: 1, parent: 1, path: { kind: "x", kernel: "1" } },
    { name: "y1", level: 2, value: 1, parent: 3, path: { kind: "y", kernel: "1" } },
    { name: "y2", level: 2, value: 1, parent: 3, path: { kind: "y", kernel: "2" } },
  ];
  const px = MIN_NODE_PX / 2; // a cycle is half the narrowest box drawn
  const boxes = layoutFlame(nodes, 0, 1003 * px);
  checkBoxes(boxes, 1003 * px);
  // x1 (half the narrowest) is not merged with y1 + y2 across a's empty space; alone it is too narrow to draw.
  const level2 = boxes.filter((b) => b.level === 2);
  assert.deepEqual(
    level2.map((b) => [b.node, b.count, b.left, b.width, b.smallest, b.largest]),
    [[-1, 2, 1001 * px, 2 * px, 1, 1]],
  );
  const level1 = boxes.filter((b) => b.level === 1);
  assert.deepEqual(
    level1.map((b) => [b.node, b.count]),
    [
      [2, 1],
      [3, 1],
    ],
  );
});

test("zooming into a node makes it fill the width, its ancestors full width above", () => {
  const sizes = [900_000, 60_000, 30_000];
  const nodes = tree(sizes, 3);
  const k2 = nodes.findIndex((n) => n.name === "k2");
  const width = 800;
  const boxes = layoutFlame(nodes, k2, width);
  checkBoxes(boxes, width);
  const zoomed = boxes.find((b) => b.node === k2)!;
  assert.deepEqual([zoomed.left, zoomed.width, zoomed.ancestor], [0, width, false]);
  assert.deepEqual(
    boxes.filter((b) => b.ancestor).map((b) => [nodes[b.node].name, b.left, b.width]),
    [
      ["all", 0, width],
      ["compute", 0, width],
    ],
  );
  // Only k2's own operations are below it, each a third of the width; no other kernel is drawn.
  const ops = boxes.filter((b) => b.level === 3);
  assert.deepEqual(
    ops.map((b) => nodes[b.node].name),
    ["op2.0", "op2.1", "op2.2"],
  );
  ops.forEach((b, i) => {
    assert.ok(Math.abs(b.left - (i * width) / 3) < 1e-6 && Math.abs(b.width - width / 3) < 1e-6);
  });
  assert.equal(boxes.filter((b) => b.level === 2).length, 1);
  // Unknown zoom targets fall back to the root.
  assert.deepEqual(layoutFlame(nodes, 999, width), layoutFlame(nodes, 0, width));
});

test("without a pixel of room nothing is drawn", () => {
  assert.deepEqual(layoutFlame([], 0, 500), []);
  assert.deepEqual(layoutFlame(tree([5], 1), 0, 0), []);
});

import { groupFilter } from "./groups";

test("a group row becomes the filter selecting its samples", () => {
  const row = (name: string, dimensions: Record<string, string> = {}) => ({
    name,
    dimensions,
    sample_count: 1,
    phase_cycles: 1,
    work_cycles: 1,
    average_active_tiles: 1,
  });
  assert.deepEqual(groupFilter("kernel", row("(no kernel)"), none, words), { ...none, kernel: "" });
  assert.deepEqual(groupFilter("operation", row("gemm"), none, words), { ...none, operation: ["gemm"] });
  assert.deepEqual(groupFilter("phase", row("phase 3/0", { phase: "3", epoch: "0" }), none, words), {
    ...none,
    phases: [3],
  });
  assert.deepEqual(groupFilter("tile", row("tile 64", { physicalTile: "64" }), none, words), { ...none, tiles: [64] });
  const meta = row("1", { metadataKey: "layer", metadataValue: "1" });
  assert.deepEqual(groupFilter("metadata", meta, none, words), { ...none, metadata: [["layer", "1"]] });
  const equals = row("c", { metadataKey: "a=b", metadataValue: "c" });
  assert.deepEqual(groupFilter("metadata", equals, none, words), { ...none, metadata: [["a=b", "c"]] });
  assert.equal(
    groupFilter("metadata", row("(missing)", { metadataKey: "layer", metadataValue: "(missing)" }), none, words),
    null,
  );
});

test("the breadcrumb's crumbs stay clickable after each redraw", async () => {
  const { installFakeDom } = await import("../testing/fake-dom");
  const { Disposers } = await import("../common/disposers");
  const { Flame } = await import("./flame");
  const dom = installFakeDom();
  try {
    const set: Filters[] = [];
    const filters: Filters = { ...noFilters(), kind: "compute" };
    const words = { no_kernel: "(no kernel)", flame_hierarchies: [] } as unknown as ConstructorParameters<
      typeof Flame
    >[2];
    const flame = new Flame(
      { filters: () => filters, setFilters: (f) => set.push(f), colorBy: () => "kind", legend: () => [] },
      new Disposers(),
      words,
    );
    const nodes: FlameNode[] = [
      { name: "all", level: 0, value: 10, parent: -1, path: {} },
      { name: "compute", level: 1, value: 10, parent: 0, path: { kind: "compute" } },
    ];
    flame.set({ type: "flame", total: 10, levels: LEVELS, nodes, metadata: [] });
    flame.render(); // a redraw (a theme or filter change) as well as the first drawing
    const crumbs = (
      flame.root as unknown as { findAll(c: string): { dispatchEvent(e: { type: string }): void }[] }
    ).findAll("ipu-nb-crumb");
    assert.equal(crumbs.length, 2);
    crumbs[0].dispatchEvent({ type: "click" });
    assert.equal(set.length, 1);
    assert.equal(set[0].kind, null); // "all": every filter of the chain cleared
  } finally {
    dom.uninstall();
  }
});

test("a merged box reads as what it holds at its level, with its count", () => {
  assert.equal(mergedName(236, 3, LEVELS), "236 phases");
  assert.equal(mergedName(1, 3, LEVELS), "1 phase");
  assert.equal(mergedName(1200, 4, LEVELS), "1,200 operations");
  assert.equal(mergedName(2, 9, LEVELS), "2 nodes");
});

test("the narrow phases of a wide kernel merge into one box with their total and spread", () => {
  // One kernel of 1,000 phases of 1..1000 cycles: at 600 px most are narrower than the narrowest box.
  const nodes: FlameNode[] = [
    { name: "all", level: 0, value: 0, parent: -1, path: {} },
    { name: "k", level: 1, value: 0, parent: 0, path: { kind: "k" } },
    { name: "kern", level: 2, value: 0, parent: 1, path: { kind: "k", kernel: "kern" } },
  ];
  let total = 0;
  for (let p = 1000; p >= 1; p--) {
    nodes.push({ name: `phase ${p}`, level: 3, value: p, parent: 2, path: { kind: "k", kernel: "kern", phase: p } });
    total += p;
  }
  for (const i of [0, 1, 2]) nodes[i].value = total;
  const width = 600;
  const boxes = layoutFlame(nodes, 0, width);
  checkBoxes(boxes, width);
  const phases = boxes.filter((b) => b.level === 3);
  const kept = phases.filter((b) => b.node >= 0);
  const merged = phases.filter((b) => b.node < 0);
  const narrow = nodes.filter((n) => n.level === 3 && (n.value * width) / total < MIN_NODE_PX);
  assert.ok(kept.every((b) => b.width >= MIN_NODE_PX));
  assert.equal(merged.length, 1);
  assert.equal(merged[0].count, narrow.length);
  assert.equal(
    merged[0].value,
    narrow.reduce((sum, n) => sum + n.value, 0),
  );
  assert.equal(merged[0].smallest, 1);
  assert.equal(merged[0].largest, Math.max(...narrow.map((n) => n.value)));
  assert.equal(kept.length + merged[0].count, 1000);
});

test("under another hierarchy the chain, going up and merged boxes follow its levels", () => {
  const levels = hierarchyLevels("kind/operation/kernel");
  assert.deepEqual(levels, ["kind", "operation", "kernel"]);
  assert.deepEqual(chainOf(levels), ["kind", "operation", "kernel", "phase"]);
  assert.equal(hierarchyLabel("kind/operation/kernel"), "kind › operation › kernel");
  const f: Filters = { ...none, kind: "compute", kernel: "", operation: ["op"], phases: [4], metadata: [["a", "1"]] };
  assert.deepEqual(
    crumbs(f, words, levels).map((c) => [c.label, c.level]),
    [
      ["all", 0],
      ["compute", 1],
      ["op", 2],
      ["(no kernel)", 3],
      ["phase 4", 4],
      ["a=1", 5],
    ],
  );
  // Up to the operation: the kernel under it (and the phase, further down this chain) cleared.
  assert.deepEqual(upTo(f, 2, levels), { ...none, kind: "compute", operation: ["op"] });
  // The same filters in the default order: the kernel sits above the operation and stays.
  assert.deepEqual(upTo(f, 2, LEVELS), { ...none, kind: "compute", kernel: "" });
  // A click on the operation node of a graph focused below it zooms out to it.
  assert.deepEqual(clickFilters(f, 2, { kind: "compute", operation: "op" }, levels), upTo(f, 2, levels));
  assert.equal(mergedName(12, 2, levels), "12 operations");
  assert.equal(mergedName(12, 3, levels), "12 kernels");
  assert.equal(mergedName(12, 3, ["kind", "kernel", "operation", "phase"]), "12 operations");
});

test("the hierarchy select offers the kernel's orders, sets the trait and follows it", async () => {
  const { installFakeDom } = await import("../testing/fake-dom");
  const { Disposers } = await import("../common/disposers");
  const { Flame } = await import("./flame");
  const dom = installFakeDom();
  try {
    let hierarchy = "kind/kernel/phase/operation";
    const chosen: string[] = [];
    const words = {
      no_kernel: "(no kernel)",
      flame_hierarchies: ["kind/kernel/phase/operation", "kind/operation/kernel"],
    } as unknown as ConstructorParameters<typeof Flame>[2];
    const flame = new Flame(
      {
        filters: () => none,
        setFilters() {},
        colorBy: () => "kind",
        legend: () => [],
        flameHierarchy: () => hierarchy,
        setFlameHierarchy: (h) => chosen.push(h),
      },
      new Disposers(),
      words,
    );
    const select = (flame.root as unknown as FakeDom).find("ipu-nb-flame-hierarchy");
    assert.deepEqual(
      select.children.map((o) => [(o as FakeDom).value, (o as FakeDom).textContent]),
      [
        ["kind/kernel/phase/operation", "kind › kernel › phase › operation"],
        ["kind/operation/kernel", "kind › operation › kernel"],
      ],
    );
    assert.equal(select.value, "kind/kernel/phase/operation");
    select.value = "kind/operation/kernel";
    select.dispatchEvent({ type: "change" });
    assert.deepEqual(chosen, ["kind/operation/kernel"]);
    hierarchy = "kind/operation/kernel"; // the trait changed (from Python, or the kernel accepted it)
    flame.sync();
    assert.equal(select.value, "kind/operation/kernel");
    // Before a graph of it comes, the levels are the trait's; then the graph's own.
    assert.deepEqual(flame.levels(), ["kind", "operation", "kernel"]);
    const nodes: FlameNode[] = [
      { name: "all", level: 0, value: 10, parent: -1, path: {} },
      { name: "compute", level: 1, value: 10, parent: 0, path: { kind: "compute" } },
    ];
    flame.set({ type: "flame", total: 10, levels: ["kind", "kernel"], nodes, metadata: [] });
    assert.deepEqual(flame.levels(), ["kind", "kernel"]);
  } finally {
    dom.uninstall();
  }
});

/** The fake DOM's elements as these tests read them. */
interface FakeDom {
  value: string;
  textContent: string;
  children: unknown[];
  find(name: string): FakeDom;
  dispatchEvent(e: { type: string }): void;
}

test("focusing a boundary part of colour mode activity selects the exchange samples it comes from", () => {
  const parts = { "exchange boundary wait": "synchronization", "exchange boundary sampling": "synchronization" };
  const wait = { kind: "synchronization", kernel: "exchange boundary wait", phase: 4 };
  assert.deepEqual(samplesPath(wait, parts), { kind: "exchange", phase: 4 });
  const f = clickFilters(none, 3, samplesPath(wait, parts), LEVELS);
  assert.deepEqual(f, { ...none, kind: "exchange", phases: [4] });
  // Clicked again (now on the focus chain), it zooms out to its kind as any node does.
  assert.deepEqual(clickFilters(f, 3, samplesPath(wait, parts), LEVELS), upTo(f, 3, LEVELS));
  // A kernel of that name under its own kind, or a part name under another kind, is a kernel.
  const real = { kind: "compute", kernel: "exchange boundary wait" };
  assert.equal(samplesPath(real, parts), real);
  const plain = { kind: "synchronization", kernel: "sync" };
  assert.equal(samplesPath(plain, parts), plain);
});
