// Side panel: what is active at the cursor (`at`) and the clicked sample with all its fields.
// A click on a metadata entry (of the cursor summary or the sample) filters by that
// (name, value) pair. The selected sample's names are shown whole (neutralised, text.ts):
// this is where a name cut short elsewhere can be read in full.

import { offsetText, onClock } from "../common/clock";
import type { Disposers } from "../common/disposers";
import { clear, el } from "../common/dom";
import { grouped, ms, plural } from "../common/format";
import { displayText } from "../common/text";
import { kernelLabel, type Vocabulary } from "../common/vocabulary";
import type { SampleDetail } from "../kernel/generated";
import type { AtSummary, SampleInfo } from "../kernel/protocol";
import { metadataLabel } from "./metadata";

export interface InspectorHost {
  clockHz(): number;
  /** The clock of the offsets shown (the `clock` trait). */
  clock?(): string;
  /** Add the metadata filter (name, value). */
  filterMetadata(name: string, value: string): void;
}

export class Inspector {
  readonly root = el("div", "ipu-nb-inspector");
  private atBox = el("div", "ipu-nb-at");
  private sampleBox = el("div", "ipu-nb-sample");
  /** The listeners of the clickable rows shown, replaced on each `set`. */
  private rowListeners: Disposers;

  constructor(
    private host: InspectorHost,
    bag: Disposers,
    private words: Vocabulary,
    before: HTMLElement,
  ) {
    this.rowListeners = bag.child();
    this.root.append(before, this.atBox, this.sampleBox);
    this.set(null, null);
  }

  private clock(): string {
    return this.host.clock?.() ?? "tile";
  }

  set(at: AtSummary | null, sample: SampleInfo | null): void {
    this.rowListeners.clear();
    this.renderAt(at);
    this.renderSample(sample);
  }

  private renderAt(at: AtSummary | null): void {
    clear(this.atBox);
    this.atBox.append(el("div", "ipu-nb-section-title", "At cursor"));
    if (!at) {
      this.atBox.append(el("div", "ipu-nb-empty", "Click the timeline to set the cursor."));
      return;
    }
    this.atBox.append(
      el(
        "div",
        "ipu-nb-at-head",
        `${offsetText(at.at, this.clock())} · ${ms(at.at, this.host.clockHz())} · ${plural(at.count, "matching sample")} on ${plural(at.tiles, "tile")}`,
      ),
    );
    this.list("Kinds", at.kinds);
    this.list("Top operations", at.operations);
    this.list("Kernels", at.kernels);
    const rows = this.list(
      "Metadata (click to filter)",
      at.metadata.map(([name, value, count]) => [metadataLabel([name, value]), count]),
    );
    rows.forEach((row, i) => {
      this.clickable(row, at.metadata[i][0], at.metadata[i][1]);
    });
  }

  /** A titled list of (label, count) rows; returns the rows. */
  private list(title: string, items: [string, number][]): HTMLElement[] {
    if (!items.length) return [];
    const box = el("div", "ipu-nb-list");
    box.append(el("div", "ipu-nb-list-title", title));
    const rows = items.map(([name, count]) => {
      const row = el("div", "ipu-nb-list-row");
      const shown = name ? displayText(name) : "(empty)";
      const label = el("span", "ipu-nb-list-name", shown);
      label.title = shown; // the whole name where it is cut (a clickable row's own title says what a click does)
      row.append(label, el("span", "ipu-nb-list-count", grouped(count)));
      row.title = shown;
      return row;
    });
    box.append(...rows);
    this.atBox.append(box);
    return rows;
  }

  /** Clicking `row` adds the metadata filter (name, value). */
  private clickable(row: HTMLElement, name: string, value: string): void {
    row.classList.add("ipu-nb-clickable");
    row.title = `filter: entry named ${displayText(name)} with value ${displayText(value)}`;
    row.dataset.metadataName = name;
    row.dataset.metadataValue = value;
    this.rowListeners.listen(row, "click", () => this.host.filterMetadata(name, value));
  }

  private renderSample(s: SampleInfo | null): void {
    clear(this.sampleBox);
    this.sampleBox.append(el("div", "ipu-nb-section-title", "Selected sample"));
    if (!s) {
      this.sampleBox.append(el("div", "ipu-nb-empty", "No sample selected."));
      return;
    }
    const table = el("table", "ipu-nb-fields");
    const add = (k: string, v: string) => {
      const tr = el("tr");
      tr.append(el("th", undefined, k), el("td", undefined, v));
      table.append(tr);
    };
    add("sample", String(s.sample));
    add("tile", String(s.tile));
    add("kind", s.inactive ? `${s.kind} (inactive: drawn as idle)` : s.kind);
    add("operation", displayText(s.operation));
    add("kernel", displayText(kernelLabel(s.kernel, this.words)));
    add("phase / epoch", `${s.phase} / ${s.epoch}`);
    add("offset", `${onClock(s.offset, this.clock())} · ${ms(s.offset, this.host.clockHz())}`);
    add("duration", `${grouped(s.duration)} cycles (${ms(s.duration, this.host.clockHz())})`);
    add("local index", String(s.local_index));
    add("raw start / end", `${s.start} / ${s.end}`);
    add("matches filters", s.matched ? "yes" : "no");
    this.sampleBox.append(table);
    const meta = s.metadata ?? [];
    this.sampleBox.append(el("div", "ipu-nb-list-title", `Metadata (${meta.length}; click to filter)`));
    const mt = el("table", "ipu-nb-fields ipu-nb-metadata");
    for (const [name, value] of meta) {
      const tr = el("tr");
      tr.append(el("th", undefined, displayText(name)), el("td", undefined, displayText(value)));
      this.clickable(tr, name, value);
      mt.append(tr);
    }
    this.sampleBox.append(mt);
    this.renderExchange(s as Partial<SampleDetail>);
  }

  /** An exchange sample's activities (offsets in its window), role cycles and the runtime's accounting parts. */
  private renderExchange(s: Partial<SampleDetail>): void {
    const acts = s.activities ?? [];
    const parts = s.parts ?? [];
    const roles = Object.entries(s.roles ?? {});
    if (!acts.length && !parts.length && !roles.length) return;
    const table = (className: string, rows: [string, string][]) => {
      const t = el("table", `ipu-nb-fields ${className}`);
      for (const [k, v] of rows) {
        const tr = el("tr");
        tr.append(el("th", undefined, k), el("td", undefined, v));
        t.append(tr);
      }
      this.sampleBox.append(t);
    };
    this.sampleBox.append(el("div", "ipu-nb-list-title", `Exchange activities (${acts.length}; cycles in the window)`));
    table(
      "ipu-nb-activities",
      acts.map(([kind, start, end]) => [kind, `${grouped(start)} – ${grouped(end)}`]),
    );
    if (roles.length) {
      this.sampleBox.append(el("div", "ipu-nb-list-title", "Window roles (cycles)"));
      table(
        "ipu-nb-roles",
        roles.map(([name, cycles]) => [name.replace(/_cycles$/, "").replace(/_/g, " "), grouped(cycles)]),
      );
    }
    if (parts.length) {
      this.sampleBox.append(el("div", "ipu-nb-list-title", "Accounting (newest runtime)"));
      table(
        "ipu-nb-parts",
        parts.map(([name, start, end]) => [
          name,
          `${grouped(start)} – ${grouped(end)} (${grouped(end - start)} cycles)`,
        ]),
      );
    }
  }
}
