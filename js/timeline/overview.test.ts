import assert from "node:assert/strict";
import { test } from "node:test";
import type { RGB } from "../common/colors";
import { Disposers } from "../common/disposers";
import { installFakeDom } from "../testing/fake-dom";
import { Overview, type OverviewShares, stripPixels } from "./overview";
import { GUTTER, plotWidth } from "./plot";
import type { Range } from "./view";

test("the view's box follows the view on its own canvas; the strip draws on data, size or drag", () => {
  const dom = installFakeDom();
  try {
    let view: Range = [0, 1000];
    const overview = new Overview(
      { view: () => view, span: () => 1000, legend: () => ["compute"], noKernel: () => "(none)", setView: () => {} },
      new Disposers(),
    );
    const canvas = overview.root.children[0] as unknown as HTMLCanvasElement;
    const boxCanvas = overview.root.children[1] as unknown as HTMLCanvasElement;
    const ctx = canvas.getContext("2d") as unknown as Record<string, unknown>;
    const boxCtx = boxCanvas.getContext("2d") as unknown as Record<string, unknown>;
    let fills = 0; // the strip's pixels put on the canvas
    ctx.putImageData = () => fills++;
    const boxes: number[][] = []; // each box drawn: its filled rectangle
    boxCtx.fillRect = (...r: number[]) => boxes.push(r);
    overview.resize(800);
    overview.setShares({ bins: 3, colorBy: "kind", classes: Uint8Array.of(1), shares: Float32Array.of(0.5, 1, 0) });
    assert.equal(fills, 1); // the shares' stacks
    const w = plotWidth(800);
    const near = (a: number, b: number) => Math.abs(a - b) < 0.1;
    assert.equal(overview.box.left, GUTTER);
    assert.ok(near(overview.box.width, w));
    const drawn = boxes.length;
    assert.ok(drawn === 1 && near(boxes.at(-1)![0], GUTTER) && near(boxes.at(-1)![2], w), String(boxes));
    overview.showView(); // the same view: nothing drawn
    assert.equal(boxes.length, drawn);
    view = [250, 500];
    overview.showView();
    assert.equal(fills, 1); // the strip is not drawn for a pan or zoom
    assert.equal(boxes.length, drawn + 1);
    assert.ok(near(overview.box.left, GUTTER + w / 4) && near(boxes.at(-1)![0], GUTTER + w / 4));
    assert.ok(near(overview.box.width, w / 4) && near(boxes.at(-1)![2], w / 4));
    view = [990, 990.5]; // narrower than a pixel: still shown, a pixel wide
    overview.showView();
    assert.equal(overview.box.width, 1);
    view = [-50, 2000]; // past both ends: kept inside the strip
    overview.showView();
    assert.equal(overview.box.left, GUTTER);
    assert.ok(near(overview.box.width, w));
    overview.resize(400);
    assert.equal(fills, 2);
    assert.ok(near(overview.box.width, plotWidth(400))); // the box follows the new size
    assert.ok(near(boxes.at(-1)![2], plotWidth(400)));
  } finally {
    dom.uninstall();
  }
});

/** The mean RGB of columns [x0, x1) of `pixels` (`width` wide, all rows). */
function columnMean(pixels: Uint8ClampedArray, width: number, x0: number, x1: number): number[] {
  const height = pixels.length / 4 / width;
  const sum = [0, 0, 0];
  for (let y = 0; y < height; y++)
    for (let x = x0; x < x1; x++) for (let k = 0; k < 3; k++) sum[k] += pixels[(y * width + x) * 4 + k];
  return sum.map((v) => v / (height * (x1 - x0)));
}

const COLOURS: RGB[] = [
  [200, 200, 200],
  [255, 0, 0],
  [0, 0, 255],
  [0, 255, 0],
];
const BACKGROUND: RGB = [250, 250, 250];

/** Σ share·colour + (1 − Σ share)·background, the share of each class of `data` averaged over bins [lo, hi). */
function expected(data: OverviewShares, lo: number, hi: number): number[] {
  const out = [0, 0, 0];
  let covered = 0;
  data.classes.forEach((cls, p) => {
    let share = 0;
    for (let i = lo; i < hi; i++) share += data.shares[p * data.bins + i] / (hi - lo);
    covered += share;
    for (let k = 0; k < 3; k++) out[k] += share * COLOURS[cls][k];
  });
  return out.map((v, k) => v + (1 - covered) * BACKGROUND[k]);
}

test("each column's mean colour is the shares' mix with the background, at any width", () => {
  const data: OverviewShares = {
    bins: 4,
    colorBy: "kind",
    classes: Uint8Array.of(0, 1, 3),
    // not matching, class 1, class 3: plane-major, a bin's adding up to at most 1
    shares: Float32Array.of(0.1, 0, 0.25, 0.5, 0.3, 1, 0.05, 0, 0.33, 0, 0.6, 0.25),
  };
  const near = (a: number[], b: number[], what: string) =>
    assert.ok(
      a.every((v, k) => Math.abs(v - b[k]) < 0.6),
      `${what}: ${a} vs ${b}`,
    );
  // Two columns a bin, 37 rows (band edges cut pixel rows): each column is its bin's mix.
  const twice = stripPixels(data, COLOURS, BACKGROUND, 8, 37);
  for (let bin = 0; bin < 4; bin++)
    near(columnMean(twice, 8, 2 * bin, 2 * bin + 2), expected(data, bin, bin + 1), `bin ${bin}`);
  // Two bins a column: each column the mean of its bins.
  const half = stripPixels(data, COLOURS, BACKGROUND, 2, 37);
  near(columnMean(half, 2, 0, 1), expected(data, 0, 2), "bins 0-1");
  near(columnMean(half, 2, 1, 2), expected(data, 2, 4), "bins 2-3");
  // Three columns over four bins: a column cuts a bin, taking the share of the part it covers.
  const third = stripPixels(data, COLOURS, BACKGROUND, 3, 30);
  const share = (p: number) => (data.shares[p * 4] + data.shares[p * 4 + 1] / 3) * 0.75;
  const first = [0, 1, 2].reduce(
    (acc, p) => acc.map((v, k) => v + share(p) * (COLOURS[data.classes[p]][k] - BACKGROUND[k])),
    [...BACKGROUND] as number[],
  );
  near(columnMean(third, 3, 0, 1), first, "a third of the bins");
});

test("the classes stack from the bottom in legend order, the not-matching grey on top of them", () => {
  const data: OverviewShares = {
    bins: 1,
    colorBy: "kind",
    classes: Uint8Array.of(0, 1, 2),
    shares: Float32Array.of(0.25, 0.5, 0.25), // grey, then red, then blue: a full column
  };
  const px = stripPixels(data, COLOURS, BACKGROUND, 1, 8);
  const row = (y: number) => [...px.slice(y * 4, y * 4 + 3)]; // y from the top
  assert.deepEqual(row(7), COLOURS[1]); // the bottom quarter... and half: class 1
  assert.deepEqual(row(4), COLOURS[1]);
  assert.deepEqual(row(3), COLOURS[2]);
  assert.deepEqual(row(2), COLOURS[2]);
  assert.deepEqual(row(1), COLOURS[0]); // not matching, on top
  assert.deepEqual(row(0), COLOURS[0]);
  const empty = stripPixels({ ...data, shares: new Float32Array(3) }, COLOURS, BACKGROUND, 1, 4);
  assert.deepEqual([...empty.slice(0, 3)], BACKGROUND); // nothing: the background
});
