import assert from "node:assert/strict";
import { test } from "node:test";
import { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import type { Vocabulary } from "../common/vocabulary";
import type { SampleDetail } from "../kernel/generated";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { Inspector } from "./inspector";

const base = {
  sample: 3,
  tile: 1,
  kind: "exchange",
  inactive: false,
  operation: "op",
  kernel: "",
  phase: 2,
  epoch: 0,
  offset: 20,
  duration: 80,
  local_index: 1,
  start: 20,
  end: 100,
  matched: true,
  metadata: [],
};

function rows(inspector: Inspector, table: string): string[] {
  const found = (inspector.root as unknown as FakeElement)
    .querySelectorAll("table")
    .find((t) => t.className.split(" ").includes(table));
  if (!found) return [];
  return found.querySelectorAll("tr").map((tr) => {
    const [th] = tr.querySelectorAll("th");
    const [td] = tr.querySelectorAll("td");
    return `${th.textContent}: ${td.textContent}`;
  });
}

test("the inspector lists a sample's exchange activities, window roles and accounting parts", () => {
  const dom = installFakeDom();
  try {
    const host = { clockHz: () => 1e9, filterMetadata: () => {} };
    const inspector = new Inspector(host, new Disposers(), { no_kernel: "(no kernel)" } as Vocabulary, el("div"));
    const sample: SampleDetail = {
      ...base,
      activities: [
        ["send", 0, 10],
        ["receive", 5, 30],
      ],
      roles: { send_cycles: 10, receive_only_cycles: 20 },
      parts: [
        ["exchange boundary wait", 20, 50],
        ["exchange", 50, 100],
      ],
    };
    inspector.set(null, sample);
    assert.deepEqual(rows(inspector, "ipu-nb-activities"), ["send: 0 – 10", "receive: 5 – 30"]);
    assert.deepEqual(rows(inspector, "ipu-nb-roles"), ["send: 10", "receive only: 20"]);
    assert.deepEqual(rows(inspector, "ipu-nb-parts"), [
      "exchange boundary wait: 20 – 50 (30 cycles)",
      "exchange: 50 – 100 (50 cycles)",
    ]);
    // A sample without any: no such lists.
    inspector.set(null, { ...base, kind: "compute", activities: [], roles: {}, parts: [] } as SampleDetail);
    assert.deepEqual(rows(inspector, "ipu-nb-activities"), []);
    assert.deepEqual(rows(inspector, "ipu-nb-parts"), []);
  } finally {
    dom.uninstall();
  }
});
