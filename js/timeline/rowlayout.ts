// The timeline's row layout, kept while nothing it depends on changes: the rows the kernel
// names (their ids, logical indices and grid places), the choice (order, tiles filter, pins,
// vertical zoom, scroll) and the plot's height and pixel ratio. The vertical zoom asked for is
// kept as asked: a tiles filter of 12 tiles shows 12 rows, and clearing it brings every row back.

import { type Layout, layoutTracks, type TrackChoice, type TrackSource } from "./tracks";

/** A layout with the display row of each kernel row (-1: not shown). */
export interface HeldLayout {
  layout: Layout;
  rowOf: Int32Array;
}

/** Rows to scroll for `pages` pages (a fraction or more) of `onScreen` rows: at least one, a row kept in view. */
export function pageRows(onScreen: number, pages: number): number {
  if (pages === 0) return 0;
  const page = Math.max(1, onScreen - 1);
  return Math.sign(pages) * Math.max(1, Math.round(Math.abs(pages) * page));
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined, same: (x: T, y: T) => boolean): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
  return true;
}

/** Whether two sources name the same rows the same way (the same object, or equal lists). */
export function sameSource(a: TrackSource, b: TrackSource): boolean {
  const is = (x: number, y: number) => x === y;
  return (
    a === b ||
    (sameList(a.rows, b.rows, is) &&
      sameList(a.logical, b.logical, is) &&
      sameList(a.grid, b.grid, (x, y) => x[0] === y[0] && x[1] === y[1]))
  );
}

export class RowLayouts {
  private held: { source: TrackSource; key: string; layout: Layout; rowOf: Int32Array } | null = null;

  /**
   * The layout of `source`'s rows for `choice` in a plot `heightPx` device pixels tall; `made` is
   * called with a layout made anew (not one held). The scroll is clamped to what there is, in
   * `choice` too; the vertical zoom stays as asked.
   */
  get(source: TrackSource, choice: TrackChoice, heightPx: number, dpr: number, made?: (l: Layout) => void): HeldLayout {
    const key = JSON.stringify([choice, heightPx, dpr]);
    const held = this.held;
    if (held !== null && held.key === key && sameSource(held.source, source)) {
      held.source = source;
      return held;
    }
    const layout = layoutTracks(source, choice, heightPx, dpr);
    const rowOf = new Int32Array(source.rows.length).fill(-1);
    for (let d = 0; d < layout.offsets.length - 1; d++) {
      for (let i = layout.offsets[d]; i < layout.offsets[d + 1]; i++) rowOf[layout.members[i]] = d;
    }
    choice.scroll = layout.scroll;
    this.held = { source, key: JSON.stringify([choice, heightPx, dpr]), layout, rowOf };
    made?.(layout);
    return this.held;
  }
}
