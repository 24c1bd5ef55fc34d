// The timeline's level-of-detail cache: every block the kernel answered (per state, zoom
// level and block index), kept in least-recently-used order within a memory budget, and
// the choice of what to draw for a block of the view: the block itself, a raw block of a
// coarser level holding its intervals, else the nearest coarser summary, else finer ones,
// else any of those from an earlier state (filters, colours). What the kernel has been
// asked for and not yet sent is marked pending so it is not asked for twice.

import type { WindowData } from "../kernel/types";
import { rawCovers } from "./levels";

/** Memory the cache may hold (data and the images drawn from it). */
export const CACHE_BYTES = 64 * 1024 * 1024;

export interface CacheEntry {
  readonly key: string;
  /** What the answer depends on besides the block: filters and colouring. */
  readonly state: string;
  readonly level: number;
  readonly index: number;
  readonly data: WindowData;
  /** Bytes of `data` plus those of `extras` (images drawn from it). */
  bytes: number;
  /** Things made from the entry (rasters, derived cells), dropped with it; keyed by what they depend on. */
  readonly extras: Map<string, { value: unknown; bytes: number }>;
}

/** Where a block of the view comes from. */
export interface Source {
  /** "exact": the block itself; "raw": a raw block covering it; else a stand-in of another level. */
  kind: "exact" | "raw" | "coarser" | "finer";
  entries: CacheEntry[];
  /** From a state other than the current one. */
  stale: boolean;
}

export function blockKey(state: string, level: number, index: number): string {
  return `${level}:${index}:${state}`;
}

/** Bytes a decoded window holds. */
export function dataBytes(data: WindowData): number {
  if (data.mode === "lod") return data.cells.byteLength + 64;
  const labels = data.labels ? data.labels.reduce((n, s) => n + 2 * s.length + 16, 0) : 0;
  return data.count * 19 + labels + 64;
}

/** Free what an extra holds outside the heap at once (an ImageBitmap from the raster worker). */
function release(value: unknown): void {
  if (typeof (value as { close?: unknown })?.close === "function") (value as { close(): void }).close();
}

export class BlockCache {
  /** Insertion order is recency: the first entry is the least recently used. */
  private entries = new Map<string, CacheEntry>();
  private pending = new Map<string, number>();
  /** Per (level, index), the states held, so stale stand-ins are found without a scan. */
  private states = new Map<string, Set<string>>();
  private total = 0;
  /** Entries used by the frame being drawn are never evicted to make room. */
  private inUse = new Set<string>();

  constructor(readonly budget = CACHE_BYTES) {}

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  has(state: string, level: number, index: number): boolean {
    return this.entries.has(blockKey(state, level, index));
  }

  /** The entry, marked most recently used. */
  get(state: string, level: number, index: number): CacheEntry | undefined {
    const key = blockKey(state, level, index);
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.inUse.add(key);
    }
    return entry;
  }

  /** Store an answer (replacing an older one of the same key) and evict down to the budget. */
  put(state: string, level: number, index: number, data: WindowData): CacheEntry {
    const key = blockKey(state, level, index);
    this.drop(key);
    const entry: CacheEntry = { key, state, level, index, data, bytes: dataBytes(data), extras: new Map() };
    this.entries.set(key, entry);
    this.total += entry.bytes;
    const place = `${level}:${index}`;
    if (!this.states.has(place)) this.states.set(place, new Set());
    this.states.get(place)!.add(state);
    this.pending.delete(key);
    this.inUse.add(key);
    this.evict();
    return entry;
  }

  /** Attach something made from `entry` (counted in the budget); replaces one of the same name. */
  attach(entry: CacheEntry, name: string, value: unknown, bytes: number): void {
    const old = entry.extras.get(name);
    if (old) {
      if (old.value !== value) release(old.value);
      entry.bytes -= old.bytes;
      this.total -= old.bytes;
    }
    entry.extras.set(name, { value, bytes });
    entry.bytes += bytes;
    if (this.entries.get(entry.key) === entry) {
      this.total += bytes;
      this.evict();
    }
  }

  /** Drop the extras of `entry` whose names do not start with `keep` (images of an old track layout). */
  prune(entry: CacheEntry, keep: (name: string) => boolean): void {
    for (const [name, extra] of entry.extras) {
      if (keep(name)) continue;
      release(extra.value);
      entry.extras.delete(name);
      entry.bytes -= extra.bytes;
      if (this.entries.get(entry.key) === entry) this.total -= extra.bytes;
    }
  }

  /** A new frame starts: what the previous one used may be evicted again. */
  frame(): void {
    this.inUse.clear();
  }

  isPending(state: string, level: number, index: number): boolean {
    return this.pending.has(blockKey(state, level, index));
  }

  markPending(state: string, level: number, index: number, request: number): void {
    this.pending.set(blockKey(state, level, index), request);
  }

  /** Request `request` is over: what it did not bring may be asked for again. */
  settle(request: number): void {
    for (const [key, id] of this.pending) if (id === request) this.pending.delete(key);
  }

  /** Forget what is pending (every request was lost, e.g. the kernel restarted). */
  settleAll(): void {
    this.pending.clear();
  }

  /**
   * What to draw for block `index` of `level` in `state`: the block, a raw coarser block
   * (exact too), the nearest coarser summary, the two finer halves, or the same from
   * another state; null when nothing is held. `top` is the coarsest level there is.
   */
  source(state: string, level: number, index: number, top: number): Source | null {
    return this.sources(state, level, index, top)[0] ?? null;
  }

  /**
   * Every source held for the block, best first: those `source` picks from, then the coarser
   * summaries further up, then the same from another state (stand-ins while the best one's
   * image is still to be made). With `standIns`, the sources of the current state that could
   * stand in for an exact one follow it too (drawn while its image is being made).
   */
  sources(state: string, level: number, index: number, top: number, standIns = false): Source[] {
    const own = this.sourcesIn(state, level, index, top, false, standIns);
    if (own.length && (own[0].kind === "exact" || own[0].kind === "raw")) return own;
    return [...own, ...this.staleSources(level, index, top, state)];
  }

  /** Whether block `index` of `level` in `state` can be drawn exactly from what is held. */
  isFinal(state: string, level: number, index: number, top: number): boolean {
    const found = this.sourcesIn(state, level, index, top, true)[0];
    return found !== undefined && (found.kind === "exact" || found.kind === "raw");
  }

  private sourcesIn(state: string, level: number, index: number, top: number, peek: boolean, all = false): Source[] {
    const look = (l: number, k: number) => (peek ? this.entries.get(blockKey(state, l, k)) : this.get(state, l, k));
    const own = look(level, index);
    const exact: Source[] = own ? [{ kind: "exact", entries: [own], stale: false }] : [];
    if (own && !all) return exact;
    // Going up: a raw block covers this one exactly; summaries stand in, the nearest first.
    const above: Source[] = [];
    for (let up = 1; level + up <= top; up++) {
      const entry = look(level + up, Math.floor(index / 2 ** up));
      if (!entry) continue;
      const raw = !above.length && !own && entry.data.mode === "raw" && rawCovers(level + up, level);
      above.push({ kind: raw ? "raw" : "coarser", entries: [entry], stale: false });
      if (peek) break; // whether the first is exact is all a peek asks
    }
    if ((above[0]?.kind === "raw" && !all) || level === 0) return [...exact, ...above];
    const halves = [look(level - 1, 2 * index), look(level - 1, 2 * index + 1)].filter((e) => e !== undefined);
    const finer: Source[] = halves.length ? [{ kind: "finer", entries: halves as CacheEntry[], stale: false }] : [];
    return [...exact, ...above.slice(0, 1), ...finer, ...above.slice(1)];
  }

  private staleSources(level: number, index: number, top: number, current: string): Source[] {
    // The states held for this block or the blocks above it, most recently stored last.
    const tried = new Set<string>([current]);
    for (let up = 0; level + up <= top; up++) {
      const held = this.states.get(`${level + up}:${Math.floor(index / 2 ** up)}`);
      if (!held) continue;
      for (const state of [...held].reverse()) {
        if (tried.has(state)) continue;
        tried.add(state);
        const found = this.sourcesIn(state, level, index, top, false);
        if (found.length) return found.map((f) => ({ ...f, stale: true }));
      }
    }
    return [];
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    for (const extra of old.extras.values()) release(extra.value);
    this.entries.delete(key);
    this.total -= old.bytes;
    const place = `${old.level}:${old.index}`;
    const held = this.states.get(place);
    held?.delete(old.state);
    if (held && !held.size) this.states.delete(place);
  }

  private evict(): void {
    if (this.total <= this.budget) return;
    for (const key of [...this.entries.keys()]) {
      if (this.total <= this.budget) break;
      if (!this.inUse.has(key)) this.drop(key);
    }
  }
}
