// Number formatting and parsing for labels and inputs (pure, unit-tested).

export function cycles(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${trim(n / 1e9)}G`;
  if (a >= 1e6) return `${trim(n / 1e6)}M`;
  if (a >= 1e4) return `${trim(n / 1e3)}k`;
  return `${Math.round(n)}`;
}

function trim(x: number): string {
  const text = x.toFixed(Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** Cycles as milliseconds (docs/reference/format.md#milliseconds), in the unit that reads best. */
export function ms(c: number, clockHz: number): string {
  if (!clockHz) return "0 ms";
  const v = (c * 1000) / clockHz;
  return v >= 100 ? `${v.toFixed(1)} ms` : v >= 1 ? `${v.toFixed(3)} ms` : `${(v * 1000).toFixed(2)} µs`;
}

export function grouped(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** "1 sample", "1,280 samples": the count, grouped, then the noun in its number (`nouns`: an irregular plural). */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${grouped(n)} ${Math.round(n) === 1 ? noun : nouns}`;
}

/** Tick positions for [start, end] at steps of 1, 2 or 5 × 10^k, about `count` of them. */
export function ticks(start: number, end: number, count: number): number[] {
  if (!(end > start) || count < 1) return [];
  const raw = (end - start) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? power * 10;
  const out: number[] = [];
  for (let t = Math.ceil(start / step) * step; t <= end; t += step) out.push(t);
  return out;
}

/** "3, 5-7, 64" -> [3, 5, 6, 7, 64]; throws on anything else (ranges capped at 100,000 values). */
export function parseIntList(text: string): number[] {
  const out = new Set<number>();
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`not a number or range: ${part}`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b - a > 100000) throw new Error(`bad range: ${part}`);
    for (let i = a; i <= b; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}

/** [3, 5, 6, 7, 64] -> "3, 5-7, 64". */
export function formatIntList(values: number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < values.length) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j] + 1) j++;
    parts.push(j > i ? `${values[i]}-${values[j]}` : `${values[i]}`);
    i = j + 1;
  }
  return parts.join(", ");
}
