// The baseline: a toggle that flips the timeline between the profile and its
// baseline at the same view (the `showing` trait; key B), and the group table's Δ cells
// (phase cycles before / after / Δ / ratio from the kernel's `compare(baseline, after)`), and
// the flame graph's diverging Δ colouring with its legend.

import { css, mix, type RGB, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { cycles } from "../common/format";
import type { GroupDelta } from "../kernel/protocol";
import type { Showing } from "../kernel/types";

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

/** Faster (fewer cycles after) and slower ends of the flame graph's diverging Δ scale. */
export const FASTER: RGB = [33, 102, 172];
export const SLOWER: RGB = [178, 24, 43];

/** The scale's reach: the largest |Δ| of the nodes below the root (at least 1). */
export function deltaReach(deltas: readonly (number | null)[]): number {
  let most = 1;
  for (let i = 1; i < deltas.length; i++) {
    const d = deltas[i];
    if (d !== null) most = Math.max(most, Math.abs(d));
  }
  return most;
}

/** The ratio at which the relative scale reaches full colour (×2 slower, ×½ faster). */
export const FULL_RATIO = 2;

/**
 * A node's after ÷ before cycles, from its cycles on the side shown (`value`) and its Δ
 * (after − before): Infinity for a node new after, 0 for one gone, null when unknown.
 */
export function deltaRatio(value: number, delta: number | null, shownAfter: boolean): number | null {
  if (delta === null) return null;
  const after = shownAfter ? value : value + delta;
  const before = shownAfter ? value - delta : value;
  if (before <= 0) return after > 0 ? Number.POSITIVE_INFINITY : 1;
  return Math.max(0, after) / before;
}

/**
 * The colour of a change relative to the node's own size (its after ÷ before `ratio`): the
 * theme's plot background (`middle`) at ×1, the slower or faster end at `FULL_RATIO` or its
 * inverse and beyond, log-scaled between, so ×1.5 of a small box shows as much as of a big one.
 */
export function ratioColour(ratio: number | null, middle: RGB, unknown: RGB): RGB {
  if (ratio === null) return unknown;
  if (ratio === 1) return middle;
  const t = ratio === 0 || !Number.isFinite(ratio) ? 1 : Math.min(1, Math.abs(Math.log(ratio)) / Math.log(FULL_RATIO));
  // Square-root easing: small changes still show, ×1 stays the background exactly.
  return mix(middle, ratio > 1 ? SLOWER : FASTER, Math.sqrt(t) * 0.9);
}

/** A diverging colour centred at 0 (`middle`: the theme's plot background): blue faster, red slower. */
export function deltaColour(delta: number | null, reach: number, middle: RGB, unknown: RGB): RGB {
  if (delta === null) return unknown;
  const t = Math.min(1, Math.abs(delta) / reach);
  // Square-root easing: small changes still show, 0 stays the background exactly.
  return mix(middle, delta > 0 ? SLOWER : FASTER, Math.sqrt(t) * 0.9);
}

/** The switch and legend of the flame graph's Δ colouring (hidden without a baseline). */
export class DeltaColouring {
  readonly root = el("span", "ipu-nb-flame-delta");
  readonly input = el("input");
  private legend = el("span", "ipu-nb-delta-legend");

  constructor(
    private hasBaseline: () => boolean,
    onChange: (on: boolean) => void,
    bag: Disposers,
  ) {
    this.input.type = "checkbox";
    const label = el("label", "ipu-nb-delta-switch");
    label.append(this.input, el("span", undefined, " colour by Δ vs baseline"));
    this.root.append(label, this.legend);
    bag.listen(this.input, "change", () => onChange(this.input.checked));
    this.sync(null);
  }

  get on(): boolean {
    return this.input.checked && this.hasBaseline();
  }

  /** Show the legend (`reach`: the largest |Δ| drawn; null: not colouring by Δ). The scale is each
   * box's after ÷ before, so its ends are ratios; the largest change in cycles is said beside. */
  sync(reach: number | null): void {
    this.root.hidden = !this.hasBaseline();
    this.legend.hidden = reach === null;
    this.legend.textContent = "";
    if (reach === null) return;
    const bar = el("span", "ipu-nb-delta-scale");
    bar.style.background = `linear-gradient(to right, ${css(FASTER)}, ${css(theme().plotRgb)}, ${css(SLOWER)})`;
    this.legend.append(
      el("span", undefined, `faster ×1/${FULL_RATIO} `),
      bar,
      el("span", undefined, ` ×${FULL_RATIO} slower`),
      el("span", "ipu-nb-delta-note", ` · each box against its own baseline cycles; largest Δ ${signedCycles(reach)}`),
    );
    this.legend.title =
      `Colour: a box's cycles after ÷ before (the background at ×1, full colour at ×${FULL_RATIO} or ×1/${FULL_RATIO} and beyond).` +
      ` The largest change of any box is ${signedCycles(reach)} cycles.`;
    this.legend.dataset.reach = String(reach);
  }
}
