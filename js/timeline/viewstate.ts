// The visible range (the `view` trait) and every way it changes: clamped into the profile,
// with an undo stack of earlier views (one entry per wheel gesture, not per wheel event).

import type { Timer } from "../common/disposers";
import { clampView, pan, type Range, zoomAt } from "./view";

/** Wheel events closer together than this are one gesture (one undo entry). */
const WHEEL_GESTURE_MS = 600;
/**
 * While the view keeps changing (a wheel burst moves it every few milliseconds), it goes to
 * the kernel at most this often, the latest always last: each message costs the page the
 * kernel's busy and idle status updates, and the picture is drawn here from the cache anyway.
 */
export const SAVE_MS = 100;

export interface ViewStateHost {
  model: {
    get(name: "view"): Range;
    set(name: "view", value: Range): void;
    save_changes(): void;
  };
  span(): number;
  /** After this front end changed the view (the model's change event has fired: redraw there). */
  changed(): void;
  now?(): number;
  /** A timer running `fn` (saves are then spaced by `SAVE_MS`); without one every change is saved at once. */
  timer?(fn: () => void): Timer;
}

export class ViewState {
  private undoStack: Range[] = [];
  private lastWheel = -Infinity;
  private lastSave = -Infinity;
  private saveTimer: Timer | null;
  /** A view set here whose save waits for the timer (null: none). */
  private unsaved: Range | null = null;

  constructor(private host: ViewStateHost) {
    this.saveTimer = host.timer?.(() => this.save()) ?? null;
  }

  private now(): number {
    return this.host.now?.() ?? performance.now();
  }

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
    const now = this.now();
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

  /**
   * After the model's view changed: when the kernel's echo of an earlier save overwrote a view
   * set here and not saved yet, put that view back (its save still comes) and say so. The
   * widget framework applies the echo of the latest message sent, and a view waiting for its
   * save is in no message yet: without this, keys pressed in quick succession were lost.
   */
  restoreUnsaved(): boolean {
    const u = this.unsaved;
    if (u === null) return false;
    const v = this.host.model.get("view");
    if (v[0] === u[0] && v[1] === u[1]) return false;
    this.host.model.set("view", u);
    return true;
  }

  private apply(v: Range): void {
    const timer = this.saveTimer;
    const wait = this.lastSave + SAVE_MS - this.now();
    const later = timer !== null && wait > 0;
    // Before the model's change event: its handler (`restoreUnsaved`) must see `v` as the view
    // set here, not the one it replaces.
    this.unsaved = later ? v : null;
    this.host.model.set("view", v);
    if (!later) this.save();
    else if (!timer.pending) timer.start(wait);
    this.host.changed();
  }

  private save(): void {
    this.saveTimer?.cancel();
    this.unsaved = null;
    this.lastSave = this.now();
    this.host.model.save_changes();
  }
}
