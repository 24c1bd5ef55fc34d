// The search box: operations or kernels containing some text (case-sensitive or not), among
// the samples matching the filters. The kernel finds the matches (through the query core,
// ipu_nb/_query/search.py) and sends them sorted by offset; here they are stepped through
// (next / previous jump the view to each) and the timeline highlights them.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { grouped } from "../common/format";
import { typed } from "../kernel/buffers";
import type { SearchReply, SearchRequest } from "../kernel/protocol";

/** Matches as the kernel sends them, sorted by start offset (then timeline row). */
export interface Matches {
  text: string;
  caseSensitive: boolean;
  /** Matching samples in all; `start.length` of them were sent (the first by offset). */
  count: number;
  start: Float64Array;
  end: Float64Array;
  row: Uint16Array;
  sample: Uint32Array;
}

/** First index whose value is at least `x` in the ascending `values` (length when none). */
export function lowerBound(values: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The match to go to from `current` (-1: none yet) one step in `direction`: the next or the
 * previous one, wrapping around; without a current one, the first starting in the view (or
 * after it) going forward, the last starting before the view's end going back.
 */
export function step(starts: ArrayLike<number>, current: number, direction: 1 | -1, view: [number, number]): number {
  const n = starts.length;
  if (n === 0) return -1;
  if (current >= 0 && current < n) return (current + direction + n) % n;
  if (direction > 0) {
    const i = lowerBound(starts, view[0]);
    return i < n ? i : 0;
  }
  const i = lowerBound(starts, view[1]) - 1;
  return i >= 0 ? i : n - 1;
}

export interface SearchHost {
  send(request: SearchRequest): void;
  view(): [number, number];
  /** Show match `i` of `matches`: move the view there and select its sample. */
  jump(matches: Matches, i: number): void;
  /** The matches changed (or were cleared): redraw their highlights. */
  changed(): void;
}

export class Search {
  readonly root = el("span", "ipu-nb-searchbox");
  readonly input = el("input", "ipu-nb-input ipu-nb-find");
  private caseButton = el("button", "ipu-nb-button ipu-nb-case", "Aa");
  private count = el("span", "ipu-nb-find-count");
  private caseSensitive = false;
  private latest = 0;
  /** After the reply to `ask`, step this way (Enter pressed before the matches came). */
  private goAfter: 1 | -1 | 0 = 0;
  /** The text asked for last, so a repeated Enter steps instead of asking again. */
  private asked: { text: string; caseSensitive: boolean } | null = null;
  matches: Matches | null = null;
  current = -1;

  constructor(
    private host: SearchHost,
    bag: Disposers,
  ) {
    this.input.type = "search";
    this.input.placeholder = "find operation or kernel…";
    this.input.title =
      "Find samples whose operation or kernel contains this text (among those matching the filters); ⏎ next, ⇧⏎ previous";
    this.caseButton.type = "button";
    this.caseButton.title = "Match case";
    this.caseButton.setAttribute("aria-pressed", "false");
    const button = (text: string, title: string, onClick: () => void) => {
      const b = el("button", "ipu-nb-button ipu-nb-find-step", text);
      b.type = "button";
      b.title = title;
      bag.listen(b, "click", onClick);
      return b;
    };
    const previous = button("‹", "Previous match (shift+n)", () => this.go(-1));
    const next = button("›", "Next match (n)", () => this.go(1));
    this.root.append(this.input, this.caseButton, previous, next, this.count);
    const timer = bag.timer(() => this.ask());
    bag.listen(this.input, "input", () => timer.start(250));
    bag.listen(this.input, "keydown", (e) => {
      if (e.key === "Enter") {
        timer.cancel();
        if (this.isAsked()) this.go(e.shiftKey ? -1 : 1);
        else this.ask(e.shiftKey ? -1 : 1);
      } else if (e.key === "Escape") {
        this.input.value = "";
        this.ask();
      }
    });
    bag.listen(this.caseButton, "click", () => {
      this.caseSensitive = !this.caseSensitive;
      this.caseButton.setAttribute("aria-pressed", String(this.caseSensitive));
      this.caseButton.classList[this.caseSensitive ? "add" : "remove"]("ipu-nb-pressed");
      this.ask();
    });
  }

  private isAsked(): boolean {
    const a = this.asked;
    return a !== null && a.text === this.input.value && a.caseSensitive === this.caseSensitive;
  }

  /** Ask the kernel for the matches of what the box holds (an empty box clears them). */
  ask(then: 1 | -1 | 0 = 0): void {
    const text = this.input.value;
    this.asked = { text, caseSensitive: this.caseSensitive };
    this.goAfter = then;
    this.current = -1;
    if (text === "") {
      this.latest++;
      this.matches = null;
      this.count.textContent = "";
      this.host.changed();
      return;
    }
    this.count.textContent = "…";
    this.host.send({ type: "search", id: ++this.latest, text, case_sensitive: this.caseSensitive });
  }

  /** The filters changed: the matches are among the matching samples, so ask again. */
  refresh(): void {
    if (this.asked && this.asked.text !== "") this.ask();
  }

  reply(msg: SearchReply, buffers: DataView[]): void {
    if (msg.id !== this.latest) return;
    this.matches = {
      text: msg.text,
      caseSensitive: msg.case_sensitive,
      count: msg.count,
      start: typed(Float64Array, buffers[0]),
      end: typed(Float64Array, buffers[1]),
      row: typed(Uint16Array, buffers[2]),
      sample: typed(Uint32Array, buffers[3]),
    };
    this.current = -1;
    this.showCount();
    this.host.changed();
    if (this.goAfter) this.go(this.goAfter);
  }

  /** Step to the next (1) or previous (-1) match and show it. */
  go(direction: 1 | -1): void {
    const m = this.matches;
    if (!m || !this.isAsked()) {
      if (this.input.value !== "") this.ask(direction);
      return;
    }
    const i = step(m.start, this.current, direction, this.host.view());
    if (i < 0) return;
    this.current = i;
    this.showCount();
    this.host.jump(m, i);
  }

  focus(): void {
    this.input.focus();
    this.input.select?.();
  }

  clear(): void {
    if (this.input.value === "" && !this.matches) return;
    this.input.value = "";
    this.ask();
  }

  private showCount(): void {
    const m = this.matches;
    if (!m) return;
    const sent = m.start.length;
    const where = this.current >= 0 ? `${grouped(this.current + 1)} / ` : "";
    const more = m.count > sent ? ` (first ${grouped(sent)} by offset)` : "";
    this.count.textContent = m.count === 0 ? "no match" : `${where}${grouped(m.count)}${more}`;
    this.root.dataset.matches = String(m.count);
    this.root.dataset.current = String(this.current);
  }
}
