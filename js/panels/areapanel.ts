// Side panel: the selected area (its range, tiles, the matching samples overlapping it and
// their cycles inside it) and its longest samples by those cycles; a click on one inspects
// it. While an area is selected the group table and the flame graph show the area too
// (clipped cycles), and say so.

import type { Disposers } from "../common/disposers";
import { clear, el } from "../common/dom";
import { cycles, grouped, ms, plural } from "../common/format";
import { frameScheduler } from "../common/frames";
import { displayText } from "../common/text";
import { kernelLabel, type Vocabulary } from "../common/vocabulary";
import type { AreaMessage } from "../kernel/protocol";

export interface AreaPanelHost {
  clockHz(): number;
  /** Inspect sample `id` (the `selected` trait). */
  select(id: number): void;
  /** Clear the area. */
  clear(): void;
}

/** How a tile list reads: "every tile", or the ids (a range when contiguous, the first few else). */
export function tilesLabel(tiles: number[] | null): string {
  if (tiles === null) return "every tile";
  if (tiles.length === 1) return `tile ${tiles[0]}`;
  const contiguous = tiles[tiles.length - 1] - tiles[0] === tiles.length - 1;
  if (contiguous) return `${plural(tiles.length, "tile")} (${tiles[0]}–${tiles[tiles.length - 1]})`;
  const head = tiles.slice(0, 6).join(", ");
  return `${plural(tiles.length, "tile")} (${head}${tiles.length > 6 ? ", …" : ""})`;
}

/** What a selected area updates: its panel, the group table and the flame graph. */
const PARTS = ["area", "groups", "flame"] as const;
type Part = (typeof PARTS)[number];

/**
 * One area selected here, in ms from setting it: each part shown (`area`, `groups`, `flame`),
 * each part's message heard from the kernel (`heard`), and the frame after the last (`total`).
 * `setAt` is when it was set, on the wall clock (ms since the epoch), to line up with the kernel's log.
 */
export type AreaTrip = Record<Part | "total", number> & { heard: Partial<Record<Part, number>>; setAt: number };

function isPart(type: unknown): type is Part {
  return (PARTS as readonly unknown[]).includes(type);
}

/**
 * Times each area selected here: from setting it to the next frame after its panel, groups and
 * flame graph are all shown. Kept on the root as `ipuAreaTrips` for benchmarks and tests.
 */
export class AreaTimer {
  private asked = 0;
  private parts: Partial<AreaTrip> = {};
  private heard: Partial<Record<Part, number>> = {};
  /** The area whose parts all came, its trip ending at the next frame. */
  private ending: { asked: number; parts: Partial<AreaTrip>; heard: Partial<Record<Part, number>> } | null = null;
  readonly trips: AreaTrip[] = [];
  private next: () => void;

  constructor(root: HTMLElement, bag: Disposers) {
    (root as HTMLElement & { ipuAreaTrips?: AreaTrip[] }).ipuAreaTrips = this.trips;
    this.next = frameScheduler(bag, () => {
      const ending = this.ending;
      if (!ending) return;
      this.ending = null;
      const total = performance.now() - ending.asked;
      const trip = {
        ...ending.parts,
        total,
        heard: ending.heard,
        setAt: performance.timeOrigin + ending.asked,
      } as AreaTrip;
      this.trips.push(trip);
      root.dataset.areaMs = String(Math.round(trip.total));
    });
  }

  /** An area was just set here (or cleared: nothing to time). */
  set(selected: boolean): void {
    this.asked = selected ? performance.now() : 0;
    this.parts = {};
    this.heard = {};
  }

  /** A message came from the kernel (before it is checked and applied): when one of the parts did. */
  hear(content: unknown): void {
    if (!this.asked || typeof content !== "object" || content === null) return;
    const type = (content as { type?: unknown }).type;
    if (isPart(type) && this.heard[type] === undefined) this.heard[type] = performance.now() - this.asked;
  }

  /** `part` of the area's views was shown. */
  show(part: Part): void {
    if (!this.asked) return;
    this.parts[part] = performance.now() - this.asked;
    if (PARTS.some((p) => this.parts[p] === undefined)) return;
    this.ending = { asked: this.asked, parts: this.parts, heard: this.heard };
    this.asked = 0;
    this.next();
  }
}

export class AreaPanel {
  readonly root = el("div", "ipu-nb-area");
  private body = el("div", "ipu-nb-area-body");
  private clearButton = el("button", "ipu-nb-button ipu-nb-area-clear", "clear (Esc)");
  private rows: Disposers;

  constructor(
    private host: AreaPanelHost,
    bag: Disposers,
    private words: Vocabulary,
  ) {
    this.rows = bag.child();
    const head = el("div", "ipu-nb-area-head");
    head.append(el("span", "ipu-nb-section-title", "Selected area"), this.clearButton);
    this.clearButton.type = "button";
    bag.listen(this.clearButton, "click", () => this.host.clear());
    this.root.append(head, this.body);
    this.set(null);
  }

  set(msg: AreaMessage | null): void {
    clear(this.body);
    this.rows.clear();
    const area = msg?.selection ?? null;
    this.root.dataset.active = String(area !== null);
    this.clearButton.hidden = area === null;
    if (!msg || !area) {
      this.body.append(
        el("div", "ipu-nb-empty", "Alt+drag over the timeline (or use the area tool) to select an area."),
      );
      return;
    }
    const hz = this.host.clockHz();
    this.body.append(
      el(
        "div",
        "ipu-nb-area-range",
        `${grouped(area.start)} – ${grouped(area.end)} (${grouped(area.end - area.start)} cycles, ${ms(area.end - area.start, hz)}) on ${tilesLabel(area.tiles)}`,
      ),
    );
    if (msg.window === null) {
      this.body.append(el("div", "ipu-nb-empty", "The area misses the filters' window or tiles: it holds no sample."));
      return;
    }
    const summary = el(
      "div",
      "ipu-nb-area-summary",
      `${plural(msg.count, "matching sample")} on ${plural(msg.tiles_hit, "tile")} · ${cycles(msg.cycles)} cycles inside the area`,
    );
    summary.dataset.count = String(msg.count);
    summary.dataset.cycles = String(msg.cycles);
    this.body.append(summary, el("div", "ipu-nb-hint", "Groups and flame graph below: this area, clipped cycles."));
    if (!msg.longest.length) return;
    const table = el("table", "ipu-nb-group-table ipu-nb-area-longest");
    const head = el("tr");
    for (const h of ["longest samples", "in area", "duration", "tile"]) head.append(el("th", undefined, h));
    table.append(head);
    for (const s of msg.longest) {
      const tr = el("tr", "ipu-nb-clickable");
      const name = displayText(s.operation || kernelLabel(s.kernel, this.words));
      const nameCell = el("td", "ipu-nb-group-name", name);
      nameCell.title = name; // the whole name where it is cut (the row's title says the rest)
      tr.append(
        nameCell,
        el("td", undefined, cycles(s.clipped_cycles)),
        el("td", undefined, cycles(s.duration)),
        el("td", undefined, String(s.tile)),
      );
      tr.title = `sample ${s.sample} · ${s.kind} · ${displayText(kernelLabel(s.kernel, this.words))} · phase ${s.phase}/${s.epoch} · offset ${grouped(s.offset)}: ${grouped(s.clipped_cycles)} of its ${grouped(s.duration)} cycles inside the area (click to inspect)`;
      tr.dataset.sample = String(s.sample);
      this.rows.listen(tr, "click", () => this.host.select(s.sample));
      table.append(tr);
    }
    const scroller = el("div", "ipu-nb-table-scroll");
    scroller.append(table);
    this.body.append(scroller);
  }
}
