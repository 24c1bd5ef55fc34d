// Mouse input on the timeline: drag to zoom onto a range, shift-drag to measure (the ruler),
// click to pick (set the cursor and select the sample there), rest to hover, wheel to zoom
// (shift or sideways to pan, ctrl for the rows), wheel over the tile labels to scroll the
// rows, click a label to pin its tile, right click to undo a zoom. What it holds between
// events (the drag, the ruler, the row and offset under the mouse) the overlay draws.

import type { Disposers, Timer } from "../common/disposers";
import { cycleAt, GUTTER, plotWidth } from "./plot";
import { Ruler } from "./ruler";
import { between, type Range } from "./view";

/** Pointer moves shorter than this are a click, not a drag. */
const DRAG_PX = 3;
/** The mouse rests this long before the kernel is asked what is under it. */
const HOVER_MS = 40;

/** What the input does: view changes, picks, hover lookups, rows. */
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
  /** Vertical zoom by `factor` (< 1: fewer, taller rows) keeping screen row `anchor` in place. */
  zoomRows(factor: number, anchor: number): void;
  /** Scroll the rows by `rows` screen rows (negative: up). */
  scrollRows(rows: number): void;
  /** Pin (or unpin) the tile(s) of screen row `screenRow`. */
  pinRow(screenRow: number): void;
}

/** What the input needs to know of the timeline. */
export interface TimelineShape {
  /** The kernel row (tile) under plot y `y` (CSS pixels) in screen row `screen`, or null below the rows. */
  rowAt(y: number): { row: number; screen: number } | null;
  /** The canvas' width in CSS pixels. */
  width(): number;
  /** The drag, ruler or hovered row changed: redraw the overlay. */
  changed(): void;
}

/** Where a mouse event is: kernel row (-1: none), screen row, cycle (inside the view), fraction across the plot, canvas x. */
export interface Place {
  row: number;
  screen: number;
  x: number;
  fx: number;
  px: number;
  py: number;
}

export class TimelineInput {
  /** Canvas x where a drag began and where it is now. */
  drag: { x0: number; x1: number } | null = null;
  readonly ruler = new Ruler();
  private measuring = false;
  /** The screen row under the mouse, -1 when none. */
  hoverScreen = -1;
  /** The offset and kernel row under the mouse (for the readout), null when it is elsewhere. */
  pointer: { x: number; row: number; screen: number } | null = null;
  private hoverTimer: Timer;
  private hoverAt: [row: number, x: number, clientX: number, clientY: number] = [0, 0, 0, 0];
  private client: { x: number; y: number } | null = null;

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
      this.hoverScreen = -1;
      this.pointer = null;
      this.client = null;
      this.hoverTimer.cancel();
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
    if (!d || this.measuring || Math.abs(d.x1 - d.x0) <= DRAG_PX) return null;
    return { x: Math.min(d.x0, d.x1), width: Math.abs(d.x1 - d.x0) };
  }

  locate(e: { clientX: number; clientY: number }): Place {
    const rect = this.canvas.getBoundingClientRect();
    const px = e.clientX - rect.left;
    const py = e.clientY - rect.top;
    const [s, t] = this.host.view();
    const fx = (px - GUTTER) / plotWidth(this.shape.width());
    const at = this.shape.rowAt(py);
    // Inside the view even when the button is released beyond the plot: the kernel refuses offsets outside it.
    return {
      row: at?.row ?? -1,
      screen: at?.screen ?? -1,
      x: Math.round(s + Math.min(1, Math.max(0, fx)) * (t - s)),
      fx,
      px,
      py,
    };
  }

  /** The view or the rows changed under a resting mouse: what is under it now is asked for again. */
  moved(): void {
    if (!this.client || this.drag) return;
    const place = this.locate({ clientX: this.client.x, clientY: this.client.y });
    this.track(place, this.client.x, this.client.y);
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const place = this.locate(e);
    const sideways = Math.abs(e.deltaX) > Math.abs(e.deltaY);
    if (e.ctrlKey || e.metaKey) {
      this.host.zoomRows(Math.exp(e.deltaY * 0.002), Math.max(0, place.screen));
    } else if (place.px < GUTTER && !sideways && !e.shiftKey) {
      this.host.scrollRows(Math.sign(e.deltaY) * Math.max(1, Math.round(Math.abs(e.deltaY) / 40)));
    } else if (e.shiftKey || sideways) {
      const delta = e.shiftKey ? e.deltaY || e.deltaX : e.deltaX;
      const [s, t] = this.host.view();
      const shift = ((t - s) * delta) / Math.max(plotWidth(this.shape.width()), 1);
      this.host.setView([s + shift, t + shift], false);
    } else {
      this.host.zoom(Math.exp(e.deltaY * 0.0015), Math.min(1, Math.max(0, place.fx)));
    }
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) return;
    const place = this.locate(e);
    if (place.px < GUTTER) {
      if (place.screen >= 0) this.host.pinRow(place.screen);
      return;
    }
    e.preventDefault();
    this.drag = { x0: place.px, x1: place.px };
    this.measuring = e.shiftKey;
    if (this.measuring) {
      this.ruler.start(place.x);
      this.shape.changed();
    }
  }

  private onMove(e: MouseEvent): void {
    const place = this.locate(e);
    if (this.drag) {
      this.drag.x1 = Math.max(GUTTER, Math.min(place.px, this.shape.width()));
      if (this.measuring) this.ruler.move(place.x);
      this.pointer = { x: place.x, row: place.row, screen: place.screen };
      this.shape.changed();
      return;
    }
    this.client = { x: e.clientX, y: e.clientY };
    this.track(place, e.clientX, e.clientY);
  }

  private track(place: Place, clientX: number, clientY: number): void {
    if (place.px < GUTTER || place.row < 0) {
      this.pointer = null;
      this.hoverScreen = place.px < GUTTER ? place.screen : -1;
      this.hoverTimer.cancel();
      this.host.unhover();
      this.shape.changed();
      return;
    }
    this.hoverScreen = place.screen;
    this.pointer = { x: place.x, row: place.row, screen: place.screen };
    this.shape.changed();
    this.hoverAt = [place.row, place.x, clientX, clientY];
    this.hoverTimer.start(HOVER_MS);
  }

  private onUp(e: MouseEvent): void {
    const drag = this.drag;
    if (!drag) return;
    const dragged = this.dragged;
    const measuring = this.measuring;
    this.drag = null;
    this.measuring = false;
    const view = this.host.view();
    const width = this.shape.width();
    if (measuring) {
      this.ruler.move(this.locate(e).x);
      if (Math.abs(drag.x1 - drag.x0) <= DRAG_PX) this.ruler.clear(); // a shift-click measures nothing
    } else if (dragged) {
      this.host.setView(between(cycleAt(drag.x0, view, width), cycleAt(drag.x1, view, width), this.host.span()), true);
    } else {
      const { row, x } = this.locate(e);
      if (row >= 0 && x >= 0) this.host.pick(row, x);
      this.ruler.clear();
    }
    this.shape.changed();
  }
}
