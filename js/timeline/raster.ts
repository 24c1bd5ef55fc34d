// Cell grids as pixels: one pixel per cell, rows top to bottom, the colour of the cell's
// class and an opacity from its coverage level. Each cached block is turned into an image
// once per track layout; drawing a view is then a few scaled copies of those images.
// The pixels are made by `blockPixels` from a self-contained `ImageJob`, on the page or in
// the raster worker (rasterworker.ts, imagemaker.ts).

import type { RawWindow } from "../kernel/types";
import { cellsFromRaw, groupRows } from "./cells";

/** RGBA word (little-endian ABGR) for each cell byte `class | level << 5`; level 0 is transparent. */
export function cellPalette(colours: [number, number, number][]): Uint32Array {
  const table = new Uint32Array(256);
  for (let c = 0; c < 256; c++) {
    const level = c >> 5;
    if (level === 0) continue;
    const [r, g, b] = colours[c & 31];
    const a = Math.round(255 * (0.3 + (0.7 * level) / 7));
    table[c] = ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
  }
  return table;
}

/** The raw intervals an image is re-binned from: `bins` bins of `width` cycles from `from`. */
export interface RawCells {
  window: Pick<RawWindow, "start" | "count" | "x0" | "x1" | "row" | "flags" | "sample">;
  from: number;
  width: number;
}

/** Everything one block image is made from (plain data: it may travel to a worker). */
export interface ImageJob {
  /** The kernel's cells of the block (`rows` × `bins`), or the raw intervals to re-bin. */
  cells: Uint8Array | RawCells;
  bins: number;
  /** Kernel rows (tiles) in the grid. */
  rows: number;
  /** The track layout: display row d shows kernel rows members[offsets[d]] … members[offsets[d + 1] - 1]. */
  offsets: Int32Array;
  members: Int32Array;
  palette: Uint32Array;
}

/** The image of a job: `width` × `height` RGBA pixels (one per bin and display row). */
export interface Pixels {
  pixels: Uint32Array;
  width: number;
  height: number;
}

/**
 * One pixel buffer reused from image to image, for a maker that copies each image's pixels
 * out before making the next: a block image is up to 3 MB, and a fresh one per image keeps
 * the garbage collector busy during a zoom.
 */
export class PixelScratch {
  private buffer = new Uint32Array(0);

  /** `size` words (their content is left over from the last image). */
  take(size: number): Uint32Array {
    if (this.buffer.length < size) this.buffer = new Uint32Array(size);
    return this.buffer.subarray(0, size);
  }
}

/** The `rows` × `bins` grid `cells` coloured by `palette` (`cellPalette`): one RGBA word per cell, in `scratch` if given. */
export function gridPixels(
  cells: Uint8Array,
  bins: number,
  rows: number,
  palette: Uint32Array,
  scratch?: PixelScratch,
): Pixels {
  const width = Math.max(bins, 1);
  const height = Math.max(rows, 1);
  const pixels = scratch ? scratch.take(width * height) : new Uint32Array(width * height);
  const n = Math.min(cells.length, pixels.length);
  for (let i = 0; i < n; i++) pixels[i] = palette[cells[i]];
  if (scratch) pixels.fill(0, n);
  return { pixels, width, height };
}

/** A job's pixels: its cells (re-binned from raw intervals if need be), rows merged for the layout, coloured. */
export function blockPixels(job: ImageJob, scratch?: PixelScratch): Pixels {
  const cells =
    job.cells instanceof Uint8Array
      ? job.cells
      : cellsFromRaw(
          { ...job.cells.window, mode: "raw", end: 0, labels: null, labelIndex: null },
          job.cells.from,
          job.cells.width,
          job.bins,
          job.rows,
        );
  const grouped = groupRows(cells, job.bins, job.offsets, job.members);
  return gridPixels(grouped, job.bins, job.offsets.length - 1, job.palette, scratch);
}

/** Pixels as a canvas of their size (the page's own way of making an image, without a worker). */
export function canvasOf({ pixels, width, height }: Pixels): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d")!;
  const img = ctx.createImageData(width, height);
  new Uint32Array(img.data.buffer).set(pixels);
  ctx.putImageData(img, 0, 0);
  return canvas;
}
