// The golden messages (tests/golden/widget/, a real widget's answers written by
// `python -m ipu_nb._widget.protocol_gen`) against the checks and layouts generated from the
// same Python protocol: what the kernel sends passes and decodes to the values Python decoded.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decodeBuffers, decodeWindow, layoutOf } from "./buffers";
import {
  type FromFrontEnd,
  parseKernelMessage,
  REPLY_CHECKS,
  REPLY_TYPES,
  REQUEST_CHECKS,
  REQUEST_TYPES,
  type ToFrontEnd,
} from "./protocol";

interface Sent {
  message: Record<string, unknown>;
  buffers: string[];
  decoded: Record<string, number[]> | null;
}

interface Scenario {
  scenario: string;
  request: Record<string, unknown> | null;
  sent: Sent[];
}

interface Keys {
  required: string[];
  optional: string[];
}

interface Index {
  scenarios: string[];
  requests: Record<string, Keys>;
  replies: Record<string, Keys>;
}

const DIR = "tests/golden/widget";
const read = <T>(name: string): T => JSON.parse(readFileSync(`${DIR}/${name}`, "utf8")) as T;
const index = read<Index>("index.json");
const scenarios = index.scenarios.map((name) => read<Scenario>(name));
const sent = scenarios.flatMap((s) => s.sent.map((m) => ({ ...m, where: `${s.scenario}: ${m.message.type}` })));
const requests = scenarios.flatMap((s) => (s.request && s.request.type !== "bogus" ? [s.request] : []));

/** A base64 buffer as a DataView at an odd offset of a larger buffer, as the kernel's may arrive. */
function view(base64: string): DataView {
  const bytes = Buffer.from(base64, "base64");
  const backing = new Uint8Array(bytes.length + 3);
  backing.set(bytes, 1);
  return new DataView(backing.buffer, 1, bytes.length);
}

const without = (message: Record<string, unknown>, key: string) => {
  const copy = { ...message };
  delete copy[key];
  return copy;
};

test("the golden scenarios send every request type and get every reply type", () => {
  assert.deepEqual([...new Set(requests.map((r) => r.type))].sort(), [...REQUEST_TYPES].sort());
  assert.deepEqual([...new Set(sent.map((m) => m.message.type))].sort(), [...REPLY_TYPES].sort());
  assert.deepEqual(Object.keys(index.requests).sort(), [...REQUEST_TYPES].sort());
  assert.deepEqual(Object.keys(index.replies).sort(), [...REPLY_TYPES].sort());
});

test("every golden request passes the generated request checks", () => {
  for (const request of requests) {
    const type = request.type as FromFrontEnd["type"];
    assert.equal(REQUEST_CHECKS[type](request, type), request);
  }
});

test("every message the kernel sent passes parseKernelMessage, with its buffers", () => {
  for (const m of sent) {
    const parsed = parseKernelMessage(m.message, m.buffers.map(view));
    assert.ok(parsed.ok, `${m.where}: ${parsed.ok ? "" : parsed.problem}`);
  }
});

test("buffers decode by the generated layouts to the values Python decoded", () => {
  let decoded = 0;
  for (const m of sent) {
    const message = m.message as unknown as ToFrontEnd;
    const layout = layoutOf(message);
    assert.equal(layout === null, m.decoded === null, `${m.where}: a layout on one side only`);
    if (layout === null || m.decoded === null) continue;
    const arrays = decodeBuffers(layout, message, m.buffers.map(view)) as Record<string, ArrayLike<number> | null>;
    const sentNames = Object.keys(arrays).filter((name) => arrays[name] !== null);
    assert.deepEqual(
      sentNames,
      Object.keys(m.decoded).filter((name) => name !== "cells"),
      m.where,
    );
    for (const name of sentNames) assert.deepEqual(Array.from(arrays[name] ?? []), m.decoded[name], m.where);
    if (message.type === "window") {
      const window = decodeWindow(message, m.buffers.map(view));
      if (window.mode === "lod") assert.deepEqual(Array.from(window.cells), m.decoded.cells, m.where);
      else assert.deepEqual(Array.from(window.sample), m.decoded.sample, m.where);
    }
    decoded++;
  }
  assert.ok(decoded >= 6, `only ${decoded} messages with buffers`);
});

test("a required key missing is refused, an optional one missing is not", () => {
  for (const m of sent) {
    const type = m.message.type as ToFrontEnd["type"];
    const keys = index.replies[type];
    for (const key of keys.required) {
      assert.throws(() => REPLY_CHECKS[type](without(m.message, key), type), /expected/, `${m.where} without ${key}`);
    }
    // A window reply's optional keys (in Python's flat WindowReply) are required by its lod variant.
    if (type === "window") continue;
    for (const key of keys.optional) REPLY_CHECKS[type](without(m.message, key), type);
  }
  for (const request of requests) {
    const type = request.type as FromFrontEnd["type"];
    for (const key of index.requests[type].required) {
      assert.throws(() => REQUEST_CHECKS[type](without(request, key), type), /expected/, `${type} without ${key}`);
    }
    for (const key of index.requests[type].optional) REQUEST_CHECKS[type](without(request, key), type);
  }
});

test("every key of every golden message refuses a value of another shape", () => {
  for (const m of sent) {
    const type = m.message.type as ToFrontEnd["type"];
    for (const key of Object.keys(m.message)) {
      const bad = { ...m.message, [key]: { bogus: true } };
      assert.throws(() => REPLY_CHECKS[type](bad, type), /expected/, `${m.where}: ${key}`);
    }
  }
});
