import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom } from "../testing/fake-dom";
import type { Ask } from "../timeline/prefetch";
import { BlockRequests, Deferred, FRAME_HOLD_MS, LOST_REPLY_MS, RequestHold, ZOOM_HOLD_MS } from "./requests";

/** Flow control over a fake clock; `queue` is what the cache lacks, in the order `next` hands it out. */
function setup() {
  const sent: [number, Ask][] = [];
  const over: number[] = [];
  const log: string[] = [];
  let clock = 1000;
  const queue: Ask[] = [];
  const requests = new BlockRequests({
    next: () => queue[0] ?? null,
    send: (id, ask) => {
      sent.push([id, ask]);
      queue.shift();
    },
    over: (id) => over.push(id),
    log: {
      changed: () => log.push("changed"),
      settled: () => log.push("settled"),
      sent: (id) => log.push(`sent ${id}`),
    },
    now: () => clock,
  });
  const ask = (level: number, blocks: number[], prefetch = false): Ask => ({ level, blocks, prefetch });
  return { requests, sent, over, log, queue, ask, tick: (ms: number) => (clock += ms) };
}

test("what the view lacks goes out at once with a new id; with nothing lacking, nothing is sent", () => {
  const { requests, sent, log, queue, ask } = setup();
  requests.request();
  assert.deepEqual(log, ["changed", "settled"]);
  queue.push(ask(3, [4, 5]));
  requests.request();
  assert.deepEqual(sent, [[1, ask(3, [4, 5])]]);
  assert.ok(requests.busy);
  assert.equal(requests.latestId, 1);
  assert.deepEqual(requests.asked, ask(3, [4, 5]));
});

test("one request in flight: the next goes when it is answered, and prefetching follows until nothing lacks", () => {
  const { requests, sent, over, queue, ask } = setup();
  queue.push(ask(3, [4, 5]));
  requests.request();
  queue.push(ask(3, [6]), ask(2, [8, 9], true));
  requests.request(); // a burst of views: all wait for request 1
  requests.request();
  assert.equal(sent.length, 1);
  assert.ok(requests.receive(1));
  assert.deepEqual(over, [1]); // what request 1 did not bring may be asked again
  assert.deepEqual(
    sent.map(([id]) => id),
    [1, 2],
  );
  assert.ok(requests.receive(2)); // ...and the prefetch right after
  assert.deepEqual(
    sent.map(([id, a]) => [id, a.prefetch]),
    [
      [1, false],
      [2, false],
      [3, true],
    ],
  );
  assert.ok(requests.receive(3));
  assert.ok(!requests.busy);
  assert.equal(sent.length, 3);
});

test("a late reply to a request given up on is not the one in flight", () => {
  const { requests, sent, over, queue, ask, tick } = setup();
  queue.push(ask(1, [0]));
  requests.request();
  tick(LOST_REPLY_MS - 1);
  queue.push(ask(1, [1]));
  requests.request();
  assert.equal(sent.length, 1); // still waiting
  tick(2);
  assert.ok(!requests.busy); // lost: no longer blocking, and over
  assert.deepEqual(over, [1]);
  requests.request();
  assert.deepEqual(
    sent.map(([id]) => id),
    [1, 2],
  );
  assert.ok(!requests.receive(1)); // the late reply answers nothing in flight
  assert.ok(requests.busy);
  assert.ok(!requests.receive(null));
  assert.ok(requests.receive(2));
});

test("a failed request frees the slot; a failure of another one does not", () => {
  const { requests, sent, queue, ask } = setup();
  queue.push(ask(1, [0]));
  requests.request();
  requests.failed(7);
  assert.ok(requests.busy);
  queue.push(ask(1, [1]));
  requests.failed(1);
  assert.deepEqual(
    sent.map(([id]) => id),
    [1, 2],
  );
  requests.failed(undefined); // the kernel could not say which: free
  assert.ok(!requests.busy);
});

test("deferred jobs run on flush, or after the wait at most, once", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const deferred = new Deferred(bag, 300);
    const ran: number[] = [];
    deferred.push(() => ran.push(1));
    deferred.push(() => ran.push(2));
    dom.runTimers(299);
    assert.equal(ran.length, 0);
    deferred.flush();
    assert.deepEqual(ran, [1, 2]);
    assert.equal(dom.pendingTimers(), 0);
    deferred.push(() => ran.push(3));
    dom.runTimers(300);
    assert.deepEqual(ran, [1, 2, 3]);
    deferred.push(() => ran.push(4));
    bag.dispose();
    deferred.flush();
    dom.runTimers(1000);
    assert.deepEqual(ran, [1, 2, 3]); // dropped with the view
  } finally {
    dom.uninstall();
  }
});

test("a held request waits for its hold, goes when it ends or on resume, and never after the view is gone", () => {
  const dom = installFakeDom();
  try {
    const bag = new Disposers();
    const sent: Ask[] = [];
    const held: string[] = [];
    const queue: Ask[] = [];
    let wait = 40;
    const requests = new BlockRequests({
      next: () => queue[0] ?? null,
      send: (_id, ask) => {
        sent.push(ask);
        queue.shift();
      },
      over: () => {},
      log: { changed: () => {}, settled: () => held.push("settled"), sent: () => {}, held: () => held.push("held") },
      hold: (ask) => (ask.prefetch ? wait : 0), // here only prefetches are held
      timer: (fn) => bag.timer(fn),
    });
    queue.push({ level: 3, blocks: [1], prefetch: false });
    requests.request();
    assert.equal(sent.length, 1); // not held: at once
    queue.push({ level: 3, blocks: [2], prefetch: true });
    assert.ok(requests.receive(1));
    assert.equal(sent.length, 1);
    assert.ok(requests.holding && !requests.busy);
    assert.deepEqual(held, ["held"]);
    dom.runTimers(39);
    requests.resume(); // the host still holds (40 ms more): held again
    assert.equal(sent.length, 1);
    wait = 0;
    dom.runTimers(39);
    assert.equal(sent.length, 1);
    dom.runTimers(1); // the hold's end sends it
    assert.equal(sent.length, 2);
    assert.ok(!requests.holding && requests.busy);
    queue.push({ level: 3, blocks: [3], prefetch: true });
    wait = 100;
    assert.ok(requests.receive(2));
    assert.ok(requests.holding);
    wait = 0;
    requests.resume(); // ended early (the frame was drawn)
    assert.deepEqual(
      sent.map((a) => a.blocks[0]),
      [1, 2, 3],
    );
    assert.equal(dom.pendingTimers(), 0);
    assert.ok(requests.receive(3));
    assert.deepEqual(held, ["held", "held", "held", "settled"]); // held again at the early resume; then nothing left
    queue.push({ level: 3, blocks: [4], prefetch: true });
    wait = 10;
    requests.request();
    bag.dispose(); // the view is gone: the held prefetch never goes
    dom.runTimers(1000);
    assert.equal(sent.length, 3);
  } finally {
    dom.uninstall();
  }
});

test("prefetches wait for the moved view's frame and for a zoom to be still; what the view lacks never waits", () => {
  let clock = 0;
  const hold = new RequestHold(() => clock);
  const view: Ask = { level: 3, blocks: [1], prefetch: false };
  const around: Ask = { level: 3, blocks: [2], prefetch: true };
  assert.equal(hold.wait(around), 0);
  hold.moved([0, 100]); // the first view: no zoom, only its frame
  assert.equal(hold.wait(around), FRAME_HOLD_MS);
  assert.equal(hold.wait(view), 0);
  clock += 10;
  assert.ok(hold.drew());
  assert.ok(!hold.drew()); // only the first draw after a move ends a wait
  assert.equal(hold.wait(around), 0);
  hold.moved([0.1 + 0.2, 100.3]); // a pan (the same width up to rounding)
  assert.equal(hold.wait(around), FRAME_HOLD_MS);
  clock += FRAME_HOLD_MS + 1; // no frame came (a hidden page): not held for ever
  assert.equal(hold.wait(around), 0);
  hold.moved([10, 60]); // a zoom
  hold.drew();
  assert.equal(hold.wait(around), ZOOM_HOLD_MS);
  assert.equal(hold.wait(view), 0);
  clock += ZOOM_HOLD_MS - 5;
  assert.equal(hold.wait(around), 5);
  clock += 1;
  hold.moved([20, 50]); // zoomed again: the wait starts over
  assert.equal(hold.wait(view), 0);
  hold.drew();
  assert.equal(hold.wait(around), ZOOM_HOLD_MS);
  clock += ZOOM_HOLD_MS;
  assert.equal(hold.wait(around), 0);
});
