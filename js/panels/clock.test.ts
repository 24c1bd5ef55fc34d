import assert from "node:assert/strict";
import { test } from "node:test";
import type { Clock } from "../common/clock";
import { Disposers } from "../common/disposers";
import type { Vocabulary } from "../common/vocabulary";
import { noFilters } from "../kernel/types";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { drawAxis } from "../timeline/axis";
import { Controls } from "./controls";
import { Inspector } from "./inspector";

const words: Vocabulary = {
  kinds: ["compute"],
  group_bys: ["kernel"],
  sort_bys: ["samples"],
  color_bys: ["kind", "kernel"],
  flame_hierarchies: ["kind/kernel"],
  no_kernel: "(no kernel)",
  missing: "(missing)",
  accounting_parts: {},
  palette: {},
  kernel_palette: ["#4e79a7", "#f28e2b"],
  activity_palette: {},
  activity_labels: {},
  color_by_labels: {},
};
const none = noFilters();

test("the clock select offers the three clocks, follows the trait and sets it", () => {
  const dom = installFakeDom();
  const bag = new Disposers();
  try {
    let clock: Clock = "tile";
    const set: Clock[] = [];
    const host = {
      filters: () => none,
      setFilters() {},
      colorBy: () => "kind",
      setColorBy() {},
      clock: () => clock,
      setClock: (c: Clock) => set.push(c),
      kernels: () => [],
      zoom() {},
      reset() {},
    };
    const controls = new Controls(host, bag, words, "t");
    const root = controls.root as unknown as FakeElement;
    const select = root.findAll("ipu-nb-clock")[0];
    assert.deepEqual(
      select.children.map((o) => [(o as FakeElement).value, (o as FakeElement).textContent]),
      [
        ["tile", "per-tile clock"],
        ["cropped", "crop initial sync"],
        ["shared", "shared clock"],
      ],
    );
    clock = "shared";
    controls.sync();
    assert.equal(select.value, "shared", "Python's value is shown");
    assert.equal(select.dataset.clock, "shared");
    select.value = "cropped";
    select.dispatchEvent({ type: "change" });
    assert.deepEqual(set, ["cropped"]);
  } finally {
    bag.dispose();
    dom.uninstall();
  }
});

test("the inspector names the clock of the cursor's and the sample's offsets", () => {
  const dom = installFakeDom();
  const bag = new Disposers();
  try {
    let clock = "shared";
    const before = document.createElement("div");
    const inspector = new Inspector(
      { clockHz: () => 1000, clock: () => clock, filterMetadata() {} },
      bag,
      words,
      before,
    );
    const sample = {
      sample: 7,
      tile: 3,
      kind: "compute",
      inactive: false,
      operation: "op",
      kernel: "k",
      phase: 1,
      epoch: 0,
      offset: 12345,
      duration: 10,
      local_index: 0,
      start: 1,
      end: 11,
      matched: true,
    };
    const at = { at: 12350, count: 1, tiles: 1, kinds: [], operations: [], kernels: [], metadata: [] };
    inspector.set(at, sample);
    const text = (inspector.root as unknown as FakeElement).textContent;
    assert.ok(text.includes("offset 12,350 (shared clock)"), text);
    assert.ok(text.includes("12,345 (shared clock)"), text);
    clock = "cropped";
    inspector.set(at, sample);
    assert.ok((inspector.root as unknown as FakeElement).textContent.includes("offset 12,350 (crop initial sync)"));
  } finally {
    bag.dispose();
    dom.uninstall();
  }
});

test("the axis says which clock its offsets are on", () => {
  const dom = installFakeDom();
  try {
    const canvas = document.createElement("canvas");
    drawAxis(canvas, [0, 1000], 600, 1e9, "shared");
    assert.equal(canvas.dataset.clock, "shared");
    assert.equal(canvas.title, "offsets in cycles on the shared clock");
    drawAxis(canvas, [0, 1000], 600, 1e9);
    assert.equal(canvas.dataset.clock, "tile", "without a clock: the per-tile one");
  } finally {
    dom.uninstall();
  }
});
