// Cell grids as pixels: one pixel per cell, rows top to bottom, the classes' colours mixed by
// their shares of the cell: colour Σ sₖ·cₖ / Σ sₖ at opacity Σ sₖ, so that drawn over the plot's
// background b the pixel is Σ sₖ·cₖ + (1 − Σ sₖ)·b in sRGB, exactly the cycle-weighted mean of
// the class colours with gaps as background. Each cached block is turned into an image
// once per track layout; drawing a view is then a few scaled copies of those images.
// The pixels are made by `blockPixels` from a self-contained `ImageJob`, on the page or in
// the raster worker (rasterworker.ts, imagemaker.ts).

import type { RawWindow } from "../kernel/types";
import { cellsFromRaw, groupRows, type Shares } from "./cells";

/** The RGB of each of the 32 colour classes, three bytes a class (plain data for the worker). */
export function cellPalette(colours: [number, number, number][]): Uint8Array {
  const table = new Uint8Array(32 * 3);
  for (let c = 0; c < 32; c++) table.set(colours[c] ?? [0, 0, 0], c * 3);
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
  /** The kernel's cells of the block (`rows` × `bins` a plane), or the raw intervals to re-bin. */
  cells: Shares | RawCells;
  bins: number;
  /** Kernel rows (tiles) in the grid. */
  rows: number;
  /** The track layout: display row d shows kernel rows members[offsets[d]] … members[offsets[d + 1] - 1]. */
  offsets: Int32Array;
  members: Int32Array;
  /** `cellPalette` of the colour mode. */
  palette: Uint8Array;
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
  cells: Shares,
  bins: number,
  rows: number,
  palette: Uint8Array,
  scratch?: PixelScratch,
): Pixels {
  const width = Math.max(bins, 1);
  const height = Math.max(rows, 1);
  const pixels = scratch ? scratch.take(width * height) : new Uint32Array(width * height);
  const planes = cells.classes.length;
  const stride = rows * bins;
  const n = Math.min(stride, pixels.length);
  const pr = Int32Array.from(cells.classes, (c) => palette[c * 3]);
  const pg = Int32Array.from(cells.classes, (c) => palette[c * 3 + 1]);
  const pb = Int32Array.from(cells.classes, (c) => palette[c * 3 + 2]);
  // A cell one class covers whole is that class's opaque colour.
  const pure = Uint32Array.from(cells.classes, (_, p) => ((255 << 24) | (pb[p] << 16) | (pg[p] << 8) | pr[p]) >>> 0);
  const { planes: shares } = cells;
  for (let i = 0; i < n; i++) {
    let a = 0;
    let r = 0;
    let g = 0;
    let b = 0;
    let whole = -1;
    for (let p = 0, at = i; p < planes; p++, at += stride) {
      const s = shares[at];
      if (s === 0) continue;
      if (s === 255) {
        whole = p;
        break;
      }
      a += s;
      r += s * pr[p];
      g += s * pg[p];
      b += s * pb[p];
    }
    if (whole >= 0) {
      pixels[i] = pure[whole];
      continue;
    }
    if (a === 0) {
      pixels[i] = 0;
      continue;
    }
    const k = 1 / a;
    pixels[i] = ((a << 24) | (((b * k + 0.5) | 0) << 16) | (((g * k + 0.5) | 0) << 8) | ((r * k + 0.5) | 0)) >>> 0;
  }
  pixels.fill(0, n);
  return { pixels, width, height };
}

/** A job's pixels: its cells (re-binned from raw intervals if need be), rows averaged for the layout, coloured. */
export function blockPixels(job: ImageJob, scratch?: PixelScratch): Pixels {
  const cells =
    "planes" in job.cells
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
