// The legend of the timeline's colours for the current colour mode.

import { classColours, css, grey } from "../common/colors";
import { clear, el } from "../common/dom";
import { fontOf, setFittedText } from "../common/text";
import { className, type Vocabulary } from "../common/vocabulary";

/** Widest a legend name is drawn (CSS pixels); longer ones end in "…" with the whole name as their title. */
export const LEGEND_NAME_PX = 220;

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
    const font = fontOf(this.root);
    const byName = mode === "kind" || mode === "activity";
    names.forEach((name, i) => {
      this.item(css(colours[i + 1]), className(mode, name, this.words), font, byName ? name : null);
    });
    this.item(css(grey()), "not matching filters", font);
    // docs/reference/format.md#inactive-compute
    if (byName) this.root.append(el("span", "ipu-nb-legend-note", "compute with active=false drawn as idle"));
    // docs/reference/head.md#exchange-activity-on-the-timeline
    if (mode === "activity") {
      this.root.append(el("span", "ipu-nb-legend-note", "exchange split as the newest runtime draws it"));
    }
  }

  /** One swatch and its name; a kind's (or an exchange activity's) swatch carries `data-kind` (the colour drawn for it in this theme). */
  private item(colour: string, name: string, font: string, kind: string | null = null): void {
    const item = el("span", "ipu-nb-legend-item");
    const swatch = el("span", "ipu-nb-swatch");
    swatch.style.background = colour;
    if (kind !== null) swatch.dataset.kind = kind;
    const label = el("span", "ipu-nb-legend-name");
    setFittedText(label, name, LEGEND_NAME_PX, font);
    item.append(swatch, label);
    this.root.append(item);
  }
}
