// A collapsible side-panel section holding a numbered list: its title counts the rows, an empty list
// says why, and the rows' listeners are dropped at each redraw. The findings and markers panels use it.

import type { Disposers } from "../common/disposers";
import { clear, el } from "../common/dom";

export class ListSection {
  readonly root: HTMLDetailsElement;
  readonly body: HTMLOListElement;
  readonly listeners: Disposers;
  private summary: HTMLElement;

  constructor(
    name: string,
    private title: string,
    bag: Disposers,
  ) {
    this.root = el("details", `ipu-nb-${name}`);
    this.summary = el("summary", "ipu-nb-section-title", title);
    this.body = el("ol", `ipu-nb-${name}-list`);
    this.listeners = bag.child();
    this.root.append(this.summary, this.body);
  }

  /** Empty the list for `count` rows; with none, show `empty` and return false (nothing to add). */
  begin(count: number, empty: string): boolean {
    clear(this.body);
    this.listeners.clear();
    this.summary.textContent = count ? `${this.title} (${count})` : this.title;
    this.root.dataset.count = String(count);
    if (!count) this.body.append(el("li", "ipu-nb-empty", empty));
    return count > 0;
  }
}
