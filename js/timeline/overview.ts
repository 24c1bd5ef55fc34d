// Overview strip: the whole profile, the current view marked; click to centre the view
// there, drag to select a range. Each column is a stack of the colour classes' shares of all
// tiles' cycles over its stretch of the span (the kernel's `overview_shares`), background
// above, so the mean colour of any columns is the cycle-weighted mean of the class colours
// over every tile, gaps as background: the timeline's conservation, for the whole profile.
// The strip is drawn when its data, size, theme or drag change; the view's box is drawn on a
// canvas of its own over it, so a pan or zoom redraws only that box, and changes no
// element's style (which cost every such frame a layout, a paint of the page, a new layering
// and a hit test of the mouse).

import { classColours, type RGB, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { el, sizeCanvas } from "../common/dom";
import { GUTTER, plotWidth } from "./plot";
import { between, centre, type Range } from "./view";

const HEIGHT = 46;
const BOX_FILL = "rgba(255, 180, 0, 0.18)";
const BOX_LINE = 1.5;
/** The colour class of samples not matching the filters (`classColours`' index 0). */
const NOT_MATCHING = 0;

export interface OverviewHost {
  view(): Range;
  span(): number;
  /** The legend of colour mode `mode` (class i + 1 is its entry i), as the timeline colours it. */
  legend(mode: string): string[];
  /** The legend's name of the samples without a kernel. */
  noKernel(): string;
  setView(view: Range, remember: boolean): void;
}

/** The kernel's overview: per plane (colour class `classes[p]` of mode `colorBy`), `bins` shares of all tiles' cycles. */
export interface OverviewShares {
  bins: number;
  colorBy: string;
  classes: Uint8Array;
  /** Plane-major: `shares[p * bins + i]`. */
  shares: Float32Array;
}

/**
 * The strip's pixels (RGBA, `width` × `height`, top row first): column x covers bins
 * [x·bins/width, (x+1)·bins/width) and shows the overlap-weighted mean of their shares, each
 * class a band of that share of the height, stacked from the bottom in ascending class order
 * with the not-matching grey last, `background` above. A pixel row cut by a band's edge mixes
 * the colours by how much of it each covers, so every column's mean is exactly
 * Σ share·colour + (1 − Σ share)·background.
 */
export function stripPixels(
  data: OverviewShares,
  colours: readonly RGB[],
  background: RGB,
  width: number,
  height: number,
): Uint8ClampedArray {
  const { bins, classes, shares } = data;
  const planes = classes.length;
  // Bottom first: the classes in ascending order, grey (not matching) on top of them.
  const order = [...classes.keys()].sort((a, b) => stackRank(classes[a]) - stackRank(classes[b]));
  // Prefix sums of each plane over the bins: a column's shares are differences of them.
  const prefix = order.map((p) => {
    const out = new Float64Array(bins + 1);
    for (let i = 0; i < bins; i++) out[i + 1] = out[i] + shares[p * bins + i];
    return out;
  });
  const at = (sums: Float64Array, u: number) => {
    const i = Math.min(Math.floor(u), bins - 1);
    return sums[i] + (u - i) * (sums[i + 1] - sums[i]);
  };
  const out = new Uint8ClampedArray(width * height * 4);
  const acc = new Float64Array(height * 4); // per pixel row from the bottom: r, g, b, covered
  for (let x = 0; x < width; x++) {
    const u = (x * bins) / width;
    const v = ((x + 1) * bins) / width;
    acc.fill(0);
    let top = 0; // where the next band starts, in pixel rows from the bottom
    for (let k = 0; k < planes; k++) {
      const share = Math.max(0, (at(prefix[k], v) - at(prefix[k], u)) / (v - u));
      const lo = top;
      const hi = Math.min(height, top + share * height);
      const [r, g, b] = colours[classes[order[k]]] ?? [0, 0, 0];
      for (let row = Math.floor(lo); row < hi; row++) {
        const part = Math.min(hi, row + 1) - Math.max(lo, row);
        if (part <= 0) continue;
        acc[row * 4] += part * r;
        acc[row * 4 + 1] += part * g;
        acc[row * 4 + 2] += part * b;
        acc[row * 4 + 3] += part;
      }
      top = hi;
    }
    for (let row = 0; row < height; row++) {
      const gap = Math.max(0, 1 - acc[row * 4 + 3]);
      const i = ((height - 1 - row) * width + x) * 4;
      out[i] = Math.round(acc[row * 4] + gap * background[0]);
      out[i + 1] = Math.round(acc[row * 4 + 1] + gap * background[1]);
      out[i + 2] = Math.round(acc[row * 4 + 2] + gap * background[2]);
      out[i + 3] = 255;
    }
  }
  return out;
}

/** Where a class sits in a column's stack: the legend's classes in order from the bottom, grey last. */
function stackRank(cls: number): number {
  return cls === NOT_MATCHING ? 256 : cls;
}

export class Overview {
  readonly root = el("div", "ipu-nb-overview");
  private canvas = el("canvas", "ipu-nb-overview-canvas");
  private boxCanvas = el("canvas", "ipu-nb-overview-view");
  /** Where the view's box is drawn (CSS pixels), on a strip how wide, in what colour: redrawn when any changes. */
  private drawnBox = { left: NaN, width: NaN, strip: 0, accent: "" };
  private accent = "";
  private data: OverviewShares | null = null;
  /** The strip's pixels as last made (a drag redraws without making them again): for which data, size and colours. */
  private strip: { data: OverviewShares; key: string; image: ImageData } | null = null;
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

  /** Show the kernel's shares (coloured by the mode they were made for, in the current theme). */
  setShares(data: OverviewShares): void {
    this.data = data;
    this.draw();
    this.root.dataset.shares = `${data.colorBy}:${data.classes.join(",")}`; // what the strip shows (for tests)
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
    ctx.fillText("all", 2, 4);
    ctx.fillText("tiles", 2, 16);
    const data = this.data;
    if (data && data.bins > 0) {
      // In device pixels: putImageData is not transformed.
      const dpr = this.canvas.width / Math.max(1, Math.floor(this.width));
      const x0 = Math.round(GUTTER * dpr);
      const x1 = Math.round((GUTTER + w) * dpr);
      const colours = classColours(data.colorBy, this.host.legend(data.colorBy), this.host.noKernel());
      const key = JSON.stringify([x1 - x0, this.canvas.height, colours, t.plotRgb]);
      if (this.strip?.data !== data || this.strip.key !== key) {
        const image = ctx.createImageData(x1 - x0, this.canvas.height);
        image.data.set(stripPixels(data, colours, t.plotRgb, image.width, image.height));
        this.strip = { data, key, image };
      }
      ctx.putImageData(this.strip.image, x0, 0);
    }
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
