// Keyboard shortcuts of the widget (active while it has the focus; clicking a canvas gives
// it the focus). Keys typed into the controls' inputs stay there.

import type { Disposers } from "./disposers";

export type KeyAction = { zoom: number } | { pan: number } | "reset";

export interface KeysHost {
  zoom(factor: number): void;
  pan(fraction: number): void;
  reset(): void;
}

/** What a key does, or null when it is not a shortcut. */
export function keyAction(key: string): KeyAction | null {
  switch (key) {
    case "+":
    case "=":
      return { zoom: 0.5 };
    case "-":
    case "_":
      return { zoom: 2 };
    case "0":
    case "Escape":
      return "reset";
    case "ArrowLeft":
      return { pan: -0.25 };
    case "ArrowRight":
      return { pan: 0.25 };
    default:
      return null;
  }
}

export function bindKeys(root: HTMLElement, host: KeysHost, bag: Disposers): void {
  bag.listen(root, "keydown", (e) => {
    const target = e.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "SELECT") {
      e.stopPropagation();
      return;
    }
    const action = keyAction(e.key);
    if (action === null) return;
    if (action === "reset") host.reset();
    else if ("zoom" in action) host.zoom(action.zoom);
    else host.pan(action.pan);
    e.preventDefault();
    e.stopPropagation();
  });
  bag.listen(root, "mousedown", (e) => {
    if ((e.target as HTMLElement).tagName === "CANVAS") root.focus({ preventScroll: true });
  });
}
