// The status line under the widget: what the latest window showed, or the latest error.

import { el } from "./dom";
import { grouped } from "./format";
import type { WindowData } from "./types";

export function windowStatus(data: WindowData, roundTripMs: number, drawMs: number): string {
  const shown = data.mode === "raw" ? "raw intervals" : `summary ${data.bins} px`;
  return `${shown} · ${grouped(data.count)} samples in window · round trip ${roundTripMs.toFixed(0)} ms · draw ${drawMs.toFixed(0)} ms`;
}

export class Status {
  readonly root = el("div", "ipu-nb-status");

  window(data: WindowData, roundTripMs: number, drawMs: number): void {
    this.root.textContent = windowStatus(data, roundTripMs, drawMs);
  }

  error(text: string): void {
    this.root.textContent = text;
  }
}
