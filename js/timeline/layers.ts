// What the timeline draws beside the blocks themselves: the search marks layer, operation
// names on wide bars, the row labels of the gutter. Each is a function of one picture's
// geometry (`Frame`); the timeline calls them in order.

import { theme } from "../common/colors";
import { sizeCanvas } from "../common/dom";
import { fitText } from "../common/text";
import type { RawWindow } from "../kernel/types";
import type { Matches } from "../panels/search";
import { GUTTER, INK, pixelsPerCycle } from "./plot";
import { displayRowAt, type Layout, type TrackSource } from "./tracks";
import type { Range } from "./view";

/** One picture's geometry. */
export interface Frame {
  view: Range;
  /** Canvas and plot width, CSS pixels. */
  width: number;
  plotWidth: number;
  layout: Layout;
  dpr: number;
  /** The screen row showing kernel row `row`, -1 when it is not on screen. */
  screenOf(row: number): number;
}

/**
 * Text of a bar label fitted into `width` pixels with an ellipsis: the one function every
 * name drawn on the timeline goes through.
 */
export function labelText(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  return fitText(ctx, text, width); // shown neutralised, cut between code points (text.ts)
}

/** The label of display row `d`: its first tile's id, "+" when it holds more, "▲" when pinned. */
export function rowLabel(layout: Layout, d: number, tiles: number[]): string {
  const first = tiles[layout.members[layout.offsets[d]]];
  const more = layout.offsets[d + 1] - layout.offsets[d] > 1 ? "+" : "";
  return `${d < layout.pinnedRows ? "▲ " : ""}${first}${more}`;
}

/**
 * Search matches in view, on their own layer (`canvas`, `h` tall): everything else under a
 * veil, so the matches keep their colours, the matches cut out of it (merged per row where
 * they touch), the current one outlined. Returns whether the layer now holds anything (an
 * empty one that was empty is left alone).
 */
export function drawMarks(
  canvas: HTMLCanvasElement,
  f: Frame,
  h: number,
  found: { matches: Matches; current: number } | null,
  marked: boolean,
): boolean {
  if (!found && !marked) return false;
  const ctx = sizeCanvas(canvas, f.width, h);
  ctx.clearRect(0, 0, f.width, h);
  if (!found) return false;
  const { matches: m, current } = found;
  const [s, e] = f.view;
  const k = pixelsPerCycle(f.view, f.width);
  const rowCss = f.layout.rowPx / f.dpr;
  const screens = f.layout.pinnedRows + f.layout.scrolledRows;
  ctx.fillStyle = INK.veil;
  ctx.fillRect(GUTTER, 0, f.plotWidth, h);
  const runStart = new Float64Array(screens).fill(NaN);
  const runEnd = new Float64Array(screens);
  const right = GUTTER + f.plotWidth;
  const flush = (screen: number) => {
    const a = Math.max(runStart[screen], GUTTER);
    const b = Math.min(runEnd[screen], right);
    if (b > a) ctx.clearRect(a, screen * rowCss, b - a, rowCss);
  };
  const minW = 2;
  for (let i = 0; i < m.start.length; i++) {
    if (m.start[i] > e) break; // sorted by start
    if (m.end[i] < s) continue;
    const screen = f.screenOf(m.row[i]);
    if (screen < 0) continue;
    const x0 = GUTTER + (m.start[i] - s) * k;
    const x1 = Math.max(GUTTER + (m.end[i] - s) * k, x0 + minW);
    if (!Number.isNaN(runStart[screen]) && x0 <= runEnd[screen] + 1) {
      runEnd[screen] = Math.max(runEnd[screen], x1);
      continue;
    }
    if (!Number.isNaN(runStart[screen])) flush(screen);
    runStart[screen] = x0;
    runEnd[screen] = x1;
  }
  for (let screen = 0; screen < screens; screen++) if (!Number.isNaN(runStart[screen])) flush(screen);
  const screen = current >= 0 && current < m.start.length ? f.screenOf(m.row[current]) : -1;
  if (screen >= 0) {
    const x0 = GUTTER + (m.start[current] - s) * k;
    const x1 = Math.max(GUTTER + (m.end[current] - s) * k, x0 + 3);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, f.plotWidth, h);
    ctx.clip();
    ctx.strokeStyle = INK.current;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - 1, screen * rowCss - 1, x1 - x0 + 2, rowCss + 2);
    ctx.restore();
  }
  return true;
}

/** Operation names (else the colour class's name) on matching bars at least 50 px wide, from the raw blocks drawn. */
export function drawBarLabels(
  ctx: CanvasRenderingContext2D,
  f: Frame,
  raws: (RawWindow & { colorBy: string })[],
  legend: (mode: string) => string[],
): void {
  const [s, e] = f.view;
  const k = pixelsPerCycle(f.view, f.width);
  const rowCss = f.layout.rowPx / f.dpr;
  ctx.font = "10px sans-serif";
  ctx.fillStyle = INK.label;
  ctx.textBaseline = "middle";
  const done = new Set<number>(); // a sample in two blocks is labelled once
  for (const data of raws) {
    const names = legend(data.colorBy);
    for (let i = 0; i < data.count; i++) {
      if ((data.flags[i] & 0x80) === 0 || done.has(data.sample[i])) continue;
      const a = data.start + data.x0[i];
      const b = data.start + data.x1[i];
      if (b < s || a > e) continue;
      const x0 = Math.max(GUTTER + (a - s) * k, GUTTER);
      const x1 = Math.min(GUTTER + (b - s) * k, f.width);
      if (x1 - x0 < 50) continue;
      const screen = f.screenOf(data.row[i]);
      if (screen < 0) continue;
      done.add(data.sample[i]);
      const name =
        data.labels && data.labelIndex ? data.labels[data.labelIndex[i]] : (names[(data.flags[i] & 31) - 1] ?? "");
      ctx.fillText(labelText(ctx, name, x1 - x0 - 6), x0 + 3, screen * rowCss + rowCss / 2);
    }
  }
}

/**
 * Tile ids left of the rows: every ~12 px, inside the canvas (`h` tall: the last row's label
 * is never cut), never over the one before; pins marked and ruled off, grid columns ruled.
 */
export function drawGutter(
  ctx: CanvasRenderingContext2D,
  f: Frame,
  h: number,
  source: TrackSource,
  byGrid: boolean,
): void {
  const { layout } = f;
  ctx.fillStyle = theme().background;
  ctx.fillRect(0, 0, GUTTER - 2, h);
  ctx.font = "10px sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  const rowCss = layout.rowPx / f.dpr;
  const screens = layout.pinnedRows + layout.scrolledRows;
  const column = (d: number) => source.grid?.[layout.members[layout.offsets[d]]]?.[0];
  let lastY = -Infinity;
  for (let screen = 0; screen < screens; screen++) {
    const d = displayRowAt(layout, screen);
    if (d < 0) break;
    if (byGrid && screen > layout.pinnedRows && column(displayRowAt(layout, screen - 1)) !== column(d)) {
      ctx.fillStyle = INK.separator;
      ctx.fillRect(0, screen * rowCss, f.width, 1 / f.dpr);
    }
    const y = Math.min(Math.max(screen * rowCss + rowCss / 2, 5), h - 5);
    if (y - lastY < 11) continue;
    lastY = y;
    ctx.fillStyle = d < layout.pinnedRows ? INK.pin : theme().text;
    ctx.fillText(rowLabel(layout, d, source.rows), GUTTER - 5, y);
  }
  if (layout.pinnedRows > 0 && layout.scrolledRows > 0) {
    ctx.fillStyle = INK.pin;
    ctx.fillRect(0, layout.pinnedRows * rowCss - 1 / f.dpr, f.width, 1 / f.dpr);
  }
  ctx.textAlign = "left";
}
