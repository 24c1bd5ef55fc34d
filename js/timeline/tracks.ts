// Track layout: which tiles the timeline shows, in what order, how many share a pixel row,
// and which rows are on screen. The kernel's cells come in its row order (physical tile id);
// everything here is a mapping over those rows, so reordering, filtering, pinning or zooming
// rows vertically never needs the kernel.
//
// Rows are whole device pixels tall and never thinner than one: when more tiles are asked to
// fit than there are pixel rows, consecutive tiles of the order share a row (its cells are the
// strongest of theirs, cells.ts) and the layout says how many (`perRow`).

/** Orders of the tile rows. */
export const TILE_ORDERS = ["physical", "logical", "grid"] as const;
export type TileOrder = (typeof TILE_ORDERS)[number];

export const ORDER_LABELS: Record<TileOrder, string> = {
  physical: "physical id",
  logical: "logical",
  grid: "C600 grid (column, row)",
};

/** Rows at most this tall (CSS pixels), so a handful of tiles still reads as a timeline. */
export const MAX_ROW_CSS = 40;
/** The fewest tiles vertical zoom shows (when there are that many). */
export const MIN_ROWS = 12;

/** What the kernel says of the rows: physical id (`rows`), logical index and grid position of each. */
export interface TrackSource {
  rows: number[];
  logical?: number[];
  grid?: [column: number, row: number][];
}

export interface TrackChoice {
  order: TileOrder;
  /** Physical ids to show, or every tile when empty (the `tiles` filter). */
  only: number[];
  /** Physical ids shown first, in this order, whatever the scroll. */
  pinned: number[];
  /** Tiles wanted in view: vertical zoom (clamped to what there is). */
  inView: number;
  /** First unpinned tile position on screen: vertical scroll (clamped). */
  scroll: number;
}

export interface Layout {
  /** Identifies the grouping (order, tiles, pins, tiles per row): images of cells depend on it. */
  key: string;
  /** Display row d holds kernel rows `members[offsets[d]] … members[offsets[d + 1] - 1]`. */
  offsets: Int32Array;
  members: Int32Array;
  /** Display rows pinned at the top (the first `pinnedRows` of them). */
  pinnedRows: number;
  /** Tiles per display row (1 unless the rows would be thinner than a device pixel). */
  perRow: number;
  /** Device pixels per display row. */
  rowPx: number;
  /** Unpinned display rows on screen: `firstRow` … `firstRow + scrolledRows - 1`. */
  firstRow: number;
  scrolledRows: number;
  /** Tiles in the layout (shown or scrolled away). */
  tiles: number;
  /** The choice clamped to what there is. */
  inView: number;
  scroll: number;
}

/** The kernel rows in the chosen order, filtered to `only`. */
export function orderRows(source: TrackSource, order: TileOrder, only: number[]): number[] {
  const n = source.rows.length;
  const keep = only.length ? new Set(only) : null;
  const out: number[] = [];
  for (let r = 0; r < n; r++) if (!keep || keep.has(source.rows[r])) out.push(r);
  const logical = source.logical;
  const grid = source.grid;
  if (order === "logical" && logical && logical.length === n) out.sort((a, b) => logical[a] - logical[b] || a - b);
  else if (order === "grid" && grid && grid.length === n)
    out.sort((a, b) => grid[a][0] - grid[b][0] || grid[a][1] - grid[b][1] || a - b);
  return out; // physical: the kernel's own order
}

/**
 * The layout for a plot `heightPx` device pixels tall with `dpr` device pixels per CSS pixel.
 */
export function layoutTracks(source: TrackSource, choice: TrackChoice, heightPx: number, dpr = 1): Layout {
  const ordered = orderRows(source, choice.order, choice.only);
  const byTile = new Map(ordered.map((r) => [source.rows[r], r]));
  const pinnedRows = choice.pinned.map((t) => byTile.get(t)).filter((r): r is number => r !== undefined);
  const pinnedSet = new Set(pinnedRows);
  const rest = ordered.filter((r) => !pinnedSet.has(r));
  const tiles = ordered.length;
  const height = Math.max(1, Math.floor(heightPx));
  const inView = Math.max(Math.min(tiles, MIN_ROWS), Math.min(tiles, Math.round(choice.inView) || tiles));
  const perRow = Math.max(1, Math.ceil(inView / height));
  const offsets: number[] = [0];
  const members: number[] = [];
  const group = (list: number[]) => {
    for (let i = 0; i < list.length; i += perRow) {
      for (let j = i; j < Math.min(i + perRow, list.length); j++) members.push(list[j]);
      offsets.push(members.length);
    }
  };
  group(pinnedRows);
  const pinned = offsets.length - 1;
  group(rest);
  const rows = offsets.length - 1;
  const visibleRows = Math.max(1, Math.ceil(inView / perRow));
  const rowPx = Math.max(1, Math.min(Math.floor(height / visibleRows), Math.floor(MAX_ROW_CSS * dpr)));
  const scrolledRows = Math.max(0, Math.min(rows - pinned, Math.floor(height / rowPx) - pinned));
  const maxFirst = Math.max(0, rows - pinned - scrolledRows);
  const firstRow = Math.max(0, Math.min(maxFirst, Math.floor(Math.max(0, choice.scroll) / perRow)));
  return {
    key: `${choice.order}|${choice.only.join(",")}|${pinnedRows.join(",")}|${perRow}`,
    offsets: Int32Array.from(offsets),
    members: Int32Array.from(members),
    pinnedRows: pinned,
    perRow,
    rowPx,
    firstRow,
    scrolledRows,
    tiles,
    inView,
    scroll: firstRow * perRow,
  };
}

/** Display rows on screen, top to bottom. */
export function screenRows(layout: Layout): number[] {
  const out: number[] = [];
  for (let d = 0; d < layout.pinnedRows; d++) out.push(d);
  for (let i = 0; i < layout.scrolledRows; i++) out.push(layout.pinnedRows + layout.firstRow + i);
  return out;
}

/** The display row at screen row `s` (-1 below the last one). */
export function displayRowAt(layout: Layout, s: number): number {
  if (s < 0) return -1;
  if (s < layout.pinnedRows) return s;
  const d = layout.pinnedRows + layout.firstRow + (s - layout.pinnedRows);
  return s - layout.pinnedRows < layout.scrolledRows && d < layout.offsets.length - 1 ? d : -1;
}

/** The screen row showing display row `d`, or -1 when it is scrolled away. */
export function screenRowOf(layout: Layout, d: number): number {
  if (d < layout.pinnedRows) return d;
  const s = d - layout.firstRow;
  return s >= layout.pinnedRows && s < layout.pinnedRows + layout.scrolledRows ? s : -1;
}

/** Kernel rows of display row `d`. */
export function membersOf(layout: Layout, d: number): number[] {
  return Array.from(layout.members.subarray(layout.offsets[d], layout.offsets[d + 1]));
}

/** The display row holding kernel row `row`, or -1 when it is not shown. */
export function displayRowOfRow(layout: Layout, row: number): number {
  const i = layout.members.indexOf(row);
  if (i < 0) return -1;
  let lo = 0;
  let hi = layout.offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (layout.offsets[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The scroll (first unpinned tile position) that brings kernel row `row` on screen, unchanged if it is. */
export function revealScroll(layout: Layout, row: number): number {
  const d = displayRowOfRow(layout, row);
  if (d < 0 || d < layout.pinnedRows || screenRowOf(layout, d) >= 0) return layout.scroll;
  const rest = d - layout.pinnedRows;
  return Math.max(0, rest - Math.floor(layout.scrolledRows / 2)) * layout.perRow;
}
