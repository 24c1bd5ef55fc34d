import assert from "node:assert/strict";
import { test } from "node:test";
import { type ViewFacts, viewStatus } from "./status";

const facts = (over: Partial<ViewFacts>): ViewFacts => ({
  count: 2,
  matched: 2,
  filtered: false,
  level: 3,
  roundTripMs: null,
  kernelMs: 0,
  cached: 2,
  cacheBytes: 0,
  ...over,
});

test("the status line puts each count's noun in its number", () => {
  assert.equal(
    viewStatus(facts({ count: 1, level: 0, cached: 1 })),
    "1 sample in view · bins of 1 cycle · cache 1 block, 0.0 MB",
  );
  assert.equal(
    viewStatus(facts({ count: 1_170_240, level: 10 })),
    "1,170,240 samples in view · bins of 1,024 cycles · cache 2 blocks, 0.0 MB",
  );
  assert.match(viewStatus(facts({ filtered: true, matched: 1 })), / · 1 matches the filters · /);
  assert.match(viewStatus(facts({ filtered: true, matched: 5 })), / · 5 match the filters · /);
  assert.match(viewStatus(facts({ filtered: true, matched: 0 })), / · none match the filters · /);
});

test("a view not counted yet says so, never another view's count", () => {
  const text = viewStatus(facts({ count: null, matched: null, filtered: true }));
  assert.ok(text.startsWith("counting the samples in view · bins of 8 cycles"), text);
  assert.doesNotMatch(text, /match/);
});
