import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom } from "../testing/fake-dom";
import { HOLD_MS, ImageMaker, type WorkerLike } from "./imagemaker";
import type { ImageJob } from "./raster";
import type { WorkerJob, WorkerReply } from "./rasterworker";

/** A worker that keeps the jobs posted until the test answers them. */
class FakeWorker implements WorkerLike {
  posted: WorkerJob[] = [];
  terminated = false;
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  postMessage(job: WorkerJob): void {
    this.posted.push(job);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Answer the oldest job not answered yet. */
  answer(error?: string): WorkerJob {
    const job = this.posted.shift()!;
    const reply: WorkerReply = error
      ? { id: job.id, error }
      : { id: job.id, bitmap: { width: job.bins, height: 1 } as ImageBitmap };
    this.onmessage!({ data: reply } as MessageEvent<WorkerReply>);
    return job;
  }
}

const job = (bins: number): ImageJob => ({
  cells: { classes: [1], planes: new Uint8Array(bins) },
  bins,
  rows: 1,
  offsets: Int32Array.from([0, 1]),
  members: Int32Array.from([0]),
  palette: new Uint8Array(96),
});

function setUp() {
  const worker = new FakeWorker();
  const bag = new Disposers();
  let ready = 0;
  const maker = new ImageMaker(
    () => ready++,
    bag,
    () => worker,
  );
  return { worker, bag, maker, ready: () => ready };
}

test("one job in the worker at a time; the view's jobs go ahead of those made in advance", () => {
  const { worker, maker, ready } = setUp();
  const made: string[] = [];
  const done = (name: string) => () => made.push(name);
  assert.ok(maker.submit("a", job(1), false, done("a")));
  assert.ok(maker.submit("b", job(2), false, done("b")));
  assert.ok(maker.submit("c", job(3), true, done("c")));
  assert.ok(maker.submit("b", job(2), false, done("b twice"))); // already on its way: not made twice
  assert.equal(worker.posted.length, 1);
  assert.equal(maker.size, 3);
  assert.ok(maker.has("b"));
  assert.equal(worker.answer().bins, 1); // a was in the worker already
  assert.equal(worker.answer().bins, 3); // then the urgent c, before b
  assert.equal(worker.answer().bins, 2);
  assert.deepEqual(made, ["a", "c", "b"]);
  assert.equal(ready(), 1); // only c's arrival changes the picture
  assert.equal(maker.size, 0);
  assert.ok(!maker.has("b"));
});

test("a job in the worker that the view now waits for draws on arrival", () => {
  const { worker, maker, ready } = setUp();
  maker.submit("a", job(1), false, () => {});
  maker.submit("b", job(2), false, () => {});
  maker.submit("a", job(1), true, () => {}); // the view came to a's block while a is in the worker
  worker.answer();
  assert.equal(ready(), 1);
  worker.answer(); // b: still made in advance
  assert.equal(ready(), 1);
});

test("a queued job the view now waits for moves ahead; jobs of a layout no longer drawn are dropped", () => {
  const { worker, maker } = setUp();
  const made: string[] = [];
  for (const k of ["x", "old|1", "y", "z"]) maker.submit(k, job(k.length), false, () => made.push(k));
  maker.submit("z", job(1), true, () => made.push("z again"));
  maker.retain((key) => !key.startsWith("old"));
  assert.ok(!maker.has("old|1"));
  while (worker.posted.length) worker.answer();
  assert.deepEqual(made, ["x", "z", "y"]);
});

test("a failed job or a worker error: images are made on the page from then on", () => {
  const { worker, maker, ready } = setUp();
  maker.submit("a", job(1), false, () => assert.fail("not made"));
  maker.submit("b", job(2), false, () => assert.fail("not made"));
  worker.answer("out of memory");
  assert.ok(worker.terminated);
  assert.ok(!maker.available);
  assert.equal(maker.size, 0);
  assert.equal(ready(), 1); // the view draws again, making them itself
  assert.ok(!maker.submit("c", job(3), true, () => {}));

  const other = setUp();
  other.maker.submit("a", job(1), false, () => {});
  other.worker.onerror!(new Event("error"));
  assert.ok(!other.maker.available);
  assert.equal(other.ready(), 1);
});

test("no worker where none can run (here, under node); disposing stops the worker", () => {
  const bag = new Disposers();
  const none = new ImageMaker(() => {}, bag);
  assert.ok(!none.available);
  assert.ok(!none.submit("a", job(1), true, () => {}));
  const { worker, bag: bag2, maker } = setUp();
  maker.submit("a", job(1), false, () => {});
  bag2.dispose();
  assert.ok(worker.terminated);
  assert.ok(!maker.available);
  bag.dispose();
});

test("while the view moves, jobs made in advance wait; the view's own go at once", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    let clock = 0;
    const maker = new ImageMaker(
      () => {},
      new Disposers(),
      () => worker,
      () => clock,
    );
    maker.hold();
    maker.submit("later", job(1), false, () => {});
    assert.equal(worker.posted.length, 0); // held
    maker.submit("now", job(2), true, () => {});
    assert.equal(worker.posted.length, 1);
    worker.answer();
    assert.equal(worker.posted.length, 0); // still held
    clock += HOLD_MS / 2;
    maker.hold(); // moved again: the wait starts over
    clock += HOLD_MS / 2;
    dom.runTimers(HOLD_MS / 2);
    assert.equal(worker.posted.length, 0);
    clock += HOLD_MS;
    dom.runTimers(HOLD_MS);
    assert.equal(worker.posted.length, 1);
    assert.equal(worker.answer().bins, 1);
  } finally {
    dom.uninstall();
  }
});
