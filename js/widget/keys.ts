// Keyboard shortcuts of the widget: active only while it has the focus (a click in it gives it
// the focus, shown by a focus ring). A key it handles stops at its root, so JupyterLab's
// command mode (listening on the document) never sees it; every other key goes on to
// JupyterLab. Keys typed into the controls' inputs stay there. SHORTCUTS is the one list: the
// key handler and the help overlay (`?`) both read it.

import type { Disposers } from "../common/disposers";

export type KeyAction =
  | { zoom: number }
  | { pan: number }
  | { rows: number }
  | { scroll: number }
  | "reset"
  | "escape"
  | "fit"
  | "fit-filters"
  | "search"
  | "next"
  | "previous"
  | "pin"
  | "area-tool"
  | "baseline"
  | "marker"
  | "help";

export interface Shortcut {
  keys: string[];
  does: string;
  action: KeyAction;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ["w", "+", "="], does: "zoom in (time)", action: { zoom: 0.5 } },
  { keys: ["s", "-", "_"], does: "zoom out (time)", action: { zoom: 2 } },
  { keys: ["a", "ArrowLeft"], does: "pan left a quarter of the view", action: { pan: -0.25 } },
  { keys: ["d", "ArrowRight"], does: "pan right a quarter of the view", action: { pan: 0.25 } },
  { keys: ["]"], does: "fewer tile rows, taller (vertical zoom in)", action: { rows: 0.5 } },
  { keys: ["["], does: "more tile rows, thinner (vertical zoom out)", action: { rows: 2 } },
  { keys: ["ArrowUp"], does: "scroll the tile rows up a quarter of a page", action: { scroll: -0.25 } },
  { keys: ["ArrowDown"], does: "scroll the tile rows down a quarter of a page", action: { scroll: 0.25 } },
  { keys: ["PageUp"], does: "scroll the tile rows up a page", action: { scroll: -1 } },
  { keys: ["PageDown"], does: "scroll the tile rows down a page", action: { scroll: 1 } },
  { keys: ["f"], does: "zoom to fit the selected sample or search hit, else what the filters match", action: "fit" },
  { keys: ["F"], does: "zoom to fit the samples matching the filters", action: "fit-filters" },
  { keys: ["/"], does: "search operations and kernels", action: "search" },
  { keys: ["n"], does: "next search match", action: "next" },
  { keys: ["N"], does: "previous search match", action: "previous" },
  { keys: ["p"], does: "pin the selected sample's tile to the top (again: unpin)", action: "pin" },
  { keys: ["b"], does: "area tool on/off: plain drags select an area instead of zooming", action: "area-tool" },
  { keys: ["B"], does: "with a baseline: flip the timeline between the profile and its baseline", action: "baseline" },
  { keys: ["M"], does: "mark the selected area, else the cursor, with a label (a marker)", action: "marker" },
  { keys: ["0"], does: "whole profile", action: "reset" },
  {
    keys: ["Escape"],
    does: "close the help, else clear the ruler, else the area, else the search, else whole profile",
    action: "escape",
  },
  { keys: ["?"], does: "this help", action: "help" },
];

/** Mouse gestures, for the help overlay. */
export const GESTURES: [gesture: string, does: string][] = [
  ["wheel", "zoom in time around the mouse"],
  ["shift + wheel, sideways wheel", "pan in time"],
  ["ctrl + wheel", "vertical zoom around the mouse (more or fewer tile rows)"],
  ["wheel over the tile labels", "scroll the tile rows"],
  ["drag", "zoom onto the dragged range"],
  ["shift + drag", "ruler: Δ cycles and Δ µs between two points"],
  ["alt + drag", "select an area (time × tiles): its aggregate, flame graph and longest samples"],
  ["drag an area's edge", "resize it (left, right: time; top, bottom: rows)"],
  ["click", "set the cursor and select the sample there"],
  ["right click", "undo the last zoom"],
  ["click a tile label", "pin the tile to the top (again: unpin)"],
];

const BY_KEY = new Map<string, KeyAction>();
for (const s of SHORTCUTS) for (const k of s.keys) BY_KEY.set(k, s.action);

/** What a key does, or null when it is not a shortcut. Letters other than f, n (whose capitals differ) ignore caps. */
export function keyAction(key: string): KeyAction | null {
  const direct = BY_KEY.get(key);
  if (direct !== undefined) return direct;
  if (key.length === 1 && "WASDPB".includes(key)) return BY_KEY.get(key.toLowerCase()) ?? null;
  return null;
}

/** Whether `target` takes typed text or choices of its own (its keys are its own, not shortcuts). */
function isControl(target: HTMLElement): boolean {
  return target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA";
}

/**
 * Act on the shortcuts pressed while `root` (focusable) or a part of it has the focus. Handled
 * keys and keys typed into a control stop at `root`; the others (ctrl, alt and meta chords among
 * them) go on to JupyterLab. A mouse press anywhere but on a control focuses `root`.
 */
export function bindKeys(root: HTMLElement, act: (action: KeyAction) => void, bag: Disposers): void {
  bag.listen(root, "keydown", (e) => {
    const target = e.target as HTMLElement;
    if (isControl(target)) {
      e.stopPropagation();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return; // the browser's and JupyterLab's own
    const action = keyAction(e.key);
    if (action === null) return;
    act(action);
    e.preventDefault();
    e.stopPropagation();
  });
  bag.listen(root, "mousedown", (e) => {
    const target = e.target as HTMLElement;
    if (!isControl(target) && target.tagName !== "BUTTON") root.focus({ preventScroll: true });
  });
}
