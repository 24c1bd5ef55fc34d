import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom, listenerCount } from "../testing/fake-dom";
import { bindKeys, type KeyAction, keyAction, SHORTCUTS } from "./keys";

test("shortcuts: the old keys keep their meaning, WASD as in Perfetto, ? for help", () => {
  assert.deepEqual(["+", "=", "-", "_"].map(keyAction), [{ zoom: 0.5 }, { zoom: 0.5 }, { zoom: 2 }, { zoom: 2 }]);
  assert.deepEqual(["0", "Escape"].map(keyAction), ["reset", "escape"]);
  assert.deepEqual(["ArrowLeft", "ArrowRight"].map(keyAction), [{ pan: -0.25 }, { pan: 0.25 }]);
  assert.deepEqual(["w", "s", "a", "d"].map(keyAction), [{ zoom: 0.5 }, { zoom: 2 }, { pan: -0.25 }, { pan: 0.25 }]);
  assert.deepEqual(["W", "A"].map(keyAction), [{ zoom: 0.5 }, { pan: -0.25 }]); // caps lock
  assert.deepEqual(["f", "F", "n", "N", "?", "/"].map(keyAction), [
    "fit",
    "fit-filters",
    "next",
    "previous",
    "help",
    "search",
  ]);
  assert.equal(keyAction("x"), null);
  assert.equal(keyAction("Enter"), null);
});

test("every shortcut has one meaning and a description", () => {
  const keys = SHORTCUTS.flatMap((s) => s.keys);
  assert.equal(new Set(keys).size, keys.length);
  for (const s of SHORTCUTS) assert.ok(s.does.length > 5, `${s.keys} is described`);
});

test("keys reach the view unless typed into an input or held with ctrl; handled keys stop there", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const root = document.createElement("div");
    const calls: KeyAction[] = [];
    bindKeys(root, (a) => calls.push(a), bag);
    const stopped: string[] = [];
    const press = (key: string, tagName = "DIV", ctrlKey = false) =>
      (root as unknown as { dispatchEvent(e: object): void }).dispatchEvent({
        type: "keydown",
        key,
        ctrlKey,
        target: { tagName },
        preventDefault() {},
        stopPropagation: () => stopped.push(key),
      });
    press("+");
    press("ArrowLeft");
    press("0");
    press("x");
    press("+", "INPUT");
    press("f", "DIV", true); // the browser's own
    assert.deepEqual(calls, [{ zoom: 0.5 }, { pan: -0.25 }, "reset"]);
    assert.deepEqual(stopped, ["+", "ArrowLeft", "0", "+"]);
    bag.dispose();
    assert.equal(listenerCount(), 0);
  } finally {
    dom.uninstall();
  }
});

test("a mouse press anywhere in the view but on a control gives the view the focus", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const root = document.createElement("div");
    let focused = 0;
    (root as unknown as { focus(): void }).focus = () => focused++;
    bindKeys(root, () => {}, bag);
    const down = (tagName: string) =>
      (root as unknown as { dispatchEvent(e: object): void }).dispatchEvent({ type: "mousedown", target: { tagName } });
    for (const tag of ["CANVAS", "DIV", "SPAN"]) down(tag);
    assert.equal(focused, 3);
    for (const tag of ["INPUT", "SELECT", "TEXTAREA", "BUTTON"]) down(tag);
    assert.equal(focused, 3); // a control takes the focus itself
    bag.dispose();
  } finally {
    dom.uninstall();
  }
});

test("the arrow keys scroll a quarter page of rows, PageUp and PageDown a page", () => {
  assert.deepEqual(["ArrowUp", "ArrowDown", "PageUp", "PageDown"].map(keyAction), [
    { scroll: -0.25 },
    { scroll: 0.25 },
    { scroll: -1 },
    { scroll: 1 },
  ]);
});
