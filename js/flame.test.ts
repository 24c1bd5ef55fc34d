import assert from "node:assert/strict";
import { test } from "node:test";
import { crumbs, focusFilters, upTo } from "./flame";
import type { Filters } from "./types";

const none: Filters = { kind: null, kernel: null, operation_contains: null, tiles: [], phases: [], metadata: [] };
const words = { no_kernel: "(no kernel)", missing: "(missing)" };

test("focusing a node sets the filters along its path and keeps the others", () => {
  const f = focusFilters({ ...none, metadata: [["layer", "1"]], tiles: [3] }, { kind: "compute", kernel: "", phase: 7 });
  assert.deepEqual(f, { ...none, kind: "compute", kernel: "", phases: [7], metadata: [["layer", "1"]], tiles: [3] });
});

test("the breadcrumb follows the focus chain and going up clears deeper levels", () => {
  const f: Filters = {
    ...none,
    kind: "compute",
    kernel: "gemm",
    phases: [7],
    operation_contains: "<b>x</b>",
    metadata: [["a", "1"], ["b", null], ["x=y", "z"]],
  };
  assert.deepEqual(
    crumbs(f, words).map((c) => c.label),
    ["all", "compute", "gemm", "phase 7", "<b>x</b>", "a=1", "b", "x=y=z"],
  );
  assert.deepEqual(upTo(f, 5), { ...f, metadata: [["a", "1"]] });
  assert.deepEqual(upTo(f, 6), { ...f, metadata: [["a", "1"], ["b", null]] });
  assert.deepEqual(upTo(f, 2), { ...none, kind: "compute", kernel: "gemm" });
  assert.deepEqual(upTo(f, 0), none);
  // Several phases typed in the controls are not a flame focus: going up keeps them.
  assert.deepEqual(upTo({ ...none, kind: "idle", phases: [1, 2] }, 0), { ...none, phases: [1, 2] });
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
  assert.deepEqual(groupFilter("phase", row("phase 3/0", { phase: "3", epoch: "0" }), none, words), { ...none, phases: [3] });
  assert.deepEqual(groupFilter("tile", row("tile 64", { physicalTile: "64" }), none, words), { ...none, tiles: [64] });
  const meta = row("1", { metadataKey: "layer", metadataValue: "1" });
  assert.deepEqual(groupFilter("metadata", meta, none, words), { ...none, metadata: [["layer", "1"]] });
  const equals = row("c", { metadataKey: "a=b", metadataValue: "c" });
  assert.deepEqual(groupFilter("metadata", equals, none, words), { ...none, metadata: [["a=b", "c"]] });
  assert.equal(groupFilter("metadata", row("(missing)", { metadataKey: "layer", metadataValue: "(missing)" }), none, words), null);
});
