// Paints the view from the block cache: for every block of the view's level, the best
// source the cache holds (tilecache.ts), as an image made once per block and track layout
// (rows merged and reordered, raster.ts), copied onto the plot at its place. Never a
// stretched copy of an earlier picture: a block not held yet shows a coarser (or finer)
// block's real cells at their true positions until the kernel's answer replaces it.
// Images are made in the raster worker (imagemaker.ts) when there is one: a block whose
// best image is on its way shows the best source whose image exists meanwhile.

import type { LodWindow, RawWindow } from "../kernel/types";
import type { ImageMaker } from "./imagemaker";
import { BLOCK_BINS, binWidth, blockRange, blocksIn, levelFor, topLevel } from "./levels";
import { blockPixels, canvasOf, cellPalette, type ImageJob, PixelScratch } from "./raster";
import type { BlockCache, CacheEntry, Source } from "./tilecache";
import type { Layout } from "./tracks";
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
  /** Makes images off the page (absent or unavailable: they are made here). */
  maker?: ImageMaker;
}

/** A block image: a canvas made on the page or a bitmap from the worker. */
export type BlockImage = HTMLCanvasElement | ImageBitmap;

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
  /** Block images the view waits for from the worker (its reply draws again). */
  waiting: number;
  /** Block images made on the page in this paint. */
  made: number;
}

/** New block images made on the page per paint at most (each costs a few milliseconds). */
export const IMAGES_PER_FRAME = 3;
/**
 * With the worker, images made on the page per paint: one, and only of the kernel's cells for
 * a block it makes final (a pan onto a block that just arrived); raw intervals re-binned for
 * a finer level are the worker's. The others show a stand-in for a frame or two.
 */
export const IMAGES_PER_FRAME_WITH_WORKER = 1;

/** Name of the image of `entry` for block `index` of `level` (raw data is re-binned per block) and a layout. */
function imageName(entry: CacheEntry, level: number, index: number, layoutKey: string): string {
  return `${layoutKey}|${entry.data.mode === "raw" ? `${level}:${index}` : "own"}`;
}

/** What the images of a layout and theme are named after (an image of another is made again). */
function imageKind(t: ImageSpec): string {
  return `${t.layout.key}|${t.tone}`;
}

/** What the image of `entry` for block `index` of `level` is made from (raw data is re-binned per block). */
function jobOf(entry: CacheEntry, level: number, index: number, t: ImageSpec): ImageJob {
  const data = entry.data;
  const palette = cellPalette(t.colours(data.colorBy));
  const { offsets, members } = t.layout;
  if (data.mode === "raw") {
    const [start] = blockRange(level, index);
    // Only the intervals: the job may be copied to the worker, labels and all otherwise.
    const { start: at, count, x0, x1, row, flags, sample } = data as RawWindow;
    const window = { start: at, count, x0, x1, row, flags, sample };
    return {
      cells: { window, from: start, width: binWidth(level) },
      bins: BLOCK_BINS,
      rows: t.rows,
      offsets,
      members,
      palette,
    };
  }
  const lod = data as LodWindow;
  return {
    cells: { classes: lod.classes, planes: lod.cells },
    bins: lod.bins,
    rows: t.rows,
    offsets,
    members,
    palette,
  };
}

/** The image of `entry` for block `index` of `level` if it is made, else null. */
function heldImage(entry: CacheEntry, level: number, index: number, t: ImageSpec): BlockImage | null {
  return (entry.extras.get(imageName(entry, level, index, imageKind(t)))?.value as BlockImage | undefined) ?? null;
}

function keep(cache: BlockCache, entry: CacheEntry, name: string, kind: string, image: BlockImage): void {
  cache.prune(entry, (n) => n.startsWith(`${kind}|`));
  cache.attach(entry, name, image, image.width * image.height * 4);
}

/** Pixels of the images made on the page, reused (`canvasOf` copies them). */
const scratch = new PixelScratch();

/** The image of an entry's cells (or of its raw intervals re-binned for block `index` of `level`) for `layout`, made now. */
export function imageOf(cache: BlockCache, entry: CacheEntry, level: number, index: number, t: ImageSpec): BlockImage {
  const held = heldImage(entry, level, index, t);
  if (held) return held;
  const kind = imageKind(t);
  const image = canvasOf(blockPixels(jobOf(entry, level, index, t), scratch)); // copied into the canvas at once
  keep(cache, entry, imageName(entry, level, index, kind), kind, image);
  return image;
}

/** The worker's name for the image of `entry` for block `index` of `level`. */
function jobKey(entry: CacheEntry, level: number, index: number, kind: string): string {
  return `${entry.key}|${imageName(entry, level, index, kind)}`;
}

/**
 * Ask the worker for the image (`urgent`: the view waits for it), kept on the entry when it
 * comes; false when there is no worker (then `imageOf` makes it here).
 */
export function requestImage(
  cache: BlockCache,
  entry: CacheEntry,
  level: number,
  index: number,
  t: ImageSpec,
  urgent: boolean,
): boolean {
  if (!t.maker?.available) return false;
  if (heldImage(entry, level, index, t)) return true;
  const kind = imageKind(t);
  const name = imageName(entry, level, index, kind);
  return t.maker.submit(jobKey(entry, level, index, kind), jobOf(entry, level, index, t), urgent, (image) =>
    keep(cache, entry, name, kind, image),
  );
}

/**
 * Have the image of `entry`, a block just received, made so the frame that first shows it only
 * copies it; true when it was made here. The view waits for it (`shown`: a block of the view at
 * its level) and it is the kernel's own cells: made here at once, a few milliseconds, where the
 * worker's round trip waited behind its queue and the page's frames. Else the worker's (the
 * view's first); here too when there is none.
 */
export function prepareImage(cache: BlockCache, entry: CacheEntry, t: ImageSpec, shown: boolean): boolean {
  const waited = shown && entry.data.mode === "lod";
  if (!waited && requestImage(cache, entry, entry.level, entry.index, t, shown)) return false;
  imageOf(cache, entry, entry.level, entry.index, t);
  return true;
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
    if (entry.level > level)
      return { entry, level: entry.level, index: entry.index, sx: (a - ea) / w, sw: (b - a) / w, a, b };
    return { entry, level: entry.level, index: entry.index, sx: 0, sw: data.bins, a: ea, b: ea + data.bins * w };
  });
}

/** Copy `sx .. sx + sw` (bins) of `image` onto cycles `a .. b` of the plot, every on-screen row band. */
function blit(image: BlockImage, sx: number, sw: number, a: number, b: number, t: PaintTarget): void {
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
 * Paint every block of the view; returns what was drawn from where. Images not made yet are
 * made within a budget per paint: without a worker, `IMAGES_PER_FRAME` on the page, and a
 * block whose best source's image is not made yet (a fast zoom through raw levels makes one
 * per block and level) is drawn from the next source whose images exist, the painting
 * `deferred` (the caller paints again at the next frame). With the worker, the missing
 * images are asked of it (the view's first) and the block shows the best source whose
 * images exist until they come; only a cheap image that makes a block exact is made here,
 * one per paint and not one the worker is making already, and a block with no image at all
 * made here too (real data in the first frame).
 */
export function paintView(cache: BlockCache, t: PaintTarget): Painted {
  cache.frame();
  const [s, e] = t.view;
  const level = levelFor(t.view, t.pixels, t.span);
  const top = topLevel(t.span);
  const wanted = blocksIn(level, s, e, t.limit);
  const out: Painted = {
    level,
    blocks: wanted.length,
    exact: 0,
    standIns: 0,
    raw: [],
    deferred: false,
    waiting: 0,
    made: 0,
  };
  const worker = t.maker?.available ?? false;
  const kind = imageKind(t);
  if (worker) t.maker!.retain((key) => key.includes(`|${kind}|`));
  let budget = worker ? IMAGES_PER_FRAME_WITH_WORKER : IMAGES_PER_FRAME;
  t.ctx.imageSmoothingEnabled = false;
  for (const index of wanted) {
    const candidates = cache.sources(t.state, level, index, top, worker);
    if (!candidates.length) continue;
    const pieces = candidates.map((c) => piecesOf(c, level, index));
    const missing = pieces.map((ps) =>
      ps.filter((p) => !p.entry.extras.has(imageName(p.entry, p.level, p.index, kind))),
    );
    let chosen: number;
    if (worker) {
      const best = candidates[0];
      // Made here only when cheap: the kernel's own cells (raw intervals re-binned cost more).
      const cheap =
        (best.kind === "exact" || best.kind === "raw") &&
        !best.stale &&
        missing[0].every((p) => p.entry.data.mode === "lod");
      // Not when the worker is making it already: it is back in milliseconds, and made twice it costs the page's frame.
      const coming = missing[0].some((p) => t.maker!.making(jobKey(p.entry, p.level, p.index, kind)));
      const ready = missing.findIndex((m) => m.length === 0);
      if (ready === 0) chosen = 0;
      else if ((cheap && !coming && missing[0].length <= budget) || ready < 0) {
        chosen = 0; // made here: it makes the block exact cheaply, or nothing else can be drawn
        budget -= missing[0].length;
      } else {
        chosen = ready;
        for (const p of missing[0]) requestImage(cache, p.entry, p.level, p.index, t, true);
        out.waiting += missing[0].length;
      }
    } else {
      chosen = missing.findIndex((m, c) => m.length <= budget || c === candidates.length - 1);
      budget -= missing[chosen].length;
      if (chosen > 0) out.deferred = true;
    }
    out.made += missing[chosen].length;
    for (const p of pieces[chosen]) blit(imageOf(cache, p.entry, p.level, p.index, t), p.sx, p.sw, p.a, p.b, t);
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
export function viewIsFinal(
  cache: BlockCache,
  view: Range,
  pixels: number,
  span: number,
  limit: number,
  state: string,
): boolean {
  const level = levelFor(view, pixels, span);
  const top = topLevel(span);
  return blocksIn(level, view[0], view[1], limit).every((k) => cache.isFinal(state, level, k, top));
}
