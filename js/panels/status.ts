// The status line under the widget: what the view shows and how it got there, or the latest error.

import { el } from "../common/dom";
import { grouped } from "../common/format";

export interface ViewFacts {
  /** Samples overlapping the view, and of them those matching the filters. */
  count: number;
  matched: number;
  filtered: boolean;
  /** The level drawn (bins of 2^level cycles). */
  level: number;
  /** Request sent → answered, and the kernel's own time on its blocks (ms). */
  roundTripMs: number | null;
  kernelMs: number;
  /** Blocks held and the memory they take. */
  cached: number;
  cacheBytes: number;
}

/** "1,170,240 samples in view · 0 match the filters · …": never a count that reads as matching when none does. */
export function viewStatus(f: ViewFacts): string {
  const samples = `${grouped(f.count)} sample${f.count === 1 ? "" : "s"} in view`;
  const matching = !f.filtered
    ? ""
    : f.matched === 0
      ? " · none match the filters"
      : ` · ${grouped(f.matched)} match${f.matched === 1 ? "es" : ""} the filters`;
  const bins = `bins of ${grouped(2 ** f.level)} cycle${f.level === 0 ? "" : "s"}`;
  const trip =
    f.roundTripMs === null ? "" : ` · refined in ${f.roundTripMs.toFixed(0)} ms (kernel ${f.kernelMs.toFixed(0)} ms)`;
  const cache = ` · cache ${grouped(f.cached)} blocks, ${(f.cacheBytes / 2 ** 20).toFixed(1)} MB`;
  return `${samples}${matching} · ${bins}${trip}${cache}`;
}

export class Status {
  readonly root = el("div", "ipu-nb-status");

  view(facts: ViewFacts): void {
    this.root.textContent = viewStatus(facts);
    this.root.dataset.count = String(facts.count);
    this.root.dataset.matched = String(facts.matched);
  }

  error(text: string): void {
    this.root.textContent = text;
  }
}
