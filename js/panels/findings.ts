// The findings panel: `ipu_nb.findings(profile)` of the shown profile, ranked by
// the cycles at stake. Clicking an entry applies its filters and zooms the timeline to the
// supersteps it is about. Every string is shown through displayText (profile strings are untrusted).

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { cycles } from "../common/format";
import { displayText } from "../common/text";
import type { FindingRow } from "../kernel/generated";
import { ListSection } from "./listsection";

export type { FindingRow };

export interface FindingsHost {
  rows(): FindingRow[];
  /** Apply a finding: its filters, then its view. */
  show(row: FindingRow): void;
}

export class FindingsPanel {
  private section: ListSection;
  readonly root: HTMLDetailsElement;
  private body: HTMLOListElement;
  private listeners: Disposers;

  constructor(
    private host: FindingsHost,
    bag: Disposers,
  ) {
    this.section = new ListSection("findings", "Findings", bag);
    ({ root: this.root, body: this.body, listeners: this.listeners } = this.section);
    this.render();
  }

  render(): void {
    const rows = this.host.rows();
    if (!this.section.begin(rows.length, "No findings (yet).")) return;
    for (const row of rows) {
      const li = el("li", "ipu-nb-finding ipu-nb-clickable");
      li.dataset.rank = String(row.rank);
      li.append(
        el("span", "ipu-nb-finding-cycles", `${cycles(row.cycles)} cyc`),
        el("span", "ipu-nb-finding-text", displayText(row.message)),
      );
      li.title = `${displayText(row.category)}: ${displayText(row.subject)} (click: filter and zoom to it)`;
      this.listeners.listen(li, "click", () => this.host.show(row));
      this.body.append(li);
    }
  }
}
