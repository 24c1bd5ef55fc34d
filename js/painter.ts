// Paints the view from the block cache: for every block of the view's level, the best
// source the cache holds (tilecache.ts), as an image made once per block and track layout
// (rows merged and reordered, raster.ts), copied onto the plot at its place. Never a
// stretched copy of an earlier picture: a block not held yet shows a coarser (or finer)
// block's real cells at their true positions until the kernel's answer replaces it.

import { cellsFromRaw, groupRows } from "./cells";
import { BLOCK_BINS, binWidth, blockRange, blocksIn, levelFor, topLevel } from "./levels";
import { cellPalette, rasterize } from "./raster";
import type { BlockCache, CacheEntry, Source } from "./tilecache";
import type { Layout } from "./tracks";
import type { LodWindow, RawWindow } from "./types";
import type { Range } from "./view";

/** What the images of blocks depend on: the row layout and the colours. */
export interface ImageSpec {
  /** Kernel rows (tiles) in every cell grid. */
  rows: number;
  layout: Layout;
  /** RGB of each colour class of a colour mode. */
  colours(mode: string): [number, number, number][];
  /** Names the colours (the theme): images made for another are made again. */
  tone: string;
}

export interface PaintTarget extends ImageSpec {
  ctx: CanvasRenderingContext2D;
  view: Range;
  /** End of the profile (`max(span, 8)`): no block starts beyond. */
  limit: number;
  span: number;
  /** Device pixels across the plot (what the level is chosen for). */
  pixels: number;
  /** The plot's left edge and width in CSS pixels. */
  x: number;
  width: number;
  dpr: number;
  state: string;
}

export interface Painted {
  level: number;
  /** Blocks in view, and how many were drawn from exact sources of the current state. */
  blocks: number;
  exact: number;
  /** Blocks drawn from another level or state (refined when the kernel answers). */
  standIns: number;
  /** Raw entries drawn exactly in view, one per block drawn from one (their intervals, for labels). */
  raw: CacheEntry[];
  /** Some block waits for its image: paint again at the next frame. */
  deferred: boolean;
}

/** New block images made per paint at most (each costs a few milliseconds). */
export const IMAGES_PER_FRAME = 3;

/** Name of the image of `entry` for block `index` of `level` (raw data is re-binned per block) and a layout. */
function imageName(entry: CacheEntry, level: number, index: number, layoutKey: string): string {
  return `${layoutKey}|${entry.data.mode === "raw" ? `${level}:${index}` : "own"}`;
}

/** The image of an entry's cells (or of its raw intervals re-binned for block `index` of `level`) for `layout`. */
export function imageOf(cache: BlockCache, entry: CacheEntry, level: number, index: number, t: ImageSpec): HTMLCanvasElement {
  const data = entry.data;
  const derived = data.mode === "raw";
  const kind = `${t.layout.key}|${t.tone}`;
  const name = imageName(entry, level, index, kind);
  const held = entry.extras.get(name);
  if (held) return held.value as HTMLCanvasElement;
  cache.prune(entry, (n) => n.startsWith(`${kind}|`));
  let cells: Uint8Array;
  if (data.mode === "raw") {
    const [start] = blockRange(level, index);
    cells = cellsFromRaw(data as RawWindow, start, binWidth(level), BLOCK_BINS, t.rows);
  } else {
    cells = (data as LodWindow).cells;
  }
  const bins = derived ? BLOCK_BINS : (data as LodWindow).bins;
  const grouped = groupRows(cells, bins, t.layout.offsets, t.layout.members);
  const image = rasterize(grouped, bins, t.layout.offsets.length - 1, cellPalette(t.colours(data.colorBy)));
  cache.attach(entry, name, image, image.width * image.height * 4);
  return image;
}

/** One image copied onto the plot: `entry`'s (for block `index` of `level`), bins `sx .. sx + sw` onto cycles `a .. b`. */
interface Piece {
  entry: CacheEntry;
  level: number;
  index: number;
  sx: number;
  sw: number;
  a: number;
  b: number;
}

/** The pieces that draw block `index` of `level` from `source`. */
function piecesOf(source: Source, level: number, index: number): Piece[] {
  const [a, b] = blockRange(level, index);
  return source.entries.map((entry) => {
    if (entry.data.mode === "raw") {
      // Raw intervals: re-binned for this block, or for the finer half they are.
      const [l, k] = entry.level < level ? [entry.level, entry.index] : [level, index];
      const [ra, rb] = blockRange(l, k);
      return { entry, level: l, index: k, sx: 0, sw: BLOCK_BINS, a: ra, b: rb };
    }
    const data = entry.data as LodWindow;
    const [ea] = blockRange(entry.level, entry.index);
    const w = binWidth(entry.level);
    if (entry.level > level) return { entry, level: entry.level, index: entry.index, sx: (a - ea) / w, sw: (b - a) / w, a, b };
    return { entry, level: entry.level, index: entry.index, sx: 0, sw: data.bins, a: ea, b: ea + data.bins * w };
  });
}

/** Copy `sx .. sx + sw` (bins) of `image` onto cycles `a .. b` of the plot, every on-screen row band. */
function blit(image: HTMLCanvasElement, sx: number, sw: number, a: number, b: number, t: PaintTarget): void {
  const [s, e] = t.view;
  const k = t.width / Math.max(e - s, 1);
  const x0 = t.x + (a - s) * k;
  const x1 = t.x + (b - s) * k;
  const rowCss = t.layout.rowPx / t.dpr;
  const bands: [first: number, count: number, y: number][] = [
    [0, t.layout.pinnedRows, 0],
    [t.layout.pinnedRows + t.layout.firstRow, t.layout.scrolledRows, t.layout.pinnedRows * rowCss],
  ];
  for (const [first, count, y] of bands) {
    if (count > 0) t.ctx.drawImage(image, sx, first, sw, count, x0, y, x1 - x0, count * rowCss);
  }
}

/**
 * Paint every block of the view; returns what was drawn from where. At most `IMAGES_PER_FRAME`
 * images are made per paint: a block whose best source's image is not made yet (a fast zoom
 * through raw levels makes one per block and level) is drawn from the next source whose
 * images exist, and the painting is `deferred`: the caller paints again at the next frame.
 */
export function paintView(cache: BlockCache, t: PaintTarget): Painted {
  cache.frame();
  const [s, e] = t.view;
  const level = levelFor(t.view, t.pixels, t.span);
  const top = topLevel(t.span);
  const wanted = blocksIn(level, s, e, t.limit);
  const out: Painted = { level, blocks: wanted.length, exact: 0, standIns: 0, raw: [], deferred: false };
  let budget = IMAGES_PER_FRAME;
  t.ctx.imageSmoothingEnabled = false;
  for (const index of wanted) {
    const candidates = cache.sources(t.state, level, index, top);
    let chosen = -1;
    let pieces: Piece[] = [];
    for (let c = 0; c < candidates.length && chosen < 0; c++) {
      pieces = piecesOf(candidates[c], level, index);
      const missing = pieces.filter((p) => !p.entry.extras.has(imageName(p.entry, p.level, p.index, `${t.layout.key}|${t.tone}`))).length;
      if (missing <= budget || c === candidates.length - 1) {
        chosen = c;
        budget -= missing;
      }
    }
    if (chosen < 0) continue;
    if (chosen > 0) out.deferred = true;
    for (const p of pieces) blit(imageOf(cache, p.entry, p.level, p.index, t), p.sx, p.sw, p.a, p.b, t);
    const source = candidates[chosen];
    if ((source.kind === "exact" || source.kind === "raw") && !source.stale) {
      out.exact++;
      if (source.entries[0].data.mode === "raw") out.raw.push(source.entries[0]);
    } else {
      out.standIns++;
    }
  }
  return out;
}

/** Whether every block the view needs is held exactly for `state`. */
export function viewIsFinal(cache: BlockCache, view: Range, pixels: number, span: number, limit: number, state: string): boolean {
  const level = levelFor(view, pixels, span);
  const top = topLevel(span);
  return blocksIn(level, view[0], view[1], limit).every((k) => cache.isFinal(state, level, k, top));
}
