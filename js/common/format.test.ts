import assert from "node:assert/strict";
import { test } from "node:test";
import { cycles, formatIntList, ms, parseIntList, plural, ticks } from "./format";

test("cycles abbreviates without dropping significant zeros", () => {
  assert.equal(cycles(0), "0");
  assert.equal(cycles(9999), "9999");
  assert.equal(cycles(500_000), "500k");
  assert.equal(cycles(1_500_000), "1.5M");
  assert.equal(cycles(2_000_000), "2M");
  assert.equal(cycles(10_000), "10k");
  assert.equal(cycles(3_334_224), "3.33M");
  assert.equal(cycles(4_300_000_000), "4.3G");
});

test("ms is (c × 1000) / clockHz as docs/reference/format.md#milliseconds says, and 0 without a clock", () => {
  assert.equal(ms(1_500_000, 1_500_000_000), "1.000 ms");
  assert.equal(ms(1500, 1_500_000_000), "1.00 µs");
  assert.equal(ms(5, 0), "0 ms");
});

test("ticks land on 1/2/5 steps inside the range", () => {
  assert.deepEqual(ticks(0, 100, 5), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(ticks(13, 47, 3), [20, 40]); // step 20: the first of 1/2/5 × 10^k not below 34 / 3
  assert.deepEqual(ticks(5, 5, 3), []);
});

test("integer lists parse ranges and round-trip", () => {
  assert.deepEqual(parseIntList("3, 5-7 64"), [3, 5, 6, 7, 64]);
  assert.deepEqual(parseIntList(""), []);
  assert.equal(formatIntList([3, 5, 6, 7, 64]), "3, 5-7, 64");
  assert.throws(() => parseIntList("3,x"), /not a number/);
  assert.throws(() => parseIntList("7-5"), /bad range/);
});

test("plural: one noun for exactly one, the plural (or an irregular one) otherwise, the count grouped", () => {
  assert.equal(plural(1, "matching sample"), "1 matching sample");
  assert.equal(plural(0, "tile"), "0 tiles");
  assert.equal(plural(2, "tile"), "2 tiles");
  assert.equal(plural(1_170_240, "sample"), "1,170,240 samples");
  assert.equal(plural(1, "entry", "entries"), "1 entry");
  assert.equal(plural(3, "entry", "entries"), "3 entries");
});
