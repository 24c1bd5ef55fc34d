// What to ask the kernel for next: the blocks the view lacks first (all of them, in one
// request), then, a few at a time so a new view never waits long behind them, the blocks
// a pan or zoom would need: the neighbours at the same level, the next coarser level
// around the view, and the next finer level under it (from its middle outward).

import { blocksIn, blockWidth, levelFor, topLevel } from "./levels";
import type { BlockCache } from "./tilecache";
import type { Range } from "./view";

/** Blocks asked for at most per prefetch request. */
export const PREFETCH_BLOCKS = 2;

export interface Ask {
  level: number;
  blocks: number[];
  prefetch: boolean;
}

/** Indices of `blocks` ordered by the distance of their middles from `centre` (cycles). */
function byDistance(level: number, blocks: number[], centre: number): number[] {
  const w = blockWidth(level);
  return [...blocks].sort((a, b) => Math.abs((a + 0.5) * w - centre) - Math.abs((b + 0.5) * w - centre) || a - b);
}

/** The next request for `view` drawn `pixels` device pixels wide, or null when nothing is missing. */
export function nextAsk(
  cache: BlockCache,
  state: string,
  view: Range,
  pixels: number,
  span: number,
  limit: number,
): Ask | null {
  const [s, e] = view;
  const width = e - s;
  const centre = (s + e) / 2;
  const level = levelFor(view, pixels, span);
  const top = topLevel(span);
  const missing = (l: number, ks: number[]) =>
    ks.filter((k) => !cache.isPending(state, l, k) && !cache.isFinal(state, l, k, top));
  const visible = missing(level, blocksIn(level, s, e, limit));
  // In order: neighbouring blocks of one request are summarised in one pass.
  if (visible.length) return { level, blocks: visible, prefetch: false };
  const around: [number, Range][] = [[level, [s - width / 2, e + width / 2]]];
  if (level + 1 <= top) around.push([level + 1, [s - width, e + width]]);
  if (level >= 1) around.push([level - 1, [s, e]]);
  for (const [l, [a, b]] of around) {
    const wanted = missing(l, byDistance(l, blocksIn(l, a, b, limit), centre));
    if (wanted.length)
      return { level: l, blocks: wanted.slice(0, PREFETCH_BLOCKS).sort((x, y) => x - y), prefetch: true };
  }
  return null;
}
