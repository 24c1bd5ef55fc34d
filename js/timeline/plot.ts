// Geometry shared by the timeline and the overview: a gutter of labels on the left, then
// the plot, across which x runs linearly over a range of cycles. And the few colours the
// timeline's canvases draw with besides the data (one place, for the themes).

import type { Range } from "./view";

/** Width in CSS pixels of the label gutter left of every plot. */
export const GUTTER = 46;

/** Height in CSS pixels the timeline's rows share (the rows may leave a little of it unused). */
export const PLOT_HEIGHT = 600;

/** Colours of the timeline's canvases other than the data's. */
export const INK = {
  plot: "#fafafa",
  gutter: "#ffffff",
  text: "#555555",
  faint: "#888888",
  tick: "#999999",
  rowGap: "rgba(255,255,255,0.9)",
  separator: "rgba(0,0,0,0.25)",
  hoverRow: "rgba(0,0,0,0.06)",
  selection: "#111111",
  cursor: "#dd0000",
  drag: "rgba(40,110,220,0.15)",
  dragEdge: "rgba(40,110,220,0.8)",
  ruler: "rgba(20,150,90,0.16)",
  rulerEdge: "rgba(20,130,80,0.9)",
  veil: "rgba(255,255,255,0.72)",
  current: "#ff7a00",
  label: "#ffffff",
  pin: "#c05000",
};

/** Width of the plot in a canvas `width` CSS pixels wide. */
export function plotWidth(width: number): number {
  return Math.max(10, width - GUTTER);
}

/** CSS pixels per cycle when `range` fills the plot of a canvas `width` wide. */
export function pixelsPerCycle([start, end]: Range, width: number): number {
  return plotWidth(width) / Math.max(end - start, 1);
}

/** The cycle under canvas x `px` (may lie outside `range` when `px` is outside the plot). */
export function cycleAt(px: number, [start, end]: Range, width: number): number {
  return start + ((px - GUTTER) / plotWidth(width)) * (end - start);
}
