// The parts of one view (panels, timeline, overview), built and put in place: each reads what
// it shows from the traits through the host and hands its events to the host (the widget's
// controller, controller.ts), which decides what they change.

import type { AnyModel } from "@anywidget/types";
import type { Clock } from "../common/clock";
import { ThemeWatcher } from "../common/colors";
import type { Disposers } from "../common/disposers";
import type { Vocabulary } from "../common/vocabulary";
import type { Connection } from "../kernel/connection";
import type { SampleInfo, ToKernel } from "../kernel/protocol";
import type { Area, Filters, Info, Showing, Traits } from "../kernel/types";
import { AreaPanel, AreaTimer } from "../panels/areapanel";
import { BaselineToggle } from "../panels/baseline";
import { CodeCopy } from "../panels/codecopy";
import { Controls } from "../panels/controls";
import { type FindingRow, FindingsPanel } from "../panels/findings";
import { Flame } from "../panels/flame";
import { Groups } from "../panels/groups";
import { Header } from "../panels/header";
import { Help } from "../panels/help";
import { Inspector } from "../panels/inspector";
import { Legend } from "../panels/legend";
import { MarkersPanel } from "../panels/markers";
import { withMetadata } from "../panels/metadata";
import { type Matches, Search } from "../panels/search";
import { SideWidth } from "../panels/sidewidth";
import { Status } from "../panels/status";
import { Tooltip } from "../panels/tooltip";
import { TrackBar } from "../panels/trackbar";
import { Highlights } from "../timeline/highlight";
import { type Marker, MarkerLayer } from "../timeline/markers";
import { Overview } from "../timeline/overview";
import type { Painted } from "../timeline/painter";
import { AreaSelection } from "../timeline/selection";
import type { BlockCache } from "../timeline/tilecache";
import { Timeline } from "../timeline/timeline";
import type { Layout, TrackSource } from "../timeline/tracks";
import type { Range } from "../timeline/view";
import type { ViewState } from "../timeline/viewstate";
import { arrange, groupsNote, sideTop } from "./layout";

/** What the parts read and where their events go. */
export interface PartsHost {
  readonly id: string;
  /** The model through the connection (its sends and saves stop once the kernel is gone). */
  readonly model: AnyModel<Traits>;
  readonly words: Vocabulary;
  readonly root: HTMLElement;
  readonly bag: Disposers;
  readonly views: ViewState;
  info(): Info;
  span(): number;
  view(): Range;
  legendOf(mode: string): string[];
  send(message: ToKernel): void;
  /** The sample the inspector shows. */
  selectedSample(): SampleInfo | null;
  /** The search's matches as the timeline marks them, with the current one. */
  shownMatches(): { matches: Matches; current: number } | null;
  /** What the blocks to draw were answered for (blocks.ts). */
  state(): string;
  setFilters(filters: Filters): void;
  setColorBy(mode: string): void;
  setClock(clock: Clock): void;
  setShowing(next: Showing): void;
  setArea(next: Area | null): void;
  setGrouping(groupBy: string, key: string | null): void;
  setFlameHierarchy(hierarchy: string): void;
  /** Inspect sample `id` (the `selected` trait). */
  select(id: number): void;
  showFinding(row: FindingRow): void;
  showMarker(marker: Marker): void;
  relabel(index: number, label: string): void;
  pick(row: number, x: number): void;
  jump(matches: Matches, i: number): void;
  /** The search's matches changed (or were cleared). */
  searched(): void;
  drew(painted: Painted, final: boolean, ms: number): void;
  drawSoon(): void;
  rowsChanged(layout: Layout): void;
}

export class Parts {
  readonly header: Header;
  readonly controls: Controls;
  readonly legend: Legend;
  readonly status = new Status();
  readonly overview: Overview;
  readonly tooltip: Tooltip;
  readonly timeline: Timeline;
  readonly highlights: Highlights;
  readonly markerLayer: MarkerLayer;
  readonly markers: MarkersPanel;
  readonly area: AreaSelection;
  readonly areaTimer: AreaTimer;
  readonly codeCopy: CodeCopy;
  readonly search: Search;
  readonly help: Help;
  readonly trackBar: TrackBar;
  readonly baselineToggle: BaselineToggle;
  readonly groups: Groups;
  readonly areaPanel: AreaPanel;
  /** Says the group table shows the selected area, while it does (the flame graph's title says it of the graph). */
  readonly groupsNote = groupsNote();
  readonly findings: FindingsPanel;
  readonly inspector: Inspector;
  readonly flame: Flame;
  /** The side panel's width, dragged at its left edge. */
  readonly sideWidth: SideWidth;
  readonly themes: ThemeWatcher;
  /** The timeline's column (the track bar, overview and timeline): its width is the plot's. */
  readonly left: HTMLElement;

  constructor(host: PartsHost, connection: Connection, cache: BlockCache) {
    const { bag, model, root, views, words } = host;
    const info = () => host.info();
    const span = () => host.span();
    const view = () => host.view();
    const legend = (mode: string) => host.legendOf(mode);
    const clockHz = () => host.info().clock_hz;
    const send = (message: ToKernel) => host.send(message);
    const setView = (next: Range, remember: boolean) => views.set(next, remember);
    const setFilters = (f: Filters) => host.setFilters(f);
    const filters = () => model.get("filters");
    const colorBy = () => model.get("color_by");
    const clock = () => model.get("clock");
    const hasBaseline = () => host.info().baseline === true;

    this.header = new Header({ info, view });
    this.controls = new Controls(
      {
        filters,
        setFilters,
        colorBy,
        setColorBy: (mode) => host.setColorBy(mode),
        clock,
        setClock: (next) => host.setClock(next),
        kernels: () => host.info().kernels,
        zoom: (f) => views.zoom(f),
        reset: () => views.reset(),
      },
      bag,
      words,
      host.id,
    );
    this.legend = new Legend({ colorBy, legend }, words);
    this.overview = new Overview({ view, span, legend, noKernel: () => words.no_kernel, setView }, bag);
    this.tooltip = new Tooltip({ send, clockHz, clock, origin: () => root.getBoundingClientRect() }, host.id, words);
    const timeline = new Timeline(
      {
        view,
        span,
        source: () => host.info() as Info & TrackSource,
        legend,
        clockHz,
        clock,
        at: () => model.get("at"),
        selected: () => host.selectedSample(),
        noKernel: () => words.no_kernel,
        state: () => host.state(),
        onlyTiles: () => model.get("filters").tiles,
        matches: () => host.shownMatches(),
        setView,
        zoom: (factor, anchor) => views.wheelZoom(factor, anchor),
        undoZoom: () => views.undo(),
        pick: (row, x) => host.pick(row, x),
        hover: (row, x, cx, cy) => this.tooltip.hover(row, x, cx, cy),
        unhover: () => this.tooltip.unhover(),
        drew: (painted, final, ms) => host.drew(painted, final, ms),
        again: () => host.drawSoon(),
        rowsChanged: (layout) => host.rowsChanged(layout),
      },
      cache,
      bag,
    );
    this.timeline = timeline;
    this.highlights = new Highlights(
      view,
      () => timeline.geometry(),
      (row) => timeline.displayRowOf(row),
    );
    timeline.addLayer(this.highlights.layer);
    this.markerLayer = new MarkerLayer(
      () => model.get("marker_rows") ?? [],
      view,
      () => timeline.geometry(),
    );
    timeline.addLayer(this.markerLayer.layer);
    this.markers = new MarkersPanel(
      {
        markers: () => model.get("marker_rows") ?? [],
        show: (m) => host.showMarker(m),
        relabel: (i, label) => host.relabel(i, label),
      },
      bag,
    );
    this.area = new AreaSelection(
      {
        area: () => model.get("selection"),
        setArea: (next) => host.setArea(next),
        view,
        limit: () => Math.max(host.info().span, 8),
        rows: () => host.info().rows,
        clockHz,
        frame: () => timeline.geometry(),
        focus: () => root.focus({ preventScroll: true }),
      },
      timeline.addLayer.bind(timeline),
      bag,
    );
    this.areaTimer = new AreaTimer(root, bag);
    this.codeCopy = new CodeCopy(send, bag);
    this.search = new Search({ send, view, jump: (m, i) => host.jump(m, i), changed: () => host.searched() }, bag);
    this.help = new Help(bag);
    this.trackBar = new TrackBar(
      {
        setOrder: (order) => timeline.setOrder(order),
        zoomRows: (f) => timeline.zoomRows(f),
        unpinAll: () => timeline.unpinAll(),
        help: () => this.help.toggle(),
      },
      this.search.root,
      bag,
    );
    this.baselineToggle = new BaselineToggle(
      { hasBaseline, showing: () => model.get("showing"), setShowing: (next) => host.setShowing(next) },
      bag,
    );
    this.groups = new Groups(
      {
        groupBy: () => model.get("group_by"),
        metadataKey: () => model.get("metadata_key"),
        setGrouping: (g, k) => host.setGrouping(g, k),
        filters,
        setFilters,
      },
      bag,
      words,
    );
    this.areaPanel = new AreaPanel(
      { clockHz, select: (sample) => host.select(sample), clear: () => this.area.clear() },
      bag,
      words,
    );
    this.findings = new FindingsPanel(
      { rows: () => model.get("finding_rows") ?? [], show: (row) => host.showFinding(row) },
      bag,
    );
    this.inspector = new Inspector(
      { clockHz, clock, filterMetadata: (name, value) => setFilters(withMetadata(model.get("filters"), name, value)) },
      bag,
      words,
      sideTop(this.areaPanel.root, this.groupsNote, this.groups.root, this.findings.root, this.markers.root),
    );
    this.flame = new Flame(
      {
        filters,
        setFilters,
        colorBy,
        legend,
        hasBaseline,
        showing: () => model.get("showing"),
        flameHierarchy: () => model.get("flame_hierarchy"),
        setFlameHierarchy: (h) => host.setFlameHierarchy(h),
      },
      bag,
      words,
    );
    this.left = arrange(root, {
      banner: connection.banner,
      header: this.header.root,
      controls: this.controls.root,
      legend: this.legend.root,
      codePanel: this.codeCopy.panel,
      trackBar: this.trackBar.root,
      trackButtons: [this.area.toolButton, this.codeCopy.button, this.baselineToggle.button],
      overview: this.overview.root,
      timeline: timeline.root,
      inspector: this.inspector.root,
      flame: this.flame.root,
      status: this.status.root,
      tooltip: this.tooltip.root,
      help: this.help.root,
    });
    this.sideWidth = new SideWidth(this.inspector.root, () => this.inspector.root.parentElement, model, bag);
    this.sideWidth.place();
    connection.attach(root, () => this.status.error("disconnected from the kernel"));
    // The page's theme: read now and after each switch; the canvases and coloured parts redraw.
    this.themes = new ThemeWatcher(root, () => this.recolour(), bag);
  }

  private recolour(): void {
    this.legend.render();
    this.flame.render();
    this.timeline.recolour();
    this.overview.draw();
  }
}
