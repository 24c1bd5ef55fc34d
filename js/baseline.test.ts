import assert from "node:assert/strict";
import { test } from "node:test";
import { deltaCells, deltaClass, flipped, signedCycles } from "./baseline";

test("flipped swaps the two profiles", () => {
  assert.equal(flipped("after"), "baseline");
  assert.equal(flipped("baseline"), "after");
});

test("signedCycles marks slower and faster", () => {
  assert.equal(signedCycles(0), "0");
  assert.equal(signedCycles(500_000), "+500k");
  assert.equal(signedCycles(-340), "−340");
});

test("deltaCells shows absent sides as a dash and the ratio to two places", () => {
  assert.deepEqual(deltaCells(null), ["—", "—", "—", "—"]);
  assert.deepEqual(deltaCells({ status: "changed", before: 200, after: 300, delta: 100, ratio: 1.5 }), [
    "200",
    "300",
    "+100",
    "×1.50",
  ]);
  assert.deepEqual(deltaCells({ status: "added", before: null, after: 40, delta: 40, ratio: null }), [
    "—",
    "40",
    "+40",
    "—",
  ]);
});

test("deltaClass colours by the sign of the delta", () => {
  assert.equal(deltaClass({ status: "changed", before: 2, after: 1, delta: -1, ratio: 0.5 }), "ipu-nb-delta-faster");
  assert.equal(deltaClass({ status: "changed", before: 1, after: 2, delta: 1, ratio: 2 }), "ipu-nb-delta-slower");
  assert.equal(deltaClass(null), "ipu-nb-delta-same");
});
