import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawWindow } from "../kernel/types";
import { cellsFromRaw, groupRows, mergeCell } from "./cells";

const cell = (cls: number, level: number) => cls | (level << 5);

type Sample = [row: number, a: number, b: number, cls: number, matched: boolean];

function raw(samples: Sample[], start = 0): RawWindow {
  const n = samples.length;
  const out: RawWindow = {
    mode: "raw",
    start,
    end: start + 100,
    count: n,
    x0: new Float32Array(n),
    x1: new Float32Array(n),
    row: new Uint16Array(n),
    flags: new Uint8Array(n),
    sample: Uint32Array.from(samples.map((_, i) => i)),
    labels: null,
    labelIndex: null,
  };
  samples.forEach(([row, a, b, cls, matched], i) => {
    out.row[i] = row;
    out.x0[i] = a - start;
    out.x1[i] = b - start;
    out.flags[i] = cls | (matched ? 0x80 : 0);
  });
  return out;
}

test("merged rows show the strongest cell: matching before grey, then the higher coverage", () => {
  assert.equal(mergeCell(cell(0, 7), cell(2, 1)), cell(2, 1)); // coloured beats grey
  assert.equal(mergeCell(cell(2, 3), cell(1, 5)), cell(1, 5));
  assert.equal(mergeCell(cell(3, 4), 0), cell(3, 4)); // empty never wins
  const cells = Uint8Array.from([cell(1, 2), 0, /* row 1 */ cell(2, 6), cell(0, 7), /* row 2 */ 0, cell(3, 1)]);
  // Display rows: [row 2, row 0] merged, then [row 1].
  const out = groupRows(cells, 2, Int32Array.from([0, 2, 3]), Int32Array.from([2, 0, 1]));
  assert.deepEqual([...out], [cell(1, 2), cell(3, 1), cell(2, 6), cell(0, 7)]);
});

test("raw intervals re-binned as the kernel summarises: dominant class, coverage in sevenths rounded up", () => {
  // Bins of 10 cycles from 100: bin 0 = [100, 110), …
  const cells = cellsFromRaw(
    raw(
      [
        [0, 100, 110, 1, true], // fills bin 0
        [0, 110, 113, 2, true], // 30 % of bin 1 …
        [0, 113, 120, 3, false], // … and 70 % filtered out: bin 1 shows class 2, 3/10 → level 3
        [1, 95, 125, 4, true], // starts before the block: bins 0, 1 whole, half of bin 2
        [1, 300, 310, 4, true], // beyond the 4 bins: nothing
      ],
      90,
    ),
    100,
    10,
    4,
    2,
  );
  assert.deepEqual([...cells.subarray(0, 4)], [cell(1, 7), cell(2, 3), 0, 0]);
  assert.deepEqual([...cells.subarray(4, 8)], [cell(4, 7), cell(4, 7), cell(4, 4), 0]);
  // Only filtered-out samples: grey, with their whole coverage.
  const grey = cellsFromRaw(raw([[0, 0, 5, 2, false]]), 0, 10, 1, 1);
  assert.deepEqual([...grey], [cell(0, 4)]);
});

test("raw samples in any row order give the same cells", () => {
  const samples: Sample[] = [
    [1, 100, 130, 2, true],
    [0, 105, 108, 1, false],
    [1, 131, 140, 3, true],
    [0, 110, 125, 4, true],
  ];
  const inOrder = cellsFromRaw(raw([samples[1], samples[3], samples[0], samples[2]]), 100, 10, 4, 2);
  const shuffled = cellsFromRaw(raw(samples), 100, 10, 4, 2);
  assert.deepEqual([...shuffled], [...inOrder]);
  assert.ok(inOrder.some((c) => c !== 0));
});

/** Plain reference: each cell on its own, from every sample of its row (offsets relative to `origin`). */
function referenceCells(
  samples: Sample[],
  origin: number,
  start: number,
  width: number,
  bins: number,
  rows: number,
): number[] {
  const out: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < bins; c++) {
      const [a, b] = [start + c * width, start + (c + 1) * width];
      let cover = 0;
      let matchedCover = 0;
      let best = 0;
      for (const [row, x0, x1, cls, matched] of samples) {
        if (row !== r) continue;
        // The kernel's offsets travel as f32 relative to the window's start.
        const u = Math.fround(x0 - origin) + origin;
        const v = Math.fround(x1 - origin) + origin;
        const part = (Math.min(v, b) - Math.max(u, a)) / width;
        if (part <= 0) continue;
        cover += part;
        if (matched) matchedCover += part;
        const key = (matched ? (1 << 24) | cls : 0) | (Math.floor(part * 65535) << 8);
        if (key > best) best = key;
      }
      const isMatched = best >= 1 << 24;
      const shown = Math.min(1, isMatched ? matchedCover : cover);
      out.push(cover > 0 ? (isMatched ? best & 31 : 0) | (Math.max(1, Math.ceil(shown * 7 - 1e-6)) << 5) : 0);
    }
  }
  return out;
}

function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
}

test("re-binned raw intervals match a plain per-cell reference on random rows and samples", () => {
  const rand = random(17);
  const bins = 16;
  const rows = 5;
  const samples: Sample[] = [];
  for (let r = 0; r < rows; r++) {
    if (r === 2) continue; // a row without samples
    for (let k = 0; k < 6; k++) {
      const a = 100 + rand() * 170;
      samples.push([r, a, a + rand() * 40, 1 + Math.floor(rand() * 5), rand() < 0.7]);
    }
  }
  const got = cellsFromRaw(raw(samples, 90), 110, 10, bins, rows);
  assert.deepEqual([...got], referenceCells(samples, 90, 110, 10, bins, rows));
  assert.ok(got.some((x) => x !== 0) && got.subarray(2 * bins, 3 * bins).every((x) => x === 0));
});

test("rows whose samples come by start (the kernel's order) match the reference, overlapping or not", () => {
  const rand = random(5);
  const bins = 24;
  const rows = 40;
  for (const overlap of [0, 0.3, 1]) {
    const samples: Sample[] = [];
    for (let r = 0; r < rows; r++) {
      let at = 60 + rand() * 30; // some rows begin left of the window: clipped
      for (let k = 0; k < 8; k++) {
        const length = rand() < 0.2 ? rand() * 3 : rand() * 60; // some within one bin
        samples.push([r, at, at + length, 1 + Math.floor(rand() * 5), rand() < 0.6]);
        // Next start: at the end (adjacent), after a gap, or back inside this sample.
        at += rand() < overlap ? length * rand() : length + (rand() < 0.3 ? 0 : rand() * 15);
      }
    }
    const got = cellsFromRaw(raw(samples, 90), 100, 10, bins, rows);
    assert.deepEqual([...got], referenceCells(samples, 90, 100, 10, bins, rows), `overlap ${overlap}`);
    assert.ok(got.some((x) => x >> 5 === 7) && got.some((x) => x >> 5 > 0 && x >> 5 < 7));
  }
});
