// The tile timeline: one row per tile (sorted by physical id), x = per-tile offset.
// Draws the latest window from the kernel (raw intervals or per-pixel summaries) and
// turns mouse/keyboard input into view changes, cursor picks and hover lookups.

import { classColours, css } from "./colors";
import type { Disposers, Timer } from "./disposers";
import { el, sizeCanvas } from "./dom";
import { cycles, ticks } from "./format";
import type { SampleInfo } from "./protocol";
import type { WindowData } from "./types";
import { between, type Range } from "./view";

export const GUTTER = 46;
const AXIS = 20;

export interface TimelineHost {
  view(): Range;
  span(): number;
  rows(): number[];
  legend(mode: string): string[];
  at(): number | null;
  selected(): SampleInfo | null;
  setView(view: Range, remember: boolean): void;
  zoom(factor: number, anchor: number): void;
  undoZoom(): void;
  pick(row: number, x: number): void;
  hover(row: number, x: number, clientX: number, clientY: number): void;
  unhover(): void;
}

/** `text` cut with an ellipsis to fit `width` pixels (approximately, by character share). */
function fit(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  const full = ctx.measureText(text).width;
  if (full <= width) return text;
  const keep = Math.floor((text.length * width) / full) - 1;
  return keep > 0 ? `${text.slice(0, keep)}…` : "";
}

export function rowHeight(rows: number): number {
  return Math.min(16, Math.max(0.5, 600 / Math.max(rows, 1)));
}

export class Timeline {
  readonly root = el("div", "ipu-nb-timeline");
  private base = el("canvas", "ipu-nb-timeline-base");
  private overlay = el("canvas", "ipu-nb-timeline-overlay");
  private axis = el("canvas", "ipu-nb-axis");
  private data: WindowData | null = null;
  private image: HTMLCanvasElement | null = null;
  private offscreen: HTMLCanvasElement | null = null;
  private pixelsBuffer: ImageData | null = null;
  private width = 600;
  private drag: { x0: number; x1: number } | null = null;
  private hoverRow = -1;
  private hoverTimer: Timer;
  private hoverAt: [row: number, x: number, clientX: number, clientY: number] = [0, 0, 0, 0];
  lastDrawMs = 0;

  constructor(private host: TimelineHost, bag: Disposers) {
    this.hoverTimer = bag.timer(() => this.host.hover(...this.hoverAt));
    const stack = el("div", "ipu-nb-timeline-stack");
    stack.append(this.base, this.overlay);
    this.root.append(stack, this.axis);
    bag.listen(this.overlay, "mousedown", (e) => this.onDown(e));
    bag.listen(this.overlay, "mousemove", (e) => this.onMove(e));
    bag.listen(this.overlay, "mouseleave", () => {
      this.hoverRow = -1;
      this.host.unhover();
      this.drawOverlay();
    });
    bag.listen(this.overlay, "contextmenu", (e) => {
      e.preventDefault();
      e.stopPropagation();
      this.host.undoZoom();
    });
    bag.listen(
      this.overlay,
      "wheel",
      (e) => {
        e.preventDefault();
        const { fx } = this.locate(e);
        if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
          const delta = e.shiftKey ? e.deltaY : e.deltaX;
          const [s, t] = this.host.view();
          const shift = ((t - s) * delta) / Math.max(this.plotWidth(), 1);
          this.host.setView([s + shift, t + shift], false);
        } else {
          this.host.zoom(Math.exp(e.deltaY * 0.0015), Math.min(1, Math.max(0, fx)));
        }
      },
      { passive: false },
    );
    bag.listen(window, "mouseup", (e) => this.onUp(e));
  }

  get plotHeight(): number {
    return this.host.rows().length * rowHeight(this.host.rows().length);
  }

  plotWidth(): number {
    return Math.max(10, this.width - GUTTER);
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
    this.image = data.mode === "lod" ? this.rasterise(data) : null;
    this.draw();
  }

  /** One pixel per LOD cell, alpha from the coverage level, rows top to bottom. */
  private rasterise(data: WindowData & { mode: "lod" }): HTMLCanvasElement {
    const rows = this.host.rows().length;
    const colours = classColours(data.colorBy, this.host.legend(data.colorBy));
    // One offscreen canvas and pixel buffer, reused while the size stays (a summary is ~6 MB of
    // pixels: fresh ones per reply kept the garbage collector busy during zooms).
    const height = Math.max(rows, 1);
    if (!this.offscreen || this.offscreen.width !== data.bins || this.offscreen.height !== height) {
      this.offscreen = document.createElement("canvas");
      this.offscreen.width = data.bins;
      this.offscreen.height = height;
      this.pixelsBuffer = this.offscreen.getContext("2d")!.createImageData(data.bins, height);
    }
    const canvas = this.offscreen;
    const ctx = canvas.getContext("2d")!;
    const img = this.pixelsBuffer!;
    // One RGBA word per possible cell byte (class | level << 5), little-endian ABGR.
    const table = new Uint32Array(256);
    for (let c = 0; c < 256; c++) {
      const level = c >> 5;
      if (level === 0) continue;
      const [r, g, b] = colours[c & 31];
      const a = Math.round(255 * (0.3 + (0.7 * level) / 7));
      table[c] = ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
    }
    const px = new Uint32Array(img.data.buffer);
    const cells = data.cells;
    const n = Math.min(cells.length, px.length);
    for (let i = 0; i < n; i++) px[i] = table[cells[i]];
    if (n < px.length) px.fill(0, n);
    ctx.putImageData(img, 0, 0);
    return canvas;
  }

  draw(): void {
    const t0 = performance.now();
    const rows = this.host.rows();
    const rh = rowHeight(rows.length);
    const h = this.plotHeight;
    const ctx = sizeCanvas(this.base, this.width, h);
    sizeCanvas(this.overlay, this.width, h);
    ctx.clearRect(0, 0, this.width, h);
    ctx.fillStyle = "#fafafa";
    ctx.fillRect(GUTTER, 0, this.plotWidth(), h);
    const [s, e] = this.host.view();
    const k = this.plotWidth() / Math.max(e - s, 1);
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
      const colours = classColours(data.colorBy, this.host.legend(data.colorBy));
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
    this.lastDrawMs = performance.now() - t0;
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
      ctx.fillText(fit(ctx, name, w - 6), x, data.row[i] * rh + rh / 2);
    }
  }

  private gutter(ctx: CanvasRenderingContext2D, rows: number[], rh: number): void {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, GUTTER - 2, this.plotHeight);
    ctx.fillStyle = "#555";
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
    ctx.fillStyle = "#555";
    ctx.strokeStyle = "#999";
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    const k = this.plotWidth() / Math.max(e - s, 1);
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
    const k = this.plotWidth() / Math.max(e - s, 1);
    const rows = this.host.rows();
    const rh = rowHeight(rows.length);
    if (this.hoverRow >= 0) {
      ctx.fillStyle = "rgba(0,0,0,0.06)";
      ctx.fillRect(GUTTER, this.hoverRow * rh, this.plotWidth(), Math.max(rh, 1));
    }
    const sel = this.host.selected();
    if (sel) {
      const row = rows.indexOf(sel.tile);
      if (row >= 0) {
        const x = GUTTER + (sel.offset - s) * k;
        const w = Math.max(sel.duration * k, 2);
        ctx.strokeStyle = "#111";
        ctx.lineWidth = 1.5;
        ctx.strokeRect(x, row * rh - 1, w, Math.max(rh, 1) + 2);
      }
    }
    const at = this.host.at();
    if (at !== null && at >= s && at <= e) {
      const x = GUTTER + (at - s) * k;
      ctx.strokeStyle = "#d00";
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x + 0.5, 0);
      ctx.lineTo(x + 0.5, h);
      ctx.stroke();
    }
    if (this.drag && Math.abs(this.drag.x1 - this.drag.x0) > 3) {
      ctx.fillStyle = "rgba(40,110,220,0.15)";
      ctx.strokeStyle = "rgba(40,110,220,0.8)";
      const x = Math.min(this.drag.x0, this.drag.x1);
      const w = Math.abs(this.drag.x1 - this.drag.x0);
      ctx.fillRect(x, 0, w, h);
      ctx.strokeRect(x + 0.5, 0.5, w, h - 1);
    }
  }

  /** Mouse position as (row, cycle, fraction across the plot). */
  locate(e: MouseEvent): { row: number; x: number; fx: number; px: number } {
    const rect = this.overlay.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    const [s, t] = this.host.view();
    const fx = (px - GUTTER) / this.plotWidth();
    const rows = this.host.rows().length;
    const row = Math.min(rows - 1, Math.max(0, Math.floor(py / rowHeight(rows))));
    // Inside the view even when the button is released beyond the plot: the kernel refuses offsets outside it.
    return { row, x: Math.round(s + Math.min(1, Math.max(0, fx)) * (t - s)), fx, px };
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) return;
    const { px } = this.locate(e);
    if (px < GUTTER) return;
    e.preventDefault();
    this.drag = { x0: px, x1: px };
  }

  private onMove(e: MouseEvent): void {
    const { row, x, px } = this.locate(e);
    if (this.drag) {
      this.drag.x1 = Math.max(GUTTER, Math.min(px, this.width));
      this.drawOverlay();
      return;
    }
    if (px < GUTTER) return;
    this.hoverRow = row;
    this.drawOverlay();
    this.hoverAt = [row, x, e.clientX, e.clientY];
    this.hoverTimer.start(40);
  }

  private onUp(e: MouseEvent): void {
    const drag = this.drag;
    if (!drag) return;
    this.drag = null;
    const [s, t] = this.host.view();
    const toCycle = (px: number) => s + ((px - GUTTER) / this.plotWidth()) * (t - s);
    if (Math.abs(drag.x1 - drag.x0) > 3) {
      this.host.setView(between(toCycle(drag.x0), toCycle(drag.x1), this.host.span()), true);
    } else {
      const { row, x } = this.locate(e);
      if (x >= 0) this.host.pick(row, x);
    }
    this.drawOverlay();
  }
}
