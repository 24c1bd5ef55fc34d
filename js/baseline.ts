// The baseline (issue 13): a toggle that flips the timeline between the profile and its
// baseline at the same view (the `showing` trait; key B), and the group table's Δ cells
// (phase cycles before / after / Δ / ratio from the kernel's `compare(baseline, after)`).

import type { Disposers } from "./disposers";
import { el } from "./dom";
import { cycles } from "./format";
import type { GroupDelta } from "./protocol";
import type { Showing } from "./types";

export interface BaselineHost {
  /** Whether there is a baseline at all (`info.baseline`). */
  hasBaseline(): boolean;
  showing(): Showing;
  setShowing(next: Showing): void;
}

/** The other side of `showing`. */
export function flipped(showing: Showing): Showing {
  return showing === "after" ? "baseline" : "after";
}

/** A signed cycle count: "+1.2k", "−340", "0". */
export function signedCycles(n: number): string {
  if (n === 0) return "0";
  return `${n > 0 ? "+" : "−"}${cycles(Math.abs(n))}`;
}

/** The text of a group's four Δ cells: before, after, Δ and ratio ("—" where absent). */
export function deltaCells(d: GroupDelta | null): [string, string, string, string] {
  if (d === null) return ["—", "—", "—", "—"];
  return [
    d.before === null ? "—" : cycles(d.before),
    d.after === null ? "—" : cycles(d.after),
    signedCycles(d.delta),
    d.ratio === null ? "—" : `×${d.ratio.toFixed(2)}`,
  ];
}

/** The CSS class of a Δ cell: slower (more cycles), faster or the same. */
export function deltaClass(d: GroupDelta | null): string {
  if (d === null || d.delta === 0) return "ipu-nb-delta-same";
  return d.delta > 0 ? "ipu-nb-delta-slower" : "ipu-nb-delta-faster";
}

/** The toggle button: hidden without a baseline, labelled with the profile shown. */
export class BaselineToggle {
  readonly button = el("button", "ipu-nb-button ipu-nb-baseline-toggle");

  constructor(
    private host: BaselineHost,
    bag: Disposers,
  ) {
    this.button.type = "button";
    bag.listen(this.button, "click", () => this.flip());
    this.sync();
  }

  /** Show the other profile (nothing without a baseline). */
  flip(): void {
    if (!this.host.hasBaseline()) return;
    this.host.setShowing(flipped(this.host.showing()));
  }

  sync(): void {
    const showing = this.host.showing();
    this.button.hidden = !this.host.hasBaseline();
    this.button.textContent = showing === "after" ? "showing: after ⇄" : "showing: baseline ⇄";
    this.button.title = `Flip the timeline to the ${flipped(showing)} profile at the same view (B)`;
    this.button.dataset.showing = showing;
  }
}
