import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawWindow } from "../kernel/types";
import { blockPixels, cellPalette, gridPixels, PixelScratch } from "./raster";

const cell = (cls: number, level: number) => cls | (level << 5);
const colours: [number, number, number][] = Array.from({ length: 32 }, (_, i) => [i * 8, 255 - i * 8, i]);
const palette = cellPalette(colours);
/** The RGBA word of a cell, written out independently of cellPalette. */
const rgba = (c: number) => {
  if (c >> 5 === 0) return 0;
  const [r, g, b] = colours[c & 31];
  return ((Math.round(255 * (0.3 + (0.7 * (c >> 5)) / 7)) << 24) | (b << 16) | (g << 8) | r) >>> 0;
};

test("grid pixels: one RGBA word per cell, level 0 transparent", () => {
  const cells = Uint8Array.from([cell(1, 7), 0, cell(3, 1), cell(0, 4)]);
  const { pixels, width, height } = gridPixels(cells, 2, 2, palette);
  assert.deepEqual([width, height], [2, 2]);
  assert.deepEqual([...pixels], [...cells].map(rgba));
  assert.equal(pixels[1], 0);
});

test("a job's pixels: the kernel's cells with rows merged and reordered for the layout", () => {
  // Three kernel rows of two bins; display rows: [row 2, row 0] merged, then [row 1].
  const cells = Uint8Array.from([cell(1, 2), 0, cell(2, 6), cell(0, 7), 0, cell(3, 1)]);
  const job = {
    cells,
    bins: 2,
    rows: 3,
    offsets: Int32Array.from([0, 2, 3]),
    members: Int32Array.from([2, 0, 1]),
    palette,
  };
  const { pixels, width, height } = blockPixels(job);
  assert.deepEqual([width, height], [2, 2]);
  assert.deepEqual([...pixels], [cell(1, 2), cell(3, 1), cell(2, 6), cell(0, 7)].map(rgba));
});

test("a job of raw intervals: re-binned for its block, then laid out like the kernel's cells", () => {
  const window: Pick<RawWindow, "start" | "count" | "x0" | "x1" | "row" | "flags" | "sample"> = {
    start: 100,
    count: 2,
    x0: Float32Array.from([0, 10]), // cycles 100–110 on row 0, 110–120 on row 1 (relative to the window's start)
    x1: Float32Array.from([10, 20]),
    row: Uint16Array.from([0, 1]),
    flags: Uint8Array.from([0x80 | 2, 0x80 | 5]),
    sample: Uint32Array.from([7, 8]),
  };
  // Two bins of 10 cycles from 100; display rows swapped.
  const job = {
    cells: { window, from: 100, width: 10 },
    bins: 2,
    rows: 2,
    offsets: Int32Array.from([0, 1, 2]),
    members: Int32Array.from([1, 0]),
    palette,
  };
  const { pixels } = blockPixels(job);
  assert.deepEqual([...pixels], [0, cell(5, 7), cell(2, 7), 0].map(rgba));
});

test("pixels made in a reused scratch buffer are those of a fresh one, the rest of it cleared", () => {
  const scratch = new PixelScratch();
  const big = Uint8Array.from({ length: 12 }, (_, i) => cell(i % 5, 1 + (i % 7)));
  assert.deepEqual([...gridPixels(big, 4, 3, palette, scratch).pixels], [...gridPixels(big, 4, 3, palette).pixels]);
  // A smaller image next, with fewer cells than pixels: what the last image left is not shown.
  const small = Uint8Array.from([cell(2, 3), cell(4, 7), cell(1, 1)]);
  const reused = gridPixels(small, 2, 2, palette, scratch);
  assert.deepEqual([reused.width, reused.height], [2, 2]);
  assert.deepEqual([...reused.pixels], [...gridPixels(small, 2, 2, palette).pixels]);
  assert.equal(reused.pixels[3], 0);
});
