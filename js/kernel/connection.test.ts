import assert from "node:assert/strict";
import { test } from "node:test";
import type { AnyModel } from "@anywidget/types";
import { Disposers } from "../common/disposers";
import { type FakeElement, FakeModel, installFakeDom } from "../testing/fake-dom";
import { Connection } from "./connection";
import type { Traits } from "./types";

function setUp() {
  const dom = installFakeDom();
  const raw = new FakeModel({ view: [0, 10] } as unknown as Traits);
  const root = document.createElement("div");
  const button = document.createElement("button");
  const select = document.createElement("select");
  root.append(button, select);
  const bag = new Disposers();
  let lost = 0;
  const connection = new Connection(raw as unknown as AnyModel<Traits>, bag);
  root.append(connection.banner);
  connection.attach(root, () => lost++);
  return { dom, raw, root: root as unknown as FakeElement, button, select, connection, bag, lost: () => lost };
}

test("a restarted kernel turns the view off: banner, disabled controls, no more sends", () => {
  const { dom, raw, root, button, select, connection, bag, lost } = setUp();
  try {
    connection.model.send({ type: "hello" });
    assert.equal(raw.sent.length, 1);
    assert.ok(connection.connected && connection.banner.hidden);
    raw.trigger("comm_live_update"); // what JupyterLab's manager fires when the kernel restarts
    assert.ok(!connection.connected);
    assert.equal(connection.banner.hidden, false);
    assert.match(connection.banner.textContent ?? "", /Disconnected.*restarted.*Run the cell again/);
    assert.match(root.dataset.disconnected ?? "", /restarted/);
    assert.ok(button.disabled && select.disabled);
    connection.model.send({ type: "hello" });
    connection.model.save_changes();
    assert.equal(raw.sent.length, 1, "nothing is sent once disconnected");
    assert.equal(raw.saves, 0);
    raw.trigger("comm:close");
    assert.equal(lost(), 1, "told once");
    let stopped = false;
    root.dispatchEvent({ type: "keydown", key: "+", stopImmediatePropagation: () => (stopped = true) });
    assert.ok(stopped, "keys no longer zoom a view nothing can refresh");
    bag.dispose();
    assert.equal(raw.handlerCount(), 0);
  } finally {
    dom.uninstall();
  }
});

test("a send that throws disconnects the view instead of throwing into the page", () => {
  const { dom, raw, connection, lost } = setUp();
  try {
    raw.send = () => {
      throw new Error("Cannot send on a closed comm");
    };
    assert.doesNotThrow(() => connection.model.send({ type: "pick", row: 0, x: 1 }));
    assert.equal(lost(), 1);
    assert.match(connection.banner.textContent ?? "", /sending a message failed \(Cannot send on a closed comm\)/);
    assert.doesNotThrow(() => connection.model.send({ type: "pick", row: 0, x: 1 }));
    assert.equal(lost(), 1);
  } finally {
    dom.uninstall();
  }
});
