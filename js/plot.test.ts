import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "./disposers";
import { cycleAt, GUTTER, pixelsPerCycle, plotWidth, rowHeight } from "./plot";
import { cellPalette } from "./raster";
import { installFakeDom, listenerCount } from "./testing/fake-dom";
import { TimelineInput } from "./timeline-input";
import type { Range } from "./view";

test("plot geometry: the gutter, then cycles linearly across the plot", () => {
  assert.equal(plotWidth(1046), 1000);
  assert.equal(plotWidth(20), 10); // never below 10
  assert.equal(pixelsPerCycle([100, 600], 1046), 2);
  assert.equal(cycleAt(GUTTER, [100, 600], 1046), 100);
  assert.equal(cycleAt(GUTTER + 500, [100, 600], 1046), 350);
  assert.equal(cycleAt(GUTTER + 1000, [100, 600], 1046), 600);
  assert.equal(rowHeight(1), 16);
  assert.equal(rowHeight(60), 10);
  assert.equal(rowHeight(1472), 0.5);
});

test("cell palette: class colour, opacity rising with the coverage level, level 0 transparent", () => {
  const colours: [number, number, number][] = Array.from({ length: 32 }, (_, i) => [i, 2 * i, 3 * i]);
  const table = cellPalette(colours);
  assert.equal(table[5], 0); // level 0
  const word = table[5 | (7 << 5)];
  assert.deepEqual([word & 255, (word >> 8) & 255, (word >> 16) & 255, word >>> 24], [5, 10, 15, 255]);
  assert.equal(table[5 | (1 << 5)] >>> 24, Math.round(255 * (0.3 + 0.1)));
});

test("timeline input: a drag zooms onto its range, a click picks, a rest hovers, all listeners end with the bag", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const canvas = document.createElement("canvas");
    let view: Range = [0, 1000];
    const calls: string[] = [];
    const input = new TimelineInput(
      canvas,
      {
        view: () => view,
        span: () => 1000,
        setView: (v, remember) => {
          calls.push(`view ${v} ${remember}`);
          view = v;
        },
        zoom: (f, a) => calls.push(`zoom ${f.toFixed(3)} ${a}`),
        undoZoom: () => calls.push("undo"),
        pick: (row, x) => calls.push(`pick ${row} ${x}`),
        hover: (row, x) => calls.push(`hover ${row} ${x}`),
        unhover: () => calls.push("unhover"),
      },
      { rowCount: () => 60, width: () => 1046, changed: () => {} },
      bag,
    );
    const fire = (target: EventTarget, type: string, fields: object) =>
      (target as unknown as { dispatchEvent(e: object): void }).dispatchEvent({ type, button: 0, ...fields });
    // Drag from 20 % to 60 % of the plot.
    fire(canvas, "mousedown", { clientX: GUTTER + 200, clientY: 5 });
    fire(canvas, "mousemove", { clientX: GUTTER + 600, clientY: 5 });
    assert.deepEqual(input.dragged, { x: GUTTER + 200, width: 400 });
    fire(window, "mouseup", { clientX: GUTTER + 600, clientY: 5 });
    assert.equal(input.drag, null);
    // A click on row 3 (rows are 10 px) at 50 % of the new view.
    fire(canvas, "mousedown", { clientX: GUTTER + 500, clientY: 35 });
    fire(window, "mouseup", { clientX: GUTTER + 501, clientY: 35 });
    // Resting on row 1 asks after 40 ms; leaving cancels nothing already asked.
    fire(canvas, "mousemove", { clientX: GUTTER + 100, clientY: 15 });
    assert.equal(input.hoverRow, 1);
    dom.runTimers(39);
    assert.equal(calls.filter((c) => c.startsWith("hover")).length, 0);
    dom.runTimers(1);
    fire(canvas, "mouseleave", {});
    fire(canvas, "wheel", { clientX: GUTTER + 250, clientY: 5, deltaX: 0, deltaY: -100, shiftKey: false });
    fire(canvas, "contextmenu", {});
    assert.deepEqual(calls, [
      "view 200,600 true",
      "pick 3 400",
      "hover 1 240",
      "unhover",
      `zoom ${Math.exp(-0.15).toFixed(3)} 0.25`,
      "undo",
    ]);
    assert.equal(input.hoverRow, -1);
    fire(canvas, "mousemove", { clientX: GUTTER + 100, clientY: 15 });
    bag.dispose();
    assert.equal(listenerCount(), 0);
    assert.equal(dom.pendingTimers(), 0); // the pending hover died with the view
  } finally {
    dom.uninstall();
  }
});
