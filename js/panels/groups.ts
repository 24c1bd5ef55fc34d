// Side-panel table of `widget.groups` (the query core's aggregation for the current
// filters and grouping). Clicking a row filters by that group. Grouping by metadata
// needs a key, so choosing it asks for the key first and sends both at once. Row names and
// dimensions are the query core's (docs/reference/query.md#group-keys-and-dimensions).

import type { Disposers } from "../common/disposers";
import { clear, el } from "../common/dom";
import { cycles, grouped } from "../common/format";
import { displayText } from "../common/text";
import type { Vocabulary } from "../common/vocabulary";
import type { GroupRow, GroupsReply } from "../kernel/protocol";
import type { Filters } from "../kernel/types";
import { deltaCells, deltaClass } from "./baseline";
import { withMetadata } from "./metadata";

export interface GroupsHost {
  groupBy(): string;
  metadataKey(): string | null;
  /** Set `group_by` and `metadata_key` together (the kernel refuses "metadata" without a key). */
  setGrouping(groupBy: string, key: string | null): void;
  filters(): Filters;
  setFilters(filters: Filters): void;
}

/** The filters that select one group's samples (null when a group cannot be expressed as a filter). */
export function groupFilter(
  groupBy: string,
  row: GroupRow,
  filters: Filters,
  words: Pick<Vocabulary, "no_kernel" | "missing">,
): Filters | null {
  const d = row.dimensions;
  switch (groupBy) {
    case "kind":
      return { ...filters, kind: row.name };
    case "kernel":
      return { ...filters, kernel: row.name === words.no_kernel ? "" : row.name };
    case "operation":
      return { ...filters, operation: [row.name] };
    case "phase":
      return { ...filters, phases: [Number(d.phase)] };
    case "tile":
      return { ...filters, tiles: [Number(d.physicalTile)] };
    case "metadata":
      return d.metadataValue === words.missing ? null : withMetadata(filters, d.metadataKey, d.metadataValue);
    default:
      return null;
  }
}

export class Groups {
  readonly root = el("div", "ipu-nb-groups");
  private select = el("select", "ipu-nb-select");
  private key = el("input", "ipu-nb-input ipu-nb-short");
  private hint = el("div", "ipu-nb-hint");
  private body = el("div", "ipu-nb-groups-body");
  /** "metadata" chosen but no key typed yet: nothing sent until there is one. */
  private wantsKey = false;
  /** The listeners of the current table rows, replaced on each `set`. */
  private rowListeners: Disposers;

  constructor(
    private host: GroupsHost,
    bag: Disposers,
    private words: Vocabulary,
  ) {
    this.rowListeners = bag.child();
    const head = el("div", "ipu-nb-groups-head");
    head.append(el("span", "ipu-nb-section-title", "Groups by"), this.select, this.key);
    this.select.append(...words.group_bys.map((g) => new Option(g, g)));
    this.key.placeholder = "metadata key";
    this.hint.hidden = true;
    bag.listen(this.select, "change", () => this.choose(this.select.value));
    bag.listen(this.key, "change", () => this.typed(this.key.value));
    this.root.append(head, this.hint, this.body);
    this.sync();
  }

  private choose(groupBy: string): void {
    const key = this.host.metadataKey();
    this.wantsKey = groupBy === "metadata" && key === null;
    if (this.wantsKey) {
      this.sync();
      this.key.focus();
      return;
    }
    this.host.setGrouping(groupBy, key);
  }

  private typed(text: string): void {
    const grouping = this.wantsKey ? "metadata" : this.host.groupBy();
    if (text === "") {
      if (grouping === "metadata") {
        this.key.value = this.host.metadataKey() ?? "";
        this.sync();
        return; // grouping by metadata keeps a key; choose another grouping to drop it
      }
      this.host.setGrouping(grouping, null);
      return;
    }
    this.wantsKey = false;
    this.host.setGrouping(grouping, text);
  }

  sync(): void {
    if (this.host.groupBy() === "metadata") this.wantsKey = false;
    const shown = this.wantsKey ? "metadata" : this.host.groupBy();
    this.select.value = shown;
    this.key.hidden = shown !== "metadata";
    if (document.activeElement !== this.key) this.key.value = this.host.metadataKey() ?? "";
    this.hint.hidden = !this.wantsKey;
    this.hint.textContent = this.wantsKey ? "Type a metadata key to group by (⏎)." : "";
  }

  set(msg: GroupsReply): void {
    clear(this.body);
    this.rowListeners.clear();
    if (msg.error) {
      this.body.append(el("div", "ipu-nb-empty", msg.error));
      return;
    }
    if (!msg.rows.length) {
      this.body.append(el("div", "ipu-nb-empty", "No matching samples."));
      return;
    }
    const table = el("table", "ipu-nb-group-table");
    const deltas = msg.deltas;
    // The numbers take the width they need (nine columns with the Δ ones) and the table scrolls sideways
    // when the panel is narrower: a number is never cut; a long name is, its whole text in `title` (widget.css).
    const head = el("tr");
    for (const h of ["name", "phase cyc", "work cyc", "avg tiles", "samples"]) head.append(el("th", undefined, h));
    if (deltas) for (const h of ["before", "after", "Δ", "ratio"]) head.append(el("th", "ipu-nb-delta", h));
    table.append(head);
    msg.rows.forEach((row, i) => {
      const tr = el("tr");
      const name = row.name ? displayText(row.name) : "(empty)";
      const nameCell = el("td", "ipu-nb-group-name", name);
      nameCell.title = name;
      tr.append(
        nameCell,
        el("td", undefined, cycles(row.phase_cycles)),
        el("td", undefined, cycles(row.work_cycles)),
        el("td", undefined, row.average_active_tiles.toFixed(1)),
        el("td", undefined, grouped(row.sample_count)),
      );
      if (deltas) {
        const d = deltas[i] ?? null;
        const cells = deltaCells(d);
        cells.forEach((text, k) => {
          tr.append(el("td", k === 2 ? `ipu-nb-delta ${deltaClass(d)}` : "ipu-nb-delta", text));
        });
        if (d) tr.dataset.delta = String(d.delta);
      }
      tr.title = `${name}: phase ${row.phase_cycles} cycles, work ${row.work_cycles} cycles`;
      const next = groupFilter(msg.group_by, row, this.host.filters(), this.words);
      if (next) {
        tr.classList.add("ipu-nb-clickable");
        this.rowListeners.listen(tr, "click", () => this.host.setFilters(next));
      }
      table.append(tr);
    });
    const scroller = el("div", "ipu-nb-table-scroll");
    scroller.append(table);
    this.body.append(scroller);
  }
}
