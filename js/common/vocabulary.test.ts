import assert from "node:assert/strict";
import { test } from "node:test";
import type { Filters } from "../kernel/types";
import { Controls } from "../panels/controls";
import { crumbs } from "../panels/flame";
import { Groups, groupFilter } from "../panels/groups";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { classColours, kernelPalette, kindColour, theme } from "./colors";
import { Disposers } from "./disposers";
import { kernelLabel, type Vocabulary, vocabularyOf } from "./vocabulary";

// Names no front-end copy could know: whatever the kernel sends is what is offered.
const words: Vocabulary = {
  kinds: ["compute", "exchange", "dma"],
  group_bys: ["kernel", "tile", "cluster"],
  sort_bys: ["samples"],
  color_bys: ["kind", "kernel", "phase"],
  flame_hierarchies: ["kind/kernel"],
  no_kernel: "<none>",
  missing: "<absent>",
  accounting_parts: {},
  palette: { compute: "#102030", dma: "#405060" },
  kernel_palette: ["#4e79a7", "#f28e2b"],
  activity_palette: {},
  activity_labels: {},
  color_by_labels: {},
};
const none: Filters = {
  kind: null,
  kernel: null,
  operation: [],
  operation_contains: null,
  tiles: [],
  phases: [],
  metadata: [],
  window: null,
};

test("the vocabulary is read from info and checked", () => {
  assert.deepEqual(vocabularyOf({ tiles: 3, vocabulary: words }), words);
  assert.deepEqual(kindColour("dma"), [64, 80, 96], "its palette colours the kinds");
  assert.deepEqual(
    kernelPalette(),
    [
      [78, 121, 167],
      [242, 142, 43],
    ],
    "its kernel palette colours the kernels",
  );
  const warn = console.warn;
  const warnings: unknown[] = [];
  console.warn = (...args: unknown[]) => warnings.push(args);
  try {
    const empty = vocabularyOf({ tiles: 3 });
    assert.deepEqual(empty.kinds, []);
    assert.deepEqual(vocabularyOf({ vocabulary: { ...words, kinds: "compute" } }).kinds, []);
    assert.deepEqual(vocabularyOf(null).group_bys, []);
    assert.equal(warnings.length, 1); // reported once
  } finally {
    console.warn = warn;
  }
});

const options = (select: FakeElement) => select.children.map((o) => (o as FakeElement).value);

test("the controls offer the kernel's kinds, colourings and kernel placeholder", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const host = {
      filters: () => none,
      setFilters() {},
      colorBy: () => "phase",
      setColorBy() {},
      clock: () => "tile",
      setClock() {},
      kernels: () => ["", "gemm"],
      zoom() {},
      reset() {},
    };
    const controls = new Controls(host, bag, words, "t");
    controls.sync();
    const root = controls.root as unknown as FakeElement;
    const [kind, colour] = root.findAll("ipu-nb-select");
    assert.deepEqual(options(kind), ["", "compute", "exchange", "dma"]);
    assert.deepEqual(options(colour), ["kind", "kernel", "phase"]);
    const kernels = root.children.find((c) => typeof c !== "string" && c.tagName === "DATALIST") as FakeElement;
    assert.deepEqual(
      kernels.children.map((o) => (o as FakeElement).textContent),
      ["<none>", "gemm"],
    );
  } finally {
    dom.uninstall();
  }
});

test("the group table offers the kernel's groupings and maps its placeholders back to filters", () => {
  const dom = installFakeDom();
  try {
    const groups = new Groups(
      { groupBy: () => "kernel", metadataKey: () => null, setGrouping() {}, filters: () => none, setFilters() {} },
      new Disposers(),
      words,
    );
    const select = (groups.root as unknown as FakeElement).find("ipu-nb-select");
    assert.deepEqual(options(select), ["kernel", "tile", "cluster"]);
  } finally {
    dom.uninstall();
  }
  const row = (name: string, dimensions: Record<string, string> = {}) => ({
    name,
    dimensions,
    sample_count: 1,
    phase_cycles: 1,
    work_cycles: 1,
    average_active_tiles: 1,
  });
  assert.deepEqual(groupFilter("kernel", row("<none>"), none, words), { ...none, kernel: "" });
  assert.deepEqual(groupFilter("kernel", row("(no kernel)"), none, words), { ...none, kernel: "(no kernel)" });
  const absent = row("<absent>", { metadataKey: "layer", metadataValue: "<absent>" });
  assert.equal(groupFilter("metadata", absent, none, words), null);
});

test("the kernel placeholder labels crumbs and greys the legend's kernel-less class", () => {
  assert.equal(kernelLabel("", words), "<none>");
  assert.equal(kernelLabel("gemm", words), "gemm");
  assert.deepEqual(
    crumbs({ ...none, kernel: "" }, words, ["kind", "kernel"]).map((c) => c.label),
    ["all", "<none>"],
  );
  const colours = classColours("kernel", ["gemm", "<none>"], words.no_kernel);
  assert.deepEqual(colours[2], theme().noKernel);
  assert.notDeepEqual(colours[1], theme().noKernel);
  assert.deepEqual(colours[0], theme().grey);
});
