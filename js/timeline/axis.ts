// The time axis: tick positions at 1, 2 or 5 × 10^k cycles and their labels, in cycles with
// the time alongside. Labels carry as many digits as the step needs, so two ticks never read
// the same however deep the zoom.

import { axisCaption } from "../common/clock";
import { theme } from "../common/colors";
import { sizeCanvas } from "../common/dom";
import { GUTTER, INK, pixelsPerCycle, plotWidth } from "./plot";
import type { Range } from "./view";

/** Height of the axis canvas, CSS pixels: a line of cycles, a line of time. */
export const AXIS_HEIGHT = 30;

export interface Tick {
  /** Offset in cycles. */
  at: number;
  cycles: string;
  time: string;
}

const CYCLE_UNITS: [number, string][] = [
  [1e9, "G"],
  [1e6, "M"],
  [1e3, "k"],
  [1, ""],
];
const TIME_UNITS: [number, string][] = [
  [1, "s"],
  [1e-3, "ms"],
  [1e-6, "µs"],
  [1e-9, "ns"],
];
/** Most decimals a label shows before a smaller unit is used. */
const MAX_DECIMALS = 3;

/** The tick step (cycles, at least 1) for about `count` ticks over `width` cycles. */
export function tickStep(width: number, count: number): number {
  const raw = Math.max(width / Math.max(count, 1), 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw * (1 - 1e-9)) return m * power;
  return 10 * power;
}

function grouped(x: number, decimals: number): string {
  return x.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/**
 * `value` in the largest of `units` that `largest` reaches, with the decimals that tell
 * apart values `step` apart; a unit needing more than MAX_DECIMALS gives way to the next
 * one down, skipping those that would read 1,000 or more (plain digits read better).
 */
function scaled(value: number, step: number, units: [number, string][], largest: number): string {
  let skipped = false;
  for (let i = 0; i < units.length; i++) {
    const [size, name] = units[i];
    const last = i === units.length - 1;
    if (!last && Math.abs(largest) < size) continue;
    if (!last && skipped && Math.abs(largest) >= 1000 * size) continue;
    const decimals = Math.max(0, Math.ceil(Math.log10(size / step) - 1e-9));
    if (decimals > MAX_DECIMALS && !last) {
      skipped = true;
      continue;
    }
    const sep = name && units === TIME_UNITS ? " " : "";
    return `${grouped(value / size, Math.min(decimals, 12))}${sep}${name}`;
  }
  return String(value);
}

/** Label of offset `at` in cycles, telling apart ticks `step` apart. */
export function cycleLabel(at: number, step: number, largest = at): string {
  return scaled(at, step, CYCLE_UNITS, largest);
}

/** Label of offset `at` as time at `clockHz`, telling apart ticks `step` cycles apart. */
export function timeLabel(at: number, step: number, clockHz: number, largest = at): string {
  if (!(clockHz > 0)) return "";
  return scaled(at / clockHz, step / clockHz, TIME_UNITS, largest / clockHz);
}

/** Ticks over `[start, end]` about `count` of them, labelled in cycles and time. */
export function ticks(start: number, end: number, count: number, clockHz: number): Tick[] {
  if (!(end > start) || count < 1) return [];
  const step = tickStep(end - start, count);
  const first = Math.ceil(start / step);
  const out: Tick[] = [];
  const largest = Math.max(Math.abs(start), Math.abs(end));
  for (let i = first; i * step <= end; i++) {
    const at = i * step;
    out.push({ at, cycles: cycleLabel(at, step, largest), time: timeLabel(at, step, clockHz, largest) });
  }
  return out;
}

/**
 * Ticks for a plot `plotPx` CSS pixels wide whose labels (measured by `measure`) never
 * overlap: as many as fit with `gap` pixels between labels.
 */
export function fittedTicks(
  start: number,
  end: number,
  plotPx: number,
  clockHz: number,
  measure: (text: string) => number,
  gap = 12,
): Tick[] {
  let count = Math.max(2, Math.floor(plotPx / 80));
  for (;;) {
    const out = ticks(start, end, count, clockHz);
    if (out.length < 2 || count <= 2) return out;
    const spacing = (plotPx * (out[1].at - out[0].at)) / (end - start);
    const widest = Math.max(...out.map((t) => Math.max(measure(t.cycles), measure(t.time))));
    if (widest + gap <= spacing) return out;
    count = Math.max(2, Math.floor(count / 2));
  }
}

/**
 * The axis under the plot on `canvas` (`width` CSS pixels): "cycles" (or the newest runtime's clock
 * named, `axisCaption`; the canvas' title names any clock) and "time" in the gutter,
 * then each tick with its two labels, kept inside the plot (the last right-aligned rather
 * than cut, none over the gutter). The labels go on the canvas' data-ticks for tests.
 */
export function drawAxis(
  canvas: HTMLCanvasElement,
  [s, e]: Range,
  width: number,
  clockHz: number,
  clock = "tile",
): void {
  const caption = axisCaption(clock);
  const ctx = sizeCanvas(canvas, width, AXIS_HEIGHT);
  ctx.clearRect(0, 0, width, AXIS_HEIGHT);
  ctx.font = "10px sans-serif";
  ctx.textBaseline = "top";
  ctx.fillStyle = INK.faint;
  ctx.textAlign = "right";
  ctx.fillText(caption.gutter, GUTTER - 6, 5);
  ctx.fillText("time", GUTTER - 6, 17);
  ctx.textAlign = "left";
  const k = pixelsPerCycle([s, e], width);
  const out = fittedTicks(s, e, plotWidth(width), clockHz, (t) => ctx.measureText(t).width);
  ctx.strokeStyle = theme().line;
  for (const t of out) {
    const x = GUTTER + (t.at - s) * k;
    ctx.beginPath();
    ctx.moveTo(x + 0.5, 0);
    ctx.lineTo(x + 0.5, 4);
    ctx.stroke();
    const w = Math.max(ctx.measureText(t.cycles).width, ctx.measureText(t.time).width);
    const lx = Math.min(x + 2, width - w - 1);
    if (lx < GUTTER) continue;
    ctx.fillStyle = theme().text;
    ctx.fillText(t.cycles, lx, 5);
    ctx.fillStyle = INK.faint;
    ctx.fillText(t.time, lx, 17);
  }
  canvas.dataset.ticks = JSON.stringify(out.map((t) => [t.cycles, t.time]));
  canvas.dataset.clock = clock;
  canvas.title = caption.title;
  canvas.setAttribute("aria-label", caption.title);
}
