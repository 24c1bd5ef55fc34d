// The area selection: a range of offsets over some tile rows, synced as the `selection` trait
// (`{start, end, tiles}`, tiles null meaning every tile). Alt+drag on the timeline (or a plain
// drag while the area tool is on) draws one; its left and right edges move its range, its top
// and bottom edges its rows; Escape (widget.ts) or the panel's button clears it. Rows are the
// timeline's current display rows (tracks.ts: order, pins, aggregation), so an area follows
// the layout: dragged over rows, it holds the tiles of those rows; set from Python, it is
// drawn on every row holding one of its tiles.
//
// The gesture is taken before the timeline's own input sees the mouse (listeners on the
// window in the capture phase, for this view's overlay only): a drag that starts an area or
// moves an edge is never also a zoom, a ruler or a click. It is drawn on a layer of its own
// under the overlay (Timeline.addLayer), redrawn with each picture of the timeline.

import { css, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import type { Area } from "../kernel/types";
import { layerContext } from "./layer";
import { cycleAt, GUTTER, pixelsPerCycle, plotWidth } from "./plot";
import { rulerText } from "./ruler";
import { displayRowAt, type Layout, membersOf } from "./tracks";
import type { Range } from "./view";

/** Pointer moves shorter than this (CSS pixels) are a click, not a drag. */
const DRAG_PX = 3;
/** How near an edge (CSS pixels) the mouse must be to take hold of it. */
const EDGE_PX = 4;

export type Edge = "left" | "right" | "top" | "bottom";

/** Screen rows on the timeline now (pinned and scrolled). */
function screens(layout: Layout): number {
  return layout.pinnedRows + layout.scrolledRows;
}

/** Physical tiles of screen row `s`. */
function tilesAt(layout: Layout, rows: readonly number[], s: number): number[] {
  const d = displayRowAt(layout, s);
  return d < 0 ? [] : membersOf(layout, d).map((r) => rows[r]);
}

/**
 * The tiles of screen rows `a` … `b` (either order, clamped to the rows on screen), sorted;
 * null when they are every row of the layout (the area then holds every tile it shows).
 */
export function tilesOfScreenRows(layout: Layout, rows: readonly number[], a: number, b: number): number[] | null {
  const n = screens(layout);
  if (n <= 0) return null;
  const lo = Math.max(0, Math.min(a, b, n - 1));
  const hi = Math.min(n - 1, Math.max(a, b, 0));
  const every = lo === 0 && hi === n - 1 && n === layout.offsets.length - 1;
  if (every) return null;
  const out = new Set<number>();
  for (let s = lo; s <= hi; s++) for (const t of tilesAt(layout, rows, s)) out.add(t);
  return [...out].sort((x, y) => x - y);
}

/** Runs `[first, last]` of consecutive screen rows holding a tile of the area (every row when `tiles` is null). */
export function screenRuns(layout: Layout, rows: readonly number[], tiles: number[] | null): [number, number][] {
  const n = screens(layout);
  const wanted = tiles === null ? null : new Set(tiles);
  const runs: [number, number][] = [];
  for (let s = 0; s < n; s++) {
    const hit = wanted === null ? displayRowAt(layout, s) >= 0 : tilesAt(layout, rows, s).some((t) => wanted.has(t));
    if (!hit) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === s - 1) last[1] = s;
    else runs.push([s, s]);
  }
  return runs;
}

/** The area between two cycles (either order), inside `[0, limit]`, on `tiles`; null when it is empty. */
export function areaBetween(a: number, b: number, limit: number, tiles: number[] | null): Area | null {
  const start = Math.max(0, Math.min(limit, Math.round(Math.min(a, b))));
  const end = Math.max(0, Math.min(limit, Math.round(Math.max(a, b))));
  return end > start && (tiles === null || tiles.length > 0) ? { start, end, tiles } : null;
}

/** Where an area is drawn: x in CSS pixels (unclipped) and the y extent of each run of rows. */
export interface AreaBox {
  x0: number;
  x1: number;
  runs: { y0: number; y1: number; first: number; last: number }[];
}

export function areaBox(
  area: Area,
  view: Range,
  width: number,
  layout: Layout,
  rows: readonly number[],
  dpr: number,
): AreaBox {
  const k = pixelsPerCycle(view, width);
  const rowCss = layout.rowPx / dpr;
  return {
    x0: GUTTER + (area.start - view[0]) * k,
    x1: GUTTER + (area.end - view[0]) * k,
    runs: screenRuns(layout, rows, area.tiles).map(([first, last]) => ({
      y0: first * rowCss,
      y1: (last + 1) * rowCss,
      first,
      last,
    })),
  };
}

/** The edge of `box` under (x, y) (CSS pixels), or null. Left and right edges win over top and bottom. */
export function edgeAt(box: AreaBox, x: number, y: number, right: number): Edge | null {
  if (!box.runs.length) return null;
  const top = box.runs[0].y0;
  const bottom = box.runs[box.runs.length - 1].y1;
  const inRows = box.runs.some((r) => y >= r.y0 - EDGE_PX && y <= r.y1 + EDGE_PX);
  const between = (v: number) => v >= GUTTER - EDGE_PX && v <= right + EDGE_PX;
  if (inRows && between(box.x0) && Math.abs(x - box.x0) <= EDGE_PX) return "left";
  if (inRows && between(box.x1) && Math.abs(x - box.x1) <= EDGE_PX) return "right";
  const across = x >= Math.max(box.x0, GUTTER) && x <= Math.min(box.x1, right);
  if (across && Math.abs(y - top) <= EDGE_PX) return "top";
  if (across && Math.abs(y - bottom) <= EDGE_PX) return "bottom";
  return null;
}

/** What the area needs of the widget. */
export interface AreaHost {
  area(): Area | null;
  /** Set (or clear, with null) the `selection` trait. */
  setArea(area: Area | null): void;
  view(): Range;
  /** End of the timeline's range (`max(span, 8)`). */
  limit(): number;
  /** Physical tile of each kernel row. */
  rows(): readonly number[];
  clockHz(): number;
  /** Canvas size (CSS pixels) and row layout of the timeline. */
  frame(): { width: number; height: number; layout: Layout };
  /** Give the widget the keyboard focus (Escape clears the area). */
  focus(): void;
}

type Gesture =
  | { kind: "new"; x0: number; s0: number; x1: number; s1: number }
  | { kind: "edge"; edge: Edge; from: Area; fixedRow: number; x0: number; s0: number; x: number; s: number };

export class AreaSelection {
  readonly layer = el("canvas", "ipu-nb-timeline-area");
  readonly toolButton = el("button", "ipu-nb-button ipu-nb-area-tool", "⬚ area");
  /** Plain drags select areas (instead of zooming) while this is on. */
  private tool = false;
  private gesture: Gesture | null = null;

  /** The timeline's overlay, which takes the mouse (this layer is under it). */
  private overlay: HTMLCanvasElement;

  constructor(
    private host: AreaHost,
    addLayer: (canvas: HTMLCanvasElement) => HTMLCanvasElement,
    bag: Disposers,
  ) {
    this.overlay = addLayer(this.layer);
    this.toolButton.type = "button";
    this.toolButton.title = "Area tool: drag over time × tiles to select an area (or Alt+drag at any time); key b";
    bag.listen(this.toolButton, "click", () => this.toggleTool());
    const capture = { capture: true };
    bag.listen(window, "mousedown", (e) => this.onDown(e), capture);
    bag.listen(window, "mousemove", (e) => this.onMove(e), capture);
    bag.listen(window, "mouseup", (e) => this.onUp(e), capture);
    this.syncTool();
  }

  /** The area tool on or off (`b`). */
  toggleTool(): void {
    this.tool = !this.tool;
    this.syncTool();
  }

  private syncTool(): void {
    if (this.tool) this.toolButton.classList.add("ipu-nb-pressed");
    else this.toolButton.classList.remove("ipu-nb-pressed");
    this.toolButton.setAttribute("aria-pressed", String(this.tool));
    this.overlay.dataset.areaTool = String(this.tool);
  }

  /** Clear the area; true when there was one (or a drag of one was under way). */
  clear(): boolean {
    if (this.gesture) {
      this.gesture = null;
      this.draw();
      return true;
    }
    if (!this.host.area()) return false;
    this.host.setArea(null);
    return true;
  }

  /** Where a mouse event is on the overlay (CSS pixels) and the screen row there (clamped to the rows). */
  private place(e: MouseEvent): { x: number; y: number; screen: number } {
    const rect = this.overlay.getBoundingClientRect();
    const { layout } = this.host.frame();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    const rowCss = layout.rowPx / (window.devicePixelRatio || 1);
    return { x, y, screen: Math.max(0, Math.min(screens(layout) - 1, Math.floor(y / rowCss))) };
  }

  /** The cycle at overlay x, inside the plot. */
  private cycleAt(x: number): number {
    const { width } = this.host.frame();
    return cycleAt(Math.max(GUTTER, Math.min(x, GUTTER + plotWidth(width))), this.host.view(), width);
  }

  private box(area: Area): AreaBox {
    const { width, layout } = this.host.frame();
    return areaBox(area, this.host.view(), width, layout, this.host.rows(), window.devicePixelRatio || 1);
  }

  private onDown(e: MouseEvent): void {
    if (e.target !== this.overlay || e.button !== 0) return;
    const p = this.place(e);
    if (p.x < GUTTER) return; // the tile labels pin rows
    const area = this.host.area();
    const { width } = this.host.frame();
    // Shift+drag stays the ruler's, even over an edge.
    const edge = area && !e.shiftKey ? edgeAt(this.box(area), p.x, p.y, GUTTER + plotWidth(width)) : null;
    if (edge && area) {
      const runs = this.box(area).runs;
      const fixedRow = edge === "top" ? runs[runs.length - 1].last : runs[0].first;
      this.gesture = { kind: "edge", edge, from: area, fixedRow, x0: p.x, s0: p.screen, x: p.x, s: p.screen };
    } else if (e.altKey || this.tool) {
      this.gesture = { kind: "new", x0: p.x, s0: p.screen, x1: p.x, s1: p.screen };
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    this.host.focus();
    this.draw();
  }

  private onMove(e: MouseEvent): void {
    const g = this.gesture;
    if (!g) {
      if (e.target === this.overlay) this.hoverCursor(e);
      return;
    }
    e.stopPropagation(); // no hover lookups or tooltips while dragging an area
    this.follow(g, e);
    this.draw();
  }

  /** The gesture's moving end is where the mouse is now. */
  private follow(g: Gesture, e: MouseEvent): void {
    const p = this.place(e);
    if (g.kind === "new") {
      g.x1 = p.x;
      g.s1 = p.screen;
    } else {
      g.x = p.x;
      g.s = p.screen;
    }
  }

  private onUp(e: MouseEvent): void {
    const g = this.gesture;
    if (!g) return;
    e.stopPropagation();
    this.follow(g, e);
    const next = this.pending();
    this.gesture = null;
    if (next !== undefined) this.host.setArea(next);
    this.draw();
  }

  /** The area the gesture under way would set (undefined: none, e.g. a click). */
  private pending(): Area | null | undefined {
    const g = this.gesture;
    if (!g) return undefined;
    const { layout } = this.host.frame();
    const rows = this.host.rows();
    if (g.kind === "new") {
      if (Math.abs(g.x1 - g.x0) <= DRAG_PX) return undefined;
      const tiles = tilesOfScreenRows(layout, rows, g.s0, g.s1);
      return areaBetween(this.cycleAt(g.x0), this.cycleAt(g.x1), this.host.limit(), tiles) ?? undefined;
    }
    const { from } = g;
    if (Math.abs(g.x - g.x0) <= DRAG_PX && g.s === g.s0) return undefined;
    const at = this.cycleAt(g.x);
    switch (g.edge) {
      case "left":
        return areaBetween(at, from.end, this.host.limit(), from.tiles) ?? from;
      case "right":
        return areaBetween(from.start, at, this.host.limit(), from.tiles) ?? from;
      default:
        return (
          areaBetween(from.start, from.end, this.host.limit(), tilesOfScreenRows(layout, rows, g.fixedRow, g.s)) ?? from
        );
    }
  }

  private hoverCursor(e: MouseEvent): void {
    const area = this.host.area();
    const p = this.place(e);
    const edge =
      area && p.x >= GUTTER ? edgeAt(this.box(area), p.x, p.y, GUTTER + plotWidth(this.host.frame().width)) : null;
    this.overlay.style.cursor = edge === "left" || edge === "right" ? "ew-resize" : edge ? "ns-resize" : "";
    this.overlay.dataset.areaEdge = edge ?? "";
  }

  /** Draw the area (or the one being dragged) on its layer: a tint over its rows, its edges, its length. */
  draw(): void {
    const { width, height } = this.host.frame();
    const g = this.gesture;
    const shown = g ? this.pending() : this.host.area();
    const area = shown === undefined ? (g?.kind === "edge" ? g.from : null) : shown;
    const said = area ? `${area.start},${area.end},${area.tiles === null ? "all" : area.tiles.length}` : "";
    if (this.layer.dataset.area !== said) this.layer.dataset.area = said;
    const ctx = layerContext(this.layer, width, height, area !== null);
    if (!area || !ctx) return;
    const box = this.box(area);
    const right = GUTTER + plotWidth(width);
    const x0 = Math.max(box.x0, GUTTER);
    const x1 = Math.min(box.x1, right);
    if (x1 <= x0 && box.x1 < GUTTER) return;
    const ink: [number, number, number] = theme().dark ? [176, 140, 255] : [112, 56, 214];
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, right - GUTTER, height);
    ctx.clip();
    for (const run of box.runs) {
      ctx.fillStyle = css(ink, g ? 0.2 : 0.14);
      ctx.fillRect(x0, run.y0, Math.max(x1 - x0, 1), run.y1 - run.y0);
      ctx.strokeStyle = css(ink, 0.95);
      ctx.lineWidth = 1.5;
      ctx.strokeRect(box.x0 + 0.5, run.y0 + 0.75, Math.max(box.x1 - box.x0, 1) - 1, run.y1 - run.y0 - 1.5);
    }
    const text = rulerText(area.start, area.end, this.host.clockHz());
    ctx.font = "11px sans-serif";
    ctx.textBaseline = "top";
    const tw = ctx.measureText(text).width + 8;
    const top = box.runs.length ? box.runs[0].y0 : 0;
    const tx = Math.min(Math.max(GUTTER + 2, (x0 + x1) / 2 - tw / 2), right - tw - 2);
    const ty = Math.min(Math.max(top + 3, 2), Math.max(2, height - 18));
    ctx.fillStyle = theme().dark ? "rgba(30,30,36,0.9)" : "rgba(255,255,255,0.92)";
    ctx.fillRect(tx, ty, tw, 16);
    ctx.fillStyle = css(ink);
    ctx.fillText(text, tx + 4, ty + 2);
    ctx.restore();
  }
}
