// The tile timeline: one row per tile (sorted by physical id), x = per-tile offset
// (docs/reference/format.md#offsets-and-durations).
// Draws the latest window from the kernel (raw intervals or per-pixel summaries) on a base
// canvas, and the cursor, selection, hovered row and drag on an overlay above it; mouse
// input on the overlay is timeline-input.ts's.

import { classColours, css, theme } from "./colors";
import type { Disposers } from "./disposers";
import { el, sizeCanvas } from "./dom";
import { cycles, ticks } from "./format";
import { GUTTER, pixelsPerCycle, plotWidth, rowHeight } from "./plot";
import type { SampleInfo } from "./protocol";
import { Raster } from "./raster";
import { fitText } from "./text";
import { type TimelineActions, TimelineInput } from "./timeline-input";
import type { WindowData } from "./types";

const AXIS = 20;

export interface TimelineHost extends TimelineActions {
  /** Physical tile id of each row, top to bottom. */
  rows(): number[];
  /** Names of colour classes 1, 2, … of a colour mode. */
  legend(mode: string): string[];
  at(): number | null;
  selected(): SampleInfo | null;
  /** The kernel's name for samples without a kernel (drawn grey when colouring by kernel). */
  noKernel(): string;
}

export class Timeline {
  readonly root = el("div", "ipu-nb-timeline");
  private base = el("canvas", "ipu-nb-timeline-base");
  private overlay = el("canvas", "ipu-nb-timeline-overlay");
  private axis = el("canvas", "ipu-nb-axis");
  private data: WindowData | null = null;
  private image: HTMLCanvasElement | null = null;
  private raster = new Raster();
  private width = 600;
  private input: TimelineInput;

  constructor(
    private host: TimelineHost,
    bag: Disposers,
  ) {
    const stack = el("div", "ipu-nb-timeline-stack");
    stack.append(this.base, this.overlay);
    this.root.append(stack, this.axis);
    const shape = { rowCount: () => host.rows().length, width: () => this.width, changed: () => this.drawOverlay() };
    this.input = new TimelineInput(this.overlay, host, shape, bag);
  }

  get plotHeight(): number {
    return this.host.rows().length * rowHeight(this.host.rows().length);
  }

  plotWidth(): number {
    return plotWidth(this.width);
  }

  /** Device pixels across the plot: the resolution to ask the kernel for. */
  pixels(): number {
    return Math.round(this.plotWidth() * (window.devicePixelRatio || 1));
  }

  resize(width: number): void {
    this.width = Math.max(200, width);
    this.draw();
  }

  setData(data: WindowData): void {
    this.data = data;
    this.image =
      data.mode === "lod"
        ? this.raster.draw(data.cells, data.bins, this.host.rows().length, this.colours(data.colorBy))
        : null;
    this.draw();
  }

  /** The theme changed: paint the summary again in its colours and redraw. */
  recolour(): void {
    if (this.data) this.setData(this.data);
    else this.draw();
  }

  private colours(mode: string): [number, number, number][] {
    return classColours(mode, this.host.legend(mode), this.host.noKernel());
  }

  draw(): void {
    const rows = this.host.rows();
    const rh = rowHeight(rows.length);
    const h = this.plotHeight;
    const ctx = sizeCanvas(this.base, this.width, h);
    sizeCanvas(this.overlay, this.width, h);
    ctx.clearRect(0, 0, this.width, h);
    ctx.fillStyle = theme().plot;
    ctx.fillRect(GUTTER, 0, this.plotWidth(), h);
    const [s, e] = this.host.view();
    const k = pixelsPerCycle([s, e], this.width);
    const data = this.data;
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, this.plotWidth(), h);
    ctx.clip();
    if (data && data.mode === "lod" && this.image) {
      ctx.imageSmoothingEnabled = rh < 1;
      const x0 = GUTTER + (data.start - s) * k;
      const x1 = GUTTER + (data.end - s) * k;
      ctx.drawImage(this.image, 0, 0, data.bins, rows.length, x0, 0, x1 - x0, h);
    } else if (data && data.mode === "raw") {
      const colours = this.colours(data.colorBy);
      const minW = 1 / (window.devicePixelRatio || 1);
      const hh = Math.max(rh - (rh >= 4 ? 1 : 0), minW);
      // Grey (filtered-out) first, then each class, so matching samples paint on top.
      for (const matchedPass of [false, true]) {
        for (let cls = 0; cls < 32; cls++) {
          let any = false;
          for (let i = 0; i < data.count; i++) {
            const f = data.flags[i];
            const matched = (f & 0x80) !== 0;
            if (matched !== matchedPass || (matched && (f & 31) !== cls) || (!matched && cls !== 0)) continue;
            if (!any) {
              ctx.fillStyle = css(matched ? colours[cls] : colours[0]);
              any = true;
            }
            const a = data.start + data.x0[i];
            const b = data.start + data.x1[i];
            const x = GUTTER + (a - s) * k;
            const w = Math.max((b - a) * k, minW);
            ctx.fillRect(x, data.row[i] * rh, w, hh);
          }
        }
      }
      if (rh >= 12) this.labels(ctx, data, s, k, rh);
    }
    ctx.restore();
    this.gutter(ctx, rows, rh);
    this.drawAxis(s, e);
    this.drawOverlay();
  }

  /** Whether rows are tall enough to label bars (then windows carry operation names). */
  wantsLabels(): boolean {
    return rowHeight(this.host.rows().length) >= 12;
  }

  /** Operation names (or the colour class name) on bars wide enough to hold some text. */
  private labels(ctx: CanvasRenderingContext2D, data: WindowData & { mode: "raw" }, s: number, k: number, rh: number) {
    const legend = this.host.legend(data.colorBy);
    ctx.font = "10px sans-serif";
    ctx.fillStyle = "#fff";
    ctx.textBaseline = "middle";
    for (let i = 0; i < data.count; i++) {
      const w = (data.x1[i] - data.x0[i]) * k;
      if (w < 50 || (data.flags[i] & 0x80) === 0) continue;
      const x = Math.max(GUTTER + (data.start + data.x0[i] - s) * k, GUTTER) + 3;
      const name =
        data.labels && data.labelIndex ? data.labels[data.labelIndex[i]] : (legend[(data.flags[i] & 31) - 1] ?? "");
      ctx.fillText(fitText(ctx, name, w - 6), x, data.row[i] * rh + rh / 2);
    }
  }

  private gutter(ctx: CanvasRenderingContext2D, rows: number[], rh: number): void {
    ctx.fillStyle = theme().background;
    ctx.fillRect(0, 0, GUTTER - 2, this.plotHeight);
    ctx.fillStyle = theme().text;
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    ctx.textAlign = "right";
    const every = Math.max(1, Math.ceil(12 / rh));
    for (let r = 0; r < rows.length; r += every) ctx.fillText(`${rows[r]}`, GUTTER - 5, r * rh);
    ctx.textAlign = "left";
  }

  private drawAxis(s: number, e: number): void {
    const ctx = sizeCanvas(this.axis, this.width, AXIS);
    ctx.clearRect(0, 0, this.width, AXIS);
    ctx.fillStyle = theme().text;
    ctx.strokeStyle = theme().line;
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    const k = pixelsPerCycle([s, e], this.width);
    for (const t of ticks(s, e, Math.max(2, Math.floor(this.plotWidth() / 90)))) {
      const x = GUTTER + (t - s) * k;
      ctx.beginPath();
      ctx.moveTo(x + 0.5, 0);
      ctx.lineTo(x + 0.5, 4);
      ctx.stroke();
      ctx.fillText(cycles(t), x + 2, 5);
    }
    ctx.fillText("tile \\ cycles", 0, 5);
  }

  drawOverlay(): void {
    const h = this.plotHeight;
    const ctx = sizeCanvas(this.overlay, this.width, h);
    ctx.clearRect(0, 0, this.width, h);
    const [s, e] = this.host.view();
    const k = pixelsPerCycle([s, e], this.width);
    const rows = this.host.rows();
    const rh = rowHeight(rows.length);
    if (this.input.hoverRow >= 0) {
      ctx.fillStyle = theme().dark ? "rgba(255,255,255,0.08)" : "rgba(0,0,0,0.06)";
      ctx.fillRect(GUTTER, this.input.hoverRow * rh, this.plotWidth(), Math.max(rh, 1));
    }
    const sel = this.host.selected();
    if (sel) {
      const row = rows.indexOf(sel.tile);
      if (row >= 0) {
        const x = GUTTER + (sel.offset - s) * k;
        const w = Math.max(sel.duration * k, 2);
        ctx.strokeStyle = theme().outline;
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x, row * rh - 1, w, Math.max(rh, 1) + 2);
      }
    }
    const at = this.host.at();
    if (at !== null && at >= s && at <= e) {
      const x = GUTTER + (at - s) * k;
      ctx.strokeStyle = theme().cursor;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x + 0.5, 0);
      ctx.lineTo(x + 0.5, h);
      ctx.stroke();
    }
    const drag = this.input.dragged;
    if (drag) {
      ctx.fillStyle = "rgba(40,110,220,0.15)";
      ctx.strokeStyle = "rgba(40,110,220,0.8)";
      ctx.fillRect(drag.x, 0, drag.width, h);
      ctx.strokeRect(drag.x + 0.5, 0.5, drag.width, h - 1);
    }
  }
}
