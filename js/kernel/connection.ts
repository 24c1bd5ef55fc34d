// Whether the view can still reach its kernel. After a kernel restart (or shutdown) the
// Python widget is gone: the view says so in a banner, turns its controls off and stops
// sending, instead of throwing on every click. It learns it from the widget manager
// (`comm_live_update`, which JupyterLab's manager fires when the kernel restarts, and
// `comm:close`) or from a send that fails.

import type { AnyModel } from "@anywidget/types";
import type { Callback, Disposers } from "../common/disposers";
import { el } from "../common/dom";
import type { Traits } from "./types";

export class Connection {
  readonly banner = el("div", "ipu-nb-banner");
  /** Why the view lost its kernel, or null while connected. */
  private lost: string | null = null;
  private root: HTMLElement | null = null;
  private onLost: () => void = () => {};
  /** The model with sends and saves that never throw and do nothing once disconnected. */
  readonly model: AnyModel<Traits>;

  constructor(
    raw: AnyModel<Traits>,
    private bag: Disposers,
  ) {
    this.banner.hidden = true;
    this.banner.setAttribute("role", "alert");
    // The manager sets comm_live once before any view opens; a later change is a disconnect.
    bag.on(raw, "comm_live_update", () => this.lose("the kernel restarted or stopped"));
    bag.on(raw, "comm:close", () => this.lose("the kernel closed this widget"));
    const guard =
      <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
      (...args: A): void => {
        if (this.lost !== null) return;
        try {
          fn(...args);
        } catch (error) {
          this.lose(`${what} failed (${error instanceof Error ? error.message : String(error)})`);
        }
      };
    this.model = {
      get: (key) => raw.get(key),
      set: (key, value) => raw.set(key, value),
      on: (event: string, fn: Callback) => raw.on(event, fn),
      off: (event, fn) => raw.off(event, fn),
      save_changes: guard("saving a change", () => raw.save_changes()),
      send: guard(
        "sending a message",
        (content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[] | ArrayBufferView[]) =>
          raw.send(content, callbacks, buffers),
      ),
      widget_manager: raw.widget_manager,
    };
  }

  /** The view's root (the banner belongs in it) and what else to do once disconnected. */
  attach(root: HTMLElement, onLost: () => void = () => {}): void {
    this.root = root;
    this.onLost = onLost;
    // Keys would still zoom and pan a picture nothing can refresh.
    this.bag.listen(root, "keydown", (e) => this.lost !== null && e.stopImmediatePropagation(), { capture: true });
    if (this.lost !== null) this.show();
  }

  get connected(): boolean {
    return this.lost === null;
  }

  /** Show the banner, turn the controls off and stop sending (once). */
  lose(reason: string): void {
    if (this.lost !== null) return;
    this.lost = reason;
    if (this.root) this.show();
  }

  private show(): void {
    const root = this.root!;
    this.banner.textContent = "";
    this.banner.append(
      el("span", "ipu-nb-banner-title", "Disconnected"),
      el(
        "span",
        undefined,
        `${this.lost}: this view can no longer ask the kernel for anything. Run the cell again for a live view.`,
      ),
    );
    this.banner.hidden = false;
    root.dataset.disconnected = this.lost!;
    for (const tag of ["input", "select", "button"]) {
      for (const control of root.querySelectorAll<HTMLInputElement>(tag)) control.disabled = true;
    }
    this.onLost();
  }
}
