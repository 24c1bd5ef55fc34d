import assert from "node:assert/strict";
import { test } from "node:test";
import { lowerBound, step } from "./search";

test("next and previous match: from the view when nothing is current, then one by one, wrapping", () => {
  const starts = [10, 20, 20, 50, 90];
  assert.equal(lowerBound(starts, 20), 1);
  assert.equal(lowerBound(starts, 100), 5);
  assert.equal(step(starts, -1, 1, [15, 60]), 1); // the first in the view
  assert.equal(step(starts, -1, -1, [15, 60]), 3); // the last starting before its end
  assert.equal(step(starts, -1, 1, [95, 99]), 0); // none after: wrap
  assert.equal(step(starts, -1, -1, [0, 5]), 4);
  assert.equal(step(starts, 3, 1, [0, 1]), 4);
  assert.equal(step(starts, 4, 1, [0, 1]), 0);
  assert.equal(step(starts, 0, -1, [0, 1]), 4);
  assert.equal(step([], -1, 1, [0, 1]), -1);
});
