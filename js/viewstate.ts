// The visible range (the `view` trait) and every way it changes: clamped into the profile,
// with an undo stack of earlier views (one entry per wheel gesture, not per wheel event).

import { clampView, pan, zoomAt, type Range } from "./view";

/** Wheel events closer together than this are one gesture (one undo entry). */
const WHEEL_GESTURE_MS = 600;

export interface ViewStateHost {
  model: {
    get(name: "view"): Range;
    set(name: "view", value: Range): void;
    save_changes(): void;
  };
  span(): number;
  /** After this front end changed the view (the model's change event fires too). */
  changed(): void;
  now?(): number;
}

export class ViewState {
  private undoStack: Range[] = [];
  private lastWheel = -Infinity;

  constructor(private host: ViewStateHost) {}

  /** The view as the model holds it. */
  get(): Range {
    const v = this.host.model.get("view");
    return [v[0], v[1]];
  }

  /** How many views `undo` can go back. */
  get depth(): number {
    return this.undoStack.length;
  }

  /** Show `next` (clamped); `remember` keeps the current view for `undo`. */
  set(next: Range, remember: boolean): void {
    const v = clampView(next, this.host.span());
    const cur = this.get();
    if (v[0] === cur[0] && v[1] === cur[1]) return;
    if (remember) this.undoStack.push(cur);
    this.apply(v);
  }

  zoom(factor: number, anchor = 0.5): void {
    this.set(zoomAt(this.get(), factor, anchor, this.host.span()), true);
  }

  /** Zoom for one wheel event; remembered once per gesture. */
  wheelZoom(factor: number, anchor: number): void {
    const now = this.host.now?.() ?? performance.now();
    this.set(zoomAt(this.get(), factor, anchor, this.host.span()), now - this.lastWheel > WHEEL_GESTURE_MS);
    this.lastWheel = now;
  }

  /** Shift by a fraction of the width (negative: left); not remembered. */
  pan(fraction: number): void {
    this.set(pan(this.get(), fraction, this.host.span()), false);
  }

  /** The whole profile. */
  reset(): void {
    this.set([0, this.host.span()], true);
  }

  /** Back to the view before the latest remembered change, if any. */
  undo(): void {
    const prev = this.undoStack.pop();
    if (prev) this.apply(prev);
  }

  private apply(v: Range): void {
    this.host.model.set("view", v);
    this.host.model.save_changes();
    this.host.changed();
  }
}
