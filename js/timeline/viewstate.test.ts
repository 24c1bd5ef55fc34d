import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeModel } from "../testing/fake-dom";
import { type Range, zoomAt } from "./view";
import { SAVE_MS, ViewState } from "./viewstate";

function setup(view: Range = [0, 1000]) {
  const model = new FakeModel({ view });
  let clock = 0;
  let changes = 0;
  const views = new ViewState({ model, span: () => 1000, changed: () => changes++, now: () => clock });
  return { model, views, changes: () => changes, tick: (ms: number) => (clock += ms) };
}

test("changes are clamped, saved, announced, and undone in reverse", () => {
  const { model, views, changes } = setup();
  views.zoom(0.5, 0.25);
  assert.deepEqual(views.get(), [125, 625]);
  assert.equal(model.saves, 1);
  views.set([-500, 100], true); // clamped into the profile, width kept
  assert.deepEqual(views.get(), [0, 600]);
  views.pan(0.5); // not remembered
  assert.deepEqual(views.get(), [300, 900]);
  assert.equal(views.depth, 2);
  views.undo();
  assert.deepEqual(views.get(), [125, 625]);
  views.undo();
  assert.deepEqual(views.get(), [0, 1000]);
  const before = changes();
  views.undo(); // nothing left: nothing changes
  assert.equal(changes(), before);
  assert.deepEqual(views.get(), [0, 1000]);
});

test("a view equal to the current one is no change", () => {
  const { model, views, changes } = setup();
  views.reset();
  views.set([0, 1000.2], true);
  assert.equal(changes(), 0);
  assert.equal(model.saves, 0);
  assert.equal(views.depth, 0);
});

test("a wheel gesture is one undo entry however many events it has", () => {
  const { views, tick } = setup();
  for (let i = 0; i < 5; i++) {
    views.wheelZoom(0.9, 0.5);
    tick(50);
  }
  assert.equal(views.depth, 1);
  tick(700);
  views.wheelZoom(0.9, 0.5);
  assert.equal(views.depth, 2);
  views.undo();
  views.undo();
  assert.deepEqual(views.get(), [0, 1000]);
});

/** A view state whose saves are spaced by a fake timer: `run(ms)` moves the clock and fires it when due. */
function timed() {
  const model = new FakeModel({ view: [0, 1000] as Range });
  let clock = 0;
  let due: { at: number; fn: () => void } | null = null;
  const timer = (fn: () => void) => ({
    start: (ms: number) => {
      due = { at: clock + ms, fn };
    },
    cancel: () => {
      due = null;
    },
    get pending() {
      return due !== null;
    },
  });
  const sent: Range[] = [];
  model.save_changes = () => void sent.push(model.get("view"));
  const views = new ViewState({ model, span: () => 1000, changed: () => {}, now: () => clock, timer });
  model.on("change:view", () => views.restoreUnsaved()); // as the widget wires it
  const run = (ms: number) => {
    clock += ms;
    const d = due as { at: number; fn: () => void } | null;
    if (d && d.at <= clock) {
      due = null;
      d.fn();
    }
  };
  return { model, views, sent, run };
}

test("a burst of changes goes to the kernel at most every SAVE_MS, the latest view always last", () => {
  const { views, sent, run } = timed();
  views.wheelZoom(0.9, 0.5); // the first change goes at once
  assert.equal(sent.length, 1);
  for (let i = 0; i < 30; i++) {
    run(10);
    views.wheelZoom(0.9, 0.5);
  }
  assert.ok(sent.length >= 3 && sent.length <= 4, `${sent.length} saves for 31 changes over 300 ms`);
  run(SAVE_MS);
  assert.deepEqual(sent[sent.length - 1], views.get()); // the final view reached the kernel
  const saves = sent.length;
  run(1000);
  assert.equal(sent.length, saves); // and nothing more
  views.pan(0.1); // a change after a pause goes at once again
  assert.equal(sent.length, saves + 1);
});

test("every change of a burst counts: the widget's change handler never puts back the view it replaces", () => {
  const { views, run } = timed();
  let expected: Range = [0, 1000];
  for (let i = 0; i < 31; i++) {
    views.wheelZoom(0.9, 0.5);
    expected = zoomAt(expected, 0.9, 0.5, 1000);
    assert.deepEqual(views.get(), expected, `after change ${i + 1}`);
    run(10);
  }
});

test("the kernel's echo of an earlier save does not undo a view still waiting for its save", () => {
  const { model, views, sent, run } = timed();
  views.zoom(0.5); // saved at once
  const echoed = sent[0];
  run(10);
  views.pan(0.5); // waits for the timer
  const mine = views.get();
  assert.equal(sent.length, 1);
  model.set("view", echoed); // the echo of the first save arrives: the change handler puts mine back
  assert.deepEqual(views.get(), mine);
  assert.equal(views.restoreUnsaved(), false); // the model holds it again
  run(SAVE_MS);
  assert.deepEqual(sent[sent.length - 1], mine); // and it reaches the kernel
  model.set("view", [100, 200]); // once saved, a change from the kernel is the kernel's
  assert.deepEqual(views.get(), [100, 200]);
});
