import assert from "node:assert/strict";
import { test } from "node:test";
import type { Vocabulary } from "../common/vocabulary";
import type { HoverReply, HoverRequest } from "../kernel/protocol";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { Tooltip } from "./tooltip";

const sample = {
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
};

function texts(tip: Tooltip): string[] {
  return (tip.root as unknown as FakeElement)
    .querySelectorAll("div")
    .filter((d) => d.className === "ipu-nb-tooltip-activity")
    .map((d) => d.textContent ?? "");
}

test("in colour mode activity the tooltip names the piece drawn and the part counted under the pointer", () => {
  const dom = installFakeDom();
  try {
    const sent: HoverRequest[] = [];
    let clock = "tile";
    const words = { no_kernel: "(no kernel)", activity_labels: { receive: "rx" } } as unknown as Vocabulary;
    const tip = new Tooltip(
      { send: (r) => sent.push(r), clockHz: () => 1e9, clock: () => clock, origin: () => ({ left: 0, top: 0 }) },
      "v",
      words,
    );
    tip.hover(0, 60, 10, 10);
    const reply: HoverReply = {
      type: "hover",
      view: "v",
      id: sent[0].id ?? null,
      sample,
      piece: ["receive", 50, 70],
      part: ["exchange", 50, 100],
    };
    tip.reply(reply);
    assert.deepEqual(texts(tip), ["drawn as rx · 50–70 (20 cycles)", "counted as exchange · 50–100 (50 cycles)"]);
    // Without them (another colour mode), no such line.
    tip.hover(0, 60, 10, 10);
    tip.reply({ type: "hover", view: "v", id: sent[1].id ?? null, sample });
    assert.deepEqual(texts(tip), []);
    const lines = () => (tip.root as unknown as FakeElement).querySelectorAll("div").map((d) => d.textContent ?? "");
    assert.ok(lines().includes("offset 20 (per-tile clock) · 80 cycles (0.08 µs)"), lines().join(" | "));
    // The offset names the clock it is on.
    clock = "shared";
    tip.hover(0, 60, 10, 10);
    tip.reply({ type: "hover", view: "v", id: sent[2].id ?? null, sample });
    assert.ok(lines().includes("offset 20 (shared clock) · 80 cycles (0.08 µs)"), lines().join(" | "));
  } finally {
    dom.uninstall();
  }
});
