// The help overlay (`?`): every shortcut and mouse gesture, from the one list in keys.ts.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { GESTURES, SHORTCUTS } from "../widget/keys";

const KEY_NAMES: Record<string, string> = {
  ArrowLeft: "←",
  ArrowRight: "→",
  ArrowUp: "↑",
  ArrowDown: "↓",
  Escape: "Esc",
  PageUp: "PgUp",
  PageDown: "PgDn",
  F: "shift + f",
  N: "shift + n",
};

export class Help {
  readonly root = el("div", "ipu-nb-help");

  constructor(bag: Disposers) {
    this.root.hidden = true;
    this.root.setAttribute("role", "dialog");
    this.root.setAttribute("aria-label", "Timeline shortcuts");
    const head = el("div", "ipu-nb-help-head");
    const close = el("button", "ipu-nb-button ipu-nb-help-close", "×");
    close.type = "button";
    close.title = "Close (Esc or ?)";
    bag.listen(close, "click", () => this.hide());
    head.append(el("span", "ipu-nb-section-title", "Timeline shortcuts"), close);
    const table = el("table", "ipu-nb-help-table");
    const row = (keys: string, does: string) => {
      const tr = el("tr");
      tr.append(el("th", "ipu-nb-help-keys", keys), el("td", undefined, does));
      table.append(tr);
    };
    for (const s of SHORTCUTS) row(s.keys.map((k) => KEY_NAMES[k] ?? k).join(" "), s.does);
    for (const [gesture, does] of GESTURES) row(gesture, does);
    this.root.append(head, table);
  }

  get shown(): boolean {
    return !this.root.hidden;
  }

  toggle(): void {
    this.root.hidden = !this.root.hidden;
  }

  hide(): void {
    this.root.hidden = true;
  }
}
