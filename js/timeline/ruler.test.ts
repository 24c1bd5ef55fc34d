import assert from "node:assert/strict";
import { test } from "node:test";
import { micros, Ruler, readoutText, rulerText } from "./ruler";

test("the ruler reads Δ cycles and Δ µs either way round; the readout the offset and tiles", () => {
  assert.equal(rulerText(1000, 2500, 1_500_000_000), "Δ 1,500 cycles · 1.000 µs");
  assert.equal(rulerText(2500, 1000, 1_500_000_000), "Δ 1,500 cycles · 1.000 µs");
  assert.equal(micros(3_334_224, 1_500_000_000), "2,222.816 µs");
  assert.equal(readoutText(1500, 1_500_000_000, [64]), "1,500 cycles · 1.000 µs · tile 64");
  assert.equal(readoutText(0, 1_500_000_000, [1, 3, 5]), "0 cycles · 0.000 µs · tiles 1…5 (3)");
  const r = new Ruler();
  assert.equal(r.range(), null);
  r.start(50);
  r.move(10);
  assert.deepEqual(r.range(), [10, 50]);
  r.clear();
  assert.ok(!r.active);
});
