// Measuring on the timeline: the ruler (shift-drag between two points: Δ cycles and Δ µs)
// and the cursor readout (the offset and tile under the mouse).

import { grouped } from "../common/format";

/** Cycles as microseconds at `clockHz`, to the nanosecond. */
export function micros(cycles: number, clockHz: number): string {
  if (!(clockHz > 0)) return "? µs";
  return `${((cycles * 1e6) / clockHz).toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 })} µs`;
}

/** What the ruler between offsets `a` and `b` reads. */
export function rulerText(a: number, b: number, clockHz: number): string {
  const d = Math.abs(Math.round(b) - Math.round(a));
  return `Δ ${grouped(d)} cycles · ${micros(d, clockHz)}`;
}

/** What the readout says of offset `x` on `tiles` (the tile ids of the row under the mouse). */
export function readoutText(x: number, clockHz: number, tiles: number[]): string {
  const where =
    tiles.length === 0
      ? ""
      : tiles.length === 1
        ? ` · tile ${tiles[0]}`
        : ` · tiles ${tiles[0]}…${tiles[tiles.length - 1]} (${tiles.length})`;
  return `${grouped(x)} cycles · ${micros(x, clockHz)}${where}`;
}

/** The ruler's two ends in cycles while (and after) it is dragged. */
export class Ruler {
  from: number | null = null;
  to: number | null = null;

  get active(): boolean {
    return this.from !== null && this.to !== null;
  }

  start(at: number): void {
    this.from = at;
    this.to = at;
  }

  move(at: number): void {
    if (this.from !== null) this.to = at;
  }

  clear(): void {
    this.from = null;
    this.to = null;
  }

  /** The measured range, ordered, or null. */
  range(): [number, number] | null {
    if (this.from === null || this.to === null) return null;
    return [Math.min(this.from, this.to), Math.max(this.from, this.to)];
  }
}
