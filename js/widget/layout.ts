// Where each part of a view sits on the page, and what tells the view its width.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";

/**
 * The view's root, focusable (the shortcuts work while it has the focus), put in `host` until
 * disposed. It does not suppress JupyterLab's shortcuts wholesale: the keys the view handles stop
 * at the root (keys.ts) and the others still reach JupyterLab.
 */
export function widgetRoot(host: HTMLElement, bag: Disposers): HTMLElement {
  const root = el("div", "ipu-nb-widget");
  root.tabIndex = 0;
  root.setAttribute("aria-label", "profile timeline: click, then press ? for its keys");
  // Right-click means "undo zoom" / "up" here, not JupyterLab's context menu.
  root.setAttribute("data-jp-suppress-context-menu", "true");
  host.append(root);
  bag.add(() => root.remove());
  return root;
}

/** The note over the group table saying it shows the selected area (hidden until it does). */
export function groupsNote(): HTMLElement {
  const note = el("div", "ipu-nb-area-note", "Groups of the selected area: cycles inside it");
  note.hidden = true;
  return note;
}

/** The top of the side column (above the inspector's own boxes). */
export function sideTop(...parts: HTMLElement[]): HTMLElement {
  const top = el("div", "ipu-nb-side-top");
  top.append(...parts);
  return top;
}

/** The parts' elements, by name. */
export interface Pieces {
  banner: HTMLElement;
  header: HTMLElement;
  controls: HTMLElement;
  legend: HTMLElement;
  codePanel: HTMLElement;
  trackBar: HTMLElement;
  /** Buttons at the end of the track bar. */
  trackButtons: HTMLElement[];
  overview: HTMLElement;
  timeline: HTMLElement;
  inspector: HTMLElement;
  flame: HTMLElement;
  status: HTMLElement;
  tooltip: HTMLElement;
  help: HTMLElement;
}

/** Put the parts in `root`, top to bottom; returns the timeline's column (its width is the plot's). */
export function arrange(root: HTMLElement, p: Pieces): HTMLElement {
  p.trackBar.append(...p.trackButtons);
  const main = el("div", "ipu-nb-main");
  const left = el("div", "ipu-nb-left");
  left.append(p.trackBar, p.overview, p.timeline);
  main.append(left, p.inspector);
  root.append(p.banner, p.header, p.controls, p.legend, p.codePanel, main, p.flame, p.status, p.tooltip, p.help);
  return left;
}

/** Call `resize` whenever `column` changes size, until disposed. */
export function watchSize(column: HTMLElement, resize: () => void, bag: Disposers): void {
  const observer = new ResizeObserver(() => resize());
  observer.observe(column);
  bag.add(() => observer.disconnect());
}
