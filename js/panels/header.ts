// The header: the profile's facts and the visible range.

import { el } from "../common/dom";
import { cycles, grouped, ms } from "../common/format";
import type { Info } from "../kernel/types";
import type { Range } from "../timeline/view";

export interface HeaderHost {
  info(): Info;
  view(): Range;
}

export class Header {
  readonly root = el("div", "ipu-nb-header");
  /** The value of each fact, made once: a render changes only the texts that differ (each change costs a style pass). */
  private values = new Map<string, HTMLElement>();

  constructor(private host: HeaderHost) {}

  render(): void {
    const i = this.host.info();
    const [s, e] = this.host.view();
    this.fact("tiles", grouped(i.tiles));
    this.fact("samples", grouped(i.samples));
    this.fact("span", `${grouped(i.span)} cycles · ${ms(i.span, i.clock_hz)}`);
    this.fact("view", `${cycles(s)} – ${cycles(e)} (${grouped(e - s)} cycles · ${ms(e - s, i.clock_hz)})`);
    this.fact("granularity", i.granularity);
  }

  private fact(label: string, value: string): void {
    let shown = this.values.get(label);
    if (!shown) {
      const box = el("span", "ipu-nb-fact");
      shown = el("span", "ipu-nb-fact-value");
      box.append(el("span", "ipu-nb-fact-label", label), shown);
      this.root.append(box);
      this.values.set(label, shown);
    }
    if (shown.textContent !== value) shown.textContent = value;
  }
}
