// Geometry shared by the timeline and the overview: a gutter of labels on the left, then
// the plot, across which x runs linearly over a range of cycles.

import type { Range } from "./view";

/** Width in CSS pixels of the label gutter left of every plot. */
export const GUTTER = 46;

/** Width of the plot in a canvas `width` CSS pixels wide. */
export function plotWidth(width: number): number {
  return Math.max(10, width - GUTTER);
}

/** Height of one timeline row: 600 px shared by the rows, between 0.5 and 16 px each. */
export function rowHeight(rows: number): number {
  return Math.min(16, Math.max(0.5, 600 / Math.max(rows, 1)));
}

/** CSS pixels per cycle when `range` fills the plot of a canvas `width` wide. */
export function pixelsPerCycle([start, end]: Range, width: number): number {
  return plotWidth(width) / Math.max(end - start, 1);
}

/** The cycle under canvas x `px` (may lie outside `range` when `px` is outside the plot). */
export function cycleAt(px: number, [start, end]: Range, width: number): number {
  return start + ((px - GUTTER) / plotWidth(width)) * (end - start);
}
