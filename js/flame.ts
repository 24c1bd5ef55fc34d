// Flame graph (icicle) of summed durations over the matching samples:
// kind → kernel → phase/epoch → operation, and metadata entries once an operation is focused.
// A click focuses a node by setting the filters along its path; right-click or the
// breadcrumb goes back up.

import { kindColour } from "./colors";
import type { Disposers } from "./disposers";
import { clear, el } from "./dom";
import { cycles } from "./format";
import { metadataLabel, withMetadata } from "./metadata";
import type { FlameMessage, FlameNode } from "./protocol";
import type { Filters } from "./types";
import { kernelLabel, type Vocabulary } from "./vocabulary";

const ROW = 20;

export interface FlameHost {
  filters(): Filters;
  setFilters(filters: Filters): void;
}

/** Filters after focusing a node: its whole path (kind, kernel, phase, operation) is set. */
export function focusFilters(filters: Filters, path: Record<string, string | number>): Filters {
  const next: Filters = { ...filters };
  if ("kind" in path) next.kind = String(path.kind);
  if ("kernel" in path) next.kernel = String(path.kernel);
  if ("phase" in path) next.phases = [Number(path.phase)];
  if ("operation" in path) next.operation_contains = String(path.operation);
  return next;
}

/** The focus chain the filters describe, outermost first. */
export function crumbs(filters: Filters, words: Pick<Vocabulary, "no_kernel">): { label: string; level: number }[] {
  const out = [{ label: "all", level: 0 }];
  if (filters.kind !== null) out.push({ label: filters.kind, level: 1 });
  if (filters.kernel !== null) out.push({ label: kernelLabel(filters.kernel, words), level: 2 });
  if (filters.phases.length === 1) out.push({ label: `phase ${filters.phases[0]}`, level: 3 });
  if (filters.operation_contains !== null) out.push({ label: filters.operation_contains, level: 4 });
  filters.metadata.forEach((m, i) => out.push({ label: metadataLabel(m), level: 5 + i }));
  return out;
}

/** Filters with everything deeper than `level` of the focus chain cleared. */
export function upTo(filters: Filters, level: number): Filters {
  const next: Filters = { ...filters, metadata: filters.metadata.slice(0, Math.max(0, level - 4)) };
  if (level < 4) next.operation_contains = null;
  if (level < 3) next.phases = filters.phases.length === 1 ? [] : filters.phases;
  if (level < 2) next.kernel = null;
  if (level < 1) next.kind = null;
  return next;
}

export class Flame {
  readonly root = el("div", "ipu-nb-flame");
  private crumbBar = el("div", "ipu-nb-crumbs");
  private icicle = el("div", "ipu-nb-icicle");
  private meta = el("div", "ipu-nb-flame-meta");
  private data: FlameMessage | null = null;
  /** The listeners of the bars, crumbs and metadata rows shown, replaced on each `render`. */
  private shown: Disposers;

  constructor(
    private host: FlameHost,
    bag: Disposers,
    private words: Vocabulary,
  ) {
    this.shown = bag.child();
    const title = el("div", "ipu-nb-section-title", "Flame graph · summed cycles of matching samples");
    this.root.append(title, this.crumbBar, this.icicle, this.meta);
    bag.listen(this.root, "contextmenu", (e) => {
      e.preventDefault();
      e.stopPropagation();
      const chain = crumbs(this.host.filters(), this.words);
      if (chain.length > 1) this.host.setFilters(upTo(this.host.filters(), chain[chain.length - 2].level));
    });
  }

  set(data: FlameMessage): void {
    this.data = data;
    this.render();
  }

  render(): void {
    this.shown.clear();
    this.renderCrumbs();
    clear(this.icicle);
    clear(this.meta);
    const data = this.data;
    if (!data) return;
    if (data.total === 0) {
      this.icicle.append(el("div", "ipu-nb-empty", "No matching samples."));
      return;
    }
    const nodes = data.nodes;
    const x = new Float64Array(nodes.length);
    const next = new Float64Array(nodes.length);
    const kindOf: string[] = new Array(nodes.length).fill("");
    let depth = 0;
    nodes.forEach((node, i) => {
      if (node.parent >= 0) {
        x[i] = next[node.parent];
        next[node.parent] += node.value;
        kindOf[i] = node.level === 1 ? node.name : kindOf[node.parent];
      }
      next[i] = x[i];
      depth = Math.max(depth, node.level);
    });
    this.icicle.style.height = `${(depth + 1) * ROW}px`;
    nodes.forEach((node, i) => {
      const share = node.value / data.total;
      if (share < 0.0008) return;
      this.icicle.append(this.bar(node, x[i] / data.total, share, kindOf[i]));
    });
    if (data.metadata.length) {
      this.meta.append(el("div", "ipu-nb-section-title", "Metadata entries of the focused samples (click to filter)"));
      const most = data.metadata[0].cycles || 1;
      for (const m of data.metadata) {
        const entry = metadataLabel([m.name, m.value]);
        const row = el("div", "ipu-nb-meta-row");
        const bar = el("div", "ipu-nb-meta-bar");
        bar.style.width = `${(100 * m.cycles) / most}%`;
        const label = el("span", "ipu-nb-meta-label", entry);
        const count = el("span", "ipu-nb-meta-count", `${cycles(m.cycles)} cyc · ${m.samples}`);
        row.append(bar, label, count);
        row.title = `entry named ${m.name} with value ${m.value}: ${m.cycles} cycles over ${m.samples} samples`;
        row.dataset.metadataName = m.name;
        row.dataset.metadataValue = m.value;
        this.shown.listen(row, "click", () => this.host.setFilters(withMetadata(this.host.filters(), m.name, m.value)));
        this.meta.append(row);
      }
    }
  }

  private bar(node: FlameNode, left: number, share: number, kind: string): HTMLElement {
    const bar = el("div", "ipu-nb-flame-node", node.name);
    bar.style.left = `${left * 100}%`;
    bar.style.width = `${share * 100}%`;
    bar.style.top = `${node.level * ROW}px`;
    const [r, g, b] = node.level === 0 ? [120, 120, 130] : kindColour(kind);
    const fade = Math.min(0.55, (node.level - 1) * 0.14);
    const mix = (c: number) => Math.round(c + (255 - c) * Math.max(0, fade));
    bar.style.background = `rgb(${mix(r)},${mix(g)},${mix(b)})`;
    if (node.level >= 3) bar.style.color = "#111";
    bar.title = `${node.name}\n${node.value.toLocaleString("en-US")} cycles (${(share * 100).toFixed(1)}%)`;
    bar.dataset.level = String(node.level);
    if (node.path && node.level > 0) {
      const path = node.path;
      this.shown.listen(bar, "click", () => this.host.setFilters(focusFilters(this.host.filters(), path)));
    } else if (node.level === 0) {
      this.shown.listen(bar, "click", () => this.host.setFilters(upTo(this.host.filters(), 0)));
    } else {
      bar.classList.add("ipu-nb-flame-other");
    }
    return bar;
  }

  private renderCrumbs(): void {
    clear(this.crumbBar);
    const chain = crumbs(this.host.filters(), this.words);
    chain.forEach((c, i) => {
      if (i > 0) this.crumbBar.append(el("span", "ipu-nb-crumb-sep", "›"));
      const crumb = el("button", "ipu-nb-crumb", c.label);
      crumb.type = "button";
      crumb.disabled = i === chain.length - 1;
      this.shown.listen(crumb, "click", () => this.host.setFilters(upTo(this.host.filters(), c.level)));
      this.crumbBar.append(crumb);
    });
  }
}
