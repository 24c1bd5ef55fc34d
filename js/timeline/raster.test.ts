import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawWindow } from "../kernel/types";
import type { Shares } from "./cells";
import { blockPixels, cellPalette, gridPixels, PixelScratch } from "./raster";

const colours: [number, number, number][] = Array.from({ length: 32 }, (_, i) => [i * 8, 255 - i * 8, (i * 37) % 256]);
const palette = cellPalette(colours);

/** The pixel word drawn over `bg` (source-over in sRGB, as a canvas does): RGB 0..255. */
function over(word: number, bg: [number, number, number]): number[] {
  const a = (word >>> 24) / 255;
  return [word & 255, (word >>> 8) & 255, (word >>> 16) & 255].map((c, i) => a * c + (1 - a) * bg[i]);
}

/** What a cell must look like: Σ sₖ·cₖ + (1 − Σ sₖ)·bg, written out independently. */
function expected(shares: [number, number][], bg: [number, number, number]): number[] {
  const total = shares.reduce((t, [, s]) => t + s, 0) / 255;
  return [0, 1, 2].map((i) => shares.reduce((t, [c, s]) => t + (s / 255) * colours[c][i], 0) + (1 - total) * bg[i]);
}

test("a cell's pixel over any background is its classes' colours mixed by share, the rest background", () => {
  // Two rows of three bins; classes 0 (grey), 2 and 5.
  const cells: Shares = {
    classes: [0, 2, 5],
    planes: Uint8Array.from([
      ...[0, 0, 10, 0, 255, 0], // class 0
      ...[255, 100, 0, 0, 0, 1], // class 2
      ...[0, 155, 200, 0, 0, 0], // class 5
    ]),
  };
  const { pixels, width, height } = gridPixels(cells, 3, 2, palette);
  assert.deepEqual([width, height], [3, 2]);
  assert.equal(pixels[3], 0, "an empty cell is transparent");
  for (const bg of [
    [250, 250, 250],
    [33, 33, 33],
  ] as [number, number, number][]) {
    for (let k = 0; k < 6; k++) {
      const shares = cells.classes.map((c, p) => [c, cells.planes[p * 6 + k]] as [number, number]);
      const got = over(pixels[k], bg);
      const want = expected(shares, bg);
      for (let i = 0; i < 3; i++) assert.ok(Math.abs(got[i] - want[i]) <= 1, `cell ${k}: ${got} vs ${want}`);
    }
  }
});

test("a job's pixels: the kernel's cells with rows averaged and reordered for the layout", () => {
  // Three kernel rows of two bins, one class; display rows: [row 2, row 0] averaged, then [row 1].
  const cells: Shares = { classes: [1], planes: Uint8Array.from([200, 0, 10, 20, 100, 255]) };
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
  assert.deepEqual(
    [...pixels].map((w) => w >>> 24),
    [150, 128, 10, 20],
  );
  assert.deepEqual([pixels[0] & 255, (pixels[0] >>> 8) & 255, (pixels[0] >>> 16) & 255], colours[1]);
});

test("a job of raw intervals: re-binned for its block, then laid out like the kernel's cells", () => {
  const window: Pick<RawWindow, "start" | "count" | "x0" | "x1" | "row" | "flags" | "sample"> = {
    start: 100,
    count: 2,
    x0: Float32Array.from([0, 10]), // cycles 100–110 on row 0, 110–115 on row 1 (relative to the window's start)
    x1: Float32Array.from([10, 15]),
    row: Uint16Array.from([0, 1]),
    flags: Uint8Array.from([0x80 | 2, 5]), // the second does not match: grey (class 0)
    sample: Uint32Array.from([7, 8]),
  };
  const job = {
    cells: { window, from: 100, width: 10 },
    bins: 2,
    rows: 2,
    offsets: Int32Array.from([0, 1, 2]),
    members: Int32Array.from([1, 0]),
    palette,
  };
  const { pixels } = blockPixels(job);
  assert.deepEqual(
    [...pixels].map((w) => w >>> 24),
    [0, 128, 255, 0],
  );
  assert.deepEqual([pixels[1] & 255, (pixels[1] >>> 8) & 255, (pixels[1] >>> 16) & 255], colours[0]);
  assert.deepEqual([pixels[2] & 255, (pixels[2] >>> 8) & 255, (pixels[2] >>> 16) & 255], colours[2]);
});

test("pixels made in a reused scratch buffer are those of a fresh one", () => {
  const scratch = new PixelScratch();
  const big: Shares = { classes: [1, 3], planes: Uint8Array.from({ length: 24 }, (_, i) => (i * 53) % 128) };
  assert.deepEqual([...gridPixels(big, 4, 3, palette, scratch).pixels], [...gridPixels(big, 4, 3, palette).pixels]);
  const small: Shares = { classes: [2], planes: Uint8Array.from([30, 255, 1]) };
  const reused = gridPixels(small, 3, 1, palette, scratch);
  assert.deepEqual([...reused.pixels], [...gridPixels(small, 3, 1, palette).pixels]);
});
