// One view of a ProfileWidget: the state its parts share and what each change does to them,
// whether it comes from a part, the kernel or Python. The parts are built in parts.ts, the
// blocks' round trips are blocks.ts's, the shortcuts commands.ts's. Holds no profile:
// everything shown comes from the kernel.

import type { AnyModel } from "@anywidget/types";
import type { Clock } from "../common/clock";
import { Disposers, type Timer } from "../common/disposers";
import { frameScheduler } from "../common/frames";
import { type Vocabulary, vocabularyOf } from "../common/vocabulary";
import { Connection } from "../kernel/connection";
import { Inbox, type SideMessage } from "../kernel/inbox";
import type { BlocksReply, PanelMessage, SampleInfo, ToKernel } from "../kernel/protocol";
import { AFTER_FRAME_MS, Deferred } from "../kernel/requests";
import type { Area, Filters, Info, Showing, Traits } from "../kernel/types";
import type { FindingRow } from "../panels/findings";
import type { Matches } from "../panels/search";
import type { Marker } from "../timeline/markers";
import type { Painted } from "../timeline/painter";
import type { Layout } from "../timeline/tracks";
import { applyTracks, sameTracks, tracksOf } from "../timeline/trackstate";
import { type Range, showing } from "../timeline/view";
import { ViewState } from "../timeline/viewstate";
import { BlockFlow } from "./blocks";
import { type Commands, perform } from "./commands";
import { bindKeys } from "./keys";
import { watchSize, widgetRoot } from "./layout";
import { deliver } from "./messages";
import { Parts, type PartsHost } from "./parts";

let instances = 0;
/** How long after a picture the header's text follows it at most. */
const HEADER_MS = 60;

export class WidgetController implements PartsHost, Commands {
  readonly id = `${++instances}-${Math.random().toString(36).slice(2, 8)}`;
  readonly bag = new Disposers();
  /** Every send and save goes through the connection: after a kernel restart they stop, quietly. */
  private readonly connection: Connection;
  readonly model: AnyModel<Traits>;
  /** The kernel's names (`info` is read-only: set before any view opens). */
  readonly words: Vocabulary;
  readonly root: HTMLElement;
  readonly views: ViewState;
  private readonly blocks: BlockFlow;
  /** The row layout goes to the `tracks` trait a little after it settles (a wheel moves it many times). */
  private readonly saveTracks: Timer;
  readonly parts: Parts;
  /** A held prefetch goes a little after the frame that drew the moved view (not inside it, nor while it is shown). */
  private readonly resumeSoon: Timer;
  /** The header's words follow the picture a little later (each text change costs a frame a layout and paint pass). */
  private readonly headerSoon: Timer;
  /** Draw at the next frame (once, however many changes ask for it). */
  readonly drawSoon: () => void;

  /** The sample the inspector shows, as the kernel sent it. */
  private selected: SampleInfo | null = null;
  /** The search's matches as the timeline marks them, with the current one. */
  private matchesShown: { matches: Matches; current: number } | null = null;
  /** What `f` fits: the latest of a selection (click, search hit, Python) or a filter change. */
  private focus: "selection" | "filters" = "filters";
  /** The latest selection came from a click on the timeline (else its row is scrolled into view when it comes). */
  private picked = false;
  /** The latest fit asked for: only its answer moves the view. */
  private fitId = 0;
  /** The group table is asked for after the window a filter change leads to. */
  private groupsDirty = true;

  constructor(kernelModel: AnyModel<Traits>, host: HTMLElement) {
    const bag = this.bag;
    this.connection = new Connection(kernelModel, bag);
    this.model = this.connection.model;
    this.words = vocabularyOf(this.info());
    this.root = widgetRoot(host, bag);
    const root = this.root;
    this.views = new ViewState({
      model: this.model,
      span: () => this.span(),
      timer: (fn) => bag.timer(fn),
      // The model's change event redraws; here only the undo depth is noted.
      changed: () => {
        root.dataset.undo = String(this.views.depth);
      },
    });
    this.blocks = new BlockFlow(
      {
        id: this.id,
        model: this.model,
        send: (message) => this.send(message),
        view: () => this.view(),
        span: () => this.span(),
        pixels: () => this.parts.timeline.pixels(),
        settled: () => this.onSettled(),
      },
      root,
      bag,
    );
    this.saveTracks = bag.timer(() => this.saveTracksNow());
    this.parts = new Parts(this, this.connection, this.blocks.cache);
    this.resumeSoon = bag.timer(() => this.blocks.requests.resume());
    this.headerSoon = bag.timer(() => this.parts.header.render());
    this.drawSoon = frameScheduler(bag, () => this.drawNow());
  }

  /**
   * Listen (to the kernel, the traits, the keys, the size), show the view as the traits hold it
   * and greet the kernel. Returns what takes the view down.
   */
  open(): () => void {
    const { model, parts } = this;
    this.listen();
    bindKeys(this.root, (action) => perform(this, action), this.bag);
    watchSize(parts.left, () => this.resize(), this.bag);
    parts.header.render();
    parts.legend.render();
    parts.controls.sync();
    this.root.dataset.showing = model.get("showing");
    this.root.dataset.clock = model.get("clock");
    applyTracks(parts.timeline.choice, model.get("tracks"), this.info().rows.length); // the rows as the state left them
    this.root.dataset.view = this.view().join(",");
    parts.timeline.layout(); // the track bar shows the rows at once
    this.resize();
    this.send({ type: "hello" });
    return () => this.bag.dispose();
  }

  // ---- what the parts read ------------------------------------------------------------------
  info(): Info {
    return this.model.get("info");
  }

  span(): number {
    return Math.max(this.info().span, 1);
  }

  view(): Range {
    return this.views.get();
  }

  legendOf(mode: string): string[] {
    return this.info().legend[mode] ?? [];
  }

  send(message: ToKernel): void {
    this.model.send(message);
  }

  selectedSample(): SampleInfo | null {
    return this.selected;
  }

  shownMatches(): { matches: Matches; current: number } | null {
    return this.matchesShown;
  }

  state(): string {
    return this.blocks.state();
  }

  // ---- what the parts ask for ---------------------------------------------------------------
  setFilters(f: Filters): void {
    this.save("filters", f);
    this.onFilters();
  }

  setColorBy(mode: string): void {
    this.save("color_by", mode);
    this.onColour();
  }

  /** The kernel moves every offset to the new clock (the view, cursor, area, markers) and syncs them back. */
  setClock(next: Clock): void {
    this.save("clock", next);
    this.onClock();
  }

  setShowing(next: Showing): void {
    this.save("showing", next);
    this.onShowing();
  }

  setArea(next: Area | null): void {
    this.parts.areaTimer.set(next !== null);
    this.save("selection", next);
    this.parts.area.draw();
  }

  setGrouping(groupBy: string, key: string | null): void {
    // One update carrying both: the kernel checks them together.
    this.model.set("metadata_key", key);
    this.model.set("group_by", groupBy);
    this.model.save_changes();
    this.onGrouping();
  }

  select(id: number): void {
    this.save("selected", id);
  }

  /** The kernel sends the flame graph of the hierarchy chosen. */
  setFlameHierarchy(hierarchy: string): void {
    this.save("flame_hierarchy", hierarchy);
  }

  /** The kernel applies it (`widget.show_finding`): filters, view, its tile pinned and highlighted. */
  showFinding(row: FindingRow): void {
    this.send({ type: "finding", rank: row.rank });
  }

  /** The view around a marker (a point: the view's width kept, centred on it). */
  showMarker(m: Marker): void {
    this.views.set(showing(this.view(), m.start, Math.max(m.end, m.start + 1), this.span()), true);
  }

  /** A marker at the selected area, else at the cursor, its label typed in the list (Python checks it all). */
  addMarker(): void {
    const area = this.model.get("selection");
    const at = this.model.get("at");
    const place = area ? [area.start, area.end] : at !== null ? [at, at] : null;
    if (!place) {
      this.parts.status.error("M marks the cursor or the selected area: click or alt+drag on the timeline first");
      return;
    }
    const marker: Marker = { start: place[0], end: place[1], label: "" };
    const next = [...(this.model.get("marker_rows") ?? []), marker].sort((a, b) => a.start - b.start || a.end - b.end);
    this.save("marker_rows", next);
    this.onMarkers();
    this.parts.markers.focusLabel(marker.start, marker.end); // typed in the list, Enter keeps it
  }

  relabel(index: number, label: string): void {
    const rows = [...(this.model.get("marker_rows") ?? [])];
    if (!rows[index]) return;
    rows[index] = { ...rows[index], label };
    this.save("marker_rows", rows);
    this.parts.markerLayer.draw();
  }

  /**
   * A click on the timeline, drawn at once. The kernel sets `at` and `selected` together from it
   * (one message, one inspector update) and syncs both back.
   */
  pick(row: number, x: number): void {
    this.focus = "selection";
    this.picked = true; // its row is on screen: the selection that comes back scrolls nothing
    this.model.set("at", x);
    this.send({ type: "pick", row, x });
    this.parts.timeline.drawOverlay();
  }

  /** The search steps to match `i`: the view shows it, its row is scrolled to and its sample selected. */
  jump(m: Matches, i: number): void {
    this.matchesShown = { matches: m, current: i };
    this.focus = "selection";
    this.views.set(showing(this.view(), m.start[i], m.end[i], this.span()), true);
    this.parts.timeline.reveal(m.row[i]);
    this.save("selected", m.sample[i]);
    this.drawSoon();
  }

  searched(): void {
    const search = this.parts.search;
    this.matchesShown = search.matches ? { matches: search.matches, current: search.current } : null;
    this.drawSoon();
  }

  drew(painted: Painted, final: boolean, ms: number): void {
    this.parts.highlights.draw();
    this.parts.markerLayer.draw();
    this.parts.area.draw();
    // What the picture shows, as the kernel answered it (tests check it follows the controls).
    const as = final ? this.blocks.answer(this.state()) : undefined;
    if (as) {
      this.root.dataset.colorBy = as.colorBy;
      this.root.dataset.filtered = String(as.filtered);
    }
    this.blocks.drew(painted, final, ms, this.parts.timeline);
  }

  rowsChanged(layout: Layout): void {
    const choice = this.parts.timeline.choice;
    this.parts.trackBar.sync(layout, choice.order, choice.pinned.length);
    if (!sameTracks(tracksOf(choice, layout.tiles), this.model.get("tracks"))) this.saveTracks.start(150);
  }

  // ---- what the shortcuts ask for besides a part's own action (commands.ts) ----------------
  fitFocus(): void {
    if (this.focus === "selection" && this.selected) this.fit("sample", this.selected.sample);
    else this.fit("matching");
  }

  fitMatching(): void {
    this.fit("matching");
  }

  pinSelected(): void {
    if (this.selected) this.parts.timeline.togglePin(this.selected.tile);
  }

  // ---- the view's own work ------------------------------------------------------------------
  /** Set a trait and save it (Python hears of it). */
  private save<K extends keyof Traits>(name: K, value: Traits[K]): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  private saveTracksNow(): void {
    const timeline = this.parts.timeline;
    const now = tracksOf(timeline.choice, timeline.geometry().layout.tiles);
    if (sameTracks(now, this.model.get("tracks"))) return;
    this.save("tracks", now);
  }

  private drawNow(): void {
    if (!this.headerSoon.pending) this.headerSoon.start(HEADER_MS);
    this.parts.timeline.draw();
    this.parts.overview.showView();
    if (this.blocks.hold.drew()) this.resumeSoon.start(AFTER_FRAME_MS);
  }

  private resize(): void {
    const parts = this.parts;
    const width = Math.max(300, parts.left.clientWidth || this.root.clientWidth - 340);
    parts.timeline.resize(width);
    parts.overview.resize(width);
    parts.flame.resize();
    parts.themes.refresh(); // the first resize comes once the view is attached and styled
    this.blocks.request();
  }

  private askGroups(): void {
    this.groupsDirty = false;
    this.send({ type: "groups" });
  }

  private fit(by: "matching" | "sample", value?: number): void {
    this.send({ type: "fit", id: ++this.fitId, by, value });
  }

  // ---- changes, from the parts or from Python -----------------------------------------------
  private onView(): void {
    const [s, e] = this.view();
    this.root.dataset.view = `${s},${e}`;
    this.showStatus(); // with the view it counts (a view drawn from the cache may not be counted yet)
    this.parts.tooltip.unhover(); // what it described may have moved or gone
    this.parts.timeline.viewChanged();
    this.blocks.hold.moved([s, e]);
    this.blocks.request();
    this.drawSoon();
  }

  private onFilters(): void {
    this.groupsDirty = true;
    this.focus = "filters";
    this.blocks.restate();
    this.showStatus();
    this.parts.controls.sync();
    this.parts.flame.render();
    this.parts.search.refresh();
    this.drawSoon(); // the tiles filter changes the rows; the old state draws until the new one comes
  }

  /** The profile's facts changed (the other profile is shown): the header, legend and timeline follow them. */
  private onInfo(): void {
    this.parts.header.render();
    this.parts.legend.render();
    this.blocks.request(); // the span, and so what the view may ask for, changed
    this.drawSoon();
  }

  /** The other profile is shown (`showing`): same view, rows and filters, its own blocks and side views. */
  private onShowing(): void {
    this.groupsDirty = true;
    this.blocks.restate();
    this.root.dataset.showing = this.model.get("showing");
    this.showStatus();
    this.parts.baselineToggle.sync();
    this.parts.header.render();
    this.parts.legend.render();
    this.drawSoon();
  }

  /** The offsets are on another clock: its own blocks, and the controls and axis say which. */
  private onClock(): void {
    this.groupsDirty = true;
    this.blocks.restate();
    this.root.dataset.clock = this.model.get("clock");
    this.parts.controls.sync();
    this.drawSoon();
  }

  private onColour(): void {
    this.blocks.restate();
    this.parts.controls.sync();
    this.parts.legend.render();
    this.parts.flame.render(); // coloured like the timeline
    this.drawSoon();
  }

  private onMarkers(): void {
    this.parts.markers.render();
    this.parts.markerLayer.draw();
  }

  private onGrouping(): void {
    this.parts.groups.sync();
    this.askGroups();
  }

  // ---- messages from the kernel and trait changes from Python -------------------------------
  private listen(): void {
    const { bag, model, parts } = this;
    const inbox = new Inbox(this.id, this.blocks.requests, new Deferred(bag), {
      block: (msg, buffers) => this.blocks.receive(msg, buffers, parts.timeline, this.drawSoon),
      done: (msg) => this.onDone(msg),
      side: (msg, buffers) => this.onSideMessage(msg, buffers),
      failed: (type, err) =>
        parts.status.error(`${type === "window" ? "error drawing window" : `error showing ${type}`}: ${err}`),
    });
    bag.on(model, "msg:custom", (content: unknown, buffers: DataView[]) => {
      parts.areaTimer.hear(content);
      inbox.receive(content, buffers);
    });
    bag.on(model, "change:view", () => this.views.restoreUnsaved() || this.onView());
    bag.on(model, "change:filters", () => this.onFilters());
    bag.on(model, "change:color_by", () => this.onColour());
    bag.on(model, "change:showing", () => this.onShowing());
    bag.on(model, "change:clock", () => this.onClock());
    bag.on(model, "change:info", () => this.onInfo());
    bag.on(model, "change:finding_rows", () => parts.findings.render());
    bag.on(model, "change:marker_rows", () => this.onMarkers());
    bag.on(model, "change:at", () => parts.timeline.drawOverlay());
    bag.on(model, "change:selection", () => {
      parts.area.draw();
      if (model.get("selection") === null) parts.areaPanel.set(null);
    });
    bag.on(model, "change:tracks", () => {
      if (applyTracks(parts.timeline.choice, model.get("tracks"), parts.timeline.geometry().layout.tiles))
        this.drawSoon();
    });
    bag.on(model, "change:group_by", () => this.onGrouping());
    bag.on(model, "change:metadata_key", () => this.onGrouping());
    bag.on(model, "change:flame_hierarchy", () => parts.flame.sync());
  }

  private onDone(msg: BlocksReply): void {
    if (!this.blocks.done(msg)) return;
    const cache = this.blocks.cache;
    this.showStatus();
    this.root.dataset.cacheBytes = String(cache.bytes);
    this.root.dataset.cachedBlocks = String(cache.size);
    if (this.groupsDirty) this.askGroups();
  }

  /** Nothing is left to ask for this view and state (the cache held it all): what waited for a reply goes now. */
  private onSettled(): void {
    this.showStatus();
    if (this.groupsDirty) this.askGroups();
  }

  /**
   * The status line, for the view and state shown: their samples as a reply counted them, or that
   * they are being counted (never the count of another view or state).
   */
  private showStatus(): void {
    const counted = this.blocks.counted();
    const { cache, refined } = this.blocks;
    this.parts.status.view({
      count: counted?.count ?? null,
      matched: counted?.matched ?? null,
      filtered: this.blocks.answer(this.state())?.filtered ?? false,
      level: this.parts.timeline.level(),
      roundTripMs: refined.roundTrip,
      kernelMs: refined.kernelMs,
      cached: cache.size,
      cacheBytes: cache.bytes,
    });
  }

  private onSideMessage(msg: SideMessage, buffers: DataView[]): void {
    // A request for a view or state left meanwhile (a flip's new span refused its range): nothing to show.
    if (msg.type === "error" && msg.request === "blocks" && msg.view === this.id && this.blocks.superseded(msg.id))
      return;
    switch (msg.type) {
      case "panel":
        this.onPanel(msg);
        break;
      case "fit":
        if (msg.id === this.fitId && msg.view) this.views.set(msg.view, true);
        break;
      default:
        deliver(this.parts, this.root, msg, buffers);
    }
  }

  /** What is at the cursor and the selected sample; a new selection not clicked here scrolls its row into view. */
  private onPanel(msg: PanelMessage): void {
    const timeline = this.parts.timeline;
    const was = this.selected?.sample;
    this.selected = msg.selected;
    this.parts.inspector.set(msg.at, msg.selected);
    if (this.selected && this.selected.sample !== was) {
      this.focus = "selection";
      const row = timeline.rowOfTile(this.selected.tile);
      if (row >= 0 && !this.picked) timeline.reveal(row);
    }
    this.picked = false;
    timeline.drawOverlay();
  }
}
