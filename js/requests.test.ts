import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "./disposers";
import type { WindowRequest } from "./protocol";
import { Deferred, LOST_REPLY_MS, WindowRequests } from "./requests";
import { installFakeDom } from "./testing/fake-dom";

/** Flow control over a fake clock; `want` is the window the view needs now. */
function setup() {
  const sent: WindowRequest[] = [];
  const log: string[] = [];
  let clock = 1000;
  const want = { start: 0, end: 100, pixels: 800, labels: false, filters: "" };
  const requests = new WindowRequests("view-1", {
    wanted: () => {
      const { filters, ...ask } = want;
      return { ask, key: JSON.stringify([ask, filters]) };
    },
    send: (r) => sent.push(r),
    log: { changed: () => log.push("changed"), settled: () => log.push("settled"), sent: (id) => log.push(`sent ${id}`) },
    now: () => clock,
  });
  return { requests, sent, log, want, tick: (ms: number) => (clock += ms) };
}

test("a request goes out at once, carrying the view's id and a new request id", () => {
  const { requests, sent, log } = setup();
  requests.request();
  assert.deepEqual(sent, [{ type: "window", view: "view-1", id: 1, start: 0, end: 100, pixels: 800, labels: false }]);
  assert.deepEqual(log, ["changed", "sent 1"]);
  assert.ok(requests.busy);
  assert.equal(requests.latestId, 1);
});

test("what was asked for last is not asked for again, even after its reply", () => {
  const { requests, sent, log, want } = setup();
  requests.request();
  assert.ok(requests.receive(1));
  requests.request(); // a trait echo, a resize to the same width
  assert.equal(sent.length, 1);
  assert.equal(log.at(-1), "settled");
  want.filters = "kind=compute"; // same window, different answer
  requests.request();
  assert.equal(sent.length, 2);
});

test("one request in flight: a burst of views sends only the latest, when the reply lands", () => {
  const { requests, sent, want } = setup();
  requests.request();
  for (const end of [90, 80, 70]) {
    want.end = end;
    requests.request();
  }
  assert.equal(sent.length, 1);
  assert.ok(requests.receive(1)); // draw it; the latest view left first
  assert.deepEqual(
    sent.map((r) => [r.id, r.end]),
    [[1, 100], [2, 70]],
  );
  assert.ok(requests.receive(2));
  assert.ok(!requests.busy);
  assert.equal(sent.length, 2); // nothing pending
});

test("going back to the view in flight while it is in flight cancels the pending one", () => {
  const { requests, sent, want } = setup();
  requests.request();
  want.end = 50;
  requests.request();
  want.end = 100;
  requests.request();
  requests.receive(1);
  assert.equal(sent.length, 1);
});

test("a reply to anything but the latest request is dropped and keeps the latest in flight", () => {
  const { requests, sent, want, tick } = setup();
  requests.request();
  tick(LOST_REPLY_MS + 1); // reply 1 is lost: a new view goes out anyway
  assert.ok(!requests.busy);
  want.end = 60;
  requests.request();
  assert.deepEqual(sent.map((r) => r.id), [1, 2]);
  assert.ok(!requests.receive(1)); // late reply to the lost request: stale
  assert.ok(requests.busy);
  want.end = 40;
  requests.request();
  assert.equal(sent.length, 2); // still waiting for 2
  assert.ok(!requests.receive(null)); // a reply without an id answers nothing of ours
  assert.ok(!requests.receive(7));
  assert.ok(requests.receive(2));
  assert.deepEqual(sent.map((r) => [r.id, r.end]), [[1, 100], [2, 60], [3, 40]]);
});

test("before the lost-reply limit a new view waits; after it, it goes out", () => {
  const { requests, sent, want, tick } = setup();
  requests.request();
  tick(LOST_REPLY_MS - 1);
  want.end = 10;
  requests.request();
  assert.equal(sent.length, 1);
  tick(2);
  requests.request();
  assert.equal(sent.length, 2);
});

test("a failed request frees the slot and sends the pending view; a stale failure does not", () => {
  const { requests, sent, want, tick } = setup();
  requests.request();
  want.end = 50;
  requests.request();
  requests.failed(1);
  assert.deepEqual(sent.map((r) => [r.id, r.end]), [[1, 100], [2, 50]]);
  requests.failed(1); // about the old request: 2 stays in flight
  assert.ok(requests.busy);
  requests.failed(undefined); // the kernel could not say which: free
  assert.ok(!requests.busy);
  tick(1);
  requests.request(); // same view as request 2: not again
  assert.equal(sent.length, 2);
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
