import assert from "node:assert/strict";
import { test } from "node:test";
import type { RGB } from "../common/colors";
import {
  deltaCells,
  deltaClass,
  deltaColour,
  deltaRatio,
  deltaReach,
  FASTER,
  FULL_RATIO,
  flipped,
  ratioColour,
  SLOWER,
  signedCycles,
} from "./baseline";

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

test("deltaColour diverges from the background at 0 to red (slower) and blue (faster)", () => {
  const bg: RGB = [250, 250, 250];
  const grey: RGB = [120, 120, 130];
  assert.deepEqual(deltaColour(0, 100, bg, grey), bg);
  assert.deepEqual(deltaColour(null, 100, bg, grey), grey);
  const slow = deltaColour(100, 100, bg, grey);
  const fast = deltaColour(-100, 100, bg, grey);
  assert.ok(slow[0] > slow[2] && Math.abs(slow[0] - SLOWER[0]) < 20, String(slow));
  assert.ok(fast[2] > fast[0] && Math.abs(fast[2] - FASTER[2]) < 20, String(fast));
  // Beyond the reach it saturates; halfway it lies between.
  assert.deepEqual(deltaColour(1000, 100, bg, grey), slow);
  const half = deltaColour(50, 100, bg, grey);
  assert.ok(half[1] < bg[1] && half[1] > slow[1]);
});

test("deltaReach is the largest |delta| below the root, at least 1", () => {
  assert.equal(deltaReach([999_999, -30, null, 12]), 30);
  assert.equal(deltaReach([5]), 1);
});

test("deltaRatio is after ÷ before from the side shown: new and gone nodes at the ends", () => {
  // gelu: 150 cycles after, 100 before (Δ +50), shown from either side.
  assert.equal(deltaRatio(150, 50, true), 1.5);
  assert.equal(deltaRatio(100, 50, false), 1.5);
  assert.equal(deltaRatio(40, 40, true), Number.POSITIVE_INFINITY); // new after
  assert.equal(deltaRatio(40, -40, false), 0); // gone after
  assert.equal(deltaRatio(40, 0, true), 1);
  assert.equal(deltaRatio(40, null, true), null);
});

test("ratioColour shows a change relative to the box's own size, whatever the box's size", () => {
  const bg: [number, number, number] = [255, 255, 255];
  const grey: [number, number, number] = [128, 128, 128];
  // A small box ×1.5 and a big one ×1.5 get one colour, however small their Δ against the largest.
  const small = ratioColour(deltaRatio(150, 50, true), bg, grey);
  const big = ratioColour(deltaRatio(1.5e9, 5e8, true), bg, grey);
  assert.deepEqual(small, big);
  assert.ok(small[0] > small[2], "slower is red");
  assert.notDeepEqual(small, bg);
  assert.deepEqual(ratioColour(1, bg, grey), bg);
  assert.deepEqual(ratioColour(null, bg, grey), grey);
  // Full colour at FULL_RATIO and beyond, symmetric in log: ×2 slower as strong as ×1/2 faster.
  const slow = ratioColour(FULL_RATIO, bg, grey);
  assert.deepEqual(ratioColour(FULL_RATIO * 10, bg, grey), slow);
  assert.deepEqual(ratioColour(Number.POSITIVE_INFINITY, bg, grey), slow);
  const fast = ratioColour(1 / FULL_RATIO, bg, grey);
  assert.deepEqual(ratioColour(0, bg, grey), fast);
  // The two ends are as strong as the absolute scale's ends.
  assert.deepEqual(slow, deltaColour(100, 100, bg, grey));
  assert.deepEqual(fast, deltaColour(-100, 100, bg, grey));
  const towards = (c: number[], end: number[]) => c.reduce((d, v, i) => d + Math.abs(v - end[i]), 0);
  assert.ok(towards(small, SLOWER) > towards(slow, SLOWER), "×1.5 is lighter than ×2");
});
