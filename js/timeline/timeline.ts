// The tile timeline: one row per tile (or per few tiles when they would be thinner than a
// device pixel), x = per-tile offset (docs/reference/format.md#offsets-and-durations).
// The base canvas is painted from the block cache (painter.ts) with the row labels, search
// highlights and operation names; the overlay above it holds the cursor, selection, hovered
// row, drag and ruler; mouse input is timeline-input.ts's, the row layout tracks.ts's.

import { classColours, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { el, sizeCanvas } from "../common/dom";
import type { SampleInfo } from "../kernel/protocol";
import type { RawWindow } from "../kernel/types";
import type { Matches } from "../panels/search";
import { drawAxis } from "./axis";
import { ImageMaker } from "./imagemaker";
import { layerContext } from "./layer";
import { drawBarLabels, drawGutter, drawMarks, type Frame, rowLabel } from "./layers";
import { blockRange, blocksIn, levelFor, topLevel } from "./levels";
import { type ImageSpec, type Painted, paintView, prepareImage, viewIsFinal } from "./painter";
import { GUTTER, INK, PLOT_HEIGHT, pixelsPerCycle, plotWidth } from "./plot";
import { type HeldLayout, pageRows, RowLayouts } from "./rowlayout";
import { readoutText, rulerText } from "./ruler";
import type { BlockCache, CacheEntry } from "./tilecache";
import { type TimelineActions, TimelineInput } from "./timeline-input";
import {
  displayRowAt,
  type Layout,
  membersOf,
  revealScroll,
  screenRowOf,
  type TileOrder,
  type TrackChoice,
  type TrackSource,
} from "./tracks";
import type { Range } from "./view";

/** Set `node`'s text when it differs (each change costs the page a layout pass). */
function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** What the overlay shows in one picture. */
interface OverlayParts {
  /** The screen row under the mouse and the display row it shows (-1: none). */
  hover: number;
  hoverRow: number;
  sel: { sample: SampleInfo; screen: number } | null;
  /** The cursor, when in view. */
  at: number | null;
  drag: { x: number; width: number } | null;
  ruler: [number, number] | null;
}

/** Rows at least this tall (CSS pixels) get their operation names written on their bars. */
const LABEL_ROW = 12;

export interface TimelineHost extends Omit<TimelineActions, "zoomRows" | "scrollRows" | "pinRow"> {
  /** The kernel's rows: physical tile id of each, with logical index and grid position. */
  source(): TrackSource;
  /** Names of colour classes 1, 2, … of a colour mode. */
  legend(mode: string): string[];
  /** The kernel's name for samples without a kernel (drawn grey when colouring by kernel). */
  noKernel(): string;
  clockHz(): number;
  /** The clock of the offsets shown (the `clock` trait), named on the axis. */
  clock?(): string;
  at(): number | null;
  selected(): SampleInfo | null;
  /** What the blocks to draw were answered for (filters and colours). */
  state(): string;
  /** The tiles filter: only these rows are shown (all when empty). */
  onlyTiles(): number[];
  /** Search matches to highlight, and the current one (-1: none). */
  matches(): { matches: Matches; current: number } | null;
  /** A picture was drawn (for the timing records and the status line). */
  drew(painted: Painted, final: boolean, ms: number): void;
  /** Draw again at the next frame (some block still waits for its image). */
  again(): void;
  /** The row layout changed (order, pins, tiles filter, vertical zoom or scroll); the timeline redraws itself. */
  rowsChanged(layout: Layout): void;
}

export class Timeline {
  readonly root = el("div", "ipu-nb-timeline");
  private base = el("canvas", "ipu-nb-timeline-base");
  /** Search matches: a veil over what does not match (a layer of its own, redrawn with the base). */
  private marks = el("canvas", "ipu-nb-timeline-marks");
  private overlay = el("canvas", "ipu-nb-timeline-overlay");
  private axis = el("canvas", "ipu-nb-axis");
  readonly readout = el("div", "ipu-nb-readout");
  readonly measure = el("div", "ipu-nb-ruler");
  private width = 600;
  private input: TimelineInput;
  readonly choice: TrackChoice = { order: "physical", only: [], pinned: [], inView: 0, scroll: 0 };
  private readonly layouts = new RowLayouts();
  private described: Layout | null = null;
  /** Whether the marks layer holds anything (then a draw without matches clears it once). */
  private marked = false;
  /** Block images made off the page (raster worker); each one that arrives draws again. */
  private maker: ImageMaker;
  /** Block images made on the page, in frames and on arrival. */
  private madeHere = 0;

  constructor(
    private host: TimelineHost,
    private cache: BlockCache,
    bag: Disposers,
  ) {
    const stack = el("div", "ipu-nb-timeline-stack");
    stack.append(this.base, this.marks, this.overlay);
    const under = el("div", "ipu-nb-under");
    under.append(this.readout, this.measure);
    this.root.append(stack, this.axis, under);
    const shape = {
      rowAt: (y: number) => this.rowAt(y),
      width: () => this.width,
      changed: () => this.drawOverlay(),
    };
    const actions: TimelineActions = {
      ...host,
      zoomRows: (f, anchor) => this.zoomRows(f, anchor),
      scrollRows: (n) => this.scrollBy(n),
      pinRow: (screen) => this.pinScreenRow(screen),
    };
    this.input = new TimelineInput(this.overlay, actions, shape, bag);
    this.maker = new ImageMaker(() => host.again(), bag);
  }

  private get dpr(): number {
    return window.devicePixelRatio || 1;
  }

  plotWidth(): number {
    return plotWidth(this.width);
  }

  /** Device pixels across the plot: the resolution the view's level is chosen for. */
  pixels(): number {
    return Math.round(this.plotWidth() * this.dpr);
  }

  resize(width: number): void {
    this.width = Math.max(200, width);
    this.draw();
  }

  // ---- rows ------------------------------------------------------------------------------------

  /** The current row layout (made again when what it depends on changes: rowlayout.ts). */
  layout(): Layout {
    return this.heldLayout().layout;
  }

  private heldLayout(): HeldLayout {
    this.choice.only = this.host.onlyTiles() ?? [];
    const height = Math.round(PLOT_HEIGHT * this.dpr);
    return this.layouts.get(this.host.source(), this.choice, height, this.dpr, (l) => this.host.rowsChanged(l));
  }

  /** The display row showing kernel row `row` (-1: not shown). */
  displayRowOf(row: number): number {
    return this.heldLayout().rowOf[row] ?? -1;
  }

  private rowsChanged(): void {
    this.draw();
  }

  setOrder(order: TileOrder): void {
    this.choice.order = order;
    this.rowsChanged();
  }

  /** Vertical zoom by `factor` (< 1: fewer, taller rows), keeping screen row `anchor` where it is. */
  zoomRows(factor: number, anchor = 0): void {
    const before = this.layout();
    const d = displayRowAt(before, anchor);
    const tile = d >= before.pinnedRows ? (d - before.pinnedRows) * before.perRow : before.scroll;
    this.choice.inView = Math.max(1, Math.round(before.inView * factor));
    const after = this.layout();
    const screen = Math.max(0, anchor - after.pinnedRows);
    this.choice.scroll = Math.max(0, tile - screen * after.perRow);
    this.rowsChanged();
  }

  /** Scroll by `rows` screen rows (the wheel over the labels). */
  scrollBy(rows: number): void {
    const layout = this.layout();
    this.choice.scroll = Math.max(0, layout.scroll + Math.round(rows) * layout.perRow);
    this.rowsChanged();
  }

  /** Scroll by `pages` pages of rows (a fraction: the arrow keys), at least one row. */
  scrollPages(pages: number): void {
    this.scrollBy(pageRows(this.layout().scrolledRows, pages));
  }

  /** Pin `tile` to the top (unpin it when it is pinned). */
  togglePin(tile: number): void {
    const pins = this.choice.pinned;
    this.choice.pinned = pins.includes(tile) ? pins.filter((t) => t !== tile) : [...pins, tile];
    this.rowsChanged();
  }

  unpinAll(): void {
    this.choice.pinned = [];
    this.rowsChanged();
  }

  private pinScreenRow(screen: number): void {
    const layout = this.layout();
    const d = displayRowAt(layout, screen);
    if (d < 0) return;
    const tiles = membersOf(layout, d).map((r) => this.host.source().rows[r]);
    if (d < layout.pinnedRows) this.choice.pinned = this.choice.pinned.filter((t) => !tiles.includes(t));
    else this.choice.pinned = [...this.choice.pinned, ...tiles.filter((t) => !this.choice.pinned.includes(t))];
    this.rowsChanged();
  }

  /** Scroll so that kernel row `row` is on screen (when it is shown at all). */
  reveal(row: number): void {
    const layout = this.layout();
    const scroll = revealScroll(layout, row);
    if (scroll === layout.scroll) return;
    this.choice.scroll = scroll;
    this.rowsChanged();
  }

  /** The kernel row under plot y (CSS pixels): within an aggregated row, by where in it the mouse is. */
  private rowAt(y: number): { row: number; screen: number } | null {
    const layout = this.layout();
    const rowCss = layout.rowPx / this.dpr;
    const screen = Math.floor(y / rowCss);
    const d = displayRowAt(layout, screen);
    if (d < 0) return null;
    const members = layout.offsets[d + 1] - layout.offsets[d];
    const within = Math.min(members - 1, Math.max(0, Math.floor(((y - screen * rowCss) / rowCss) * members)));
    return { row: layout.members[layout.offsets[d] + within], screen };
  }

  private get plotHeight(): number {
    const layout = this.layout();
    return Math.max(1, ((layout.pinnedRows + layout.scrolledRows) * layout.rowPx) / this.dpr);
  }

  /** The theme changed: block images are made again in its colours, and everything redrawn. */
  recolour(): void {
    this.draw();
  }

  // ---- drawing ------------------------------------------------------------------------------

  private colours(mode: string): [number, number, number][] {
    return classColours(mode, this.host.legend(mode), this.host.noKernel());
  }

  /** What block images are made for now: the rows, their layout, the colours. */
  private imageSpec(): ImageSpec {
    return {
      rows: this.host.source().rows.length,
      layout: this.layout(),
      colours: (mode) => this.colours(mode),
      tone: theme().dark ? "dark" : "light",
      maker: this.maker,
    };
  }

  /** Have the image of a block just received made (`prepareImage`): here or in the worker. */
  prepare(entry: CacheEntry): void {
    const [s, e] = this.host.view();
    const shown =
      entry.level === this.level() && blocksIn(entry.level, s, e, Math.max(this.host.span(), 8)).includes(entry.index);
    if (prepareImage(this.cache, entry, this.imageSpec(), shown)) this.madeHere++;
  }

  /** Block images made so far: on the page (in frames and on arrival) and in the worker (false when there is none). */
  images(): { page: number; worker: number | false } {
    return { page: this.madeHere, worker: this.maker.available && this.maker.made };
  }

  /** Whether `entry`'s block lies in the view (else it is drawn when the view comes to it). */
  inView(entry: CacheEntry): boolean {
    const [s, e] = this.host.view();
    const [a, b] = blockRange(entry.level, entry.index);
    return a < e && b > s;
  }

  /** Whether the cache holds everything the current view needs. */
  isFinal(): boolean {
    const span = this.host.span();
    return viewIsFinal(this.cache, this.host.view(), this.pixels(), span, Math.max(span, 8), this.host.state());
  }

  draw(): Painted {
    const began = performance.now();
    const layout = this.layout();
    const h = this.plotHeight;
    const ctx = sizeCanvas(this.base, this.width, h);
    sizeCanvas(this.overlay, this.width, h);
    ctx.clearRect(0, 0, this.width, h);
    ctx.fillStyle = theme().plot;
    ctx.fillRect(GUTTER, 0, this.plotWidth(), h);
    const view = this.host.view();
    const span = this.host.span();
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, this.plotWidth(), h);
    ctx.clip();
    const painted = paintView(this.cache, {
      ...this.imageSpec(),
      ctx,
      view,
      limit: Math.max(span, 8),
      span,
      pixels: this.pixels(),
      x: GUTTER,
      width: this.plotWidth(),
      dpr: this.dpr,
      state: this.host.state(),
    });
    this.madeHere += painted.made;
    const rowCss = layout.rowPx / this.dpr;
    if (rowCss >= 4) {
      ctx.fillStyle = INK.rowGap;
      for (let s = 1; s < layout.pinnedRows + layout.scrolledRows; s++)
        ctx.fillRect(GUTTER, s * rowCss - 1 / this.dpr, this.plotWidth(), 1 / this.dpr);
    }
    const frame = this.frame(view, layout);
    this.marked = drawMarks(this.marks, frame, h, this.host.matches(), this.marked);
    if (rowCss >= LABEL_ROW && layout.perRow === 1) {
      drawBarLabels(
        ctx,
        frame,
        painted.raw.map((e) => e.data as RawWindow & { colorBy: string }),
        (m) => this.host.legend(m),
      );
    }
    ctx.restore();
    drawGutter(ctx, frame, h, this.host.source(), this.choice.order === "grid");
    drawAxis(this.axis, view, this.width, this.host.clockHz(), this.host.clock?.());
    this.drawOverlay();
    const final = painted.blocks > 0 && painted.exact === painted.blocks;
    this.describe(layout);
    this.host.drew(painted, final, performance.now() - began);
    if (painted.deferred) this.host.again();
    return painted;
  }

  /** What the rows show, on the root for tests and benchmarks: the first tiles on screen, tiles per row, row height. */
  private describe(layout: Layout): void {
    if (this.described === layout) return; // attributes written only when the rows change
    this.described = layout;
    const rows = this.host.source().rows;
    const d = this.root.dataset;
    const shown: number[] = [];
    for (let s = 0; s < Math.min(40, layout.pinnedRows + layout.scrolledRows); s++) {
      shown.push(rows[layout.members[layout.offsets[displayRowAt(layout, s)]]]);
    }
    d.tiles = JSON.stringify(shown);
    d.perRow = String(layout.perRow);
    d.rowPx = String(layout.rowPx);
    d.pinned = String(layout.pinnedRows);
    d.order = this.choice.order;
  }

  /** What the layers drawn beside the blocks need to know of this picture. */
  private frame(view: Range, layout: Layout): Frame {
    return {
      view,
      width: this.width,
      plotWidth: this.plotWidth(),
      layout,
      dpr: this.dpr,
      screenOf: (row) => screenRowOf(layout, this.displayRowOf(row)),
    };
  }

  drawOverlay(): void {
    const layout = this.layout();
    const h = this.plotHeight;
    const view = this.host.view();
    const hover = this.input.hoverScreen;
    const sel = this.host.selected();
    const selRow = sel ? this.host.source().rows.indexOf(sel.tile) : -1;
    const at = this.host.at();
    const shown: OverlayParts = {
      hover,
      hoverRow: displayRowAt(layout, hover),
      sel: sel && selRow >= 0 ? { sample: sel, screen: screenRowOf(layout, this.displayRowOf(selRow)) } : null,
      at: at !== null && at >= view[0] && at <= view[1] ? at : null,
      drag: this.input.dragged,
      ruler: this.input.ruler.range(),
    };
    if (shown.sel && shown.sel.screen < 0) shown.sel = null;
    const clock = this.host.clockHz();
    const rulerLabel = shown.ruler ? rulerText(shown.ruler[0], shown.ruler[1], clock) : "";
    // Most frames of a pan or zoom have nothing here: the blank layer is then left alone.
    const drawing =
      shown.hoverRow >= 0 || shown.sel !== null || shown.at !== null || shown.drag !== null || shown.ruler !== null;
    const ctx = layerContext(this.overlay, this.width, h, drawing);
    if (ctx) this.paintOverlay(ctx, shown, layout, view, h, rulerLabel);
    const ruler = shown.ruler;
    if (ruler) {
      setText(
        this.measure,
        `ruler: ${rulerLabel} (from ${Math.round(ruler[0]).toLocaleString("en-US")} to ${Math.round(ruler[1]).toLocaleString("en-US")})`,
      );
      this.measure.dataset.delta = String(Math.round(ruler[1]) - Math.round(ruler[0]));
    } else if (this.measure.textContent) {
      this.measure.textContent = "";
      delete this.measure.dataset.delta;
    }
    const p = this.input.pointer;
    if (p) {
      const d = this.displayRowOf(p.row);
      const tiles = d >= 0 ? membersOf(layout, d).map((r) => this.host.source().rows[r]) : [];
      setText(this.readout, readoutText(p.x, clock, tiles));
    } else {
      setText(this.readout, "");
    }
  }

  /** The overlay's marks: the hovered row and its label, the selected sample, the cursor, the drag, the ruler. */
  private paintOverlay(
    ctx: CanvasRenderingContext2D,
    o: OverlayParts,
    layout: Layout,
    [s, e]: Range,
    h: number,
    rulerLabel: string,
  ): void {
    const k = pixelsPerCycle([s, e], this.width);
    const rowCss = layout.rowPx / this.dpr;
    if (o.hoverRow >= 0) {
      ctx.fillStyle = theme().dark ? "rgba(255,255,255,0.08)" : INK.hoverRow;
      ctx.fillRect(0, o.hover * rowCss, this.width, Math.max(rowCss, 1));
      // The hovered row's label, whatever labels the gutter has room for.
      ctx.font = "10px sans-serif";
      ctx.textBaseline = "middle";
      ctx.textAlign = "right";
      const y = Math.min(Math.max(o.hover * rowCss + rowCss / 2, 6), h - 6);
      ctx.fillStyle = theme().background;
      ctx.fillRect(0, y - 6, GUTTER - 2, 12);
      ctx.fillStyle = theme().outline;
      ctx.fillText(rowLabel(layout, o.hoverRow, this.host.source().rows), GUTTER - 5, y);
      ctx.textAlign = "left";
    }
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER, 0, this.plotWidth(), h);
    ctx.clip(); // nothing spills into the labels
    if (o.sel) {
      const x = GUTTER + (o.sel.sample.offset - s) * k;
      const w = Math.max(o.sel.sample.duration * k, 2);
      ctx.strokeStyle = theme().outline;
      ctx.lineWidth = 1.5;
      ctx.strokeRect(x, o.sel.screen * rowCss - 1, w, Math.max(rowCss, 1) + 2);
    }
    if (o.at !== null) {
      const x = GUTTER + (o.at - s) * k;
      ctx.strokeStyle = theme().cursor;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x + 0.5, 0);
      ctx.lineTo(x + 0.5, h);
      ctx.stroke();
    }
    if (o.drag) {
      ctx.fillStyle = INK.drag;
      ctx.strokeStyle = INK.dragEdge;
      ctx.fillRect(o.drag.x, 0, o.drag.width, h);
      ctx.strokeRect(o.drag.x + 0.5, 0.5, o.drag.width, h - 1);
    }
    if (o.ruler) this.drawRuler(ctx, o.ruler, rulerLabel, s, k, h);
    ctx.restore();
  }

  private drawRuler(
    ctx: CanvasRenderingContext2D,
    ruler: [number, number],
    text: string,
    s: number,
    k: number,
    h: number,
  ): void {
    const x0 = GUTTER + (ruler[0] - s) * k;
    const x1 = GUTTER + (ruler[1] - s) * k;
    ctx.fillStyle = INK.ruler;
    ctx.fillRect(x0, 0, Math.max(x1 - x0, 1), h);
    ctx.strokeStyle = INK.rulerEdge;
    ctx.lineWidth = 1;
    for (const x of [x0, x1]) {
      ctx.beginPath();
      ctx.moveTo(x + 0.5, 0);
      ctx.lineTo(x + 0.5, h);
      ctx.stroke();
    }
    ctx.font = "11px sans-serif";
    ctx.textBaseline = "top";
    const tw = ctx.measureText(text).width + 8;
    const tx = Math.min(Math.max(GUTTER + 2, (x0 + x1) / 2 - tw / 2), this.width - tw - 2);
    ctx.fillStyle = "rgba(255,255,255,0.92)";
    ctx.fillRect(tx, 4, tw, 16);
    ctx.fillStyle = INK.rulerEdge;
    ctx.fillText(text, tx + 4, 6);
  }

  /** The view or rows changed: the overlay follows, and what is under a resting mouse is asked again. */
  viewChanged(): void {
    this.maker.hold();
    this.input.moved();
  }

  /** The ruler, cleared (Escape); true when there was one. */
  clearRuler(): boolean {
    if (!this.input.ruler.active) return false;
    this.input.ruler.clear();
    this.drawOverlay();
    return true;
  }

  /** The level the view is drawn at (for the status line). */
  level(): number {
    return levelFor(this.host.view(), this.pixels(), this.host.span());
  }

  /** The coarsest level of the profile. */
  top(): number {
    return topLevel(this.host.span());
  }

  /** The kernel row of a physical tile id (-1 when there is none). */
  rowOfTile(tile: number): number {
    return this.host.source().rows.indexOf(tile);
  }

  // ---- layers of other modules (the selected area, highlights) --------------------------------

  /** Put `canvas` over the bars and under the overlay, which keeps the mouse; returns the overlay. */
  addLayer(canvas: HTMLCanvasElement): HTMLCanvasElement {
    this.overlay.before(canvas);
    return this.overlay;
  }

  /** What a layer drawn in step with the timeline needs: the canvases' CSS size and the row layout. */
  geometry(): { width: number; height: number; layout: Layout } {
    return { width: this.width, height: this.plotHeight, layout: this.layout() };
  }
}
