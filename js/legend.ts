// The legend of the timeline's colours for the current colour mode.

import { classColours, css, GREY } from "./colors";
import { clear, el } from "./dom";
import type { Vocabulary } from "./vocabulary";

export interface LegendHost {
  colorBy(): string;
  /** Names of colour classes 1, 2, … of a colour mode. */
  legend(mode: string): string[];
}

export class Legend {
  readonly root = el("div", "ipu-nb-legend");

  constructor(
    private host: LegendHost,
    private words: Vocabulary,
  ) {}

  render(): void {
    clear(this.root);
    const mode = this.host.colorBy();
    const names = this.host.legend(mode);
    const colours = classColours(mode, names, this.words.no_kernel);
    names.forEach((name, i) => this.item(css(colours[i + 1]), name));
    this.item(css(GREY), "not matching filters");
    // docs/reference/format.md#inactive-compute
    if (mode === "kind") this.root.append(el("span", "ipu-nb-legend-note", "compute with active=false drawn as idle"));
  }

  private item(colour: string, name: string): void {
    const item = el("span", "ipu-nb-legend-item");
    const swatch = el("span", "ipu-nb-swatch");
    swatch.style.background = colour;
    item.append(swatch, el("span", undefined, name));
    this.root.append(item);
  }
}
