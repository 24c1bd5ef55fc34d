import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeModel, installFakeDom, listenerCount } from "../testing/fake-dom";
import { Disposers, listen } from "./disposers";

test("listen adds a listener and its disposer removes exactly it", () => {
  const target = new EventTarget();
  const seen: string[] = [];
  const off = listen(target, "click", (e) => seen.push(e.type));
  listen(target, "click", () => seen.push("other"));
  target.dispatchEvent(new Event("click"));
  off();
  target.dispatchEvent(new Event("click"));
  assert.deepEqual(seen, ["click", "other", "other"]);
});

test("dispose runs every disposer once, last first, past one that throws", () => {
  const bag = new Disposers();
  const order: number[] = [];
  bag.add(() => order.push(1));
  bag.add(() => {
    throw new Error("broken");
  });
  bag.add(() => order.push(3));
  const warn = console.warn;
  console.warn = () => {};
  try {
    bag.dispose();
    bag.dispose();
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(order, [3, 1]);
  assert.equal(bag.size, 0);
  bag.add(() => order.push(4)); // too late: disposed at once
  assert.deepEqual(order, [3, 1, 4]);
});

test("model listeners, timers and child bags all end with the bag", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const model = new FakeModel({});
    let calls = 0;
    bag.on(model, "change:view", () => calls++);
    model.trigger("change:view");
    const timer = bag.timer(() => calls++);
    timer.start(100);
    assert.ok(timer.pending);
    const rows = bag.child();
    const el = document.createElement("div");
    rows.listen(el, "click", () => calls++);
    rows.clear(); // re-rendered rows: the old listeners go, the bag stays
    rows.listen(el, "click", () => calls++);
    assert.equal(listenerCount(), 1);
    bag.dispose();
    assert.equal(model.handlerCount(), 0);
    assert.equal(listenerCount(), 0);
    assert.equal(dom.pendingTimers(), 0);
    assert.ok(!timer.pending);
    model.trigger("change:view");
    timer.start(5); // a disposed bag's timer never runs
    assert.equal(dom.pendingTimers(), 0);
    assert.equal(calls, 1);
  } finally {
    dom.uninstall();
  }
});
