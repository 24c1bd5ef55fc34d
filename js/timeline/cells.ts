// Cell grids: one byte per (timeline row, bin), `class | level << 5` as the kernel sends them
// (docs/widget-protocol.md#window). Here: the cells of a raw block re-binned for any finer
// block (so zooming into raw intervals needs no kernel), and rows merged for the track
// layout (several tiles in one pixel row).

import type { RawWindow } from "../kernel/types";

/** How strongly a cell shows: matching (coloured) cells first, then the higher coverage. */
const STRENGTH = new Uint8Array(256);
for (let c = 0; c < 256; c++) STRENGTH[c] = (c >> 5 === 0 ? 0 : 8) + ((c & 31) !== 0 ? 8 : 0) + (c >> 5);

/** The stronger of two cells: what a merged row shows where its tiles differ. */
export function mergeCell(a: number, b: number): number {
  return STRENGTH[b] > STRENGTH[a] ? b : a;
}

/**
 * The cells of the tiles `members[offsets[d]] … members[offsets[d + 1] - 1]` merged into
 * display row `d` (the strongest cell of each bin), for every display row: a grid of
 * `offsets.length - 1` rows.
 */
export function groupRows(cells: Uint8Array, bins: number, offsets: Int32Array, members: Int32Array): Uint8Array {
  const rows = offsets.length - 1;
  const out = new Uint8Array(rows * bins);
  for (let d = 0; d < rows; d++) {
    const o = d * bins;
    const first = members[offsets[d]] * bins;
    out.set(cells.subarray(first, first + bins), o);
    for (let m = offsets[d] + 1; m < offsets[d + 1]; m++) {
      const src = members[m] * bins;
      for (let i = 0; i < bins; i++) {
        const c = cells[src + i];
        if (STRENGTH[c] > STRENGTH[out[o + i]]) out[o + i] = c;
      }
    }
  }
  return out;
}

/**
 * Cells of `rows` × `bins` for the bins of `width` cycles from `start`, made from raw
 * intervals the way the kernel summarises (lod/summaries.py): each cell holds the class of
 * the sample overlapping it most (a matching one first, class 0 when only filtered-out
 * samples touch it) and its coverage in sevenths rounded up (of matching samples for a
 * coloured cell, of all samples for a grey one).
 */
export function cellsFromRaw(raw: RawWindow, start: number, width: number, bins: number, rows: number): Uint8Array {
  const out = new Uint8Array(rows * bins);
  // Raw blocks list their samples row by row (the kernel's index order): one row's sums at a time.
  const cover = new Float64Array(bins);
  const matchedCover = new Float64Array(bins);
  const best = new Int32Array(bins);
  const shift = raw.start - start;
  const { x0, x1, row: rowOf, flags: flagsOf, count } = raw;
  // In the kernel's order a row's samples also come by start: then a bin inside one sample
  // that no other sample of its row reaches is covered by it alone, and its cell is known.
  const byStart = startsInOrder(raw);
  let current = -1;
  // The bins the current row's samples touched: a row is written and reset over those only.
  let lo = bins;
  let hi = -1;
  // The last bin the current row's earlier samples reached.
  let reach = -1;
  const flush = () => {
    if (current < 0 || hi < lo) return;
    const o = current * bins;
    for (let c = lo; c <= hi; c++) {
      if (cover[c] > 0) {
        const matched = best[c] >= 1 << 24;
        const shown = Math.min(1, matched ? matchedCover[c] : cover[c]);
        out[o + c] = (matched ? best[c] & 31 : 0) | (Math.max(1, Math.ceil(shown * 7 - 1e-6)) << 5);
      }
    }
    cover.fill(0, lo, hi + 1);
    matchedCover.fill(0, lo, hi + 1);
    best.fill(0, lo, hi + 1);
    lo = bins;
    hi = -1;
  };
  const add = (c: number, part: number, matched: boolean, tag: number) => {
    if (part <= 0) return;
    cover[c] += part;
    if (matched) matchedCover[c] += part;
    const key = tag | (Math.floor(part * 65535) << 8);
    if (key > best[c]) best[c] = key;
  };
  for (let i = 0; i < count; i++) {
    const row = rowOf[i];
    if (row >= rows) continue;
    if (row !== current) {
      if (row < current) return cellsFromRawAnyOrder(raw, start, width, bins, rows);
      flush();
      current = row;
      reach = -1;
    }
    let u = (x0[i] + shift) / width;
    let v = (x1[i] + shift) / width;
    if (u < 0) u = 0;
    if (v > bins) v = bins;
    if (!(v > u)) continue;
    const flags = flagsOf[i];
    const matched = (flags & 0x80) !== 0;
    const tag = matched ? (1 << 24) | (flags & 31) : 0;
    const last = Math.min(Math.ceil(v), bins) - 1;
    const first = Math.floor(u);
    if (first < lo) lo = first;
    if (last > hi) hi = last;
    add(first, Math.min(v, first + 1) - u, matched, tag);
    if (last > first) {
      // The bins between the first and the last are covered whole.
      const next = i + 1 < count && rowOf[i + 1] === row ? Math.floor(Math.max(0, (x0[i + 1] + shift) / width)) : bins;
      if (byStart && reach <= first && next >= last) {
        // No other sample of the row reaches them: full coverage of this sample's class.
        out.fill((matched ? flags & 31 : 0) | (7 << 5), current * bins + first + 1, current * bins + last);
      } else {
        for (let c = first + 1; c < last; c++) add(c, 1, matched, tag);
      }
      add(last, v - last, matched, tag);
    }
    if (last > reach) reach = last;
  }
  flush();
  return out;
}

/** Whether each row's samples come by start offset (rows in any order). */
function startsInOrder(raw: RawWindow): boolean {
  for (let i = 1; i < raw.count; i++) {
    if (raw.row[i] === raw.row[i - 1] && raw.x0[i] < raw.x0[i - 1]) return false;
  }
  return true;
}

/** `cellsFromRaw` for samples in any row order: whole-grid sums (more memory, same cells). */
function cellsFromRawAnyOrder(raw: RawWindow, start: number, width: number, bins: number, rows: number): Uint8Array {
  const sorted = Array.from({ length: raw.count }, (_, i) => i).sort((a, b) => raw.row[a] - raw.row[b] || a - b);
  const pick = <T extends Float32Array | Uint16Array | Uint8Array | Uint32Array>(a: T): T => {
    const b = new (a.constructor as { new (n: number): T })(raw.count);
    sorted.forEach((j, i) => {
      b[i] = a[j];
    });
    return b;
  };
  const ordered: RawWindow = {
    ...raw,
    x0: pick(raw.x0),
    x1: pick(raw.x1),
    row: pick(raw.row),
    flags: pick(raw.flags),
    sample: pick(raw.sample),
  };
  return cellsFromRaw(ordered, start, width, bins, rows);
}
