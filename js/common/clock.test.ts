import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { axisCaption, CLOCK_LABELS, CLOCKS, clockLabel, offsetText, onClock } from "./clock";

test("each clock has the label the issue names, and the kernel's values in its order", () => {
  assert.deepEqual(CLOCKS, ["tile", "cropped", "shared"]);
  assert.equal(CLOCK_LABELS.cropped, "crop initial sync");
  assert.equal(CLOCK_LABELS.shared, "shared clock");
  assert.equal(clockLabel("utc"), "utc", "a value this front end does not know is shown as it is");
});

test("the kernel's copy of the values and labels is this one (ipu_nb/_query/head/clock.py, _widget/clocks.py)", () => {
  const python = readFileSync("ipu_nb/_widget/clocks.py", "utf8");
  const core = readFileSync("ipu_nb/_query/head/clock.py", "utf8");
  const values = core.match(/^CLOCKS: tuple\[str, \.\.\.\] = \(([^)]*)\)/m);
  assert.ok(values, "CLOCKS in _query/head/clock.py");
  assert.deepEqual(
    [...values[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]),
    [...CLOCKS],
  );
  for (const c of CLOCKS) assert.ok(python.includes(`"${c}": "${CLOCK_LABELS[c]}"`), `${c}'s label in clocks.py`);
});

test("an offset is written grouped with its clock named", () => {
  assert.equal(offsetText(12345, "shared"), "offset 12,345 (shared clock)");
  assert.equal(onClock(0, "cropped"), "0 (crop initial sync)");
  assert.equal(onClock(9_876_543, "tile"), "9,876,543 (per-tile clock)");
});

test("the axis names the newest runtime's clocks in its gutter and every clock in its title", () => {
  assert.deepEqual(axisCaption("tile"), { gutter: "cycles", title: "offsets in cycles on the per-tile clock" });
  assert.deepEqual(axisCaption("shared"), { gutter: "shared", title: "offsets in cycles on the shared clock" });
  assert.equal(axisCaption("cropped").gutter, "cropped");
});
