import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { installFakeDom } from "../testing/fake-dom";
import type { Ask } from "../timeline/prefetch";
import { Inbox } from "./inbox";
import { BlockRequests, Deferred } from "./requests";

function setup() {
  const dom = installFakeDom();
  const sent: [number, Ask][] = [];
  const queue: Ask[] = [];
  const requests = new BlockRequests({
    next: () => queue[0] ?? null,
    send: (id, ask) => {
      sent.push([id, ask]);
      queue.shift();
    },
    over: () => {},
  });
  const seen: string[] = [];
  const warnings: string[] = [];
  const inbox = new Inbox(
    "me",
    requests,
    new Deferred(new Disposers()),
    {
      block: (msg) => {
        if (msg.count < 0) throw new Error("cannot keep");
        seen.push(`block ${msg.id}:${msg.block}`);
      },
      done: (msg) => seen.push(`done ${msg.id}`),
      side: (msg) => {
        if (msg.type === "groups") throw new Error("bad table");
        seen.push(msg.type === "error" ? `error ${msg.message}` : msg.type);
      },
      failed: (type, error) => seen.push(`failed ${type}: ${(error as Error).message}`),
    },
    (text) => warnings.push(text),
  );
  const block = (id: number, k: number, view = "me", count = 0) => ({
    type: "window",
    view,
    id,
    color_by: "kind",
    filtered: false,
    mode: "lod",
    start: 0,
    end: 100,
    rows: 1,
    bins: 1,
    planes: 1,
    classes: [1],
    count,
    compressed: null,
    level: 3,
    block: k,
  });
  const done = (id: number, view = "me") => ({
    type: "blocks",
    view,
    id,
    stale: false,
    count: 0,
    matched: 0,
    cost_ms: [],
  });
  const one = [new DataView(new ArrayBuffer(1))];
  const ask = (prefetch = false) => {
    queue.push({ level: 3, blocks: [1], prefetch });
    requests.request();
  };
  return { dom, requests, sent, seen, warnings, inbox, block, done, one, ask, queue };
}

const panel = { type: "panel", at: null, selected: null };

test("side views wait for the request in flight and follow its closing reply; other views' blocks pass by", () => {
  const { dom, seen, inbox, block, done, one, ask } = setup();
  try {
    ask();
    inbox.receive(panel, []);
    inbox.receive({ type: "overview", bins: 1, span: 9, planes: 1, color_by: "kind" }, [
      new DataView(new ArrayBuffer(1)),
      new DataView(new ArrayBuffer(4)),
    ]);
    inbox.receive(block(1, 1, "someone else"), one);
    inbox.receive(done(1, "someone else"), []);
    assert.deepEqual(seen, []);
    inbox.receive(block(1, 1), one);
    assert.deepEqual(seen, ["block 1:1"]); // kept at once, side views still wait
    inbox.receive(done(1), []);
    assert.deepEqual(seen, ["block 1:1", "done 1", "panel", "overview"]);
    inbox.receive(panel, []); // nothing in flight: at once
    assert.equal(seen.at(-1), "panel");
  } finally {
    dom.uninstall();
  }
});

test("a prefetch in flight holds no side view back; blocks of old requests are still kept", () => {
  const { dom, seen, inbox, block, one, ask } = setup();
  try {
    ask(true);
    inbox.receive(panel, []);
    assert.deepEqual(seen, ["panel"]);
    inbox.receive(block(0, 4), one); // a request from before: its block is worth keeping
    assert.deepEqual(seen, ["panel", "block 0:4"]);
  } finally {
    dom.uninstall();
  }
});

test("errors are never held back; one about this view's blocks ends the request and releases the side views", () => {
  const { dom, requests, sent, seen, inbox, ask, queue } = setup();
  try {
    ask();
    inbox.receive(panel, []);
    inbox.receive({ type: "error", request: "groups", message: "no groups" }, []);
    assert.deepEqual(seen, ["error no groups"]);
    assert.ok(requests.busy);
    inbox.receive({ type: "error", request: "blocks", view: "other", id: 1, message: "theirs" }, []);
    assert.ok(requests.busy);
    queue.push({ level: 2, blocks: [0], prefetch: false });
    inbox.receive({ type: "error", request: "blocks", view: "me", id: 1, message: "mine" }, []);
    assert.deepEqual(seen, ["error no groups", "error theirs", "error mine", "panel"]);
    assert.deepEqual(
      sent.map(([id]) => id),
      [1, 2],
    );
  } finally {
    dom.uninstall();
  }
});

test("what fails to apply is reported, never thrown; malformed messages are reported once per type", () => {
  const { dom, requests, seen, warnings, inbox, block, one, ask } = setup();
  try {
    ask();
    inbox.receive(block(1, 0, "me", -1), one);
    assert.deepEqual(seen, ["failed window: cannot keep"]);
    assert.ok(requests.busy); // a block failing to keep does not end its request
    inbox.receive({ type: "groups", id: null, group_by: "kind", error: null, rows: [] }, []); // does not throw
    inbox.receive({ type: "panel", at: 3 }, []);
    inbox.receive({ type: "panel" }, []);
    inbox.receive("hello", []);
    assert.equal(warnings.length, 2);
    inbox.receive({ ...block(1, 0), bins: 2 }, one); // 2 cells announced, 1 sent: the request is over
    assert.equal(warnings.length, 3);
    assert.match(seen.join("|"), /error window buffer 0: expected 2 bytes, got 1/);
    assert.ok(!requests.busy);
  } finally {
    dom.uninstall();
  }
});
