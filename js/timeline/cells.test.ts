import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawWindow } from "../kernel/types";
import { cellsFromRaw, groupRows, type Shares } from "./cells";

/** A raw window of intervals `[x0, x1, row, class, matched]` relative to `start`. */
function rawOf(start: number, items: [number, number, number, number, boolean][]): RawWindow {
  return {
    mode: "raw",
    start,
    end: 0,
    count: items.length,
    x0: Float32Array.from(items.map((i) => i[0])),
    x1: Float32Array.from(items.map((i) => i[1])),
    row: Uint16Array.from(items.map((i) => i[2])),
    flags: Uint8Array.from(items.map((i) => i[3] | (i[4] ? 0x80 : 0))),
    sample: Uint32Array.from(items.map((_, k) => k)),
    labels: null,
    labelIndex: null,
  };
}

/** A small deterministic generator (the tests must not depend on Math.random). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Disjoint intervals per row, gaps between some, in row order (the kernel's). */
function randomRaw(seed: number, rows: number): RawWindow {
  const next = rng(seed);
  const items: [number, number, number, number, boolean][] = [];
  for (let r = 0; r < rows; r++) {
    let at = Math.floor(next() * 20);
    while (at < 400) {
      const d = 1 + Math.floor(next() * (next() < 0.5 ? 4 : 60));
      items.push([at, at + d, r, 1 + Math.floor(next() * 4), next() < 0.7]);
      at += d + (next() < 0.3 ? Math.floor(next() * 9) : 0);
    }
  }
  return rawOf(0, items);
}

/** The exact share of each class in each cell, written out plainly: `{class: Float64Array(rows × bins)}`. */
function exactShares(raw: RawWindow, start: number, width: number, bins: number, rows: number) {
  const out = new Map<number, Float64Array>();
  for (let i = 0; i < raw.count; i++) {
    const cls = raw.flags[i] & 0x80 ? raw.flags[i] & 31 : 0;
    const a = raw.x0[i] + raw.start;
    const b = raw.x1[i] + raw.start;
    if (!(b > a) || raw.row[i] >= rows) continue;
    if (!out.has(cls)) out.set(cls, new Float64Array(rows * bins));
    const grid = out.get(cls)!;
    for (let j = 0; j < bins; j++) {
      const lo = start + j * width;
      const o = Math.max(0, Math.min(b, lo + width) - Math.max(a, lo)) / width;
      grid[raw.row[i] * bins + j] += o;
    }
  }
  return out;
}

function plane(cells: Shares, cls: number, rows: number, bins: number): Uint8Array {
  const p = cells.classes.indexOf(cls);
  return cells.planes.subarray(p * rows * bins, (p + 1) * rows * bins);
}

test("raw intervals re-binned: each class's share of each cell, within one 255th, never past a whole cell", () => {
  for (let seed = 1; seed <= 6; seed++) {
    const rows = 5;
    const raw = randomRaw(seed, rows);
    for (const [start, width, bins] of [
      [0, 1, 400],
      [0, 8, 50],
      [3, 7, 40],
      [100, 2.5, 64],
    ]) {
      const got = cellsFromRaw(raw, start, width, bins, rows);
      const exact = exactShares(raw, start, width, bins, rows);
      assert.deepEqual(
        got.classes,
        [...exact.keys()].sort((a, b) => a - b),
      );
      const total = new Float64Array(rows * bins);
      for (const [cls, grid] of exact) {
        const mine = plane(got, cls, rows, bins);
        grid.forEach((share, k) => {
          total[k] += share;
          assert.ok(Math.abs(mine[k] - 255 * share) <= 1 + 1e-9, `seed ${seed} class ${cls} cell ${k}`);
        });
      }
      for (let k = 0; k < rows * bins; k++) {
        let sum = 0;
        for (let p = 0; p < got.classes.length; p++) sum += got.planes[p * rows * bins + k];
        assert.equal(sum, Math.floor(Math.min(total[k], 1) * 255 + 0.5), `seed ${seed} cell ${k}`);
      }
    }
  }
});

test("a thin sync between long computes fills its own cell where it is one, and its fraction above", () => {
  const raw = rawOf(0, [
    [0, 4000, 0, 1, true],
    [4000, 4200, 0, 3, true],
    [4200, 8000, 0, 1, true],
  ]);
  const fine = cellsFromRaw(raw, 0, 200, 40, 1);
  assert.equal(plane(fine, 3, 1, 40)[20], 255);
  assert.equal(plane(fine, 1, 1, 40)[20], 0);
  const coarse = cellsFromRaw(raw, 0, 1600, 5, 1);
  assert.deepEqual([...plane(coarse, 3, 1, 5)], [0, 0, 32, 0, 0]);
  assert.deepEqual([...plane(coarse, 1, 1, 5)], [255, 255, 223, 255, 255]);
});

test("rows out of order give the cells of the same rows in order", () => {
  const raw = randomRaw(9, 4);
  const order = Array.from({ length: raw.count }, (_, i) => i).reverse();
  const shuffled: RawWindow = {
    ...raw,
    x0: Float32Array.from(order.map((i) => raw.x0[i])),
    x1: Float32Array.from(order.map((i) => raw.x1[i])),
    row: Uint16Array.from(order.map((i) => raw.row[i])),
    flags: Uint8Array.from(order.map((i) => raw.flags[i])),
  };
  assert.deepEqual(cellsFromRaw(shuffled, 0, 8, 50, 4), cellsFromRaw(raw, 0, 8, 50, 4));
});

test("merged rows are the mean of their tiles' shares per class (conserving area), never past a whole cell", () => {
  const rows = 6;
  const bins = 50;
  const cells = cellsFromRaw(randomRaw(4, rows), 0, 8, bins, rows);
  // Display rows: [5, 0, 2], [1], [], [3, 4].
  const offsets = Int32Array.from([0, 3, 4, 4, 6]);
  const members = Int32Array.from([5, 0, 2, 1, 3, 4]);
  const merged = groupRows(cells, bins, offsets, members);
  assert.deepEqual(merged.classes, cells.classes);
  const planes = cells.classes.length;
  const shown = offsets.length - 1;
  assert.equal(merged.planes.length, planes * shown * bins);
  for (let d = 0; d < shown; d++) {
    const group = [...members.subarray(offsets[d], offsets[d + 1])];
    for (let i = 0; i < bins; i++) {
      let sum = 0;
      for (let p = 0; p < planes; p++) {
        const got = merged.planes[(p * shown + d) * bins + i];
        sum += got;
        const mean = group.length
          ? group.reduce((acc, r) => acc + cells.planes[(p * rows + r) * bins + i], 0) / group.length
          : 0;
        assert.ok(Math.abs(got - mean) <= 1, `row ${d} bin ${i} plane ${p}: ${got} vs ${mean}`);
      }
      assert.ok(sum <= 255);
      const whole = group.length
        ? group.reduce((acc, r) => {
            let t = 0;
            for (let p = 0; p < planes; p++) t += cells.planes[(p * rows + r) * bins + i];
            return acc + t;
          }, 0) / group.length
        : 0;
      assert.ok(Math.abs(sum - whole) <= 0.5 + 1e-9, "a merged cell covers what its tiles do on average");
    }
  }
  // A display row of one tile is that tile's row, byte for byte.
  for (let p = 0; p < planes; p++) {
    assert.deepEqual(
      [...merged.planes.subarray((p * shown + 1) * bins, (p * shown + 2) * bins)],
      [...cells.planes.subarray((p * rows + 1) * bins, (p * rows + 2) * bins)],
    );
  }
});

test("the mean share of a region is kept by every step: re-binned coarser, then merged", () => {
  const rows = 4;
  const raw = randomRaw(12, rows);
  const fine = cellsFromRaw(raw, 0, 1, 400, rows);
  const coarse = cellsFromRaw(raw, 0, 16, 25, rows);
  const merged = groupRows(coarse, 25, Int32Array.from([0, 4]), Int32Array.from([0, 1, 2, 3]));
  for (const cls of fine.classes) {
    const a = plane(fine, cls, rows, 400).reduce((s, v) => s + v, 0) / (rows * 400);
    const b = plane(coarse, cls, rows, 25).reduce((s, v) => s + v, 0) / (rows * 25);
    const c = plane(merged, cls, 1, 25).reduce((s, v) => s + v, 0) / 25;
    assert.ok(Math.abs(a - b) <= 1 && Math.abs(b - c) <= 1, `class ${cls}: ${a} ${b} ${c}`);
  }
});
