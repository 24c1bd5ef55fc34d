import assert from "node:assert/strict";
import { test } from "node:test";
import { crumbs, focusFilters, upTo } from "./flame";
import type { Filters } from "./types";

const none: Filters = { kind: null, kernel: null, operation_contains: null, tiles: [], phases: [], metadata: [] };

test("focusing a node sets the filters along its path and keeps the others", () => {
  const f = focusFilters({ ...none, metadata: ["layer=1"], tiles: [3] }, { kind: "compute", kernel: "", phase: 7 });
  assert.deepEqual(f, { ...none, kind: "compute", kernel: "", phases: [7], metadata: ["layer=1"], tiles: [3] });
});

test("the breadcrumb follows the focus chain and going up clears deeper levels", () => {
  const f: Filters = {
    ...none,
    kind: "compute",
    kernel: "gemm",
    phases: [7],
    operation_contains: "<b>x</b>",
    metadata: ["a=1", "b"],
  };
  assert.deepEqual(
    crumbs(f).map((c) => c.label),
    ["all", "compute", "gemm", "phase 7", "<b>x</b>", "a=1", "b"],
  );
  assert.deepEqual(upTo(f, 5), { ...f, metadata: ["a=1"] });
  assert.deepEqual(upTo(f, 2), { ...none, kind: "compute", kernel: "gemm" });
  assert.deepEqual(upTo(f, 0), none);
  // Several phases typed in the controls are not a flame focus: going up keeps them.
  assert.deepEqual(upTo({ ...none, kind: "idle", phases: [1, 2] }, 0), { ...none, phases: [1, 2] });
});
