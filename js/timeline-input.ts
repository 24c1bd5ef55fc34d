// Mouse input on the timeline: drag to zoom onto a range, click to pick (set the cursor and
// select the sample there), rest to hover, wheel to zoom (shift or sideways to pan), right
// click to undo a zoom. What it holds between events (the drag, the hovered row) the
// overlay draws.

import type { Disposers, Timer } from "./disposers";
import { cycleAt, GUTTER, plotWidth, rowHeight } from "./plot";
import { between, type Range } from "./view";

/** Pointer moves shorter than this are a click, not a drag. */
const DRAG_PX = 3;
/** The mouse rests this long before the kernel is asked what is under it. */
const HOVER_MS = 40;

/** What the input does: view changes, picks and hover lookups. */
export interface TimelineActions {
  view(): Range;
  span(): number;
  setView(view: Range, remember: boolean): void;
  /** One wheel event's zoom by `factor` around `anchor` (0..1 across the view). */
  zoom(factor: number, anchor: number): void;
  undoZoom(): void;
  pick(row: number, x: number): void;
  hover(row: number, x: number, clientX: number, clientY: number): void;
  unhover(): void;
}

/** What the input needs to know of the timeline. */
export interface TimelineShape {
  /** How many timeline rows there are. */
  rowCount(): number;
  /** The canvas' width in CSS pixels. */
  width(): number;
  /** The drag or the hovered row changed: redraw the overlay. */
  changed(): void;
}

/** Where a mouse event is: row, cycle (inside the view), fraction across the plot, canvas x. */
export interface Place {
  row: number;
  x: number;
  fx: number;
  px: number;
}

export class TimelineInput {
  /** Canvas x where a drag began and where it is now. */
  drag: { x0: number; x1: number } | null = null;
  /** The row under the mouse, -1 when none. */
  hoverRow = -1;
  private hoverTimer: Timer;
  private hoverAt: [row: number, x: number, clientX: number, clientY: number] = [0, 0, 0, 0];

  constructor(
    private canvas: HTMLCanvasElement,
    private host: TimelineActions,
    private shape: TimelineShape,
    bag: Disposers,
  ) {
    this.hoverTimer = bag.timer(() => this.host.hover(...this.hoverAt));
    bag.listen(canvas, "mousedown", (e) => this.onDown(e));
    bag.listen(canvas, "mousemove", (e) => this.onMove(e));
    bag.listen(canvas, "mouseleave", () => {
      this.hoverRow = -1;
      this.host.unhover();
      this.shape.changed();
    });
    bag.listen(canvas, "contextmenu", (e) => {
      e.preventDefault();
      e.stopPropagation();
      this.host.undoZoom();
    });
    bag.listen(canvas, "wheel", (e) => this.onWheel(e), { passive: false });
    // A drag may end outside the canvas.
    bag.listen(window, "mouseup", (e) => this.onUp(e));
  }

  /** The drag's extent when it is long enough to be one. */
  get dragged(): { x: number; width: number } | null {
    const d = this.drag;
    if (!d || Math.abs(d.x1 - d.x0) <= DRAG_PX) return null;
    return { x: Math.min(d.x0, d.x1), width: Math.abs(d.x1 - d.x0) };
  }

  locate(e: MouseEvent): Place {
    const rect = this.canvas.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    const [s, t] = this.host.view();
    const fx = (px - GUTTER) / plotWidth(this.shape.width());
    const rows = this.shape.rowCount();
    const row = Math.min(rows - 1, Math.max(0, Math.floor(py / rowHeight(rows))));
    // Inside the view even when the button is released beyond the plot: the kernel refuses offsets outside it.
    return { row, x: Math.round(s + Math.min(1, Math.max(0, fx)) * (t - s)), fx, px };
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const { fx } = this.locate(e);
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const delta = e.shiftKey ? e.deltaY : e.deltaX;
      const [s, t] = this.host.view();
      const shift = ((t - s) * delta) / Math.max(plotWidth(this.shape.width()), 1);
      this.host.setView([s + shift, t + shift], false);
    } else {
      this.host.zoom(Math.exp(e.deltaY * 0.0015), Math.min(1, Math.max(0, fx)));
    }
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) return;
    const { px } = this.locate(e);
    if (px < GUTTER) return;
    e.preventDefault();
    this.drag = { x0: px, x1: px };
  }

  private onMove(e: MouseEvent): void {
    const { row, x, px } = this.locate(e);
    if (this.drag) {
      this.drag.x1 = Math.max(GUTTER, Math.min(px, this.shape.width()));
      this.shape.changed();
      return;
    }
    if (px < GUTTER) return;
    this.hoverRow = row;
    this.shape.changed();
    this.hoverAt = [row, x, e.clientX, e.clientY];
    this.hoverTimer.start(HOVER_MS);
  }

  private onUp(e: MouseEvent): void {
    const drag = this.drag;
    if (!drag) return;
    const dragged = this.dragged;
    this.drag = null;
    const view = this.host.view();
    const width = this.shape.width();
    if (dragged) {
      this.host.setView(between(cycleAt(drag.x0, view, width), cycleAt(drag.x1, view, width), this.host.span()), true);
    } else {
      const { row, x } = this.locate(e);
      if (x >= 0) this.host.pick(row, x);
    }
    this.shape.changed();
  }
}
