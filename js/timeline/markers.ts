// Markers (`widget.marker_rows`): notes on the timeline at a point in time or over a range,
// drawn on a layer of their own over the bars, each with its label at the top. Labels are
// untrusted text: drawn through fitText (neutralised, cut to fit), never parsed as markup.

import { theme } from "../common/colors";
import { el } from "../common/dom";
import { fitText } from "../common/text";
import type { Marker } from "../kernel/generated";
import { layerContext } from "./layer";
import { GUTTER, pixelsPerCycle, plotWidth } from "./plot";
import type { Range } from "./view";

export type { Marker };

export class MarkerLayer {
  readonly layer = el("canvas", "ipu-nb-timeline-markers");

  constructor(
    private markers: () => Marker[],
    private view: () => Range,
    private frame: () => { width: number; height: number },
  ) {}

  draw(): void {
    const { width, height } = this.frame();
    const all = this.markers();
    const [s, e] = this.view();
    const shown = all.filter((m) => m.end >= s && m.start <= e);
    this.layer.dataset.count = String(all.length);
    this.layer.dataset.drawn = String(shown.length);
    const ctx = layerContext(this.layer, width, height, shown.length > 0);
    if (!ctx) return;
    const k = pixelsPerCycle([s, e], width);
    const right = GUTTER + plotWidth(width);
    const ink = theme().accent;
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, right - GUTTER, height);
    ctx.clip();
    ctx.font = "10px sans-serif";
    ctx.textBaseline = "top";
    for (const m of shown) {
      const x0 = GUTTER + (m.start - s) * k;
      const x1 = Math.max(GUTTER + (m.end - s) * k, x0 + 1);
      ctx.globalAlpha = 0.15;
      ctx.fillStyle = ink;
      if (m.end > m.start) ctx.fillRect(x0, 0, x1 - x0, height);
      ctx.globalAlpha = 1;
      ctx.fillRect(Math.round(x0), 0, 1, height);
      if (m.end > m.start) ctx.fillRect(Math.round(x1), 0, 1, height);
      const text = fitText(ctx, m.label, Math.max(0, right - x0 - 4));
      if (text) {
        ctx.fillStyle = theme().text;
        ctx.fillText(text, x0 + 3, 2);
      }
    }
    ctx.restore();
  }
}
