// Cell grids as pixels: one pixel per cell, rows top to bottom, the colour of the cell's
// class and an opacity from its coverage level. Each cached block is turned into an image
// once per track layout; drawing a view is then a few scaled copies of those images.

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

/** The `rows` × `bins` grid `cells` as a canvas of that many pixels, coloured by `palette` (`cellPalette`). */
export function rasterize(cells: Uint8Array, bins: number, rows: number, palette: Uint32Array): HTMLCanvasElement {
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(bins, 1);
  canvas.height = Math.max(rows, 1);
  const ctx = canvas.getContext("2d")!;
  const img = ctx.createImageData(canvas.width, canvas.height);
  const px = new Uint32Array(img.data.buffer);
  const n = Math.min(cells.length, px.length);
  for (let i = 0; i < n; i++) px[i] = palette[cells[i]];
  ctx.putImageData(img, 0, 0);
  return canvas;
}
