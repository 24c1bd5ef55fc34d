// Zoom levels and time blocks: the units the timeline caches and asks the kernel for.
// At level L a bin is 2^L cycles wide and a block holds BLOCK_BINS bins, so block k of
// level L covers [k·B·2^L, (k+1)·B·2^L); the blocks of level L + 1 each hold two of level
// L exactly. The view is drawn at the finest level whose bins are at least one device
// pixel wide, so scaling a block onto the screen repeats columns and never drops one.

import type { Range } from "./view";

/** Bins (cells per timeline row) in one block. */
export const BLOCK_BINS = 512;

/** Cycles per bin at `level`. */
export function binWidth(level: number): number {
  return 2 ** level;
}

/** Cycles covered by one block of `level`. */
export function blockWidth(level: number): number {
  return BLOCK_BINS * 2 ** level;
}

/** The coarsest level worth having: one block covers the whole profile. */
export function topLevel(span: number): number {
  return Math.max(0, Math.ceil(Math.log2(Math.max(span, 1) / BLOCK_BINS)));
}

/** The level to draw `view` at, `pixels` device pixels wide: bins of 1 to 2 device pixels (never below level 0). */
export function levelFor([start, end]: Range, pixels: number, span: number): number {
  const perPixel = (end - start) / Math.max(pixels, 1);
  const level = perPixel <= 1 ? 0 : Math.ceil(Math.log2(perPixel) - 1e-9);
  return Math.min(level, topLevel(span));
}

/** Indices of the blocks of `level` overlapping `[start, end)`, clipped to the profile `[0, limit)`. */
export function blocksIn(level: number, start: number, end: number, limit: number): number[] {
  const width = blockWidth(level);
  const a = Math.max(0, start);
  const b = Math.min(end, limit);
  if (b <= a) return [];
  const out: number[] = [];
  for (let k = Math.floor(a / width); k * width < b; k++) out.push(k);
  return out;
}

/** `[start, end)` of block `index` of `level`. */
export function blockRange(level: number, index: number): Range {
  const width = blockWidth(level);
  return [index * width, (index + 1) * width];
}

/**
 * Whether a raw block of `source` level can stand in for blocks of `target` level: its offsets
 * travel as f32 relative to the block's start, exact below 2^24 cycles, and otherwise off
 * by far less than a bin of the target.
 */
export function rawCovers(source: number, target: number): boolean {
  return source >= target && (blockWidth(source) <= 2 ** 24 || binWidth(target) * 2 ** 20 >= blockWidth(source));
}
