import assert from "node:assert/strict";
import { test } from "node:test";
import type { RenderProps } from "@anywidget/types";
import { FakeModel, installFakeDom, listenerCount, remainingListeners, type FakeElement } from "./testing/fake-dom";
import type { Traits } from "./types";
import widget from "./widget";

const traits = (): Traits => ({
  filters: { kind: null, kernel: null, operation: [], operation_contains: null, tiles: [], phases: [], metadata: [], window: null },
  at: null,
  view: [0, 1000],
  selected: null,
  group_by: "kernel",
  metadata_key: null,
  color_by: "kind",
  info: {
    tiles: 4,
    samples: 10,
    span: 1000,
    clock_hz: 1_500_000_000,
    granularity: "phase",
    rows: [0, 1, 2, 3],
    legend: { kind: ["compute", "exchange", "synchronization", "idle"], kernel: ["gemm", "(no kernel)"] },
    kernels: ["", "gemm"],
    vocabulary: {
      kinds: ["compute", "exchange", "synchronization", "idle"],
      group_bys: ["kind", "kernel", "operation", "phase", "tile", "metadata"],
      sort_bys: ["phase-cycles", "name"],
      color_bys: ["kind", "kernel"],
      no_kernel: "(no kernel)",
      missing: "(missing)",
    },
  },
});

const bytes = (...lengths: number[]) => lengths.map((n) => new DataView(new ArrayBuffer(n)));

function open() {
  const dom = installFakeDom();
  const model = new FakeModel(traits());
  const host = document.createElement("div");
  const render = widget.render as (props: RenderProps<Traits>) => () => void;
  const dispose = render({ model, el: host } as unknown as RenderProps<Traits>);
  const root = (host as unknown as FakeElement).children[0] as FakeElement;
  const fromKernel = (content: unknown, buffers: DataView[] = []) => model.trigger("msg:custom", content, buffers);
  const answer = (id: number, extra: object = {}) =>
    fromKernel(
      { type: "window", view: model.messages("window").at(-1).view, id, color_by: "kind", filtered: false, mode: "lod",
        start: 0, end: 1000, rows: 4, bins: 3, count: 10, compressed: null, ...extra },
      bytes(12),
    );
  return { dom, model, host, root, dispose, fromKernel, answer };
}

test("a view says hello, asks for its window, draws the reply and records the trip", async () => {
  const { dom, model, root, dispose, answer } = open();
  try {
    assert.equal(model.messages("hello").length, 1);
    const [request] = model.messages("window");
    assert.deepEqual({ ...request, view: "" }, { type: "window", view: "", id: 1, start: 0, end: 1000, pixels: 954, labels: true }); // 4 rows are tall enough to label
    answer(1);
    assert.equal(root.dataset.windowId, "1");
    assert.equal(root.dataset.mode, "lod");
    assert.equal((root as unknown as { ipuTrips: unknown[] }).ipuTrips.length, 1);
    assert.equal(model.messages("groups").length, 1); // asked for after the first window
    // "+" zooms: the view trait is saved and the new window asked for at once.
    root.dispatchEvent({ type: "keydown", key: "+", target: root });
    assert.deepEqual(model.get("view"), [250, 750]);
    assert.deepEqual(model.messages("window").map((m) => [m.id, m.start, m.end]), [[1, 0, 1000], [2, 250, 750]]);
    assert.equal(dom.runFrames(), 1); // drawn once at the next frame
    // A stale reply is not drawn.
    answer(1);
    assert.equal(root.dataset.windowId, "1");
    answer(2, { start: 250, end: 750 });
    assert.equal(root.dataset.windowId, "2");
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("side views wait behind the window in flight, and every kind of message is applied without a throw", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    const view = model.messages("window")[0].view;
    fromKernel({ type: "panel", at: null, selected: null }); // window 1 in flight: deferred
    assert.ok(dom.pendingTimers() > 0);
    answer(1);
    assert.equal(dom.pendingTimers(), 0); // flushed right after the window
    fromKernel({ type: "overview", bins: 2, span: 1000, filtered: false }, bytes(8, 8));
    fromKernel({
      type: "flame", total: 5, metadata: [],
      nodes: [{ name: "all", level: 0, value: 5, parent: -1, path: {} }, { name: "compute", level: 1, value: 5, parent: 0, path: { kind: "compute" } }],
    });
    fromKernel({ type: "groups", id: null, group_by: "kernel", error: null, rows: [
      { name: "(no kernel)", dimensions: {}, sample_count: 3, phase_cycles: 9, work_cycles: 9, average_active_tiles: 1.5 },
    ] });
    assert.equal(root.findAll("ipu-nb-group-name")[0].textContent, "(no kernel)");
    fromKernel({ type: "hover", view, id: 0, sample: null });
    fromKernel({ type: "error", request: "groups", message: "QueryError: no" });
    assert.equal(root.dataset.error, "QueryError: no");
    assert.equal(root.find("ipu-nb-status").textContent, "error: QueryError: no");
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("malformed messages are dropped and reported once per type; a broken window reply frees its request", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  const warn = console.warn;
  const warnings: string[] = [];
  console.warn = (text: string) => warnings.push(text);
  try {
    fromKernel({ type: "panel", at: 5, selected: null });
    fromKernel({ type: "panel", at: "x", selected: null });
    fromKernel({ type: "bogus" });
    fromKernel(null);
    assert.equal(warnings.length, 3);
    assert.match(warnings[0], /panel\.at: expected an object, got number/);
    // Window 1's reply lacks its buffer: the request is over, so the next view goes out at once.
    answer(1, { count: 10, bins: 3 }); // fine shape…
    root.dispatchEvent({ type: "keydown", key: "+", target: root });
    const view = model.messages("window")[0].view;
    fromKernel({ type: "window", view, id: 2, mode: "lod" }, []);
    assert.match(root.dataset.error ?? "", /window\.color_by/);
    root.dispatchEvent({ type: "keydown", key: "+", target: root });
    assert.deepEqual(model.messages("window").map((m) => m.id), [1, 2, 3]);
  } finally {
    console.warn = warn;
    dispose();
    dom.uninstall();
  }
});

test("disposing removes every listener, observer, timer and frame, and the view's element", async () => {
  const { dom, model, host, dispose, fromKernel, root } = open();
  try {
    assert.ok(listenerCount() > 20, "the widget listens to its controls, canvases and the window");
    assert.ok(model.handlerCount() >= 7);
    assert.equal(dom.observers(), 1);
    // Leave work pending: a deferred side view, a debounced search, a frame, a queued request.
    fromKernel({ type: "panel", at: null, selected: null });
    const search = root.find("ipu-nb-search");
    search.dispatchEvent({ type: "input" });
    root.dispatchEvent({ type: "keydown", key: "+", target: root });
    model.set("filters", { ...model.get("filters"), kind: "compute" }); // its request leaves in a microtask
    assert.ok(dom.pendingTimers() > 0 && dom.pendingFrames() > 0);
    const sent = model.sent.length;
    dispose();
    assert.deepEqual(remainingListeners(), []);
    assert.equal(listenerCount(), 0);
    assert.equal(model.handlerCount(), 0);
    assert.equal(dom.observers(), 0);
    assert.equal(dom.pendingTimers(), 0);
    assert.equal(dom.pendingFrames(), 0);
    assert.equal((host as unknown as FakeElement).children.length, 0);
    await Promise.resolve();
    model.trigger("change:view");
    fromKernel({ type: "panel", at: null, selected: null });
    assert.equal(model.sent.length, sent, "nothing is sent after dispose");
    dispose(); // twice is harmless
  } finally {
    dom.uninstall();
  }
});
