import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import type { LodWindow, WindowData } from "../kernel/types";
import { installFakeDom } from "../testing/fake-dom";
import { ImageMaker, type WorkerLike } from "./imagemaker";
import { BLOCK_BINS, blockWidth } from "./levels";
import { imageOf, type PaintTarget, paintView, prepareImage, requestImage } from "./painter";
import type { WorkerJob, WorkerReply } from "./rasterworker";
import { BlockCache } from "./tilecache";
import { layoutTracks } from "./tracks";

const ROWS = 4;
const lod = (): WindowData & LodWindow => ({
  mode: "lod",
  start: 0,
  end: 0,
  count: 1,
  bins: BLOCK_BINS,
  classes: [1],
  cells: new Uint8Array(BLOCK_BINS * ROWS).fill(255),
  colorBy: "kind",
});

class FakeWorker implements WorkerLike {
  posted: WorkerJob[] = [];
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  postMessage(job: WorkerJob): void {
    this.posted.push(job);
  }
  terminate(): void {}
  answerAll(): void {
    while (this.posted.length) {
      const job = this.posted.shift()!;
      this.onmessage!({
        data: { id: job.id, bitmap: { width: job.bins, height: job.offsets.length - 1 } as ImageBitmap },
      } as MessageEvent<WorkerReply>);
    }
  }
}

/** Level 3 view of blocks 0–3 (4 × 512 bins of 8 cycles over 4,096 device pixels), with a maker when `worker` is given. */
function target(worker: FakeWorker | null): { t: PaintTarget; drawn: unknown[]; redraws: () => number } {
  const drawn: unknown[] = [];
  let redraws = 0;
  const ctx = {
    drawImage: (image: unknown) => drawn.push(image),
    imageSmoothingEnabled: true,
  } as unknown as CanvasRenderingContext2D;
  const layout = layoutTracks(
    { rows: [0, 1, 2, 3] },
    { order: "physical", only: [], pinned: [], inView: 0, scroll: 0 },
    400,
  );
  const maker = worker
    ? new ImageMaker(
        () => redraws++,
        new Disposers(),
        () => worker,
      )
    : undefined;
  const t: PaintTarget = {
    ctx,
    view: [0, 4 * blockWidth(3)],
    limit: 1 << 20,
    span: 1 << 20,
    pixels: 4 * BLOCK_BINS,
    x: 0,
    width: 1000,
    dpr: 1,
    state: "s",
    rows: ROWS,
    layout,
    colours: () => Array.from({ length: 32 }, () => [1, 2, 3] as [number, number, number]),
    tone: "light",
    maker,
  };
  return { t, drawn, redraws: () => redraws };
}

test("with the worker: one image made here for a block it makes exact; the others show a stand-in until theirs come", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    const { t, drawn, redraws } = target(worker);
    const cache = new BlockCache();
    const coarse = cache.put("s", 5, 0, lod()); // covers all four blocks of level 3
    imageOf(cache, coarse, 5, 0, t);
    for (let k = 0; k < 4; k++) cache.put("s", 3, k, lod());
    const first = paintView(cache, t);
    assert.equal(first.blocks, 4);
    assert.equal(first.exact, 1); // made here
    assert.equal(first.standIns, 3);
    assert.equal(first.waiting, 3);
    assert.ok(!first.deferred); // the worker's replies draw again, not every frame
    assert.equal(drawn.length, 4);
    assert.equal(worker.posted.length, 1); // one in the worker, two queued
    worker.answerAll();
    worker.answerAll();
    worker.answerAll();
    assert.equal(redraws(), 3);
    const second = paintView(cache, t);
    assert.deepEqual([second.exact, second.standIns, second.waiting], [4, 0, 0]);
  } finally {
    dom.uninstall();
  }
});

test("with the worker: an image it is making already is not made here too; the frame shows a stand-in until it comes", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    const { t, redraws } = target(worker);
    const cache = new BlockCache();
    imageOf(cache, cache.put("s", 5, 0, lod()), 5, 0, t);
    const entries = [0, 1, 2, 3].map((k) => cache.put("s", 3, k, lod()));
    assert.ok(requestImage(cache, entries[0], 3, 0, t, true)); // block 0 arrived: its image goes to the worker
    assert.equal(worker.posted.length, 1);
    const first = paintView(cache, t);
    assert.equal(first.made, 1); // block 1's, the one image made here per paint; not block 0's again
    assert.deepEqual([first.exact, first.standIns, first.waiting], [1, 3, 3]);
    assert.equal(worker.posted.length, 1); // block 0's, still the one in the worker
    worker.answerAll();
    assert.equal(redraws(), 3); // the view waited for each: its arrival draws again
    const second = paintView(cache, t);
    assert.deepEqual([second.exact, second.standIns, second.made], [4, 0, 0]);
  } finally {
    dom.uninstall();
  }
});

test("a block just received: the view's own cells are imaged here at once, the rest by the worker", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    const { t } = target(worker);
    const cache = new BlockCache();
    const raw = (): WindowData => ({
      mode: "raw",
      start: 0,
      end: 0,
      count: 1,
      x0: new Float32Array([0]),
      x1: new Float32Array([8]),
      row: new Uint16Array([0]),
      flags: new Uint8Array([0x81]),
      sample: new Uint32Array([0]),
      labels: null,
      labelIndex: null,
      colorBy: "kind",
    });
    const waited = cache.put("s", 3, 0, lod());
    assert.equal(prepareImage(cache, waited, t, true), true); // the view waits for it: made here
    assert.equal(worker.posted.length, 0);
    assert.equal(waited.extras.size, 1);
    const painted = paintView(cache, t);
    assert.equal(painted.made, 0); // the frame only copies it
    const ahead = cache.put("s", 3, 9, lod());
    assert.equal(prepareImage(cache, ahead, t, false), false); // made in advance: the worker's
    const rebinned = cache.put("s", 3, 1, raw());
    assert.equal(prepareImage(cache, rebinned, t, true), false); // raw intervals: the worker's, even when waited for
    assert.equal(worker.posted.length, 1); // one job in the worker at a time, the other queued
    assert.deepEqual([ahead.extras.size, rebinned.extras.size], [0, 0]);
    const { t: alone } = target(null);
    assert.equal(prepareImage(cache, cache.put("s", 3, 2, raw()), alone, false), true); // no worker: here
  } finally {
    dom.uninstall();
  }
});

test("with the worker and no image at all: the block's best source is made here (real data in the first frame)", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    const { t } = target(worker);
    const cache = new BlockCache();
    cache.put("s", 5, 0, lod()); // a stand-in without its image, and no exact block
    const painted = paintView(cache, t);
    assert.deepEqual([painted.exact, painted.standIns, painted.waiting], [0, 4, 0]);
    assert.equal(worker.posted.length, 0);
  } finally {
    dom.uninstall();
  }
});

test("without a worker: the exact blocks' images are made here, in the frame that first shows them (as before)", () => {
  const dom = installFakeDom();
  try {
    const { t } = target(null);
    const cache = new BlockCache();
    imageOf(cache, cache.put("s", 5, 0, lod()), 5, 0, t);
    for (let k = 0; k < 4; k++) cache.put("s", 3, k, lod());
    const first = paintView(cache, t);
    assert.deepEqual([first.exact, first.standIns, first.deferred, first.waiting], [4, 0, false, 0]);
  } finally {
    dom.uninstall();
  }
});

test("with the worker, raw intervals re-binned for the view are the worker's: a stand-in shows meanwhile", () => {
  const dom = installFakeDom();
  try {
    const worker = new FakeWorker();
    const { t } = target(worker);
    const cache = new BlockCache();
    imageOf(cache, cache.put("s", 5, 0, lod()), 5, 0, t);
    const n = 3;
    cache.put("s", 4, 0, {
      mode: "raw",
      start: 0,
      end: blockWidth(4),
      count: n,
      x0: Float32Array.from([0, 100, 200]),
      x1: Float32Array.from([50, 150, 250]),
      row: Uint16Array.from([0, 1, 2]),
      flags: Uint8Array.from([0x81, 0x82, 0x83]),
      sample: Uint32Array.from([1, 2, 3]),
      labels: null,
      labelIndex: null,
      colorBy: "kind",
    }); // covers blocks 0 and 1 of level 3 exactly
    const painted = paintView(cache, t);
    assert.deepEqual([painted.exact, painted.standIns, painted.made, painted.waiting], [0, 4, 0, 2]);
    assert.equal(worker.posted.length, 1);
    worker.answerAll();
    worker.answerAll();
    const again = paintView(cache, t);
    assert.deepEqual([again.exact, again.standIns, again.made], [2, 2, 0]);
  } finally {
    dom.uninstall();
  }
});
