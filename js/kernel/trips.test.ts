import assert from "node:assert/strict";
import { test } from "node:test";
import { installFakeDom } from "../testing/fake-dom";
import type { BlocksReply } from "./protocol";
import { type Trip, Trips } from "./trips";

const done = (id: number, stale = false): BlocksReply => ({
  type: "blocks",
  view: "v",
  id,
  stale,
  count: 5,
  matched: 2,
  cost_ms: [1.5, 2],
});
const ask = { level: 4, blocks: [1, 2], prefetch: false };

test("trips record wait, round trip and kernel cost per request, on the root as benchmarks read them", () => {
  const dom = installFakeDom();
  try {
    let clock = 100;
    const root = document.createElement("div");
    const trips = new Trips(root, () => clock);
    trips.changed();
    clock = 104;
    trips.changed(); // still the same wait
    trips.sent(1, ask);
    assert.equal(root.dataset.requestId, "1");
    trips.block(1, 3);
    trips.block(1, 2);
    clock = 150;
    const trip = trips.answered(done(1));
    assert.equal(trip?.roundTripMs, 46);
    const records = (root as unknown as { ipuTrips: Trip[] }).ipuTrips;
    assert.equal(records, trips.records);
    const { sentEpochMs, arrivedEpochMs, ...rest } = records[0];
    assert.deepEqual(rest, {
      id: 1,
      level: 4,
      blocks: 2,
      prefetch: false,
      waitMs: 4,
      roundTripMs: 46,
      decodeMs: 5,
      kernelMs: [1.5, 2],
      stale: false,
    });
    assert.equal(arrivedEpochMs - sentEpochMs, 46);
    assert.deepEqual({ ...root.dataset }, { requestId: "1", inFlight: "true", answeredId: "1", roundTripMs: "46.0" });
    trips.changed();
    trips.settled(); // nothing sent: the next wait starts afresh
    clock = 200;
    trips.changed();
    clock = 210;
    trips.sent(2, ask);
    trips.answered(done(2, true));
    assert.equal(records[1].waitMs, 10);
    assert.equal(records[1].stale, true);
    assert.equal(trips.answered(done(99)), null); // not ours
    for (let id = 3; id < 260; id++) {
      trips.sent(id, ask);
      trips.answered(done(id));
    }
    assert.equal(records.length, 200);
    assert.equal(records.at(-1)!.id, 259);
  } finally {
    dom.uninstall();
  }
});

test("frames are recorded; the first complete picture with blocks marks the first draw", () => {
  const dom = installFakeDom();
  try {
    const root = document.createElement("div");
    const trips = new Trips(root, () => 5);
    trips.drew({ level: 3, final: false, blocks: 2, exact: 0, standIns: 0, mode: "lod", drawMs: 1, made: 0 }, "a");
    assert.equal(root.dataset.firstDrawAt, undefined);
    assert.equal(root.dataset.windowId, undefined);
    trips.drew({ level: 3, final: true, blocks: 2, exact: 2, standIns: 0, mode: "raw", drawMs: 2, made: 1 }, "a");
    assert.ok(Number(root.dataset.firstDrawAt) > 1.6e12);
    assert.equal(root.dataset.final, "true");
    assert.equal(root.dataset.mode, "raw");
    assert.equal(trips.frames.length, 2);
    assert.equal(root.dataset.windowId, "1");
    trips.drew({ level: 3, final: true, blocks: 2, exact: 2, standIns: 0, mode: "raw", drawMs: 2, made: 1 }, "a");
    assert.equal(root.dataset.windowId, "1"); // the same picture again
    trips.drew({ level: 2, final: true, blocks: 1, exact: 1, standIns: 0, mode: "raw", drawMs: 2, made: 1 }, "b");
    assert.equal(root.dataset.windowId, "2");
    assert.equal(trips.frames[1].made, 1);
    trips.images({ page: 3, worker: 40 });
    assert.deepEqual([root.dataset.imagesPage, root.dataset.imagesWorker], ["3", "40"]);
    trips.images({ page: 4, worker: false });
    assert.equal(root.dataset.imagesWorker, "none");
  } finally {
    dom.uninstall();
  }
});
