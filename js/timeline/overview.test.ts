import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom } from "../testing/fake-dom";
import { Overview } from "./overview";
import { GUTTER, plotWidth } from "./plot";
import type { Range } from "./view";

test("the view's box follows the view on its own canvas; the strip draws on data, size or drag", () => {
  const dom = installFakeDom();
  try {
    let view: Range = [0, 1000];
    const overview = new Overview(
      { view: () => view, span: () => 1000, tiles: () => 1472, setView: () => {} },
      new Disposers(),
    );
    const canvas = overview.root.children[0] as unknown as HTMLCanvasElement;
    const boxCanvas = overview.root.children[1] as unknown as HTMLCanvasElement;
    const ctx = canvas.getContext("2d") as unknown as Record<string, unknown>;
    const boxCtx = boxCanvas.getContext("2d") as unknown as Record<string, unknown>;
    let fills = 0;
    ctx.fill = () => fills++;
    const boxes: number[][] = []; // each box drawn: its filled rectangle
    boxCtx.fillRect = (...r: number[]) => boxes.push(r);
    overview.resize(800);
    overview.setSeries(new Float32Array([1, 2, 3]), new Float32Array(3), false);
    assert.equal(fills, 1); // the active tiles' area
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
