// The side panel's width: a handle on its left edge drags it wider or narrower (a double click
// sets it back). The width stays within bounds (the timeline keeps room beside it) and is kept per
// widget model, so every view of the widget opens at the width last dragged to while it lives.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";

/** The side panel's width before any drag (widget.css's fallback for `--ipu-nb-side-width`). */
export const SIDE_PX = 340;
/** The narrowest and widest it may be dragged to. */
export const MIN_SIDE_PX = 260;
export const MAX_SIDE_PX = 1400;
/** What the timeline's column keeps beside it (its narrowest useful plot, and the gap). */
export const TIMELINE_ROOM_PX = 490;

/** The width a drag asks for, kept within bounds for a row `room` pixels wide (the panel and the timeline). */
export function sideWidth(wanted: number, room: number): number {
  const widest = Math.min(MAX_SIDE_PX, room - TIMELINE_ROOM_PX);
  return Math.round(Math.max(MIN_SIDE_PX, Math.min(wanted, widest)));
}

/** Each widget model's dragged width (gone with the model). */
const widths = new WeakMap<object, number>();

export class SideWidth {
  readonly handle = el("div", "ipu-nb-side-handle");
  private drag: { x: number; width: number; pointer: number } | null = null;

  /**
   * `panel` is the side panel, `row` the element holding it beside the timeline (the handle goes
   * just before the panel), `key` what the width is kept under (the widget's model).
   */
  constructor(
    private panel: HTMLElement,
    private row: () => HTMLElement | null,
    private key: object,
    bag: Disposers,
  ) {
    this.handle.title = "Drag to widen the side panel (double-click: back to its width)";
    this.handle.setAttribute("role", "separator");
    this.handle.setAttribute("aria-orientation", "vertical");
    const kept = widths.get(key);
    if (kept !== undefined) this.apply(kept);
    bag.listen(this.handle, "pointerdown", (e) => this.start(e));
    bag.listen(this.handle, "pointermove", (e) => this.move(e));
    bag.listen(this.handle, "pointerup", (e) => this.end(e));
    bag.listen(this.handle, "pointercancel", (e) => this.end(e));
    bag.listen(this.handle, "dblclick", () => this.set(SIDE_PX));
  }

  /** Put the handle on the panel's left edge (once the panel is in its row). */
  place(): void {
    this.panel.before(this.handle);
  }

  /** The width shown now (CSS pixels). */
  width(): number {
    return this.panel.getBoundingClientRect().width;
  }

  /** Set the width (kept within bounds) and keep it for the model's other views. */
  set(wanted: number): void {
    const width = sideWidth(wanted, this.row()?.clientWidth ?? Number.POSITIVE_INFINITY);
    widths.set(this.key, width);
    this.apply(width);
  }

  private apply(width: number): void {
    this.panel.style.setProperty("--ipu-nb-side-width", `${width}px`);
    this.panel.dataset.width = String(width);
  }

  private start(e: PointerEvent): void {
    if (e.button !== 0) return;
    e.preventDefault(); // no text selection while dragging
    e.stopPropagation();
    this.drag = { x: e.clientX, width: this.width(), pointer: e.pointerId };
    this.handle.setPointerCapture(e.pointerId);
    this.handle.dataset.dragging = "true";
  }

  private move(e: PointerEvent): void {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.set(this.drag.width + (this.drag.x - e.clientX)); // the edge is on the left: leftwards widens
  }

  private end(e: PointerEvent): void {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.drag = null;
    if (this.handle.hasPointerCapture(e.pointerId)) this.handle.releasePointerCapture(e.pointerId);
    delete this.handle.dataset.dragging;
  }
}
