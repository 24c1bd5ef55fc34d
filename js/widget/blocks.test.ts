import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import type { BlocksReply, ToKernel, WindowReply } from "../kernel/protocol";
import { noFilters } from "../kernel/types";
import { FakeModel, installFakeDom } from "../testing/fake-dom";
import type { Range } from "../timeline/view";
import { BlockFlow, type BlockFlowHost, type BlockView, STALE_RETRIES, STALE_RETRY_MS } from "./blocks";

const SPAN = 8192;
/** 1,024 device pixels: the whole profile is drawn at level 3 (blocks of 4,096 cycles). */
const PIXELS = 1024;

/** What the timeline does with blocks: nothing here (the flow's bookkeeping is what is tested). */
const timeline: BlockView = {
  isFinal: () => true,
  prepare: () => undefined,
  inView: () => false,
  images: () => ({ page: 0, worker: false }),
};

/**
 * A flow over a fake model and a kernel whose answers the test gives: `answer` replies to every
 * request out, as the inbox hands replies on (each block; then the request is over, and the next
 * may go, before its closing reply is taken in), counting `count(start, end)` samples in its view.
 */
function setup() {
  const dom = installFakeDom();
  const bag = new Disposers();
  const model = new FakeModel({ filters: noFilters(), color_by: "kind", showing: "after", info: { span: SPAN } });
  const sent: Extract<ToKernel, { type: "blocks" }>[] = [];
  let view: Range = [0, SPAN];
  let settled = 0;
  const root = document.createElement("div") as unknown as HTMLElement;
  const flow = new BlockFlow(
    {
      id: "v",
      model: model as unknown as BlockFlowHost["model"],
      send: (message) => {
        if (message.type === "blocks") sent.push(message);
      },
      view: () => view,
      span: () => SPAN,
      pixels: () => PIXELS,
      settled: () => settled++,
    },
    root,
    bag,
  );
  const empty = Array.from({ length: 5 }, () => new DataView(new ArrayBuffer(0)));
  const answer = (count: (start: number, end: number) => number, stale = false): number => {
    let answered = 0;
    while (sent.length) {
      const m = sent.shift()!;
      for (const k of m.blocks) {
        const block: WindowReply = {
          ...{ type: "window", view: "v", id: m.id ?? null, color_by: "kind", filtered: false },
          ...{ mode: "raw", start: 0, end: 1, count: 0, level: m.level, block: k },
        };
        if (!stale) flow.receive(block, empty, timeline, () => undefined);
      }
      const done: BlocksReply = {
        ...{ type: "blocks", view: "v", id: m.id ?? null, stale, count: count(m.start, m.end), matched: 1 },
        cost_ms: [],
      };
      flow.requests.receive(m.id ?? null);
      flow.done(done);
      answered++;
    }
    return answered;
  };
  const move = (next: Range) => {
    view = next;
    flow.request();
  };
  const done = () => {
    bag.dispose();
    dom.uninstall();
  };
  return { flow, sent, answer, move, model, settledCount: () => settled, done, runTimers: dom.runTimers };
}

const width = (start: number, end: number) => end - start;

test("every view's count is its own: one seen before at once, one drawn from the cache after one block", () => {
  const t = setup();
  try {
    t.flow.request();
    assert.ok(t.answer(width) >= 2); // the view's blocks, then the prefetch around it
    assert.deepEqual(t.flow.counted(), { count: SPAN, matched: 1 });
    const quiet = t.settledCount();
    assert.ok(quiet > 0);
    // A narrower view whose blocks and neighbours are all held: one block of it is asked for its count.
    t.move([0, 6000]);
    assert.equal(t.flow.counted(), undefined);
    assert.equal(t.sent.length, 1);
    const [ask] = t.sent;
    assert.deepEqual([ask.blocks.length, ask.start, ask.end], [1, 0, 6000]);
    assert.equal(t.answer(width), 1); // its reply counts the view: not asked again while it is taken in
    assert.deepEqual(t.flow.counted(), { count: 6000, matched: 1 });
    // Back to the whole view: its count is known, nothing is asked, and the flow says it is settled.
    t.move([0, SPAN]);
    assert.equal(t.sent.length, 0);
    assert.deepEqual(t.flow.counted(), { count: SPAN, matched: 1 });
    assert.ok(t.settledCount() > quiet);
  } finally {
    t.done();
  }
});

test("counts are kept per state: other filters or the other profile need their own", () => {
  const t = setup();
  try {
    t.flow.request();
    t.answer(width);
    assert.ok(t.flow.counted());
    t.model.set("showing", "baseline");
    assert.equal(t.flow.counted(), undefined);
    t.flow.restate();
    t.model.set("showing", "after");
    assert.deepEqual(t.flow.counted(), { count: SPAN, matched: 1 });
  } finally {
    t.done();
  }
});

test("a request for a view or state left since is superseded (its failure matters no more); the current one is not", () => {
  const t = setup();
  try {
    t.flow.request();
    const first = t.sent[0].id;
    assert.equal(t.flow.superseded(first), false);
    t.move([100, 900]);
    assert.equal(t.flow.superseded(first), true);
    t.move([0, SPAN]);
    assert.equal(t.flow.superseded(first), false);
    t.model.set("color_by", "kernel");
    assert.equal(t.flow.superseded(first), true);
    assert.equal(t.flow.superseded(null), false);
    assert.equal(t.flow.superseded(12345), false); // not this view's request
  } finally {
    t.done();
  }
});

test("a stale reply counts nothing; the state is asked for again a little later, a bounded number of times", async () => {
  const t = setup();
  try {
    t.flow.request();
    assert.equal(
      t.answer(() => 99, true),
      1,
    ); // the kernel still held another state
    assert.equal(t.flow.counted(), undefined);
    t.flow.request(); // a move meanwhile asks nothing of a refused state
    assert.equal(t.sent.length, 0);
    t.runTimers(STALE_RETRY_MS - 1);
    assert.equal(t.sent.length, 0);
    t.runTimers(1); // ...then once more: the kernel has caught up
    assert.equal(t.sent.length, 1);
    t.answer(width);
    assert.deepEqual(t.flow.counted(), { count: SPAN, matched: 1 });
    t.model.set("color_by", "kernel");
    t.flow.restate();
    await Promise.resolve(); // the request goes after the trait update (a microtask)
    let asked = 0;
    for (let i = 0; i < STALE_RETRIES + 3; i++) {
      t.runTimers(STALE_RETRY_MS * 2 ** STALE_RETRIES);
      asked += t.answer(() => 0, true);
    }
    assert.equal(asked, 1 + STALE_RETRIES); // the first ask, then each retry; none after
  } finally {
    t.done();
  }
});
