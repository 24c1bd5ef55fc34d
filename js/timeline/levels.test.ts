import assert from "node:assert/strict";
import { test } from "node:test";
import { BLOCK_BINS, binWidth, blockRange, blocksIn, blockWidth, levelFor, rawCovers, topLevel } from "./levels";

test("levels: bins of 2^L cycles, blocks of BLOCK_BINS bins nest two into one a level up", () => {
  assert.equal(binWidth(0), 1);
  assert.equal(blockWidth(3), 8 * BLOCK_BINS);
  for (const [level, index] of [
    [0, 0],
    [4, 7],
    [10, 123],
  ]) {
    const [a, b] = blockRange(level, index);
    const [c, d] = blockRange(level + 1, Math.floor(index / 2));
    assert.ok(c <= a && b <= d, `block ${index} of level ${level} lies in its parent`);
  }
  assert.equal(topLevel(1), 0);
  assert.equal(topLevel(BLOCK_BINS), 0);
  assert.equal(topLevel(BLOCK_BINS + 1), 1);
  assert.ok(blockWidth(topLevel(3_334_224)) >= 3_334_224 && blockWidth(topLevel(3_334_224) - 1) < 3_334_224);
});

test("the view's level: bins at least one device pixel wide, at most two", () => {
  for (const [width, pixels] of [
    [3_334_224, 1308],
    [1000, 1000],
    [5000, 999],
    [1 << 20, 1024],
  ]) {
    const level = levelFor([0, width], pixels, 1e12);
    const perPixel = width / pixels;
    assert.ok(binWidth(level) >= perPixel - 1e-9, `${width}/${pixels}: bins of ${binWidth(level)} >= ${perPixel}`);
    assert.ok(level === 0 || binWidth(level - 1) < perPixel, "the finest such level");
  }
  assert.equal(levelFor([0, 8], 1000, 1e6), 0); // deeper than a cycle a pixel: level 0
  assert.equal(levelFor([0, 1e9], 10, 1000), topLevel(1000)); // never above the top
});

test("blocks in a range, clipped to the profile", () => {
  const w = blockWidth(2);
  assert.deepEqual(blocksIn(2, 0, w, 10 * w), [0]);
  assert.deepEqual(blocksIn(2, w - 1, w + 1, 10 * w), [0, 1]);
  assert.deepEqual(blocksIn(2, -5 * w, 2.5 * w, 2 * w), [0, 1]); // nothing beyond the end
  assert.deepEqual(blocksIn(2, 3 * w, 3 * w, 10 * w), []);
});

test("raw blocks stand in for finer levels while their f32 offsets are exact enough", () => {
  assert.ok(rawCovers(5, 0)); // small blocks: exact integers
  assert.ok(!rawCovers(5, 6)); // never for a coarser level
  const big = Math.log2(2 ** 30 / BLOCK_BINS); // a block of 2^30 cycles
  assert.ok(!rawCovers(big, 0));
  assert.ok(rawCovers(big, big - 3));
});
