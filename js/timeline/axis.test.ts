import assert from "node:assert/strict";
import { test } from "node:test";
import { cycleLabel, fittedTicks, tickStep, ticks, timeLabel } from "./axis";

const CLOCK = 1_500_000_000;

test("tick steps are 1, 2 or 5 × 10^k cycles, never below one cycle", () => {
  assert.equal(tickStep(3_334_224, 10), 500_000);
  assert.equal(tickStep(1000, 5), 200);
  assert.equal(tickStep(8, 20), 1);
});

test("labels never repeat at any zoom, far into the profile too", () => {
  const views: [number, number][] = [
    [0, 3_334_224],
    [1_460_000, 2_290_000],
    [1_234_567, 1_234_600],
    [123_456_789, 123_456_889],
    [9_876_543_210, 9_876_543_218],
    [0, 12],
    [999_990, 1_000_010],
    [5e11, 5e11 + 3e6],
  ];
  for (const [s, e] of views) {
    for (const count of [3, 8, 15]) {
      const out = ticks(s, e, count, CLOCK);
      assert.ok(out.length >= 2, `${s}..${e}: ${out.length} ticks`);
      const cycles = out.map((t) => t.cycles);
      const times = out.map((t) => t.time);
      assert.equal(new Set(cycles).size, cycles.length, `cycle labels repeat over ${s}..${e}: ${cycles}`);
      assert.equal(new Set(times).size, times.length, `time labels repeat over ${s}..${e}: ${times}`);
      for (const t of out) assert.ok(t.at >= s && t.at <= e && Number.isInteger(t.at));
    }
  }
});

test("labels in cycles (k, M, G or plain digits) with the time alongside", () => {
  assert.equal(cycleLabel(1_500_000, 500_000), "1.5M");
  assert.equal(cycleLabel(2_000_000, 1_000_000), "2M");
  assert.equal(cycleLabel(123_456_820, 20), "123,456,820"); // deep in: plain digits, not "123,456.82k"
  assert.equal(timeLabel(1_500_000, 500_000, CLOCK), "1.0 ms");
  assert.equal(timeLabel(150, 150, CLOCK), "100 ns");
  assert.equal(timeLabel(1, 1, 0), "");
});

test("fitted ticks leave room between their labels", () => {
  const measure = (text: string) => 6 * text.length;
  for (const width of [200, 600, 1400]) {
    const out = fittedTicks(123_456_789, 123_456_889, width, CLOCK, measure);
    const spacing = (width * (out[1].at - out[0].at)) / 100;
    const widest = Math.max(...out.map((t) => Math.max(measure(t.cycles), measure(t.time))));
    assert.ok(widest + 12 <= spacing || out.length <= 2, `${width} px: ${widest} px labels ${spacing} px apart`);
  }
});
