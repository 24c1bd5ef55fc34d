import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "./disposers";
import { Inbox } from "./inbox";
import type { WindowRequest } from "./protocol";
import { Deferred, WindowRequests } from "./requests";
import { installFakeDom } from "./testing/fake-dom";

function setup() {
  const dom = installFakeDom();
  const sent: WindowRequest[] = [];
  let end = 100;
  const requests = new WindowRequests("me", {
    wanted: () => ({ ask: { start: 0, end, pixels: 10, labels: false }, key: String(end) }),
    send: (r) => sent.push(r),
  });
  const seen: string[] = [];
  const warnings: string[] = [];
  const inbox = new Inbox(
    "me",
    requests,
    new Deferred(new Disposers()),
    {
      window: (msg) => {
        if (msg.count < 0) throw new Error("cannot draw");
        seen.push(`window ${msg.id}`);
      },
      side: (msg) => {
        if (msg.type === "groups") throw new Error("bad table");
        seen.push(msg.type === "error" ? `error ${msg.message}` : msg.type);
      },
      failed: (type, error) => seen.push(`failed ${type}: ${(error as Error).message}`),
    },
    (text) => warnings.push(text),
  );
  const reply = (id: number, view = "me", count = 0) => ({
    type: "window", view, id, color_by: "kind", filtered: false, mode: "lod", start: 0, end: 100, rows: 1, bins: 1,
    count, compressed: null,
  });
  const one = [new DataView(new ArrayBuffer(1))];
  const next = (e: number) => {
    end = e;
    requests.request();
  };
  return { dom, requests, sent, seen, warnings, inbox, reply, one, next };
}

const panel = { type: "panel", at: null, selected: null };

test("side views wait for the window in flight and follow it; other views' windows pass by", () => {
  const { dom, sent, seen, inbox, reply, one, next } = setup();
  try {
    next(100);
    inbox.receive(panel, []);
    inbox.receive({ type: "overview", bins: 1, span: 9, filtered: false }, [new DataView(new ArrayBuffer(4)), new DataView(new ArrayBuffer(4))]);
    inbox.receive(reply(1, "someone else"), one);
    assert.deepEqual(seen, []);
    inbox.receive(reply(1), one);
    assert.deepEqual(seen, ["window 1", "panel", "overview"]);
    inbox.receive(panel, []); // nothing in flight: at once
    assert.equal(seen.at(-1), "panel");
    assert.equal(sent.length, 1);
  } finally {
    dom.uninstall();
  }
});

test("errors are never held back; one about this view's window ends it and releases the side views", () => {
  const { dom, requests, sent, seen, inbox, next } = setup();
  try {
    next(100);
    inbox.receive(panel, []);
    inbox.receive({ type: "error", request: "groups", message: "no groups" }, []);
    assert.deepEqual(seen, ["error no groups"]);
    assert.ok(requests.busy);
    inbox.receive({ type: "error", request: "window", view: "other", id: 1, message: "theirs" }, []);
    assert.ok(requests.busy);
    next(50); // pending behind request 1
    inbox.receive({ type: "error", request: "window", view: "me", id: 1, message: "mine" }, []);
    assert.deepEqual(seen, ["error no groups", "error theirs", "error mine", "panel"]);
    assert.deepEqual(sent.map((r) => [r.id, r.end]), [[1, 100], [2, 50]]);
  } finally {
    dom.uninstall();
  }
});

test("what fails to draw is reported, never thrown; malformed messages are reported once per type", () => {
  const { dom, requests, seen, warnings, inbox, reply, one, next } = setup();
  try {
    next(100);
    inbox.receive(reply(1, "me", -1), one);
    assert.deepEqual(seen, ["failed window: cannot draw"]);
    assert.ok(!requests.busy);
    inbox.receive({ type: "groups", id: null, group_by: "kind", error: null, rows: [] }, []); // does not throw
    assert.equal(seen.at(-1), "failed groups: bad table");
    inbox.receive({ type: "panel", at: 3 }, []);
    inbox.receive({ type: "panel" }, []);
    inbox.receive("hello", []);
    assert.equal(warnings.length, 2);
    next(60);
    inbox.receive({ ...reply(2), bins: 2 }, one); // 2 cells announced, 1 sent
    assert.equal(warnings.length, 3);
    assert.match(seen.at(-1)!, /^error window buffer 0: expected 2 bytes, got 1$/);
    assert.ok(!requests.busy);
  } finally {
    dom.uninstall();
  }
});
