// The markers list: `widget.marker_rows` by time, each label in a text field (its value, never
// markup: labels are untrusted text), edited in place; a click on the time zooms to the marker.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { cycles } from "../common/format";
import type { Marker } from "../kernel/generated";
import { ListSection } from "./listsection";

export interface MarkersHost {
  markers(): Marker[];
  /** Show a marker: the view around it. */
  show(marker: Marker): void;
  /** Give marker `index` (of `markers()`) the label `label`. */
  relabel(index: number, label: string): void;
}

/** The longest label (`MAX_LABEL` in ipu_nb/_widget/markers.py). */
const MAX_LABEL = 200;

export class MarkersPanel {
  private section: ListSection;
  readonly root: HTMLDetailsElement;
  private body: HTMLOListElement;
  private listeners: Disposers;

  constructor(
    private host: MarkersHost,
    bag: Disposers,
  ) {
    this.section = new ListSection("markers", "Markers", bag);
    ({ root: this.root, body: this.body, listeners: this.listeners } = this.section);
    this.render();
  }

  render(): void {
    const rows = this.host.markers();
    if (!this.section.begin(rows.length, "No markers: M marks the cursor or the selected area.")) return;
    rows.forEach((m, index) => {
      const li = el("li", "ipu-nb-marker");
      li.dataset.start = String(m.start);
      li.dataset.end = String(m.end);
      const where = m.end > m.start ? `${cycles(m.start)}–${cycles(m.end)}` : cycles(m.start);
      const at = el("span", "ipu-nb-marker-at ipu-nb-clickable", where);
      const input = el("input", "ipu-nb-marker-label");
      input.type = "text";
      input.maxLength = MAX_LABEL;
      input.placeholder = "label";
      input.value = m.label;
      input.title = m.label; // the whole label where the field is too narrow for it
      li.append(at, input);
      this.listeners.listen(at, "click", () => this.host.show(m));
      this.listeners.listen(input, "input", () => {
        input.title = input.value;
      });
      this.listeners.listen(input, "change", () => this.host.relabel(index, input.value));
      this.body.append(li);
    });
  }

  /** Open the list and put the caret in the label of the marker at `start`…`end` (one just added). */
  focusLabel(start: number, end: number): void {
    this.root.open = true;
    for (const li of this.body.querySelectorAll<HTMLElement>(".ipu-nb-marker"))
      if (li.dataset.start === String(start) && li.dataset.end === String(end)) {
        li.querySelector("input")?.focus();
        return;
      }
  }
}
