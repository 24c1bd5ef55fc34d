import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import type { Vocabulary } from "../common/vocabulary";
import { noFilters } from "../kernel/types";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { AreaPanel } from "./areapanel";
import { Groups } from "./groups";

const words = { group_bys: ["kernel"], no_kernel: "(no kernel)", missing: "(missing)" } as unknown as Vocabulary;
const LONG = `a kernel whose name is far too long for any side panel ${"x".repeat(200)}\u202e`;

const row = (name: string, phase: number) => ({
  name,
  dimensions: {},
  sample_count: 1_170_240,
  phase_cycles: phase,
  work_cycles: 9_876_543_210,
  average_active_tiles: 1280.5,
});

test("the group and Δ tables scroll sideways rather than cut a number; each name carries its whole text", () => {
  const dom = installFakeDom();
  try {
    const groups = new Groups(
      { groupBy: () => "kernel", metadataKey: () => null, setGrouping() {}, filters: noFilters, setFilters() {} },
      new Disposers(),
      words,
    );
    const root = groups.root as unknown as FakeElement;
    const rows = [row(LONG, 5_000_000), row("", 12)];
    const delta = { status: "changed", before: 4_000_000, after: 5_000_000, delta: 1_000_000, ratio: 1.25 };
    for (const deltas of [undefined, [delta, null]]) {
      groups.set({ type: "groups", id: 1, group_by: "kernel", error: null, rows, deltas });
      const scroller = root.find("ipu-nb-table-scroll");
      const table = scroller.find("ipu-nb-group-table");
      assert.equal(table.tagName, "TABLE");
      // No inline layout: widget.css alone says how cells fit (numbers whole, the name column cut).
      assert.deepEqual(table.style, {});
      const names = root.findAll("ipu-nb-group-name");
      assert.deepEqual(
        names.map((n) => [n.textContent, n.title]),
        [
          [LONG.replace("\u202e", "\\u{202e}"), LONG.replace("\u202e", "\\u{202e}")],
          ["(empty)", "(empty)"],
        ],
      );
      for (const cell of table.querySelectorAll("td")) assert.deepEqual(cell.style, {}, cell.textContent);
      assert.equal(table.querySelectorAll("th").length, deltas ? 9 : 5);
    }
  } finally {
    dom.uninstall();
  }
});

test("an area's longest samples: each name cell carries its whole name, the table in a scroller", () => {
  const dom = installFakeDom();
  try {
    const panel = new AreaPanel({ clockHz: () => 1e9, select() {}, clear() {} }, new Disposers(), words);
    const sample = {
      sample: 3,
      tile: 7,
      offset: 10,
      duration: 500,
      clipped_cycles: 400,
      phase: 1,
      epoch: 0,
      kind: "compute",
      operation: LONG,
      kernel: "k",
    };
    panel.set({
      type: "area",
      selection: { start: 0, end: 900, tiles: null },
      window: [0, 900],
      tiles: null,
      count: 2,
      tiles_hit: 1,
      cycles: 800,
      longest: [sample, { ...sample, sample: 4, operation: "", kernel: "" }],
    });
    const root = panel.root as unknown as FakeElement;
    const names = root.find("ipu-nb-table-scroll").findAll("ipu-nb-group-name");
    assert.deepEqual(
      names.map((n) => n.title),
      [LONG.replace("\u202e", "\\u{202e}"), "(no kernel)"],
    );
    assert.deepEqual(
      names.map((n) => n.textContent),
      names.map((n) => n.title),
    );
  } finally {
    dom.uninstall();
  }
});
