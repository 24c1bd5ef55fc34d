import assert from "node:assert/strict";
import { test } from "node:test";
import { css, darkVariant, kindColour, usePalette } from "../common/colors";
import type { Vocabulary } from "../common/vocabulary";
import { type FakeElement, installFakeDom } from "../testing/fake-dom";
import { Legend } from "./legend";

const palette = { compute: "#3478c6", exchange: "#e87a2c", synchronization: "#d63e52", idle: "#96ba78" };
const words = { no_kernel: "(no kernel)" } as Vocabulary;

function swatches(legend: Legend): FakeElement[] {
  return (legend.root as unknown as FakeElement)
    .querySelectorAll("span")
    .filter((s) => s.className === "ipu-nb-swatch");
}

test("the kind legend's swatches name their kind and show the palette's colour drawn for it", () => {
  const dom = installFakeDom();
  usePalette(palette);
  try {
    const legend = new Legend({ colorBy: () => "kind", legend: () => ["exchange", "compute", "idle"] }, words);
    legend.render();
    const kinds = swatches(legend).filter((s) => s.dataset.kind);
    assert.deepEqual(
      kinds.map((s) => s.dataset.kind),
      ["exchange", "compute", "idle"],
    );
    for (const s of kinds) {
      const hex = palette[s.dataset.kind as keyof typeof palette];
      const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      assert.equal(s.style.background, `rgb(${rgb.join(",")})`);
      assert.equal(s.style.background, css(kindColour(s.dataset.kind!)));
    }
    assert.deepEqual(darkVariant([52, 120, 198]), [103, 154, 212]);
    // Colouring by kernel: no swatch claims a kind.
    const byKernel = new Legend({ colorBy: () => "kernel", legend: () => ["compute"] }, words);
    byKernel.render();
    assert.ok(swatches(byKernel).length > 0);
    assert.ok(swatches(byKernel).every((s) => s.dataset.kind === undefined));
  } finally {
    usePalette({});
    dom.uninstall();
  }
});

test("the activity legend names the runtime's parts and shows the activity palette's colours", () => {
  const dom = installFakeDom();
  const activity = { send: "#17854c", receive: "#287db2", sendReceive: "#6b5596" };
  usePalette({ ...palette, ...activity });
  try {
    const labels = { send: "tx", receive: "rx", sendReceive: "tx/rx", synchronization: "sync" };
    const host = {
      colorBy: () => "activity",
      legend: () => ["exchange", "synchronization", "send", "receive", "sendReceive"],
    };
    const legend = new Legend(host, { ...words, activity_labels: labels } as Vocabulary);
    legend.render();
    const named = swatches(legend).filter((s) => s.dataset.kind);
    assert.deepEqual(
      named.map((s) => s.dataset.kind),
      ["exchange", "synchronization", "send", "receive", "sendReceive"],
    );
    const colours = { ...palette, ...activity } as Record<string, string>;
    for (const s of named) {
      const hex = colours[s.dataset.kind!];
      const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      assert.equal(s.style.background, `rgb(${rgb.join(",")})`);
    }
    const text = (legend.root as unknown as FakeElement)
      .querySelectorAll("span")
      .filter((s) => s.className === "ipu-nb-legend-name")
      .map((s) => s.textContent);
    assert.deepEqual(text.slice(0, 5), ["exchange", "sync", "tx", "rx", "tx/rx"]);
  } finally {
    usePalette({});
    dom.uninstall();
  }
});
