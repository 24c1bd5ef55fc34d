import assert from "node:assert/strict";
import { test } from "node:test";
import { tilesLabel } from "../panels/areapanel";
import { decodeMarks, markRuns } from "./highlight";
import { GUTTER } from "./plot";
import { areaBetween, areaBox, edgeAt, screenRuns, tilesOfScreenRows } from "./selection";
import { layoutTracks, type TrackChoice, type TrackSource } from "./tracks";
import { applyTracks, sameTracks, tracksOf } from "./trackstate";

const source: TrackSource = {
  rows: [0, 1, 2, 3, 64, 65, 66, 67],
  grid: [
    [0, 0],
    [1, 0],
    [2, 0],
    [3, 0],
    [0, 1],
    [1, 1],
    [2, 1],
    [3, 1],
  ],
};
const choice = (patch: Partial<TrackChoice> = {}): TrackChoice => ({
  order: "physical",
  only: [],
  pinned: [],
  inView: 0,
  scroll: 0,
  ...patch,
});

test("a drag over screen rows holds their tiles, in the layout's order; every row is every tile", () => {
  const physical = layoutTracks(source, choice(), 320); // 8 rows of 40 px
  assert.deepEqual(tilesOfScreenRows(physical, source.rows, 1, 3), [1, 2, 3]);
  assert.deepEqual(tilesOfScreenRows(physical, source.rows, 3, 1), [1, 2, 3]);
  assert.equal(tilesOfScreenRows(physical, source.rows, 0, 7), null);
  assert.equal(tilesOfScreenRows(physical, source.rows, -5, 99), null); // clamped to the rows
  const grid = layoutTracks(source, choice({ order: "grid" }), 320); // 0, 64, 1, 65, 2, 66, 3, 67
  assert.deepEqual(tilesOfScreenRows(grid, source.rows, 0, 2), [0, 1, 64]);
  // Pinned rows come first; scrolled-away rows are not dragged over, so the area is not every tile.
  const pinned = layoutTracks(source, choice({ pinned: [67] }), 320);
  assert.deepEqual(tilesOfScreenRows(pinned, source.rows, 0, 1), [0, 67]);
  const many: TrackSource = { rows: Array.from({ length: 1200 }, (_, i) => i) };
  const scrolled = layoutTracks(many, choice({ pinned: [5], inView: 100, scroll: 50 }), 600);
  assert.deepEqual(tilesOfScreenRows(scrolled, many.rows, 0, 2), [5, 51, 52]);
  assert.notEqual(tilesOfScreenRows(scrolled, many.rows, 0, 999), null);
  // Aggregated rows (several tiles a row) give all their tiles.
  const dense = layoutTracks(many, choice(), 600);
  assert.equal(dense.perRow, 2);
  assert.deepEqual(tilesOfScreenRows(dense, many.rows, 10, 11), [20, 21, 22, 23]);
});

test("an area is drawn on every screen row holding one of its tiles, as runs", () => {
  const grid = layoutTracks(source, choice({ order: "grid" }), 320);
  assert.deepEqual(screenRuns(grid, source.rows, [0, 64, 2]), [
    [0, 1],
    [4, 4],
  ]);
  assert.deepEqual(screenRuns(grid, source.rows, null), [[0, 7]]);
  assert.deepEqual(screenRuns(grid, source.rows, [999]), []);
  const box = areaBox({ start: 100, end: 300, tiles: [0, 64, 2] }, [0, 1000], GUTTER + 1000, grid, source.rows, 1);
  assert.deepEqual(box, {
    x0: GUTTER + 100,
    x1: GUTTER + 300,
    runs: [
      { y0: 0, y1: 80, first: 0, last: 1 },
      { y0: 160, y1: 200, first: 4, last: 4 },
    ],
  });
});

test("edges are found within a few pixels: sides on the area's rows, top and bottom across it", () => {
  const layout = layoutTracks(source, choice(), 320);
  const box = areaBox({ start: 100, end: 300, tiles: [1, 2] }, [0, 1000], GUTTER + 1000, layout, source.rows, 1);
  const right = GUTTER + 1000;
  assert.equal(edgeAt(box, GUTTER + 102, 60, right), "left");
  assert.equal(edgeAt(box, GUTTER + 297, 100, right), "right");
  assert.equal(edgeAt(box, GUTTER + 200, 41, right), "top");
  assert.equal(edgeAt(box, GUTTER + 200, 118, right), "bottom");
  assert.equal(edgeAt(box, GUTTER + 200, 60, right), null); // inside
  assert.equal(edgeAt(box, GUTTER + 102, 250, right), null); // beside another row
  assert.equal(edgeAt({ x0: 0, x1: 1, runs: [] }, 0, 0, right), null);
});

test("an area between two cycles is ordered, rounded and kept inside the timeline; empty is none", () => {
  assert.deepEqual(areaBetween(300.6, 99.4, 1000, [3]), { start: 99, end: 301, tiles: [3] });
  assert.deepEqual(areaBetween(-50, 2000, 1000, null), { start: 0, end: 1000, tiles: null });
  assert.equal(areaBetween(5.2, 5.4, 1000, null), null);
  assert.equal(areaBetween(1, 9, 1000, []), null);
});

test("the row layout as the tracks trait: all rows read as 0, and applying it is idempotent", () => {
  const c = choice({ order: "grid", pinned: [3], inView: 8, scroll: 2 });
  assert.deepEqual(tracksOf(c, 8), { order: "grid", pinned: [3], rows: 0, scroll: 2 });
  assert.deepEqual(tracksOf({ ...c, inView: 5 }, 8), { order: "grid", pinned: [3], rows: 5, scroll: 2 });
  const target = choice();
  assert.equal(applyTracks(target, { order: "logical", pinned: [64], rows: 4, scroll: 1 }, 8), true);
  assert.deepEqual([target.order, target.pinned, target.inView, target.scroll], ["logical", [64], 4, 1]);
  assert.equal(applyTracks(target, { order: "logical", pinned: [64], rows: 4, scroll: 1 }, 8), false);
  assert.ok(sameTracks(tracksOf(target, 8), { order: "logical", pinned: [64], rows: 4, scroll: 1 }));
  assert.ok(!sameTracks(tracksOf(target, 8), { order: "logical", pinned: [65], rows: 4, scroll: 1 }));
});

test("highlights in view become merged runs per screen row, at least two pixels wide", () => {
  const f64 = (v: number[]) => new DataView(new Float64Array(v).buffer);
  const marks = decodeMarks({ type: "highlight", count: 5, sent: 5 }, [
    f64([0, 10, 12, 500, 2000]),
    f64([400, 11, 13, 900, 2100]),
    new DataView(new Uint16Array([0, 1, 1, 1, 1]).buffer),
    new DataView(new Uint32Array([7, 8, 9, 10, 11]).buffer),
  ])!;
  assert.equal(marks.longest, 400);
  const layout = layoutTracks(source, choice(), 320);
  const rowOf = (row: number) => row; // physical order: display row = kernel row
  const runs = markRuns(marks, [300, 1300], GUTTER + 1000, layout, rowOf);
  // Row 0: the long sample from before the view reaches into it; row 1: [500, 900] only (the two short ones end before).
  assert.deepEqual([...runs.keys()], [0, 1]);
  assert.deepEqual(runs.get(0), [[GUTTER - 300, GUTTER + 100]]);
  assert.deepEqual(runs.get(1), [[GUTTER + 200, GUTTER + 600]]);
  const near = markRuns(marks, [0, 1000], GUTTER + 1000, layout, rowOf);
  assert.deepEqual(near.get(1)![0], [GUTTER + 10, GUTTER + 14]); // 10–11 and 12–13, each 2 px at least: one run
  assert.equal(decodeMarks({ type: "highlight", count: 0, sent: 0 }, []), null);
});

test("a tile list reads as every tile, a range or its first ids", () => {
  assert.equal(tilesLabel(null), "every tile");
  assert.equal(tilesLabel([7]), "tile 7");
  assert.equal(tilesLabel([4, 5, 6]), "3 tiles (4–6)");
  assert.equal(tilesLabel([1, 3, 5, 7, 9, 11, 13]), "7 tiles (1, 3, 5, 7, 9, 11, …)");
});
