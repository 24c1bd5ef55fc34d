// Cell grids: for each colour class present (a plane), each (timeline row, bin)'s share of
// its cycles that class covers, in 255ths (docs/widget-protocol.md#window; the kernel's
// lod/shares.py). Every step that combines cells adds shares, so a picture's mean colour is the
// cycle-weighted mean of the class colours at every zoom. Here: the cells of a raw block
// re-binned for any finer block (so zooming into raw intervals needs no kernel), and rows
// averaged for the track layout (several tiles in one pixel row).

import type { RawWindow } from "../kernel/types";

/** Cells of `rows` × `bins`: plane `p` (`planes[p·rows·bins …]`) holds class `classes[p]`'s shares (class 0: not matching). */
export interface Shares {
  classes: number[];
  planes: Uint8Array;
}

/**
 * Exact shares of one cell (`sums[p]` for plane p, adding up to at most 1 unless samples
 * overlap, then scaled to their cover) written as 255ths rounded cumulatively over the planes,
 * as the kernel's `quantise`: each within one unit, and never more than 255 together.
 */
function writeCell(sums: Float64Array, at: number, stride: number, planes: number, out: Uint8Array, step = 1): void {
  let total = 0;
  for (let p = 0; p < planes; p++) total += sums[p * step];
  const scale = total > 1 ? 1 / total : 1;
  let cum = 0;
  let before = 0;
  for (let p = 0; p < planes; p++) {
    cum += sums[p * step] * scale;
    const level = Math.floor(Math.min(cum, 1) * 255 + 0.5);
    out[p * stride + at] = level - before;
    before = level;
  }
}

/**
 * The cells of the tiles `members[offsets[d]] … members[offsets[d + 1] - 1]` averaged into
 * display row `d` (each class's mean share over them, rounded cumulatively over the planes so
 * a cell never passes 255), for every display row: a grid of `offsets.length - 1` rows.
 */
export function groupRows(cells: Shares, bins: number, offsets: Int32Array, members: Int32Array): Shares {
  const planes = cells.classes.length;
  const rows = offsets.length - 1;
  const inRows = planes ? cells.planes.length / planes / bins : 0;
  const out = new Uint8Array(planes * rows * bins);
  const cum = new Uint32Array(bins);
  const before = new Uint32Array(bins);
  for (let d = 0; d < rows; d++) {
    const n = offsets[d + 1] - offsets[d];
    if (n === 0) continue;
    const o = d * bins;
    if (n === 1) {
      const src = members[offsets[d]] * bins;
      for (let p = 0; p < planes; p++) {
        const base = p * inRows * bins + src;
        out.set(cells.planes.subarray(base, base + bins), p * rows * bins + o);
      }
      continue;
    }
    cum.fill(0);
    before.fill(0);
    for (let p = 0; p < planes; p++) {
      for (let m = offsets[d]; m < offsets[d + 1]; m++) {
        const src = p * inRows * bins + members[m] * bins;
        for (let i = 0; i < bins; i++) cum[i] += cells.planes[src + i];
      }
      const dst = p * rows * bins + o;
      for (let i = 0; i < bins; i++) {
        const level = Math.floor(cum[i] / n + 0.5);
        out[dst + i] = level - before[i];
        before[i] = level;
      }
    }
  }
  return { classes: cells.classes, planes: out };
}

/**
 * Cells of `rows` × `bins` for the bins of `width` cycles from `start`, made from raw
 * intervals the way the kernel summarises (lod/shares.py): each class's share of each cell
 * (a sample not matching the filters counts for class 0), the planes the classes present in
 * ascending order.
 */
export function cellsFromRaw(raw: RawWindow, start: number, width: number, bins: number, rows: number): Shares {
  const { x0, x1, row: rowOf, flags: flagsOf, count } = raw;
  const slotOf = (f: number) => ((f & 0x80) !== 0 ? f & 31 : 0);
  const present = new Set<number>();
  for (let i = 0; i < count; i++) if (rowOf[i] < rows && x1[i] > x0[i]) present.add(slotOf(flagsOf[i]));
  const classes = [...present].sort((a, b) => a - b);
  const planeOf = new Int32Array(32);
  classes.forEach((c, p) => {
    planeOf[c] = p;
  });
  const planes = classes.length;
  const out = new Uint8Array(planes * rows * bins);
  if (!planes) return { classes, planes: out };
  const order = Array.from({ length: count }, (_, i) => i);
  let sorted = true;
  for (let i = 1; i < count && sorted; i++) sorted = rowOf[i] >= rowOf[i - 1];
  if (!sorted) order.sort((a, b) => rowOf[a] - rowOf[b] || a - b);
  // One row's sums at a time: plane-major for that row, `bins` a plane.
  const sums = new Float64Array(planes * bins);
  const stride = rows * bins;
  const shift = raw.start - start;
  let current = -1;
  let lo = bins;
  let hi = -1;
  const flush = () => {
    if (current < 0 || hi < lo) return;
    for (let c = lo; c <= hi; c++) writeCell(sums.subarray(c), current * bins + c, stride, planes, out, bins);
    for (let p = 0; p < planes; p++) sums.fill(0, p * bins + lo, p * bins + hi + 1);
    lo = bins;
    hi = -1;
  };
  for (const i of order) {
    const row = rowOf[i];
    if (row >= rows) continue;
    if (row !== current) {
      flush();
      current = row;
    }
    let u = (x0[i] + shift) / width;
    let v = (x1[i] + shift) / width;
    if (u < 0) u = 0;
    if (v > bins) v = bins;
    if (!(v > u)) continue;
    const base = planeOf[slotOf(flagsOf[i])] * bins;
    const first = Math.floor(u);
    const last = Math.min(Math.ceil(v), bins) - 1;
    if (first < lo) lo = first;
    if (last > hi) hi = last;
    if (last === first) {
      sums[base + first] += v - u;
      continue;
    }
    sums[base + first] += first + 1 - u;
    for (let c = first + 1; c < last; c++) sums[base + c] += 1;
    sums[base + last] += v - last;
  }
  flush();
  return { classes, planes: out };
}
