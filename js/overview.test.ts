import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "./disposers";
import { Overview } from "./overview";
import { GUTTER, plotWidth } from "./plot";
import { installFakeDom } from "./testing/fake-dom";
import type { Range } from "./view";

test("the view's box follows the view without drawing the strip again; the strip draws on data, size or drag", () => {
  const dom = installFakeDom();
  try {
    let view: Range = [0, 1000];
    const overview = new Overview({ view: () => view, span: () => 1000, tiles: () => 1472, setView: () => {} }, new Disposers());
    overview.resize(800);
    const canvas = overview.root.children[0] as unknown as HTMLCanvasElement;
    const box = overview.root.children[1] as unknown as HTMLElement;
    const ctx = canvas.getContext("2d") as unknown as Record<string, unknown>;
    let fills = 0;
    ctx.fill = () => fills++;
    overview.setSeries(new Float32Array([1, 2, 3]), new Float32Array(3), false);
    assert.equal(fills, 1); // the active tiles' area
    const w = plotWidth(800);
    const px = (v: string) => Number(v.replace("px", ""));
    assert.equal(px(box.style.left), GUTTER);
    assert.ok(Math.abs(px(box.style.width) - w) < 0.1);
    view = [250, 500];
    overview.showView();
    assert.equal(fills, 1); // no canvas drawn for a pan or zoom
    assert.ok(Math.abs(px(box.style.left) - (GUTTER + w / 4)) < 0.1);
    assert.ok(Math.abs(px(box.style.width) - w / 4) < 0.1);
    view = [990, 990.5]; // narrower than a pixel: still shown, a pixel wide
    overview.showView();
    assert.equal(px(box.style.width), 1);
    view = [-50, 2000]; // past both ends: kept inside the strip
    overview.showView();
    assert.equal(px(box.style.left), GUTTER);
    assert.ok(Math.abs(px(box.style.width) - w) < 0.1);
    overview.resize(400);
    assert.equal(fills, 2);
    assert.ok(Math.abs(px(box.style.width) - plotWidth(400)) < 0.1); // the box follows the new size
  } finally {
    dom.uninstall();
  }
});
