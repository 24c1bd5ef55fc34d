import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom, listenerCount } from "../testing/fake-dom";
import { cycleAt, GUTTER, pixelsPerCycle, plotWidth } from "./plot";
import { cellPalette } from "./raster";
import { TimelineInput } from "./timeline-input";
import type { Range } from "./view";

test("plot geometry: the gutter, then cycles linearly across the plot", () => {
  assert.equal(plotWidth(1046), 1000);
  assert.equal(plotWidth(20), 10); // never below 10
  assert.equal(pixelsPerCycle([100, 600], 1046), 2);
  assert.equal(cycleAt(GUTTER, [100, 600], 1046), 100);
  assert.equal(cycleAt(GUTTER + 500, [100, 600], 1046), 350);
  assert.equal(cycleAt(GUTTER + 1000, [100, 600], 1046), 600);
});

test("cell palette: each class's RGB, three bytes a class", () => {
  const colours: [number, number, number][] = Array.from({ length: 32 }, (_, i) => [i, 2 * i, 3 * i]);
  const table = cellPalette(colours);
  assert.equal(table.length, 96);
  assert.deepEqual([...table.subarray(15, 18)], [5, 10, 15]);
});

function inputSetup() {
  const canvas = document.createElement("canvas");
  let view: Range = [0, 1000];
  const calls: string[] = [];
  const bag = new Disposers();
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
      zoomRows: (f, a) => calls.push(`rows ${f.toFixed(3)} ${a}`),
      scrollRows: (n) => calls.push(`scroll ${n}`),
      pinRow: (s) => calls.push(`pin ${s}`),
    },
    // 60 rows of 10 px; screen row s shows kernel row 100 + s.
    {
      rowAt: (y) => (y >= 0 && y < 600 ? { row: 100 + Math.floor(y / 10), screen: Math.floor(y / 10) } : null),
      width: () => 1046,
      changed: () => {},
    },
    bag,
  );
  const fire = (target: EventTarget, type: string, fields: object) =>
    (target as unknown as { dispatchEvent(e: object): void }).dispatchEvent({ type, button: 0, ...fields });
  return { canvas, input, calls, bag, fire };
}

test("timeline input: a drag zooms onto its range, a click picks, a rest hovers, all listeners end with the bag", () => {
  const dom = installFakeDom();
  try {
    const { canvas, input, calls, bag, fire } = inputSetup();
    // Drag from 20 % to 60 % of the plot.
    fire(canvas, "mousedown", { clientX: GUTTER + 200, clientY: 5 });
    fire(canvas, "mousemove", { clientX: GUTTER + 600, clientY: 5 });
    assert.deepEqual(input.dragged, { x: GUTTER + 200, width: 400 });
    fire(window, "mouseup", { clientX: GUTTER + 600, clientY: 5 });
    assert.equal(input.drag, null);
    // A click on screen row 3 (kernel row 103) at 50 % of the new view.
    fire(canvas, "mousedown", { clientX: GUTTER + 500, clientY: 35 });
    fire(window, "mouseup", { clientX: GUTTER + 501, clientY: 35 });
    // Resting on row 1 asks after 40 ms; leaving cancels nothing already asked.
    fire(canvas, "mousemove", { clientX: GUTTER + 100, clientY: 15 });
    assert.equal(input.hoverScreen, 1);
    assert.deepEqual(input.pointer, { x: 240, row: 101, screen: 1 });
    dom.runTimers(39);
    assert.equal(calls.filter((c) => c.startsWith("hover")).length, 0);
    dom.runTimers(1);
    fire(canvas, "mouseleave", {});
    fire(canvas, "wheel", { clientX: GUTTER + 250, clientY: 5, deltaX: 0, deltaY: -100, shiftKey: false });
    fire(canvas, "contextmenu", {});
    assert.deepEqual(calls, [
      "view 200,600 true",
      "pick 103 400",
      "hover 101 240",
      "unhover",
      `zoom ${Math.exp(-0.15).toFixed(3)} 0.25`,
      "undo",
    ]);
    assert.equal(input.hoverScreen, -1);
    assert.equal(input.pointer, null);
    fire(canvas, "mousemove", { clientX: GUTTER + 100, clientY: 15 });
    bag.dispose();
    assert.equal(listenerCount(), 0);
    assert.equal(dom.pendingTimers(), 0); // the pending hover died with the view
  } finally {
    dom.uninstall();
  }
});

test("shift-drag measures (the ruler stays after the drag, a click clears it); the gutter scrolls, pins, ctrl zooms rows", () => {
  const dom = installFakeDom();
  try {
    const { canvas, input, calls, fire } = inputSetup();
    fire(canvas, "mousedown", { clientX: GUTTER + 100, clientY: 5, shiftKey: true });
    fire(canvas, "mousemove", { clientX: GUTTER + 350, clientY: 5 });
    assert.equal(input.dragged, null); // measuring, not zooming
    fire(window, "mouseup", { clientX: GUTTER + 350, clientY: 5 });
    assert.deepEqual(input.ruler.range(), [100, 350]);
    assert.ok(!calls.some((c) => c.startsWith("view")));
    fire(canvas, "mousedown", { clientX: GUTTER + 500, clientY: 5 });
    fire(window, "mouseup", { clientX: GUTTER + 500, clientY: 5 });
    assert.equal(input.ruler.range(), null);
    fire(canvas, "wheel", { clientX: 10, clientY: 5, deltaX: 0, deltaY: 120 }); // over the labels
    fire(canvas, "wheel", { clientX: GUTTER + 10, clientY: 205, deltaX: 0, deltaY: -100, ctrlKey: true });
    fire(canvas, "mousedown", { clientX: 10, clientY: 45 }); // a label: pin
    assert.deepEqual(calls.slice(-3), ["scroll 3", `rows ${Math.exp(-0.2).toFixed(3)} 20`, "pin 4"]);
  } finally {
    dom.uninstall();
  }
});
