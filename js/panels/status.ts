// The status line under the widget: what the view shows and how it got there, or the latest error.

import { el } from "../common/dom";
import { grouped, plural } from "../common/format";

export interface ViewFacts {
  /** Samples overlapping the view, and of them those matching the filters (null: not counted yet). */
  count: number | null;
  matched: number | null;
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

/**
 * "1,170,240 samples in view · 0 match the filters · …": never a count that reads as matching when
 * none does, nor a count of another view ("counting the samples in view" until it is known).
 */
export function viewStatus(f: ViewFacts): string {
  const samples = f.count === null ? "counting the samples in view" : `${plural(f.count, "sample")} in view`;
  const matching =
    !f.filtered || f.matched === null
      ? ""
      : f.matched === 0
        ? " · none match the filters"
        : ` · ${grouped(f.matched)} ${f.matched === 1 ? "matches" : "match"} the filters`;
  const bins = `bins of ${plural(2 ** f.level, "cycle")}`;
  const trip =
    f.roundTripMs === null ? "" : ` · refined in ${f.roundTripMs.toFixed(0)} ms (kernel ${f.kernelMs.toFixed(0)} ms)`;
  const cache = ` · cache ${plural(f.cached, "block")}, ${(f.cacheBytes / 2 ** 20).toFixed(1)} MB`;
  return `${samples}${matching} · ${bins}${trip}${cache}`;
}

export class Status {
  readonly root = el("div", "ipu-nb-status");

  view(facts: ViewFacts): void {
    this.root.textContent = viewStatus(facts);
    this.root.dataset.count = String(facts.count ?? "");
    this.root.dataset.matched = String(facts.matched ?? "");
  }

  error(text: string): void {
    this.root.textContent = text;
  }
}
