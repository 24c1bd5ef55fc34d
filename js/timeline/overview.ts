// Overview strip: active compute tiles over the whole profile, the current view marked;
// click to centre the view there, drag to select a range. The strip is drawn when its data,
// size, theme or drag change; the view's box is drawn on a canvas of its own over it, so a
// pan or zoom redraws only that box, and changes no element's style (which cost every such
// frame a layout, a paint of the page, a new layering and a hit test of the mouse).

import { css, kindColour, mix, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { el, sizeCanvas } from "../common/dom";
import { GUTTER, plotWidth } from "./plot";
import { between, centre, type Range } from "./view";

const HEIGHT = 46;
const BOX_FILL = "rgba(255, 180, 0, 0.18)";
const BOX_LINE = 1.5;

export interface OverviewHost {
  view(): Range;
  span(): number;
  tiles(): number;
  setView(view: Range, remember: boolean): void;
}

export class Overview {
  readonly root = el("div", "ipu-nb-overview");
  private canvas = el("canvas", "ipu-nb-overview-canvas");
  private boxCanvas = el("canvas", "ipu-nb-overview-view");
  /** Where the view's box is drawn (CSS pixels), on a strip how wide, in what colour: redrawn when any changes. */
  private drawnBox = { left: NaN, width: NaN, strip: 0, accent: "" };
  private accent = "";
  private active: Float32Array | null = null;
  private matched: Float32Array | null = null;
  private filtered = false;
  private width = 600;
  private drag: { x0: number; x1: number } | null = null;

  constructor(
    private host: OverviewHost,
    bag: Disposers,
  ) {
    this.root.append(this.canvas, this.boxCanvas);
    bag.listen(this.canvas, "mousedown", (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      const x = this.px(e);
      this.drag = { x0: x, x1: x };
    });
    bag.listen(this.canvas, "mousemove", (e) => {
      if (!this.drag) return;
      this.drag.x1 = this.px(e);
      this.draw();
    });
    bag.listen(window, "mouseup", () => {
      const drag = this.drag;
      if (!drag) return;
      this.drag = null;
      const span = this.host.span();
      if (Math.abs(drag.x1 - drag.x0) > 3) {
        this.host.setView(between(this.cycle(drag.x0), this.cycle(drag.x1), span), true);
      } else {
        this.host.setView(centre(this.host.view(), this.cycle(drag.x0), span), true);
      }
      this.draw();
    });
  }

  private plotWidth(): number {
    return plotWidth(this.width);
  }

  private px(e: MouseEvent): number {
    return e.clientX - this.canvas.getBoundingClientRect().left;
  }

  private cycle(px: number): number {
    return ((px - GUTTER) / this.plotWidth()) * this.host.span();
  }

  setSeries(active: Float32Array, matched: Float32Array, filtered: boolean): void {
    this.active = active;
    this.matched = matched;
    this.filtered = filtered;
    this.draw();
  }

  resize(width: number): void {
    this.width = Math.max(200, width);
    this.draw();
  }

  draw(): void {
    const ctx = sizeCanvas(this.canvas, this.width, HEIGHT);
    const w = this.plotWidth();
    ctx.clearRect(0, 0, this.width, HEIGHT);
    const t = theme();
    ctx.fillStyle = t.plot;
    ctx.fillRect(GUTTER, 0, w, HEIGHT);
    ctx.fillStyle = t.text;
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    ctx.fillText("active", 2, 4);
    ctx.fillText("tiles", 2, 16);
    const top = Math.max(this.host.tiles(), 1);
    const area = (series: Float32Array, colour: string) => {
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.moveTo(GUTTER, HEIGHT);
      for (let i = 0; i < series.length; i++) {
        const x = GUTTER + (i / series.length) * w;
        const y = HEIGHT - (Math.min(series[i], top) / top) * (HEIGHT - 4);
        ctx.lineTo(x, y);
        ctx.lineTo(GUTTER + ((i + 1) / series.length) * w, y);
      }
      ctx.lineTo(GUTTER + w, HEIGHT);
      ctx.closePath();
      ctx.fill();
    };
    const compute = kindColour("compute");
    if (this.active) area(this.active, css(this.filtered ? mix(compute, t.plotRgb, 0.65) : compute));
    if (this.matched && this.filtered) area(this.matched, css(compute));
    this.accent = t.accent;
    this.showView();
    if (this.drag && Math.abs(this.drag.x1 - this.drag.x0) > 3) {
      ctx.fillStyle = "rgba(40,110,220,0.2)";
      ctx.fillRect(Math.min(this.drag.x0, this.drag.x1), 0, Math.abs(this.drag.x1 - this.drag.x0), HEIGHT);
    }
  }

  /** Draw the view's box at the current view (every frame of a pan or zoom; the strip is not drawn again). */
  showView(): void {
    const w = this.plotWidth();
    const span = Math.max(this.host.span(), 1);
    const [s, e] = this.host.view();
    const x0 = GUTTER + (Math.max(0, Math.min(s, span)) / span) * w;
    const x1 = GUTTER + (Math.max(0, Math.min(e, span)) / span) * w;
    const left = Math.round(x0 * 10) / 10;
    const width = Math.round(Math.max(x1 - x0, 1) * 10) / 10;
    const d = this.drawnBox;
    if (d.left === left && d.width === width && d.strip === this.width && d.accent === this.accent) return;
    this.drawnBox = { left, width, strip: this.width, accent: this.accent };
    const ctx = sizeCanvas(this.boxCanvas, this.width, HEIGHT);
    ctx.clearRect(0, 0, this.width, HEIGHT);
    ctx.fillStyle = BOX_FILL;
    ctx.fillRect(left, 0, width, HEIGHT);
    if (!this.accent) return; // the theme's colour is read at the strip's first draw
    ctx.strokeStyle = this.accent;
    ctx.lineWidth = BOX_LINE;
    // The border lies inside the box.
    const inset = BOX_LINE / 2;
    ctx.strokeRect(left + inset, inset, Math.max(width - BOX_LINE, 0), HEIGHT - BOX_LINE);
  }

  /** Where the view's box is drawn, in CSS pixels to a tenth: its left edge and width. */
  get box(): { left: number; width: number } {
    return { left: this.drawnBox.left, width: this.drawnBox.width };
  }
}
