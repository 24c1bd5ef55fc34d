import assert from "node:assert/strict";
import { test } from "node:test";
import type { LodWindow, RawWindow, WindowData } from "../kernel/types";
import { BlockCache, dataBytes } from "./tilecache";

const lod = (bins = 4, rows = 2, fill = 255): WindowData & LodWindow => ({
  mode: "lod",
  start: 0,
  end: bins,
  count: 1,
  bins,
  classes: [1],
  cells: new Uint8Array(bins * rows).fill(fill),
  colorBy: "kind",
});
const raw = (count = 3): WindowData & RawWindow => ({
  mode: "raw",
  start: 0,
  end: 10,
  count,
  x0: new Float32Array(count),
  x1: new Float32Array(count).fill(1),
  row: new Uint16Array(count),
  flags: new Uint8Array(count),
  sample: new Uint32Array(count),
  labels: null,
  labelIndex: null,
  colorBy: "kind",
});

test("best-level lookup: the block, else a raw block above, else the nearest coarser, else the finer halves", () => {
  const cache = new BlockCache();
  const top = 10;
  assert.equal(cache.source("s", 3, 5, top), null);
  cache.put("s", 5, 1, lod()); // block 5 of level 3 lies in block 1 of level 5
  assert.deepEqual(pick(cache.source("s", 3, 5, top)), ["coarser", 5, 1, false]);
  cache.put("s", 4, 2, lod());
  assert.deepEqual(pick(cache.source("s", 3, 5, top)), ["coarser", 4, 2, false]); // the nearest coarser
  assert.ok(!cache.isFinal("s", 3, 5, top));
  cache.put("s", 2, 10, lod());
  cache.put("s", 2, 11, lod());
  assert.deepEqual(pick(cache.source("s", 3, 5, top)), ["coarser", 4, 2, false]); // coarser before finer
  cache.put("s", 3, 5, lod());
  assert.deepEqual(pick(cache.source("s", 3, 5, top)), ["exact", 3, 5, false]);
  assert.ok(cache.isFinal("s", 3, 5, top));
  // Finer halves when nothing coarser is held.
  const other = new BlockCache();
  other.put("s", 2, 11, lod());
  assert.deepEqual(pick(other.source("s", 3, 5, top)), ["finer", 2, 11, false]);
  assert.ok(!other.isFinal("s", 3, 5, top));
  // A raw block covers every finer level exactly.
  cache.put("s", 6, 1, raw());
  assert.deepEqual(pick(cache.source("s", 0, 100, top)), ["raw", 6, 1, false]);
  assert.ok(cache.isFinal("s", 0, 100, top));
});

test("another state's blocks stand in, marked stale, and are never final", () => {
  const cache = new BlockCache();
  cache.put("old", 3, 5, lod());
  assert.deepEqual(pick(cache.source("new", 3, 5, 8)), ["exact", 3, 5, true]);
  assert.ok(!cache.isFinal("new", 3, 5, 8));
  cache.put("new", 4, 2, lod());
  assert.deepEqual(pick(cache.source("new", 3, 5, 8)), ["coarser", 4, 2, false]); // the current state first
});

test("eviction: least recently used first, down to the budget, never what the frame uses", () => {
  const one = dataBytes(lod(1000, 1));
  const cache = new BlockCache(3 * one);
  cache.put("s", 0, 0, lod(1000, 1));
  cache.put("s", 0, 1, lod(1000, 1));
  cache.put("s", 0, 2, lod(1000, 1));
  assert.equal(cache.bytes, 3 * one);
  cache.frame();
  cache.get("s", 0, 0); // used: now the most recent
  cache.put("s", 0, 3, lod(1000, 1));
  assert.ok(cache.has("s", 0, 0) && !cache.has("s", 0, 1) && cache.has("s", 0, 2) && cache.has("s", 0, 3));
  assert.equal(cache.bytes, 3 * one);
  // Everything used by this frame stays even over budget; the next frame may evict it.
  cache.get("s", 0, 2);
  cache.put("s", 0, 4, lod(1000, 1));
  cache.put("s", 0, 5, lod(1000, 1));
  assert.ok(cache.has("s", 0, 2) && cache.has("s", 0, 4) && cache.has("s", 0, 5));
  assert.ok(cache.bytes > 3 * one);
  cache.frame();
  cache.put("s", 0, 6, lod(1000, 1));
  assert.equal(cache.size, 3);
  assert.ok(cache.bytes <= 3 * one);
});

test("images made from an entry count in the budget and go with it; old layouts' are pruned", () => {
  const cache = new BlockCache(1e6);
  const entry = cache.put("s", 0, 0, lod(8, 2));
  const base = cache.bytes;
  cache.attach(entry, "layoutA|own", {}, 1000);
  cache.attach(entry, "layoutB|own", {}, 500);
  assert.equal(cache.bytes, base + 1500);
  cache.prune(entry, (name) => name.startsWith("layoutB|"));
  assert.equal(cache.bytes, base + 500);
  cache.put("s", 0, 0, lod(8, 2)); // replaced: its images go
  assert.equal(cache.bytes, base);
});

test("pending marks: asked-for blocks are not asked again until their request is over", () => {
  const cache = new BlockCache();
  cache.markPending("s", 2, 7, 11);
  cache.markPending("s", 2, 8, 12);
  assert.ok(cache.isPending("s", 2, 7));
  cache.put("s", 2, 7, lod()); // arrived
  assert.ok(!cache.isPending("s", 2, 7));
  cache.settle(11);
  assert.ok(cache.isPending("s", 2, 8));
  cache.settle(12); // its request ended without it
  assert.ok(!cache.isPending("s", 2, 8));
});

function pick(source: ReturnType<BlockCache["source"]>) {
  if (!source) return null;
  const e = source.entries[0];
  return [source.kind, e.level, e.index, source.stale];
}

test("with stand-ins asked for, an exact block's sources go on to what could be drawn while its image is made", () => {
  const cache = new BlockCache();
  const top = 10;
  cache.put("s", 3, 5, lod());
  cache.put("s", 5, 1, lod());
  cache.put("s", 2, 10, lod());
  assert.deepEqual(
    cache.sources("s", 3, 5, top).map((s) => s.kind),
    ["exact"],
  );
  assert.deepEqual(
    cache.sources("s", 3, 5, top, true).map((s) => s.kind),
    ["exact", "coarser", "finer"],
  );
  // A raw block above an exact one is one more stand-in, not the block's exact source.
  cache.put("s", 6, 0, raw());
  assert.deepEqual(
    cache.sources("s", 3, 5, top, true).map((s) => [s.kind, s.entries[0].level]),
    [
      ["exact", 3],
      ["coarser", 5],
      ["finer", 2],
      ["coarser", 6],
    ],
  );
  // Without an exact block, as before: the raw block covers it.
  assert.deepEqual(
    cache.sources("s", 5, 0, top, true).map((s) => s.kind),
    ["raw"],
  );
});

test("images held outside the heap are closed when their block or layout goes", () => {
  const cache = new BlockCache(3 * 1024);
  const closed: string[] = [];
  const bitmap = (name: string) => ({ close: () => closed.push(name) });
  const a = cache.put("s", 1, 0, lod());
  cache.attach(a, "layout1|own", bitmap("a1"), 100);
  cache.prune(a, (n) => n.startsWith("layout2|")); // another layout: the old image goes
  assert.deepEqual(closed, ["a1"]);
  cache.attach(a, "layout2|own", bitmap("a2"), 100);
  cache.attach(a, "layout2|own", bitmap("a2 again"), 100); // replaced
  assert.deepEqual(closed, ["a1", "a2"]);
  cache.frame();
  cache.put("s", 1, 1, lod(4, 2));
  cache.frame();
  cache.put("s", 1, 2, { ...lod(), cells: new Uint8Array(3000) }); // over the budget: block 0 is evicted
  assert.ok(!cache.has("s", 1, 0));
  assert.deepEqual(closed, ["a1", "a2", "a2 again"]);
});
