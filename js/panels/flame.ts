// Flame graph (icicle) of summed durations over the matching samples, one level per key of the
// hierarchy chosen (the `flame_hierarchy` trait, the select in the panel: kind → kernel → phase →
// operation by default), and metadata entries once an operation is focused.
// A click on a node zooms into it (it fills the width at once) and focuses it: the filters
// are set exactly along its path, so the timeline, groups and the kernel's next flame graph
// show those samples. The breadcrumb, a click on an ancestor or right-click goes back up.
// Nodes narrower than MIN_NODE_PX are merged, per level, into one box saying how many it holds.

import { classColours, css, kindColour, mix, type RGB, textOn, theme } from "../common/colors";
import type { Disposers } from "../common/disposers";
import { clear, el, placeTip } from "../common/dom";
import { cycles, grouped } from "../common/format";
import { displayText, fitText, fontOf, measuringContext, setFittedText } from "../common/text";
import { kernelLabel, type Vocabulary } from "../common/vocabulary";
import type { FlameMessage, FlameNode } from "../kernel/protocol";
import type { Filters } from "../kernel/types";
import { DeltaColouring, deltaRatio, deltaReach, ratioColour, signedCycles } from "./baseline";
import { metadataLabel, withMetadata } from "./metadata";

const ROW = 20;
/** Nodes narrower than this (CSS pixels: too narrow to read or point at) are merged with their narrow neighbours. */
export const MIN_NODE_PX = 3;
/** Nodes at least this wide carry a label. */
const LABEL_PX = 14;
const CRUMB_PX = 260;
const TIP_PX = 420;

export interface FlameHost {
  filters(): Filters;
  setFilters(filters: Filters): void;
  colorBy(): string;
  /** Whether there is a baseline to colour by Δ against (js/panels/baseline.ts). */
  hasBaseline?(): boolean;
  /** The profile shown ("after" or "baseline"): a node's cycles are that side's. */
  showing?(): string;
  /** Names of colour classes 1, 2, … of a colour mode (the timeline's legend). */
  legend(mode: string): string[];
  /** The `flame_hierarchy` trait (one of `info.vocabulary.flame_hierarchies`), and setting it. */
  flameHierarchy?(): string;
  setFlameHierarchy?(hierarchy: string): void;
}

/** The filter keys a flame path can hold, in the default hierarchy's order. */
const PATH_KEYS = ["kind", "kernel", "phase", "operation"];

/** The level keys a hierarchy name holds, outermost first: "kind/operation/kernel" → [kind, operation, kernel]. */
export function hierarchyLevels(hierarchy: string): string[] {
  return hierarchy.split("/").filter((k) => PATH_KEYS.includes(k));
}

/** How a hierarchy reads in its select: "kind › operation › kernel". */
export function hierarchyLabel(hierarchy: string): string {
  return hierarchy.split("/").join(" › ");
}

/**
 * The focus chain's order for a graph of `levels`: its levels first (level 1, 2, …), then the path
 * keys it does not show (a phase filter under "kind/operation/kernel"), so each filter has one level.
 */
export function chainOf(levels: readonly string[]): string[] {
  return [...levels, ...PATH_KEYS.filter((k) => !levels.includes(k))];
}

/** Filters after focusing a node: its whole path (kind, kernel, phase, operation) is set, exactly. */
export function focusFilters(filters: Filters, path: Record<string, string | number>): Filters {
  const next: Filters = { ...filters };
  if ("kind" in path) next.kind = String(path.kind);
  if ("kernel" in path) next.kernel = String(path.kernel);
  if ("phase" in path) next.phases = [Number(path.phase)];
  if ("operation" in path) next.operation = [String(path.operation)];
  return next;
}

/**
 * The path whose filters select a node's samples. In colour mode "activity" a part of exchange samples
 * counted as another kind (`accounting_parts`: the boundary wait and sampling) sits under that kind with
 * its name for kernel; no sample has that kind and kernel, so it selects the exchange samples it comes from.
 */
export function samplesPath(
  path: Record<string, string | number>,
  parts: Record<string, string>,
): Record<string, string | number> {
  const kernel = path.kernel;
  if (kernel === undefined || parts[String(kernel)] !== path.kind) return path;
  const { kernel: _part, ...rest } = path;
  return { ...rest, kind: "exchange" };
}

/** Whether the filters already focus exactly `path` (the node is on the focus chain). */
export function focused(filters: Filters, path: Record<string, string | number>): boolean {
  return (
    (!("kind" in path) || filters.kind === String(path.kind)) &&
    (!("kernel" in path) || filters.kernel === String(path.kernel)) &&
    (!("phase" in path) || (filters.phases.length === 1 && filters.phases[0] === Number(path.phase))) &&
    (!("operation" in path) || (filters.operation.length === 1 && filters.operation[0] === String(path.operation)))
  );
}

/**
 * The filters a click on a node at `level` (of a graph of `levels`) with `path` leads to: a node
 * off the focus chain is focused (its path set, other filters kept); one on it (an ancestor, or a
 * full-width node of a focused graph) is zoomed out to (everything deeper cleared).
 */
export function clickFilters(
  filters: Filters,
  level: number,
  path: Record<string, string | number>,
  levels: readonly string[],
): Filters {
  return focused(filters, path) ? upTo(filters, level, levels) : focusFilters(filters, path);
}

/** How a list of exact operation names reads in the breadcrumb. */
function operationsLabel(names: string[]): string {
  return names.length === 1 ? names[0] : `${names.length} operations`;
}

/** The crumb of path key `key` the filters set (null: they set none). */
function crumbLabel(filters: Filters, key: string, words: Pick<Vocabulary, "no_kernel">): string | null {
  switch (key) {
    case "kind":
      return filters.kind;
    case "kernel":
      return filters.kernel === null ? null : kernelLabel(filters.kernel, words);
    case "phase":
      return filters.phases.length === 1 ? `phase ${filters.phases[0]}` : null;
    case "operation":
      if (filters.operation.length) return operationsLabel(filters.operation);
      return filters.operation_contains === null ? null : `contains: ${filters.operation_contains}`;
    default:
      return null;
  }
}

/**
 * The focus chain the filters describe, outermost first, in the order of a graph of `levels`
 * (`chainOf`), then the metadata filters (labels are raw profile strings).
 */
export function crumbs(
  filters: Filters,
  words: Pick<Vocabulary, "no_kernel">,
  levels: readonly string[],
): { label: string; level: number }[] {
  const out = [{ label: "all", level: 0 }];
  const chain = chainOf(levels);
  chain.forEach((key, i) => {
    const label = crumbLabel(filters, key, words);
    if (label !== null) out.push({ label, level: i + 1 });
  });
  filters.metadata.forEach((m, i) => {
    out.push({ label: metadataLabel(m), level: chain.length + 1 + i });
  });
  return out;
}

/** Filters with everything deeper than `level` of the focus chain (of a graph of `levels`) cleared. */
export function upTo(filters: Filters, level: number, levels: readonly string[]): Filters {
  const chain = chainOf(levels);
  const next: Filters = { ...filters, metadata: filters.metadata.slice(0, Math.max(0, level - chain.length)) };
  chain.forEach((key, i) => {
    if (level > i) return; // at or above `level`: kept
    if (key === "kind") next.kind = null;
    else if (key === "kernel") next.kernel = null;
    else if (key === "phase") next.phases = filters.phases.length === 1 ? [] : filters.phases;
    else if (key === "operation") {
      next.operation = [];
      next.operation_contains = null;
    }
  });
  return next;
}

/** One drawn box of the icicle: a node, or several narrow neighbours merged (`node` -1). */
export interface FlameBox {
  /** Index into the message's nodes, or -1 for a merged box. */
  node: number;
  level: number;
  /** CSS pixels from the left edge, and wide. */
  left: number;
  width: number;
  /** Summed cycles, and how many nodes the box stands for. */
  value: number;
  count: number;
  /** The smallest and largest of the nodes' cycles (a merged box's spread; the node's own otherwise). */
  smallest: number;
  largest: number;
  /** An ancestor of the zoomed node (drawn full width above it). */
  ancestor: boolean;
}

/** Where each node starts, in cycles from the left of the whole graph. */
export function flameOffsets(nodes: FlameNode[]): Float64Array {
  const x = new Float64Array(nodes.length);
  const next = new Float64Array(nodes.length);
  nodes.forEach((node, i) => {
    if (node.parent >= 0) {
      x[i] = next[node.parent];
      next[node.parent] += node.value;
    }
    next[i] = x[i];
  });
  return x;
}

/**
 * The boxes of the icicle `width` pixels wide zoomed into node `zoom`: its ancestors full
 * width, it and its descendants scaled so it fills the width. Per level, every run of
 * adjacent nodes narrower than `MIN_NODE_PX` becomes one merged box, so no two boxes
 * overlap and none is a sliver (a run narrower than a pixel in all has nothing to show: it
 * is left out).
 */
export function layoutFlame(nodes: FlameNode[], zoom: number, width: number): FlameBox[] {
  if (!nodes.length || width <= 0) return [];
  const x = flameOffsets(nodes);
  const z = nodes[zoom] ? zoom : 0;
  const start = x[z];
  const span = nodes[z].value || 1;
  const scale = width / span;
  const boxes: FlameBox[] = [];
  for (let a = nodes[z].parent; a >= 0; a = nodes[a].parent) {
    const value = nodes[a].value;
    boxes.push({ node: a, level: nodes[a].level, left: 0, width, value, count: 1, ancestor: true, ...spread(value) });
  }
  boxes.reverse();
  // Descendants of the zoomed node, by level, left to right.
  const inside = new Uint8Array(nodes.length);
  inside[z] = 1;
  const levels = new Map<number, number[]>();
  nodes.forEach((node, i) => {
    if (i !== z && !(node.parent >= 0 && inside[node.parent])) return;
    inside[i] = 1;
    const list = levels.get(node.level) ?? [];
    list.push(i);
    levels.set(node.level, list);
  });
  const eps = 1e-6;
  for (const level of [...levels.keys()].sort((p, q) => p - q)) {
    const list = levels.get(level)!.sort((i, j) => x[i] - x[j]);
    let run: { left: number; right: number; value: number; count: number; smallest: number; largest: number } | null =
      null;
    const flush = () => {
      if (run && run.right - run.left >= MIN_NODE_PX) {
        boxes.push({
          node: -1,
          level,
          left: run.left,
          width: run.right - run.left,
          value: run.value,
          count: run.count,
          ancestor: false,
          smallest: run.smallest,
          largest: run.largest,
        });
      }
      run = null;
    };
    for (const i of list) {
      const left = (x[i] - start) * scale;
      const w = nodes[i].value * scale;
      if (w >= MIN_NODE_PX) {
        flush();
        boxes.push({
          node: i,
          level,
          left,
          width: w,
          value: nodes[i].value,
          count: 1,
          ancestor: false,
          ...spread(nodes[i].value),
        });
        continue;
      }
      if (run && left > run.right + eps) flush(); // a gap (under a leaf): not adjacent
      const v = nodes[i].value;
      if (run) {
        run.right = left + w;
        run.value += v;
        run.count++;
        run.smallest = Math.min(run.smallest, v);
        run.largest = Math.max(run.largest, v);
      } else {
        run = { left, right: left + w, value: v, count: 1, smallest: v, largest: v };
      }
    }
    flush();
  }
  return boxes;
}

/** A single node's spread: its own cycles. */
function spread(value: number): { smallest: number; largest: number } {
  return { smallest: value, largest: value };
}

/** What the nodes of each path key are, one and many. */
const KEY_NOUNS: Record<string, [string, string]> = {
  kind: ["kind", "kinds"],
  kernel: ["kernel", "kernels"],
  phase: ["phase", "phases"],
  operation: ["operation", "operations"],
};

/** How a merged box of `count` nodes at `level` of a graph of `levels` reads: "236 phases". */
export function mergedName(count: number, level: number, levels: readonly string[]): string {
  const [one, many] = KEY_NOUNS[levels[level - 1]] ?? ["node", "nodes"];
  return `${grouped(count)} ${count === 1 ? one : many}`;
}

/**
 * What a node is coloured by: its kind, and its kernel from the kernel level (of `levels`) down
 * (null above it, or under a merged kernel box).
 */
function lineage(nodes: FlameNode[], levels: readonly string[]): { kind: string[]; kernel: (string | null)[] } {
  const kind: string[] = new Array(nodes.length).fill("");
  const kernel: (string | null)[] = new Array(nodes.length).fill(null);
  const kindLevel = levels.indexOf("kind") + 1;
  const kernelLevel = levels.indexOf("kernel") + 1;
  nodes.forEach((node, i) => {
    if (node.parent < 0) return;
    kind[i] = node.level === kindLevel ? (node.path ? String(node.path.kind ?? "") : "") : kind[node.parent];
    kernel[i] = node.level === kernelLevel ? (node.path ? String(node.path.kernel ?? "") : null) : kernel[node.parent];
  });
  return { kind, kernel };
}

/** What a bar shown stands for: its box, its node (null for a merged box), its name and the graph's total. */
interface Bar {
  box: FlameBox;
  node: FlameNode | null;
  name: string;
  total: number;
}

/** The graph's title, and its title while it shows the selected area. */
export const FLAME_TITLE = "Flame graph · summed cycles of matching samples";
export const AREA_FLAME_TITLE = "Flame graph of the selected area · cycles of matching samples inside it";

export class Flame {
  readonly root = el("div", "ipu-nb-flame");
  private title = el("div", "ipu-nb-section-title", FLAME_TITLE);
  private crumbBar = el("div", "ipu-nb-crumbs");
  /** The hierarchy's select (the `flame_hierarchy` trait). */
  readonly hierarchy = el("select", "ipu-nb-select ipu-nb-flame-hierarchy");
  private icicle = el("div", "ipu-nb-icicle");
  private meta = el("div", "ipu-nb-flame-meta");
  private tip = el("div", "ipu-nb-tooltip ipu-nb-flame-tip");
  /** The box the tooltip describes. */
  private tipFor: FlameBox | null = null;
  /** What each bar shown stands for (the icicle's listeners find a bar's box here). */
  private bars = new Map<Element, Bar>();
  private data: FlameMessage | null = null;
  /** The node filling the width (0: the root), until the kernel's next graph arrives. */
  private zoom = 0;
  private width = 0;
  /** The listeners of the crumbs and metadata rows shown, replaced on each `render` (the bars share the icicle's). */
  private shown: Disposers;
  /** The Δ colouring's switch and legend (with a baseline). */
  readonly delta: DeltaColouring;

  constructor(
    private host: FlameHost,
    bag: Disposers,
    private words: Vocabulary,
  ) {
    this.shown = bag.child();
    this.tip.hidden = true;
    this.delta = new DeltaColouring(
      () => this.host.hasBaseline?.() === true,
      () => this.render(),
      bag,
    );
    const head = el("div", "ipu-nb-flame-head");
    const levels = el("label", "ipu-nb-flame-levels", "levels ");
    levels.append(this.hierarchy);
    this.hierarchy.title = "The flame graph's levels below the root, outermost first (widget.flame_hierarchy)";
    this.hierarchy.append(...words.flame_hierarchies.map((h) => new Option(hierarchyLabel(h), h)));
    levels.hidden = !words.flame_hierarchies.length || !this.host.setFlameHierarchy;
    head.append(this.title, levels, this.delta.root);
    this.root.append(head, this.crumbBar, this.icicle, this.meta, this.tip);
    bag.listen(this.hierarchy, "change", () => this.host.setFlameHierarchy?.(this.hierarchy.value));
    this.sync();
    bag.listen(this.root, "contextmenu", (e) => {
      e.preventDefault();
      e.stopPropagation();
      const chain = crumbs(this.host.filters(), this.words, this.levels());
      if (chain.length > 1)
        this.host.setFilters(upTo(this.host.filters(), chain[chain.length - 2].level, this.levels()));
    });
    bag.listen(this.icicle, "mouseleave", () => {
      this.tip.hidden = true;
      this.tipFor = null;
    });
    // One listener per event for every bar (a graph has hundreds, redrawn on each new area).
    bag.listen(this.icicle, "click", (e) => this.onClick(e));
    bag.listen(this.icicle, "mousemove", (e) => this.onMove(e));
  }

  /** Show the `flame_hierarchy` trait in the select (the graph of it follows from the kernel). */
  sync(): void {
    const hierarchy = this.host.flameHierarchy?.();
    if (hierarchy !== undefined) this.hierarchy.value = hierarchy;
    this.root.dataset.hierarchy = hierarchy ?? "";
  }

  /**
   * The levels of the graph shown (the kernel's tree says them), or of the chosen hierarchy before
   * one came: what the crumbs, merged boxes and clicks read a level as.
   */
  levels(): string[] {
    return this.data?.levels ?? hierarchyLevels(this.host.flameHierarchy?.() ?? PATH_KEYS.join("/"));
  }

  /** The bar under an event, if any. */
  private barAt(e: Event): Bar | undefined {
    const target = e.target instanceof Element ? e.target.closest(".ipu-nb-flame-node") : null;
    return target ? this.bars.get(target) : undefined;
  }

  private onClick(e: MouseEvent): void {
    const bar = this.barAt(e);
    const node = bar?.node;
    if (!bar || !node) return; // a merged box: nothing to focus
    if (node.level === 0) this.host.setFilters(upTo(this.host.filters(), 0, this.levels()));
    else if (node.path) this.click(bar.box.node, node.level, node.path);
  }

  private onMove(e: MouseEvent): void {
    const bar = this.barAt(e);
    if (!bar) return;
    if (this.tipFor !== bar.box) this.fillTip(bar.box, bar.node, bar.name, bar.total);
    this.tip.hidden = false;
    placeTip(this.tip, e.clientX, e.clientY, this.root.getBoundingClientRect());
  }

  /** The widget changed size: lay the boxes out again for the new width. */
  resize(): void {
    if (this.icicle.clientWidth !== this.width) this.render();
  }

  set(data: FlameMessage): void {
    this.title.textContent = data.area ? AREA_FLAME_TITLE : FLAME_TITLE;
    this.root.dataset.area = String(data.area === true);
    this.root.dataset.levels = data.levels.join("/");
    this.data = data;
    this.zoom = 0;
    this.render();
  }

  render(): void {
    this.shown.clear();
    // Everything read from the layout before the DOM changes: one style and layout pass, not one per read.
    this.width = this.icicle.clientWidth;
    const nodeFont = fontOf(this.icicle); // the nodes' font (widget.css)
    this.renderCrumbs();
    this.tip.hidden = true;
    this.tipFor = null;
    this.bars.clear();
    clear(this.icicle);
    clear(this.meta);
    const data = this.data;
    if (!data) return;
    if (data.total === 0 || !data.nodes.length) {
      this.icicle.style.height = "";
      this.icicle.append(el("div", "ipu-nb-empty", "No matching samples."));
      return;
    }
    const nodes = data.nodes;
    const depth = nodes.reduce((d, n) => Math.max(d, n.level), 0);
    this.icicle.style.height = `${(depth + 1) * ROW}px`;
    const deltas = this.delta.on && data.deltas ? data.deltas : null;
    const reach = deltas ? deltaReach(deltas) : null;
    this.delta.sync(reach);
    this.icicle.dataset.colour = deltas ? "delta" : this.host.colorBy();
    const colour = deltas && reach !== null ? this.deltaPainter(deltas) : this.painter(nodes);
    const ctx = measuringContext(nodeFont);
    const boxes = layoutFlame(nodes, this.zoom, this.width);
    this.icicle.dataset.boxes = String(boxes.length);
    this.icicle.dataset.merged = String(boxes.filter((b) => b.node < 0).length);
    this.icicle.append(...boxes.map((box) => this.bar(box, nodes, colour, ctx, data.total)));
    this.renderMetadata(data);
  }

  /** The colour of each node by its change relative to its own size (after ÷ before, `ratioColour`). */
  private deltaPainter(deltas: (number | null)[]): (box: FlameBox) => RGB {
    const t = theme();
    const unknown = mix(t.dark ? [96, 98, 108] : [120, 120, 130], t.plotRgb, 0.35);
    return (box) => ratioColour(this.ratioOf(box, deltas), t.plotRgb, unknown);
  }

  /** A box's after ÷ before cycles (null: a merged box, or no Δ). */
  private ratioOf(box: FlameBox, deltas: readonly (number | null)[] | undefined): number | null {
    if (box.node < 0 || !deltas) return null;
    return deltaRatio(box.value, deltas[box.node] ?? null, this.host.showing?.() !== "baseline");
  }

  /** The colour of each node for the current colouring (kernel colours are the timeline's). */
  private painter(nodes: FlameNode[]): (box: FlameBox) => RGB {
    const t = theme();
    const neutral: RGB = t.dark ? [96, 98, 108] : [120, 120, 130];
    const levels = this.levels();
    const { kind, kernel } = lineage(nodes, levels);
    const kernelLevel = levels.indexOf("kernel") + 1;
    const kindLevel = levels.indexOf("kind") + 1;
    const byKernel = this.host.colorBy() === "kernel";
    const legend = this.host.legend("kernel");
    const kernelColours = classColours("kernel", legend, this.words.no_kernel);
    const kernelColour = (k: string): RGB => {
      const i = legend.indexOf(k || this.words.no_kernel);
      // Kernels past the legend share its last class ("(other kernels)"), as on the timeline.
      return kernelColours[(i >= 0 ? i : legend.length - 1) + 1];
    };
    const merged = mix(neutral, t.plotRgb, 0.35);
    return (box) => {
      if (box.node < 0) return merged;
      if (box.level === 0) return neutral;
      // Kinds (or kernels) at full colour, their descendants fading towards the background.
      const k = kernel[box.node];
      const base = !byKernel
        ? kindColour(kind[box.node])
        : k === null
          ? mix(neutral, t.plotRgb, 0.15)
          : kernelColour(k);
      const fade = Math.min(0.55, Math.max(0, box.level - (byKernel ? kernelLevel : kindLevel)) * 0.14);
      return mix(base, t.plotRgb, fade);
    };
  }

  private bar(
    box: FlameBox,
    nodes: FlameNode[],
    colour: (b: FlameBox) => RGB,
    ctx: CanvasRenderingContext2D,
    total: number,
  ): HTMLElement {
    const node = box.node >= 0 ? nodes[box.node] : null;
    const bar = el("div", "ipu-nb-flame-node");
    const bg = colour(box);
    const labelled = box.width >= LABEL_PX;
    // By Δ an unchanged box has the background's colour: a border keeps it in sight.
    const edge =
      this.icicle.dataset.colour === "delta" ? `;box-shadow:inset 0 0 0 1px ${css(mix(bg, textOn(bg), 0.35))}` : "";
    // One style write (each property set apart is parsed apart).
    bar.style.cssText =
      `left:${box.left}px;width:${box.width}px;top:${box.level * ROW}px;` +
      `background:${css(bg)};color:${css(textOn(bg))};padding-left:${labelled ? 4 : 0}px${edge}`;
    bar.dataset.level = String(box.level);
    if (node) bar.dataset.name = node.name; // for scripts and tests: the raw name (never rendered)
    bar.dataset.value = String(box.value);
    const delta = box.node >= 0 ? this.data?.deltas?.[box.node] : undefined;
    if (delta !== undefined && delta !== null) bar.dataset.delta = String(delta);
    const name = node ? node.name : mergedName(box.count, box.level, this.levels());
    if (labelled) bar.textContent = fitText(ctx, name, box.width - 7);
    if (box.ancestor) bar.classList.add("ipu-nb-flame-ancestor");
    if (!node) bar.dataset.merged = String(box.count);
    else if (node.level > 0 && !node.path) bar.classList.add("ipu-nb-flame-other");
    this.bars.set(bar, { box, node, name, total });
    return bar;
  }

  /** Zoom into node `index` now (the kernel's graph for the new filters follows) and set the filters. */
  private click(index: number, level: number, path: Record<string, string | number>): void {
    const next = clickFilters(
      this.host.filters(),
      level,
      samplesPath(path, this.words.accounting_parts),
      this.levels(),
    );
    this.zoom = index;
    this.render();
    this.host.setFilters(next);
  }

  /** The tooltip's text for `box` (a node, or a merged box). */
  private fillTip(box: FlameBox, node: FlameNode | null, name: string, total: number): void {
    const tip = this.tip;
    this.tipFor = box;
    clear(tip);
    const title = el("div", "ipu-nb-tooltip-title");
    const share = `${((100 * box.value) / (total || 1)).toFixed(1)}%`;
    tip.append(title, el("div", undefined, `${grouped(box.value)} cycles (${cycles(box.value)} · ${share} of all)`));
    const delta = box.node >= 0 ? this.data?.deltas?.[box.node] : undefined;
    if (delta !== undefined && delta !== null) {
      const ratio = this.ratioOf(box, this.data?.deltas);
      const times = ratio === null ? "" : Number.isFinite(ratio) ? ` (×${ratio.toFixed(2)})` : " (new)";
      tip.append(el("div", undefined, `Δ after − baseline: ${signedCycles(delta)} cycles${times}`));
    }
    tip.hidden = false; // measured in its own font, which it has once shown
    if (node) {
      setFittedText(title, name, TIP_PX, fontOf(title));
      if (!node.path && node.level > 0) tip.append(el("div", undefined, "nodes too small to keep, summed"));
      else if (node.level > 0 && !box.ancestor) tip.append(el("div", undefined, "click to zoom in and focus"));
    } else {
      title.textContent = mergedName(box.count, box.level, this.levels());
      tip.append(
        el("div", undefined, `each ${cycles(box.smallest)} to ${cycles(box.largest)} cycles`),
        el("div", undefined, "each too narrow to read: click a parent to zoom in and tell them apart"),
      );
    }
  }

  private renderMetadata(data: FlameMessage): void {
    if (!data.metadata.length) return;
    this.meta.append(el("div", "ipu-nb-section-title", "Metadata entries of the focused samples (click to filter)"));
    const most = data.metadata[0].cycles || 1;
    for (const m of data.metadata) {
      const entry = displayText(metadataLabel([m.name, m.value]));
      const row = el("div", "ipu-nb-meta-row");
      const bar = el("div", "ipu-nb-meta-bar");
      bar.style.width = `${(100 * m.cycles) / most}%`;
      const label = el("span", "ipu-nb-meta-label", entry);
      const count = el("span", "ipu-nb-meta-count", `${cycles(m.cycles)} cyc · ${m.samples}`);
      row.append(bar, label, count);
      row.title = `entry named ${displayText(m.name)} with value ${displayText(m.value)}: ${m.cycles} cycles over ${m.samples} samples`;
      row.dataset.metadataName = m.name;
      row.dataset.metadataValue = m.value;
      this.shown.listen(row, "click", () => this.host.setFilters(withMetadata(this.host.filters(), m.name, m.value)));
      this.meta.append(row);
    }
  }

  private renderCrumbs(): void {
    const font = fontOf(this.crumbBar); // read before the change below
    clear(this.crumbBar);
    const levels = this.levels();
    const chain = crumbs(this.host.filters(), this.words, levels);
    chain.forEach((c, i) => {
      if (i > 0) this.crumbBar.append(el("span", "ipu-nb-crumb-sep", "›"));
      const crumb = el("button", "ipu-nb-crumb");
      setFittedText(crumb, c.label, CRUMB_PX, font);
      crumb.type = "button";
      crumb.disabled = i === chain.length - 1;
      this.shown.listen(crumb, "click", () => this.host.setFilters(upTo(this.host.filters(), c.level, levels)));
      this.crumbBar.append(crumb);
    });
  }
}
