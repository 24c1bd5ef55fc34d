import assert from "node:assert/strict";
import { test } from "node:test";
import { pageRows, RowLayouts, sameSource } from "./rowlayout";
import type { Layout, TrackChoice, TrackSource } from "./tracks";

const source = (n: number): TrackSource => ({ rows: Array.from({ length: n }, (_, i) => i * 2) });
const choice = (): TrackChoice => ({ order: "physical", only: [], pinned: [], inView: 0, scroll: 0 });

test("clearing a tiles filter brings every row back (the filter's row count is not kept as the zoom)", () => {
  const layouts = new RowLayouts();
  const src = source(1472);
  const c = choice();
  assert.equal(layouts.get(src, c, 600, 1).layout.tiles, 1472);
  c.only = Array.from({ length: 12 }, (_, i) => i * 2);
  const filtered = layouts.get(src, c, 600, 1).layout;
  assert.equal(filtered.tiles, 12);
  assert.equal(filtered.scrolledRows, 12);
  c.only = [];
  const back = layouts.get(src, c, 600, 1).layout;
  assert.equal(back.tiles, 1472);
  assert.equal(back.inView, 1472); // every row in view again, as before the filter
  assert.equal(c.inView, 0);
});

test("a layout is made again when the rows change, even at the same count; held otherwise", () => {
  const layouts = new RowLayouts();
  const made: Layout[] = [];
  const c = choice();
  const a = layouts.get(source(4), c, 100, 1, (l) => made.push(l));
  assert.equal(
    layouts.get(source(4), c, 100, 1, (l) => made.push(l)),
    a,
  ); // equal rows, another object: held
  assert.equal(made.length, 1);
  const other: TrackSource = { rows: [7, 5, 3, 1] };
  const b = layouts.get(other, c, 100, 1, (l) => made.push(l));
  assert.notEqual(b, a);
  assert.equal(made.length, 2);
  assert.equal(b.rowOf[0], 0);
  c.order = "logical";
  const logical: TrackSource = { rows: [7, 5, 3, 1], logical: [3, 2, 1, 0] };
  const d = layouts.get(logical, c, 100, 1);
  assert.deepEqual([...d.layout.members], [3, 2, 1, 0]);
  assert.equal(d.rowOf[3], 0);
  layouts.get(logical, c, 50, 1, (l) => made.push(l)); // another height
  assert.equal(made.length, 3);
});

test("sameSource compares the rows, logical indices and grid places", () => {
  assert.ok(sameSource({ rows: [1, 2] }, { rows: [1, 2] }));
  assert.ok(!sameSource({ rows: [1, 2] }, { rows: [2, 1] }));
  assert.ok(!sameSource({ rows: [1, 2], logical: [0, 1] }, { rows: [1, 2], logical: [1, 0] }));
  assert.ok(!sameSource({ rows: [1], grid: [[0, 1]] }, { rows: [1], grid: [[1, 0]] }));
  assert.ok(!sameSource({ rows: [1] }, { rows: [1], logical: [0] }));
});

test("a page fraction of rows: at least one, a page keeps one row in view", () => {
  assert.equal(pageRows(100, 0.25), 25);
  assert.equal(pageRows(100, -0.25), -25);
  assert.equal(pageRows(100, 1), 99);
  assert.equal(pageRows(2, 0.25), 1);
  assert.equal(pageRows(0, -1), -1);
  assert.equal(pageRows(40, 0), 0);
});
