// Samples Python marked with `widget.highlight(frame)`: the kernel sends their ids and places
// (start, end, timeline row; sorted by start) in binary buffers, and they are outlined on a
// layer of their own over the bars, at any zoom: per row, marks that touch are merged, and
// none is narrower than two pixels.

import { css, theme } from "../common/colors";
import { el } from "../common/dom";
import { typed } from "../kernel/buffers";
import type { HighlightMessage } from "../kernel/protocol";
import { lowerBound } from "../panels/search";
import { layerContext } from "./layer";
import { GUTTER, pixelsPerCycle, plotWidth } from "./plot";
import { type Layout, screenRowOf } from "./tracks";
import type { Range } from "./view";

/** Highlighted samples as sent: `start.length` of `count` (the first by offset). */
export interface Marks {
  count: number;
  start: Float64Array;
  end: Float64Array;
  row: Uint16Array;
  sample: Uint32Array;
  /** The longest mark, so those starting before the view and reaching into it are found by bisection. */
  longest: number;
}

export function decodeMarks(msg: HighlightMessage, buffers: DataView[]): Marks | null {
  if (msg.count === 0) return null;
  const start = typed(Float64Array, buffers[0]);
  const end = typed(Float64Array, buffers[1]);
  let longest = 0;
  for (let i = 0; i < start.length; i++) longest = Math.max(longest, end[i] - start[i]);
  return {
    count: msg.count,
    start,
    end,
    row: typed(Uint16Array, buffers[2]),
    sample: typed(Uint32Array, buffers[3]),
    longest,
  };
}

/** Per screen row, the merged pixel runs `[x0, x1]` of the marks in view (x in CSS pixels). */
export function markRuns(
  marks: Marks,
  view: Range,
  width: number,
  layout: Layout,
  displayRowOf: (row: number) => number,
): Map<number, [number, number][]> {
  const [s, e] = view;
  const k = pixelsPerCycle(view, width);
  const out = new Map<number, [number, number][]>();
  for (let i = lowerBound(marks.start, s - marks.longest); i < marks.start.length; i++) {
    if (marks.start[i] > e) break;
    if (marks.end[i] < s) continue;
    const screen = screenRowOf(layout, displayRowOf(marks.row[i]));
    if (screen < 0) continue;
    const x0 = GUTTER + (marks.start[i] - s) * k;
    const x1 = Math.max(GUTTER + (marks.end[i] - s) * k, x0 + 2);
    const runs = out.get(screen);
    const last = runs?.[runs.length - 1];
    if (last && x0 <= last[1] + 1) last[1] = Math.max(last[1], x1);
    else if (runs) runs.push([x0, x1]);
    else out.set(screen, [[x0, x1]]);
  }
  return out;
}

export class Highlights {
  readonly layer = el("canvas", "ipu-nb-timeline-highlight");
  private marks: Marks | null = null;

  constructor(
    private view: () => Range,
    private frame: () => { width: number; height: number; layout: Layout },
    private displayRowOf: (row: number) => number,
  ) {}

  set(msg: HighlightMessage, buffers: DataView[]): void {
    this.marks = decodeMarks(msg, buffers);
    this.layer.dataset.count = String(msg.count);
    this.draw();
  }

  draw(): void {
    const { width, height, layout } = this.frame();
    const marks = this.marks;
    const ctx = layerContext(this.layer, width, height, marks !== null);
    if (!marks || !ctx) {
      if (this.layer.dataset.drawn !== "0") this.layer.dataset.drawn = "0";
      return;
    }
    const rowCss = layout.rowPx / (window.devicePixelRatio || 1);
    const ink: [number, number, number] = theme().dark ? [255, 92, 200] : [214, 0, 140];
    const right = GUTTER + plotWidth(width);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, right - GUTTER, height);
    ctx.clip();
    ctx.fillStyle = css(ink, 0.3);
    ctx.strokeStyle = css(ink);
    ctx.lineWidth = rowCss >= 4 ? 1.5 : 1;
    let drawn = 0;
    for (const [screen, runs] of markRuns(marks, this.view(), width, layout, this.displayRowOf)) {
      for (const [x0, x1] of runs) {
        const a = Math.max(x0, GUTTER - 2);
        const b = Math.min(x1, right + 2);
        ctx.fillRect(a, screen * rowCss, b - a, rowCss);
        if (rowCss >= 3) ctx.strokeRect(a + 0.5, screen * rowCss + 0.5, b - a - 1, rowCss - 1);
        drawn++;
      }
    }
    ctx.restore();
    this.layer.dataset.drawn = String(drawn);
  }
}
