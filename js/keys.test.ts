import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "./disposers";
import { bindKeys, keyAction } from "./keys";
import { installFakeDom, listenerCount } from "./testing/fake-dom";

test("shortcuts: + and = zoom in, - and _ out, 0 and Escape reset, arrows pan a quarter", () => {
  assert.deepEqual(["+", "=", "-", "_"].map(keyAction), [{ zoom: 0.5 }, { zoom: 0.5 }, { zoom: 2 }, { zoom: 2 }]);
  assert.deepEqual(["0", "Escape"].map(keyAction), ["reset", "reset"]);
  assert.deepEqual(["ArrowLeft", "ArrowRight"].map(keyAction), [{ pan: -0.25 }, { pan: 0.25 }]);
  assert.equal(keyAction("a"), null);
  assert.equal(keyAction("Enter"), null);
});

test("keys reach the view unless typed into an input; handled keys stop there", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const root = document.createElement("div");
    const calls: string[] = [];
    bindKeys(root, { zoom: (f) => calls.push(`zoom ${f}`), pan: (f) => calls.push(`pan ${f}`), reset: () => calls.push("reset") }, bag);
    const stopped: string[] = [];
    const press = (key: string, tagName = "DIV") =>
      (root as unknown as { dispatchEvent(e: object): void }).dispatchEvent({
        type: "keydown", key, target: { tagName }, preventDefault() {}, stopPropagation: () => stopped.push(key),
      });
    press("+");
    press("ArrowLeft");
    press("0");
    press("x");
    press("+", "INPUT");
    assert.deepEqual(calls, ["zoom 0.5", "pan -0.25", "reset"]);
    assert.deepEqual(stopped, ["+", "ArrowLeft", "0", "+"]);
    bag.dispose();
    assert.equal(listenerCount(), 0);
  } finally {
    dom.uninstall();
  }
});
