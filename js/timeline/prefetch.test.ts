import assert from "node:assert/strict";
import { test } from "node:test";
import type { WindowData } from "../kernel/types";
import { blockWidth, levelFor } from "./levels";
import { nextAsk } from "./prefetch";
import { BlockCache } from "./tilecache";

const lod = (): WindowData => ({
  mode: "lod",
  start: 0,
  end: 1,
  count: 1,
  bins: 1,
  classes: [1],
  cells: new Uint8Array(1),
  colorBy: "kind",
});

test("what the view lacks first, then neighbours, the coarser level around and the finer one under it", () => {
  const span = 64 * blockWidth(4);
  const view: [number, number] = [8 * blockWidth(4), 12 * blockWidth(4)];
  const pixels = 4 * 512;
  const level = levelFor(view, pixels, span);
  assert.equal(level, 4);
  const cache = new BlockCache();
  const first = nextAsk(cache, "s", view, pixels, span, span)!;
  assert.deepEqual(first, { level: 4, blocks: [8, 9, 10, 11], prefetch: false });
  for (const k of first.blocks) cache.markPending("s", 4, k, 1);
  assert.equal(nextAsk(cache, "s", view, pixels, span, span)?.prefetch, true); // pending ones are not asked again
  const asks: string[] = [];
  for (const k of first.blocks) cache.put("s", 4, k, lod());
  for (let i = 0; i < 20; i++) {
    const ask = nextAsk(cache, "s", view, pixels, span, span);
    if (!ask) break;
    assert.ok(ask.prefetch && ask.blocks.length <= 2);
    asks.push(`${ask.level}:${ask.blocks}`);
    for (const k of ask.blocks) cache.put("s", ask.level, k, lod());
  }
  // Neighbours (half a view each side, nearest first), then level 5 a view each side, then level 3 under.
  assert.deepEqual(asks, ["4:7,12", "4:6,13", "5:4,5", "5:3,6", "5:2,7", "3:19,20", "3:18,21", "3:17,22", "3:16,23"]);
  assert.equal(nextAsk(cache, "s", view, pixels, span, span), null);
  assert.deepEqual(nextAsk(cache, "other", view, pixels, span, span)?.blocks, [8, 9, 10, 11]); // per state
});
