// Level-of-detail summaries as pixels: one pixel per cell, rows top to bottom, the colour
// of the cell's class and an opacity from its coverage level.

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

/** Turns cell grids into an image, reusing one offscreen canvas and pixel buffer while the size stays. */
export class Raster {
  // A summary is ~6 MB of pixels: fresh buffers per reply kept the garbage collector busy during zooms.
  private canvas: HTMLCanvasElement | null = null;
  private pixels: ImageData | null = null;

  /** The `rows` × `bins` grid `cells` as a canvas of that many pixels. */
  draw(cells: Uint8Array, bins: number, rows: number, colours: [number, number, number][]): HTMLCanvasElement {
    const height = Math.max(rows, 1);
    if (!this.canvas || this.canvas.width !== bins || this.canvas.height !== height) {
      this.canvas = document.createElement("canvas");
      this.canvas.width = bins;
      this.canvas.height = height;
      this.pixels = this.canvas.getContext("2d")!.createImageData(bins, height);
    }
    const img = this.pixels!;
    const table = cellPalette(colours);
    const px = new Uint32Array(img.data.buffer);
    const n = Math.min(cells.length, px.length);
    for (let i = 0; i < n; i++) px[i] = table[cells[i]];
    if (n < px.length) px.fill(0, n);
    this.canvas.getContext("2d")!.putImageData(img, 0, 0);
    return this.canvas;
  }
}
