import assert from "node:assert/strict";
import { test } from "node:test";
import type { RenderProps } from "@anywidget/types";
import type { Traits } from "./kernel/types";
import { type FakeElement, FakeModel, installFakeDom, listenerCount, remainingListeners } from "./testing/fake-dom";
import widget from "./widget";

const traits = (): Traits => ({
  filters: {
    kind: null,
    kernel: null,
    operation: [],
    operation_contains: null,
    tiles: [],
    phases: [],
    metadata: [],
    window: null,
  },
  at: null,
  view: [0, 1000],
  selected: null,
  group_by: "kernel",
  metadata_key: null,
  color_by: "kind",
  selection: null,
  tracks: { order: "physical", pinned: [], rows: 0, scroll: 0 },
  showing: "after",
  finding_rows: [],
  marker_rows: [],
  flame_hierarchy: "kind/kernel/phase/operation",
  clock: "tile",
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
      flame_hierarchies: ["kind/kernel/phase/operation", "kind/operation/kernel"],
      no_kernel: "(no kernel)",
      missing: "(missing)",
      accounting_parts: {
        "exchange boundary wait": "synchronization",
        "exchange boundary sampling": "synchronization",
      },
      palette: { compute: "#3478c6", exchange: "#e87a2c", synchronization: "#d63e52", idle: "#96ba78" },
      kernel_palette: ["#4e79a7", "#f28e2b"],
      activity_palette: {},
      activity_labels: {},
      color_by_labels: {},
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
  /** Answer block request `id` (the latest by default): each of its blocks as a 4 × 512 summary, then its closing reply. */
  const answer = (id?: number, extra: object = {}) => {
    const request =
      id === undefined ? model.messages("blocks").at(-1) : model.messages("blocks").find((m) => m.id === id);
    for (const k of request.blocks) {
      const width = request.bins * 2 ** request.level;
      fromKernel(
        {
          type: "window",
          view: request.view,
          id: request.id,
          color_by: "kind",
          filtered: false,
          mode: "lod",
          start: k * width,
          end: (k + 1) * width,
          rows: 4,
          bins: request.bins,
          planes: 1,
          classes: [1],
          count: 10,
          compressed: null,
          level: request.level,
          block: k,
          ...extra,
        },
        bytes(4 * request.bins),
      );
    }
    fromKernel({
      type: "blocks",
      view: request.view,
      id: request.id,
      stale: false,
      count: 10,
      matched: 10,
      cost_ms: [1],
    });
    return request;
  };
  return { dom, model, host, root, dispose, fromKernel, answer };
}

test("a view says hello, asks for the blocks its view lacks, draws them from the cache and prefetches around", () => {
  const { dom, model, root, dispose, answer } = open();
  try {
    assert.equal(model.messages("hello").length, 1);
    const [first] = model.messages("blocks");
    assert.deepEqual(
      { ...first, view: "" },
      {
        type: "blocks",
        view: "",
        id: 1,
        level: 1,
        bins: 512,
        blocks: [0],
        labels: true,
        filters: traits().filters,
        color_by: "kind",
        showing: "after",
        clock: "tile",
        start: 0,
        end: 1000,
      },
    ); // 1,000 cycles over 954 device pixels: bins of 2 cycles, one block holds them all
    answer(1);
    assert.equal(root.dataset.answeredId, "1");
    assert.equal(dom.runFrames(), 1);
    assert.equal(root.dataset.windowId, "1"); // one complete picture
    assert.equal(root.dataset.final, "true");
    assert.equal((root as unknown as { ipuTrips: unknown[] }).ipuTrips.length, 1);
    assert.equal(model.messages("groups").length, 1); // asked for after the first answer
    // Then the prefetch: the finer level under the view, a block or two at a time.
    const prefetch = model.messages("blocks").slice(1);
    assert.deepEqual(
      prefetch.map((m) => [m.id, m.level, m.blocks]),
      [[2, 0, [0, 1]]],
    );
    answer(2);
    assert.equal(model.messages("blocks").length, 2); // nothing else lacks
    // "+" zooms: the view is held already (level 0), so the first frame is final and nothing is asked.
    root.dispatchEvent({ type: "keydown", key: "+", target: root });
    assert.deepEqual(model.get("view"), [250, 750]);
    assert.equal(dom.runFrames(), 1);
    assert.equal(root.dataset.final, "true");
    assert.equal(root.dataset.level, "0");
    assert.equal(model.messages("blocks").length, 2);
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("a block is drawn on arrival only when the view lacks something and it lies in the view", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    const view = model.messages("blocks")[0].view; // request 1: level 1, block 0 holds the whole view
    dom.runFrames();
    const frames = () => (root as unknown as { ipuFrames: unknown[] }).ipuFrames.length;
    const block = (level: number, k: number) => {
      const width = 512 * 2 ** level;
      fromKernel(
        {
          type: "window",
          view,
          id: 1,
          color_by: "kind",
          filtered: false,
          mode: "lod",
          start: k * width,
          end: (k + 1) * width,
          rows: 4,
          bins: 512,
          planes: 1,
          classes: [1],
          count: 10,
          compressed: null,
          level,
          block: k,
        },
        bytes(4 * 512),
      );
    };
    block(1, 3); // cycles 3,072 .. 4,096: past the view's end
    assert.equal(dom.runFrames(), 0);
    let drawn = frames();
    block(2, 0); // a coarser block over the view, which lacks its own: it stands in
    assert.equal(dom.runFrames(), 1);
    assert.equal(frames(), drawn + 1);
    assert.equal(root.dataset.final, "false");
    answer(1); // the view's own block: the complete picture
    assert.equal(dom.runFrames(), 1);
    assert.equal(root.dataset.final, "true");
    drawn = frames();
    block(0, 1); // finer, in the view, but the view is complete: kept, not drawn
    block(1, 0); // the view's own block again
    assert.equal(dom.runFrames(), 0);
    assert.equal(frames(), drawn);
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("the first frame after a change draws what the cache holds; the kernel's answer refines it", () => {
  const { dom, model, root, dispose, answer } = open();
  try {
    answer(1);
    answer(2);
    // A new colouring: the old state's blocks stand in until the kernel answers for the new one.
    model.set("color_by", "kernel");
    model.trigger("change:color_by");
    assert.equal(dom.runFrames(), 1);
    assert.equal(root.dataset.final, "false");
    const frames = (root as unknown as { ipuFrames: { standIns: number }[] }).ipuFrames;
    assert.ok(frames.at(-1)!.standIns > 0, "drawn from the earlier state's blocks");
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("side views wait behind the request in flight, and every kind of message is applied without a throw", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    const view = model.messages("blocks")[0].view;
    fromKernel({ type: "panel", at: null, selected: null }); // request 1 in flight: deferred
    assert.ok(dom.pendingTimers() > 0);
    answer(1);
    assert.equal(dom.pendingTimers(), 0); // flushed right after it
    fromKernel({ type: "overview", bins: 2, span: 1000, planes: 1, color_by: "kind" }, bytes(1, 8));
    fromKernel({
      type: "flame",
      total: 5,
      metadata: [],
      nodes: [
        { name: "all", level: 0, value: 5, parent: -1, path: {} },
        { name: "compute", level: 1, value: 5, parent: 0, path: { kind: "compute" } },
      ],
    });
    fromKernel({
      type: "groups",
      id: null,
      group_by: "kernel",
      error: null,
      rows: [
        {
          name: "(no kernel)",
          dimensions: {},
          sample_count: 3,
          phase_cycles: 9,
          work_cycles: 9,
          average_active_tiles: 1.5,
        },
      ],
    });
    assert.equal(root.findAll("ipu-nb-group-name")[0].textContent, "(no kernel)");
    fromKernel({ type: "hover", view, id: 0, sample: null });
    fromKernel({ type: "search", id: 99, text: "x", case_sensitive: false, count: 0, sent: 0 }, bytes(0, 0, 0, 0));
    fromKernel({ type: "fit", id: 99, view: [1, 2] });
    assert.deepEqual(model.get("view"), [0, 1000]); // a fit nobody asked for moves nothing
    fromKernel({ type: "error", request: "groups", message: "QueryError: no" });
    assert.equal(root.dataset.error, "QueryError: no");
    assert.equal(root.find("ipu-nb-status").textContent, "error: QueryError: no");
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("f asks the kernel for the range to fit and zooms there, remembered for undo", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    answer(1);
    root.dispatchEvent({ type: "keydown", key: "f", target: root });
    const [fit] = model.messages("fit");
    assert.deepEqual(fit, { type: "fit", id: 1, by: "matching", value: undefined });
    fromKernel({ type: "fit", id: 1, view: [100, 300] });
    assert.deepEqual(model.get("view"), [100, 300]);
    assert.equal(root.dataset.undo, "1");
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("malformed messages are dropped and reported once per type; a broken block reply frees its request", () => {
  const { dom, model, root, dispose, fromKernel } = open();
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
    // Request 1's block lacks its fields: the request is over, so what the view lacks goes out again.
    const view = model.messages("blocks")[0].view;
    fromKernel({ type: "window", view, id: 1, mode: "lod" }, []);
    assert.match(root.dataset.error ?? "", /window\.color_by/);
    assert.deepEqual(
      model.messages("blocks").map((m) => m.id),
      [1, 2],
    );
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
    root.find("ipu-nb-find").dispatchEvent({ type: "input" });
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

test("alt+drag selects an area over the dragged rows, an edge drag resizes it, Escape clears it", () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    answer(1);
    const overlay = root.find("ipu-nb-timeline-overlay");
    const px = (cycle: number) => 46 + (cycle / 1000) * 954; // view [0, 1000] over 954 plot pixels
    const mouse = (type: string, x: number, y: number, extra: object = {}) =>
      dom.window.dispatchEvent({
        type,
        target: overlay,
        button: 0,
        clientX: x,
        clientY: y,
        preventDefault() {},
        stopPropagation() {},
        ...extra,
      });
    mouse("mousedown", px(100), 10, { altKey: true });
    mouse("mousemove", px(300), 50);
    assert.equal(model.get("selection"), null); // drawn while dragged, set on release
    assert.equal(root.find("ipu-nb-timeline-area").dataset.area, "100,300,2");
    mouse("mouseup", px(300), 50);
    assert.deepEqual(model.get("selection"), { start: 100, end: 300, tiles: [0, 1] }); // rows of 40 px: rows 0 and 1
    assert.ok(model.messages("blocks").length >= 1 && model.messages("pick").length === 0); // not a click
    assert.deepEqual(model.get("view"), [0, 1000]); // nor a zoom
    // The right edge, taken without a modifier, moves the end; the bottom edge the rows.
    mouse("mousedown", px(300) - 2, 30);
    mouse("mousemove", px(600), 30);
    mouse("mouseup", px(600), 30);
    assert.deepEqual(model.get("selection"), { start: 100, end: 600, tiles: [0, 1] });
    mouse("mousedown", px(400), 80 - 1);
    mouse("mouseup", px(400), 150);
    assert.deepEqual(model.get("selection"), { start: 100, end: 600, tiles: null }); // rows 0–3: every row
    // A plain drag elsewhere still zooms; the area tool (b) makes it select instead.
    root.dispatchEvent({ type: "keydown", key: "b", target: root });
    mouse("mousedown", px(700), 10);
    mouse("mousemove", px(800), 10);
    mouse("mouseup", px(800), 10);
    assert.deepEqual(model.get("selection"), { start: 700, end: 800, tiles: [0] });
    fromKernel({
      type: "area",
      selection: { start: 700, end: 800, tiles: [0] },
      window: [700, 800],
      tiles: [0],
      count: 3,
      tiles_hit: 1,
      cycles: 250,
      longest: [
        {
          sample: 9,
          tile: 0,
          offset: 650,
          duration: 200,
          clipped_cycles: 150,
          kind: "compute",
          operation: "gemm <b>",
          kernel: "k",
          phase: 1,
          epoch: 0,
        },
      ],
    });
    const panel = root.find("ipu-nb-area");
    assert.equal(panel.dataset.active, "true");
    assert.equal(root.find("ipu-nb-area-summary").dataset.count, "3");
    const row = root.find("ipu-nb-area-longest").findAll("ipu-nb-clickable")[0];
    assert.equal(row.dataset.sample, "9");
    assert.equal(row.find("ipu-nb-group-name").textContent, "gemm <b>"); // text, never markup
    row.dispatchEvent({ type: "click" });
    assert.equal(model.get("selected"), 9);
    fromKernel({ type: "groups", id: null, group_by: "kernel", error: null, rows: [], area: true });
    assert.equal(root.find("ipu-nb-area-note").hidden, false);
    root.dispatchEvent({ type: "keydown", key: "Escape", target: root });
    assert.equal(model.get("selection"), null);
    assert.equal(panel.dataset.active, "false");
    assert.deepEqual(model.get("view"), [0, 1000]); // Escape cleared the area, not the view
  } finally {
    dispose();
    dom.uninstall();
  }
});

test("highlights, copy as code and the tracks trait", async () => {
  const { dom, model, root, dispose, fromKernel, answer } = open();
  try {
    answer(1); // side views wait behind the first request
    const f64 = (v: number[]) => new DataView(new Float64Array(v).buffer);
    fromKernel({ type: "highlight", count: 2, sent: 2 }, [
      f64([10, 20]),
      f64([15, 40]),
      new DataView(new Uint16Array([0, 2]).buffer),
      new DataView(new Uint32Array([1, 2]).buffer),
    ]);
    const layer = root.find("ipu-nb-timeline-highlight");
    assert.equal(layer.dataset.count, "2");
    assert.equal(layer.dataset.drawn, "2");
    fromKernel({ type: "highlight", count: 0, sent: 0 }, [
      f64([]),
      f64([]),
      new DataView(new ArrayBuffer(0)),
      new DataView(new ArrayBuffer(0)),
    ]);
    assert.equal(layer.dataset.drawn, "0"); // cleared
    // Copy as code: asked for, shown, and (no clipboard here) left selected to copy by hand.
    root.find("ipu-nb-copy-code").dispatchEvent({ type: "click" });
    const [ask] = model.messages("code");
    assert.deepEqual(ask, { type: "code", id: 1 });
    fromKernel({ type: "code", id: 1, code: "import ipu_nb\n" });
    await new Promise((resolve) => setImmediate(resolve));
    const panel = root.find("ipu-nb-code-panel");
    assert.equal(panel.hidden, false);
    assert.equal(panel.dataset.copied, "false");
    assert.equal(root.find("ipu-nb-code-text").value, "import ipu_nb\n");
    assert.equal(root.find("ipu-nb-code-text").dataset.selected, "all");
    // The row layout follows the trait, and a change of it goes back to the trait.
    model.set("tracks", { order: "logical", pinned: [2], rows: 0, scroll: 0 });
    dom.runFrames();
    assert.equal(root.find("ipu-nb-timeline").dataset.order, "logical");
    assert.equal(root.find("ipu-nb-timeline").dataset.pinned, "1");
    root.dispatchEvent({ type: "keydown", key: "p", target: root }); // nothing selected: nothing pinned
    root
      .find("ipu-nb-timeline-overlay")
      .dispatchEvent({ type: "mousedown", button: 0, clientX: 10, clientY: 50, preventDefault() {} });
    dom.runTimers(200);
    assert.deepEqual(model.get("tracks").pinned, [2, 0]); // a click on a tile label pinned its tile
  } finally {
    dispose();
    dom.uninstall();
  }
});
