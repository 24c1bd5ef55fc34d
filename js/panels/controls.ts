// Filter and view controls. Every edit produces a new Filters value for the model;
// the inputs are refreshed from the model when Python changes the traits.

import { CLOCK_LABELS, CLOCK_TITLES, CLOCKS, type Clock, clockLabel } from "../common/clock";
import type { Disposers } from "../common/disposers";
import { clear, el } from "../common/dom";
import { formatIntList, parseIntList } from "../common/format";
import { displayText } from "../common/text";
import { kernelLabel, type Vocabulary } from "../common/vocabulary";
import { type Filters, noFilters } from "../kernel/types";
import { metadataLabel, parseMetadataText, withMetadata, withoutMetadata } from "./metadata";

export interface ControlsHost {
  filters(): Filters;
  setFilters(filters: Filters): void;
  colorBy(): string;
  setColorBy(mode: string): void;
  /** The clock of the offsets shown (the `clock` trait). */
  clock(): string;
  setClock(clock: Clock): void;
  kernels(): string[];
  zoom(factor: number): void;
  reset(): void;
}

export class Controls {
  readonly root = el("div", "ipu-nb-controls");
  private search = el("input", "ipu-nb-input ipu-nb-search");
  private kind = el("select", "ipu-nb-select");
  private kernel = el("input", "ipu-nb-input");
  private kernelList = el("datalist");
  private metadata = el("input", "ipu-nb-input");
  private chips = el("span", "ipu-nb-chips");
  private tiles = el("input", "ipu-nb-input ipu-nb-short");
  private phases = el("input", "ipu-nb-input ipu-nb-short");
  private colour = el("select", "ipu-nb-select");
  private clock = el("select", "ipu-nb-select ipu-nb-clock");
  private error = el("span", "ipu-nb-error");
  /** The listeners of the current chips, replaced on each `sync`. */
  private chipListeners: Disposers;

  constructor(
    private host: ControlsHost,
    bag: Disposers,
    private words: Vocabulary,
    id: string,
  ) {
    this.chipListeners = bag.child();
    const button = (text: string, title: string, onClick: () => void) => {
      const b = el("button", "ipu-nb-button", text);
      b.type = "button";
      b.title = title;
      bag.listen(b, "click", onClick);
      return b;
    };
    this.search.placeholder = "operation contains…";
    this.search.type = "search";
    this.kind.append(new Option("any kind", ""), ...words.kinds.map((k) => new Option(k, k)));
    this.kernel.placeholder = "kernel (exact)";
    this.kernelList.id = `ipu-nb-kernels-${id}`;
    this.kernel.setAttribute("list", this.kernelList.id);
    this.metadata.placeholder = "metadata name[=value] ⏎";
    this.metadata.title =
      "Split at the first '='; for a name containing '=', click the entry in the inspector or flame graph";
    this.tiles.placeholder = "tiles 0-63";
    this.phases.placeholder = "phases 3,5";
    this.colour.append(...words.color_bys.map((c) => new Option(`colour: ${words.color_by_labels[c] ?? c}`, c)));
    this.clock.append(
      ...CLOCKS.map((c) => {
        const option = new Option(CLOCK_LABELS[c], c);
        option.title = CLOCK_TITLES[c];
        return option;
      }),
    );
    this.clock.title = "The clock of every offset shown: the axis, cursor, area, markers and inspector";
    const zoomIn = button("+", "Zoom in (+)", () => host.zoom(0.5));
    const zoomOut = button("−", "Zoom out (-)", () => host.zoom(2));
    const reset = button("reset", "Whole profile (0 / Esc)", () => host.reset());
    const clearAll = button("clear filters", "Remove every filter", () => host.setFilters(noFilters()));
    this.root.append(
      this.search,
      this.kind,
      this.kernel,
      this.kernelList,
      this.metadata,
      this.chips,
      this.tiles,
      this.phases,
      this.colour,
      this.clock,
      zoomOut,
      zoomIn,
      reset,
      clearAll,
      this.error,
    );
    const commitText = (input: HTMLInputElement, key: "operation_contains" | "kernel") => {
      const v = input.value;
      this.update({ [key]: v === "" ? null : v } as Partial<Filters>);
    };
    const searchTimer = bag.timer(() => commitText(this.search, "operation_contains"));
    bag.listen(this.search, "input", () => searchTimer.start(350));
    bag.listen(this.search, "keydown", (e) => {
      if (e.key === "Enter") commitText(this.search, "operation_contains");
    });
    bag.listen(this.kernel, "change", () => commitText(this.kernel, "kernel"));
    bag.listen(this.kind, "change", () => this.update({ kind: this.kind.value || null }));
    bag.listen(this.metadata, "keydown", (e) => {
      if (e.key !== "Enter") return;
      const v = this.metadata.value.trim();
      if (!v) return;
      try {
        const [name, value] = parseMetadataText(v);
        this.error.textContent = "";
        this.host.setFilters(withMetadata(this.host.filters(), name, value));
        this.metadata.value = "";
      } catch (err) {
        this.fail((err as Error).message);
      }
    });
    const ints = (input: HTMLInputElement, key: "tiles" | "phases") =>
      bag.listen(input, "change", () => {
        try {
          this.update({ [key]: parseIntList(input.value) } as Partial<Filters>);
        } catch (err) {
          this.fail(`${key}: ${(err as Error).message}`);
        }
      });
    ints(this.tiles, "tiles");
    ints(this.phases, "phases");
    bag.listen(this.colour, "change", () => host.setColorBy(this.colour.value));
    bag.listen(this.clock, "change", () => host.setClock(this.clock.value as Clock));
  }

  private fail(message: string): void {
    this.error.textContent = message;
  }

  private update(patch: Partial<Filters>): void {
    this.error.textContent = "";
    this.host.setFilters({ ...this.host.filters(), ...patch });
  }

  /** Refresh every input from the model (after Python or the flame graph changed it). */
  sync(): void {
    const f = this.host.filters();
    if (document.activeElement !== this.search) this.search.value = f.operation_contains ?? "";
    this.kind.value = f.kind ?? "";
    if (document.activeElement !== this.kernel) this.kernel.value = f.kernel ?? "";
    if (document.activeElement !== this.tiles) this.tiles.value = formatIntList(f.tiles);
    if (document.activeElement !== this.phases) this.phases.value = formatIntList(f.phases);
    this.colour.value = this.host.colorBy();
    this.clock.value = this.host.clock();
    this.clock.dataset.clock = this.host.clock();
    this.clock.setAttribute("aria-label", `offsets on the ${clockLabel(this.host.clock())}`);
    clear(this.chips);
    this.chipListeners.clear();
    for (const m of f.metadata) {
      const label = displayText(metadataLabel(m));
      const chip = el("span", "ipu-nb-chip", label);
      const [name, value] = [displayText(m[0]), m[1] === null ? null : displayText(m[1])];
      chip.title = value === null ? `has an entry named ${name}` : `entry named ${name} with value ${value}`;
      const x = el("button", "ipu-nb-chip-x", "×");
      x.type = "button";
      x.title = `remove ${label}`;
      this.chipListeners.listen(x, "click", () => {
        this.error.textContent = "";
        this.host.setFilters(withoutMetadata(this.host.filters(), m));
      });
      chip.append(x);
      this.chips.append(chip);
    }
    if (this.kernelList.childElementCount === 0) {
      for (const k of this.host.kernels())
        this.kernelList.append(new Option(displayText(kernelLabel(k, this.words)), k));
    }
  }
}
