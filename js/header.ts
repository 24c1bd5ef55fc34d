// The header: the profile's facts and the visible range.

import { clear, el } from "./dom";
import { cycles, grouped, ms } from "./format";
import type { Info } from "./types";
import type { Range } from "./view";

export interface HeaderHost {
  info(): Info;
  view(): Range;
}

export class Header {
  readonly root = el("div", "ipu-nb-header");
  /** What is shown, so a frame with the same view touches no DOM (each change costs a style pass). */
  private shown = "";

  constructor(private host: HeaderHost) {}

  render(): void {
    const i = this.host.info();
    const key = JSON.stringify([this.host.view(), i.span, i.samples, i.tiles]);
    if (key === this.shown) return;
    this.shown = key;
    clear(this.root);
    const [s, e] = this.host.view();
    this.fact("tiles", grouped(i.tiles));
    this.fact("samples", grouped(i.samples));
    this.fact("span", `${grouped(i.span)} cycles · ${ms(i.span, i.clock_hz)}`);
    this.fact("view", `${cycles(s)} – ${cycles(e)} (${grouped(e - s)} cycles · ${ms(e - s, i.clock_hz)})`);
    this.fact("granularity", i.granularity);
  }

  private fact(label: string, value: string): void {
    const box = el("span", "ipu-nb-fact");
    box.append(el("span", "ipu-nb-fact-label", label), el("span", "ipu-nb-fact-value", value));
    this.root.append(box);
  }
}
