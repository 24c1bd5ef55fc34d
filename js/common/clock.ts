// The clock the widget's offsets are on (the `clock` trait, ipu_nb/_widget/clocks.py): its values,
// how the controls, the axis and the inspector name it. The kernel converts every offset; the
// front end only says which clock they are on.

import { grouped } from "./format";

export type Clock = "tile" | "cropped" | "shared";

/** The trait's values, in the order the control lists them (`CLOCKS` in ipu_nb/_query/head/clock.py). */
export const CLOCKS: readonly Clock[] = ["tile", "cropped", "shared"];

/** What the control and the inspector call each clock (`CLOCK_LABELS` in clocks.py). */
export const CLOCK_LABELS: Record<Clock, string> = {
  tile: "per-tile clock",
  cropped: "crop initial sync",
  shared: "shared clock",
};

/** What the control's tooltip says of each clock. */
export const CLOCK_TITLES: Record<Clock, string> = {
  tile: "Each tile's first sample at offset 0, every tile on its own clock (ipu_nb.query's offsets)",
  cropped: "The newest runtime's one clock for every tile, from where the last tile starts (the cycles before cut)",
  shared: "The newest runtime's one clock for every tile, from the first tile's first sample (nothing cut)",
};

/** The label of `clock`, or the value itself for one this front end does not know. */
export function clockLabel(clock: string): string {
  return (CLOCK_LABELS as Record<string, string>)[clock] ?? clock;
}

/** An offset with its clock named: `12,345 (shared clock)`. */
export function onClock(offset: number, clock: string): string {
  return `${grouped(offset)} (${clockLabel(clock)})`;
}

/** An offset as a sentence starts it: `offset 12,345 (shared clock)`. */
export function offsetText(offset: number, clock: string): string {
  return `offset ${onClock(offset, clock)}`;
}

/** The axis gutter's first word (it is 46 px wide) and the axis' tooltip, for `clock`. */
export function axisCaption(clock: string): { gutter: string; title: string } {
  const gutter = clock === "cropped" ? "cropped" : clock === "shared" ? "shared" : "cycles";
  return { gutter, title: `offsets in cycles on the ${clockLabel(clock)}` };
}
