import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { MAX_SIDE_PX, MIN_SIDE_PX, SIDE_PX, SideWidth, sideWidth, TIMELINE_ROOM_PX } from "./sidewidth";

test("a dragged width stays within bounds, the timeline keeping its room beside the panel", () => {
  assert.equal(sideWidth(500, 1600), 500);
  assert.equal(sideWidth(100, 1600), MIN_SIDE_PX);
  assert.equal(sideWidth(5000, 10_000), MAX_SIDE_PX);
  assert.equal(sideWidth(1000, 1200), 1200 - TIMELINE_ROOM_PX);
  assert.equal(sideWidth(1000, 600), MIN_SIDE_PX); // a row too narrow for both: the panel's narrowest
  assert.equal(sideWidth(400.6, 1600), 401);
});

/** A fake element whose style takes custom properties, as the browser's does. */
function styled(element: FakeElement): Record<string, string> {
  const style = element.style as Record<string, unknown>;
  style.setProperty = (name: string, value: string) => {
    style[name] = value;
  };
  return element.style;
}

test("dragging the left edge leftwards widens the panel, and the width is kept for the model's next view", () => {
  const dom = installFakeDom();
  try {
    const model = {};
    const row = document.createElement("div") as unknown as FakeElement;
    row.clientWidth = 1500;
    const make = () => {
      const panel = document.createElement("div") as unknown as FakeElement;
      panel.clientWidth = SIDE_PX;
      const style = styled(panel);
      row.append(panel);
      const side = new SideWidth(
        panel as unknown as HTMLElement,
        () => row as unknown as HTMLElement,
        model,
        new Disposers(),
      );
      side.place();
      const handle = side.handle as unknown as FakeElement & {
        setPointerCapture(): void;
        hasPointerCapture(): boolean;
      };
      handle.setPointerCapture = () => {};
      handle.hasPointerCapture = () => false;
      return { panel, style, side, handle };
    };
    const first = make();
    assert.equal(row.children.indexOf(first.handle), row.children.indexOf(first.panel) - 1); // on its left edge
    first.handle.dispatchEvent({ type: "pointerdown", button: 0, clientX: 900, pointerId: 1 });
    first.handle.dispatchEvent({ type: "pointermove", clientX: 700, pointerId: 1 });
    assert.equal(first.style["--ipu-nb-side-width"], `${SIDE_PX + 200}px`);
    first.handle.dispatchEvent({ type: "pointermove", clientX: -5000, pointerId: 1 }); // past the timeline's room
    assert.equal(first.style["--ipu-nb-side-width"], `${1500 - TIMELINE_ROOM_PX}px`);
    first.handle.dispatchEvent({ type: "pointerup", clientX: -5000, pointerId: 1 });
    first.handle.dispatchEvent({ type: "pointermove", clientX: 0, pointerId: 1 }); // no drag: nothing changes
    assert.equal(first.style["--ipu-nb-side-width"], `${1500 - TIMELINE_ROOM_PX}px`);
    // Another view of the same widget opens at that width; a double click sets it back.
    const second = make();
    assert.equal(second.style["--ipu-nb-side-width"], `${1500 - TIMELINE_ROOM_PX}px`);
    second.handle.dispatchEvent({ type: "dblclick" });
    assert.equal(second.style["--ipu-nb-side-width"], `${SIDE_PX}px`);
    // Another widget's view is not widened.
    const other = document.createElement("div") as unknown as FakeElement;
    const otherStyle = styled(other);
    new SideWidth(other as unknown as HTMLElement, () => null, {}, new Disposers());
    assert.equal(otherStyle["--ipu-nb-side-width"], undefined);
  } finally {
    dom.uninstall();
  }
});
