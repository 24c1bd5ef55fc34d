import assert from "node:assert/strict";
import { test } from "node:test";
import { between, centre, clampView, MIN_WIDTH, pan, showing, zoomAt } from "./view";

test("zoom keeps the anchored cycle in place", () => {
  const v = zoomAt([0, 1000], 0.5, 0.25, 1000);
  assert.deepEqual(v, [125, 625]);
  assert.equal(v[0] + (v[1] - v[0]) * 0.25, 250);
});

test("zooming out stops at the whole profile", () => {
  assert.deepEqual(zoomAt([100, 200], 100, 0.5, 1000), [0, 1000]);
});

test("zooming in stops at the minimum width", () => {
  const [s, e] = zoomAt([0, 10], 0.01, 0.5, 1000);
  assert.equal(e - s, MIN_WIDTH);
});

test("pan and centre stay inside [0, span] and keep the width", () => {
  assert.deepEqual(pan([800, 1000], 0.5, 1000), [800, 1000]);
  assert.deepEqual(pan([0, 200], -0.5, 1000), [0, 200]);
  assert.deepEqual(pan([100, 300], 0.25, 1000), [150, 350]);
  assert.deepEqual(centre([0, 200], 990, 1000), [800, 1000]);
  assert.deepEqual(between(700, 300, 1000), [300, 700]);
  assert.deepEqual(clampView([-50, 50], 1000), [0, 100]);
});

test("a search match is shown: the view stays when it holds it, else centres on it, or widens for a long one", () => {
  assert.deepEqual(showing([100, 200], 120, 130, 1000), [100, 200]);
  assert.deepEqual(showing([100, 200], 500, 510, 1000), [455, 555]);
  assert.deepEqual(showing([100, 200], 300, 400, 1000), [290, 410]);
  assert.deepEqual(showing([100, 200], 990, 999, 1000), [900, 1000]); // clamped into the profile
});
