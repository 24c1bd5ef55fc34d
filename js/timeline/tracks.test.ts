import assert from "node:assert/strict";
import { test } from "node:test";
import {
  displayRowAt,
  displayRowOfRow,
  layoutTracks,
  membersOf,
  orderRows,
  revealScroll,
  screenRowOf,
  screenRows,
  type TrackChoice,
  type TrackSource,
} from "./tracks";

// Eight tiles: kernel rows in physical order 0, 2, 64, 66, 1, 3, 65, 67 (logical index 0..7 in that order… shuffled).
const source: TrackSource = {
  rows: [0, 1, 2, 3, 64, 65, 66, 67],
  logical: [0, 4, 1, 5, 2, 6, 3, 7],
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

test("tile orders: physical id, logical index, C600 grid column then row; filtered to the tiles asked for", () => {
  assert.deepEqual(orderRows(source, "physical", []), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(
    orderRows(source, "logical", []).map((r) => source.logical![r]),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(
    orderRows(source, "grid", []).map((r) => source.rows[r]),
    [0, 64, 1, 65, 2, 66, 3, 67],
  );
  assert.deepEqual(
    orderRows(source, "grid", [65, 2]).map((r) => source.rows[r]),
    [65, 2],
  );
  assert.deepEqual(orderRows({ rows: [5, 6] }, "grid", []), [0, 1]); // no positions: physical order
});

test("rows never thinner than a device pixel: tiles share rows and the layout says how many", () => {
  const many: TrackSource = { rows: Array.from({ length: 1472 }, (_, i) => i) };
  const all = layoutTracks(many, choice(), 600);
  assert.equal(all.perRow, 3);
  assert.equal(all.rowPx, 1);
  assert.equal(all.offsets.length - 1, Math.ceil(1472 / 3));
  assert.equal(all.scrolledRows, 491); // every tile on screen
  assert.deepEqual(membersOf(all, 1), [3, 4, 5]);
  // At twice the device pixels, two tiles a row.
  assert.equal(layoutTracks(many, choice(), 1200, 2).perRow, 2);
  // Zoomed in to 20 tiles: one a row, 30 px each, scrolled.
  const twenty = layoutTracks(many, choice({ inView: 20, scroll: 100 }), 600);
  assert.deepEqual([twenty.perRow, twenty.rowPx, twenty.scrolledRows, twenty.firstRow], [1, 30, 20, 100]);
  assert.equal(displayRowAt(twenty, 0), 100);
  assert.equal(screenRowOf(twenty, 119), 19);
  assert.equal(screenRowOf(twenty, 120), -1);
  // Scrolling past the end stops at the last page; rows are at most MAX_ROW_CSS tall.
  assert.equal(layoutTracks(many, choice({ inView: 20, scroll: 5000 }), 600).firstRow, 1452);
  assert.equal(layoutTracks(source, choice(), 600).rowPx, 40);
});

test("filtering tiles shows just those rows, tall; pins stay on top whatever the scroll", () => {
  const only = layoutTracks(source, choice({ only: [3, 66] }), 600);
  assert.equal(only.tiles, 2);
  assert.deepEqual(
    screenRows(only).map((d) => membersOf(only, d).map((r) => source.rows[r])),
    [[3], [66]],
  );
  assert.equal(only.rowPx, 40);
  const pinned = layoutTracks(source, choice({ pinned: [67, 2], inView: 3, scroll: 2 }), 600);
  const shown = screenRows(pinned).map((d) => source.rows[membersOf(pinned, d)[0]]);
  assert.deepEqual(shown.slice(0, 2), [67, 2]);
  assert.equal(pinned.pinnedRows, 2);
  assert.equal(displayRowOfRow(pinned, 7), 0);
  assert.equal(screenRowOf(pinned, 0), 0); // pinned rows never scroll away
});

test("revealing a row scrolls it into view and leaves a visible one alone", () => {
  const many: TrackSource = { rows: Array.from({ length: 100 }, (_, i) => i) };
  const layout = layoutTracks(many, choice({ inView: 20 }), 600);
  assert.equal(revealScroll(layout, 5), 0);
  const scroll = revealScroll(layout, 70);
  const moved = layoutTracks(many, choice({ inView: 20, scroll }), 600);
  assert.ok(screenRowOf(moved, displayRowOfRow(moved, 70)) >= 0);
});
