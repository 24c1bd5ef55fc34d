import assert from "node:assert/strict";
import { test } from "node:test";
import type { RawWindowReply } from "./protocol";
import { installFakeDom } from "./testing/fake-dom";
import { type Trip, Trips } from "./trips";
import type { WindowData } from "./types";

const reply = (id: number): RawWindowReply => ({
  type: "window", view: "v", id, color_by: "kernel", filtered: true, mode: "raw", start: 0, end: 10, count: 0,
});
const data: WindowData = {
  mode: "raw", start: 0, end: 10, count: 0, x0: new Float32Array(), x1: new Float32Array(), row: new Uint16Array(),
  flags: new Uint8Array(), sample: new Uint32Array(), labels: null, labelIndex: null, colorBy: "kernel",
};

test("trips record wait, round trip and decode per request, on the root as benchmarks read them", () => {
  const dom = installFakeDom();
  try {
    let clock = 100;
    const root = document.createElement("div");
    const trips = new Trips(root, () => clock);
    trips.changed();
    clock = 104;
    trips.changed(); // still the same wait
    trips.sent(1);
    assert.equal(root.dataset.requestId, "1");
    clock = 150;
    const rt = trips.answered(reply(1), data, { arrived: 140, decoded: 150, drawMs: 3 });
    assert.equal(rt, 46);
    const records = (root as unknown as { ipuTrips: Trip[] }).ipuTrips;
    assert.equal(records, trips.records);
    const { sentEpochMs, arrivedEpochMs, ...rest } = records[0];
    assert.deepEqual(rest, { id: 1, mode: "raw", waitMs: 4, roundTripMs: 46, decodeMs: 10, drawMs: 3 });
    assert.equal(arrivedEpochMs - sentEpochMs, 36);
    assert.deepEqual(
      { ...root.dataset },
      { requestId: "1", windowId: "1", roundTripMs: "46.0", drawMs: "3.0", mode: "raw", colorBy: "kernel", filtered: "true", firstDrawAt: root.dataset.firstDrawAt },
    );
    const first = root.dataset.firstDrawAt;
    assert.ok(Number(first) > 1.6e12);
    trips.changed();
    trips.settled(); // nothing sent: the next wait starts afresh
    clock = 200;
    trips.changed();
    clock = 210;
    trips.sent(2);
    trips.answered(reply(2), data, { arrived: 220, decoded: 221, drawMs: 1 });
    assert.equal(records[1].waitMs, 10);
    assert.equal(root.dataset.firstDrawAt, first);
    for (let id = 3; id < 260; id++) {
      trips.sent(id);
      trips.answered(reply(id), data, { arrived: 0, decoded: 0, drawMs: 0 });
    }
    assert.equal(records.length, 200);
    assert.equal(records.at(-1)!.id, 259);
  } finally {
    dom.uninstall();
  }
});
