// ProfileWidget front end: header, controls, legend, overview, timeline, inspector and
// flame graph. Holds no profile: windows, summaries and sample details come from the
// kernel; selections go back through the synced traits (docs/widget-protocol.md). This
// module puts the parts together and applies the kernel's messages to them; each part,
// the request flow control and the message checks live in their own modules.

import "./widget.css";
import "./timeline.css";
import "./selection.css";
import type { Render } from "@anywidget/types";
import { AreaPanel, AreaTimer } from "./areapanel";
import { decodeWindow, float32 } from "./buffers";
import { ThemeWatcher } from "./colors";
import { CodeCopy } from "./codecopy";
import { Connection } from "./connection";
import { Controls } from "./controls";
import { Disposers } from "./disposers";
import { el } from "./dom";
import { BaselineToggle } from "./baseline";
import { FindingsPanel } from "./findings";
import { Flame } from "./flame";
import { frameScheduler } from "./frames";
import { Groups } from "./groups";
import { Header } from "./header";
import { Inbox, type SideMessage } from "./inbox";
import { Inspector } from "./inspector";
import { Help } from "./help";
import { Highlights } from "./highlight";
import { bindKeys, type KeyAction } from "./keys";
import { BLOCK_BINS } from "./levels";
import { Legend } from "./legend";
import { withMetadata } from "./metadata";
import { Overview } from "./overview";
import { nextAsk } from "./prefetch";
import { type BlocksReply, type SampleInfo, type ToKernel, unhandled, type WindowReply } from "./protocol";
import { AFTER_FRAME_MS, BlockRequests, Deferred, RequestHold } from "./requests";
import { type Matches, Search } from "./search";
import { AreaSelection } from "./selection";
import { Status } from "./status";
import { BlockCache } from "./tilecache";
import { Timeline } from "./timeline";
import { TrackBar } from "./trackbar";
import { Tooltip } from "./tooltip";
import { applyTracks, sameTracks, tracksOf } from "./trackstate";
import { Trips } from "./trips";
import type { TrackSource } from "./tracks";
import type { Area, Filters, Info, Traits } from "./types";
import { showing } from "./view";
import { ViewState } from "./viewstate";
import { vocabularyOf } from "./vocabulary";

let instances = 0;
/** How long after a picture the header's text follows it at most. */
const HEADER_MS = 60;

const render: Render<Traits> = ({ model: kernelModel, el: host }) => {
  const id = `${++instances}-${Math.random().toString(36).slice(2, 8)}`;
  const bag = new Disposers();
  // Every send and save goes through the connection: after a kernel restart they stop, quietly.
  const connection = new Connection(kernelModel, bag);
  const model = connection.model;
  const send = (message: ToKernel) => model.send(message);
  const info = () => model.get("info");
  const span = () => Math.max(info().span, 1);
  const legendOf = (mode: string) => info().legend[mode] ?? [];
  const words = vocabularyOf(info()); // `info` is read-only: set before any view opens

  const root = el("div", "ipu-nb-widget");
  root.tabIndex = 0;
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  // Right-click means "undo zoom" / "up" here, not JupyterLab's context menu.
  root.setAttribute("data-jp-suppress-context-menu", "true");
  host.append(root);
  bag.add(() => root.remove());

  // ---- state the traits hold --------------------------------------------------------------
  const views = new ViewState({
    model,
    span,
    timer: (fn) => bag.timer(fn),
    changed: () => void (root.dataset.undo = String(views.depth)), // the model's change event redraws
  });
  const view = () => views.get();
  const setView = (next: [number, number], remember: boolean) => views.set(next, remember);
  const setFilters = (f: Filters) => {
    model.set("filters", f);
    model.save_changes();
    onFilters();
  };
  let selected: SampleInfo | null = null;

  // ---- the parts ----------------------------------------------------------------------------
  const header = new Header({ info, view });
  const controls = new Controls(
    {
      filters: () => model.get("filters"),
      setFilters,
      colorBy: () => model.get("color_by"),
      setColorBy: (mode) => {
        model.set("color_by", mode);
        model.save_changes();
        onColour();
      },
      kernels: () => info().kernels,
      zoom: (f) => views.zoom(f),
      reset: () => views.reset(),
    },
    bag,
    words,
    id,
  );
  const legend = new Legend({ colorBy: () => model.get("color_by"), legend: legendOf }, words);
  const status = new Status();
  const overview = new Overview({ view, span, tiles: () => info().tiles, setView }, bag);
  const tooltip = new Tooltip(
    { send, clockHz: () => info().clock_hz, origin: () => root.getBoundingClientRect() },
    id,
    words,
  );
  // ---- the timeline and its cache -------------------------------------------------------------
  const cache = new BlockCache();
  /** What a block's answer depends on besides the block: the filters and the colouring. */
  const state = () => JSON.stringify([model.get("filters"), model.get("color_by"), model.get("showing")]);
  let matchesShown: { matches: Matches; current: number } | null = null;
  const timeline = new Timeline(
    {
      view,
      span,
      source: () => info() as Info & TrackSource,
      legend: legendOf,
      clockHz: () => info().clock_hz,
      at: () => model.get("at"),
      selected: () => selected,
      noKernel: () => words.no_kernel,
      state,
      onlyTiles: () => model.get("filters").tiles,
      matches: () => matchesShown,
      setView,
      zoom: (factor, anchor) => views.wheelZoom(factor, anchor),
      undoZoom: () => views.undo(),
      pick: (row, x) => {
        // Drawn at once; the kernel sets `at` and `selected` together from the pick (one
        // message, one inspector update) and syncs both back.
        focus = "selection";
        picked = true; // its row is on screen: the selection that comes back scrolls nothing
        model.set("at", x);
        send({ type: "pick", row, x });
        timeline.drawOverlay();
      },
      hover: (row, x, cx, cy) => tooltip.hover(row, x, cx, cy),
      unhover: () => tooltip.unhover(),
      drew: (painted, final, ms) => {
        highlights.draw();
        area.draw();
        // What the picture shows, as the kernel answered it (tests check it follows the controls).
        const as = final ? answeredAs.get(state()) : undefined;
        if (as) {
          root.dataset.colorBy = as.colorBy;
          root.dataset.filtered = String(as.filtered);
        }
        trips.drew({
          level: painted.level,
          final,
          blocks: painted.blocks,
          exact: painted.exact,
          standIns: painted.standIns,
          mode: painted.blocks > 0 && painted.raw.length === painted.blocks ? "raw" : "lod",
          drawMs: ms,
          made: painted.made,
        }, `${view()}|${state()}`);
        trips.images(timeline.images());
      },
      again: () => drawSoon(),
      rowsChanged: (layout) => {
        trackBar.sync(layout, timeline.choice.order, timeline.choice.pinned.length);
        if (!sameTracks(tracksOf(timeline.choice, layout.tiles), model.get("tracks"))) saveTracks.start(150);
      },
    },
    cache,
    bag,
  );
  // ---- the selected area, highlights and "copy as code" (selection.ts, highlight.ts, codecopy.ts) ----
  const highlights = new Highlights(view, () => timeline.geometry(), (row) => timeline.displayRowOf(row));
  timeline.addLayer(highlights.layer);
  const area = new AreaSelection(
    {
      area: () => model.get("selection"),
      setArea: (next: Area | null) => {
        areaTimer.set(next !== null);
        model.set("selection", next);
        model.save_changes();
        area.draw();
      },
      view,
      limit: () => Math.max(info().span, 8),
      rows: () => info().rows,
      clockHz: () => info().clock_hz,
      frame: () => timeline.geometry(),
      focus: () => root.focus({ preventScroll: true }),
    },
    timeline.addLayer.bind(timeline),
    bag,
  );
  const areaTimer = new AreaTimer(root, bag);
  const codeCopy = new CodeCopy(send, bag);
  /** The row layout goes to the `tracks` trait a little after it settles (a wheel moves it many times). */
  const saveTracks = bag.timer(() => {
    const now = tracksOf(timeline.choice, timeline.geometry().layout.tiles);
    if (sameTracks(now, model.get("tracks"))) return;
    model.set("tracks", now);
    model.save_changes();
  });
  /** What `f` fits: the latest of a selection (click, search hit, Python) or a filter change. */
  let focus: "selection" | "filters" = "filters";
  /** The latest selection came from a click on the timeline (else its row is scrolled into view when it comes). */
  let picked = false;
  let fitId = 0;
  const fit = (by: "matching" | "sample", value?: number) => send({ type: "fit", id: ++fitId, by, value });
  const search = new Search(
    {
      send,
      view,
      jump: (m, i) => {
        matchesShown = { matches: m, current: i };
        focus = "selection";
        views.set(showing(view(), m.start[i], m.end[i], span()), true);
        timeline.reveal(m.row[i]);
        model.set("selected", m.sample[i]);
        model.save_changes();
        drawSoon();
      },
      changed: () => {
        matchesShown = search.matches ? { matches: search.matches, current: search.current } : null;
        drawSoon();
      },
    },
    bag,
  );
  const help = new Help(bag);
  const trackBar = new TrackBar(
    {
      setOrder: (order) => timeline.setOrder(order),
      zoomRows: (f) => timeline.zoomRows(f),
      unpinAll: () => timeline.unpinAll(),
      help: () => help.toggle(),
    },
    search.root,
    bag,
  );
  const baselineToggle = new BaselineToggle(
    {
      hasBaseline: () => info().baseline === true,
      showing: () => model.get("showing"),
      setShowing: (next) => {
        model.set("showing", next);
        model.save_changes();
        onShowing();
      },
    },
    bag,
  );
  trackBar.root.append(area.toolButton, codeCopy.button, baselineToggle.button);
  // The group table is asked for after the window a filter change leads to.
  let groupsDirty = true;
  const askGroups = () => {
    groupsDirty = false;
    send({ type: "groups" });
  };
  const groups = new Groups(
    {
      groupBy: () => model.get("group_by"),
      metadataKey: () => model.get("metadata_key"),
      setGrouping: (g, k) => {
        // One update carrying both: the kernel checks them together.
        model.set("metadata_key", k);
        model.set("group_by", g);
        model.save_changes();
        groups.sync();
        askGroups();
      },
      filters: () => model.get("filters"),
      setFilters,
    },
    bag,
    words,
  );
  const areaPanel = new AreaPanel(
    {
      clockHz: () => info().clock_hz,
      select: (sample) => {
        model.set("selected", sample);
        model.save_changes();
      },
      clear: () => area.clear(),
    },
    bag,
    words,
  );
  /** Says the group table shows the selected area, while it does (the flame graph's title says it of the graph). */
  const groupsNote = el("div", "ipu-nb-area-note", "Groups of the selected area: cycles inside it");
  groupsNote.hidden = true;
  const sideTop = el("div", "ipu-nb-side-top");
  const findings = new FindingsPanel(
    {
      rows: () => model.get("finding_rows") ?? [],
      show: (row) => {
        setFilters(row.filters);
        setView(row.view, true);
      },
    },
    bag,
  );
  sideTop.append(areaPanel.root, groupsNote, groups.root, findings.root);
  const inspector = new Inspector(
    {
      clockHz: () => info().clock_hz,
      filterMetadata: (name, value) => setFilters(withMetadata(model.get("filters"), name, value)),
    },
    bag,
    words,
    sideTop,
  );
  const flame = new Flame(
    {
      filters: () => model.get("filters"),
      setFilters,
      colorBy: () => model.get("color_by"),
      legend: legendOf,
      hasBaseline: () => info().baseline === true,
    },
    bag,
    words,
  );

  const main = el("div", "ipu-nb-main");
  const left = el("div", "ipu-nb-left");
  left.append(trackBar.root, overview.root, timeline.root);
  main.append(left, inspector.root);
  root.append(
    connection.banner,
    header.root,
    controls.root,
    legend.root,
    codeCopy.panel,
    main,
    flame.root,
    status.root,
    tooltip.root,
    help.root,
  );
  connection.attach(root, () => status.error("disconnected from the kernel"));
  // The page's theme: read now and after each switch; the canvases and coloured parts redraw.
  const themes = new ThemeWatcher(
    root,
    () => {
      legend.render();
      flame.render();
      timeline.recolour();
      overview.draw();
    },
    bag,
  );

  // ---- blocks: asked for on every change (what the view lacks, then around it), drawn at the next frame ----
  const trips = new Trips(root);
  const limit = () => Math.max(info().span, 8);
  /** The state each request was made for: its blocks are stored under it. */
  const asked = new Map<number, string>();
  /** How the kernel answered each state (its colouring, whether filters were set), for the root's dataset. */
  const answeredAs = new Map<string, { colorBy: string; filtered: boolean }>();
  /** The kernel held other filters or colours than this state (a change on its way here): wait for it. */
  let refused: string | null = null;
  const hold = new RequestHold();
  const requests = new BlockRequests({
    next: () => {
      const now = state();
      return refused === now ? null : nextAsk(cache, now, view(), timeline.pixels(), span(), limit());
    },
    send: (requestId, ask) => {
      const now = state();
      asked.set(requestId, now);
      if (asked.size > 200) asked.delete(asked.keys().next().value!);
      for (const k of ask.blocks) cache.markPending(now, ask.level, k, requestId);
      const [start, end] = view();
      send({
        type: "blocks",
        view: id,
        id: requestId,
        level: ask.level,
        bins: BLOCK_BINS,
        blocks: ask.blocks,
        labels: true, // raw blocks are kept, and may be drawn later with rows tall enough for names
        filters: model.get("filters"),
        color_by: model.get("color_by"),
        showing: model.get("showing"),
        start,
        end: Math.min(end, limit()),
      });
    },
    over: (requestId) => {
      cache.settle(requestId);
      queueMicrotask(() => trips.inFlight(requests.busy || requests.holding));
    },
    log: trips,
    hold: (ask) => hold.wait(ask),
    timer: (fn) => bag.timer(fn),
  });
  // A held prefetch goes a little after the frame that drew the moved view (not inside it, nor
  // while the frame is being put on screen).
  const resumeSoon = bag.timer(() => requests.resume());
  // The header's words follow the picture a little later (each text change costs a frame a
  // layout and paint pass): at most every HEADER_MS while the view keeps moving.
  const headerSoon = bag.timer(() => header.render());
  const drawSoon = frameScheduler(bag, () => {
    if (!headerSoon.pending) headerSoon.start(HEADER_MS);
    timeline.draw();
    overview.showView();
    if (hold.drew()) resumeSoon.start(AFTER_FRAME_MS);
  });
  let disposed = false;
  bag.add(() => (disposed = true));
  const request = () => {
    if (!disposed) requests.request();
  };
  function onView() {
    const [s, e] = view();
    root.dataset.view = `${s},${e}`;
    tooltip.unhover(); // what it described may have moved or gone
    timeline.viewChanged();
    hold.moved([s, e]);
    request();
    drawSoon();
  }
  // The kernel answers for the filters and colours the request names: ask once the trait
  // update that `setFilters` / `setColorBy` save right after `model.set` has gone out ahead.
  const requestAfterSave = () => queueMicrotask(request);
  function onFilters() {
    groupsDirty = true;
    refused = null;
    focus = "filters";
    requestAfterSave();
    controls.sync();
    flame.render();
    search.refresh();
    drawSoon(); // the tiles filter changes the rows; the old state draws until the new one comes
  }
  /** The other profile is shown (`showing`): same view, rows and filters, its own blocks and side views. */
  function onShowing() {
    groupsDirty = true;
    refused = null;
    root.dataset.showing = model.get("showing");
    baselineToggle.sync();
    requestAfterSave();
    header.render();
    legend.render();
    drawSoon();
  }
  function onColour() {
    refused = null;
    requestAfterSave();
    controls.sync();
    legend.render();
    flame.render(); // coloured like the timeline
    drawSoon();
  }

  // ---- messages from the kernel -------------------------------------------------------------
  const onBlock = (msg: WindowReply, buffers: DataView[]) => {
    const made = msg.id === null ? undefined : asked.get(msg.id);
    if (made === undefined || msg.level === undefined || msg.block === undefined) return;
    const began = performance.now();
    const data = { ...decodeWindow(msg, buffers), colorBy: msg.color_by };
    const current = made === state();
    // Drawn on arrival only when it can change the picture: the view was not complete and it lies in the view.
    const lacking = current && !timeline.isFinal();
    const entry = cache.put(made, msg.level, msg.block, data);
    if (current) {
      timeline.prepare(entry);
      if (lacking && timeline.inView(entry)) drawSoon();
    }
    answeredAs.set(made, { colorBy: msg.color_by, filtered: msg.filtered });
    if (answeredAs.size > 50) answeredAs.delete(answeredAs.keys().next().value!);
    trips.block(msg.id!, performance.now() - began);
  };
  /** The latest request for what the view lacked: its round trip and kernel time, for the status line. */
  let refined: { roundTrip: number | null; kernelMs: number } = { roundTrip: null, kernelMs: 0 };
  const onDone = (msg: BlocksReply) => {
    const trip = trips.answered(msg);
    if (msg.stale) {
      refused = msg.id === null ? null : (asked.get(msg.id) ?? null);
      return;
    }
    if (trip && (!trip.prefetch || refined.roundTrip === null)) {
      refined = { roundTrip: trip.roundTripMs, kernelMs: msg.cost_ms.reduce((a, b) => a + b, 0) };
    }
    status.view({
      count: msg.count,
      matched: msg.matched,
      filtered: answeredAs.get(state())?.filtered ?? false,
      level: timeline.level(),
      roundTripMs: refined.roundTrip,
      kernelMs: refined.kernelMs,
      cached: cache.size,
      cacheBytes: cache.bytes,
    });
    root.dataset.cacheBytes = String(cache.bytes);
    root.dataset.cachedBlocks = String(cache.size);
    if (groupsDirty) askGroups();
  };
  const onSideMessage = (msg: SideMessage, buffers: DataView[]) => {
    switch (msg.type) {
      case "overview":
        overview.setSeries(float32(buffers[0]), float32(buffers[1]), msg.filtered);
        break;
      case "groups":
        groups.set(msg);
        groupsNote.hidden = !msg.area;
        if (msg.area) areaTimer.show("groups");
        break;
      case "flame":
        flame.set(msg);
        if (msg.area) areaTimer.show("flame");
        break;
      case "area":
        areaPanel.set(msg);
        if (msg.selection) areaTimer.show("area");
        break;
      case "highlight":
        highlights.set(msg, buffers);
        break;
      case "code":
        codeCopy.reply(msg).catch((err) => status.error(`error showing the code: ${err}`));
        break;
      case "panel": {
        const was = selected?.sample;
        selected = msg.selected;
        inspector.set(msg.at, msg.selected);
        if (selected && selected.sample !== was) {
          focus = "selection";
          const row = timeline.rowOfTile(selected.tile);
          if (row >= 0 && !picked) timeline.reveal(row);
        }
        picked = false;
        timeline.drawOverlay();
        break;
      }
      case "search":
        search.reply(msg, buffers);
        break;
      case "fit":
        if (msg.id === fitId && msg.view) setView(msg.view, true);
        break;
      case "hover":
        tooltip.reply(msg);
        break;
      case "error":
        status.error(`error: ${msg.message}`);
        root.dataset.error = msg.message;
        break;
      default:
        unhandled(msg);
    }
  };
  const inbox = new Inbox(id, requests, new Deferred(bag), {
    block: onBlock,
    done: onDone,
    side: onSideMessage,
    failed: (type, err) => status.error(`${type === "window" ? "error drawing window" : `error showing ${type}`}: ${err}`),
  });
  bag.on(model, "msg:custom", (content: unknown, buffers: DataView[]) => {
    areaTimer.hear(content);
    inbox.receive(content, buffers);
  });

  // ---- trait changes from Python ------------------------------------------------------------
  bag.on(model, "change:view", () => views.restoreUnsaved() || onView());
  bag.on(model, "change:filters", () => onFilters());
  bag.on(model, "change:color_by", () => onColour());
  bag.on(model, "change:showing", () => onShowing());
  bag.on(model, "change:finding_rows", () => findings.render());
  bag.on(model, "change:at", () => timeline.drawOverlay());
  bag.on(model, "change:selection", () => {
    area.draw();
    if (model.get("selection") === null) areaPanel.set(null);
  });
  bag.on(model, "change:tracks", () => {
    if (applyTracks(timeline.choice, model.get("tracks"), timeline.geometry().layout.tiles)) drawSoon();
  });
  const onGrouping = () => {
    groups.sync();
    askGroups();
  };
  bag.on(model, "change:group_by", onGrouping);
  bag.on(model, "change:metadata_key", onGrouping);

  // ---- input and size -----------------------------------------------------------------------
  const act = (action: KeyAction) => {
    if (typeof action === "object") {
      if ("zoom" in action) views.zoom(action.zoom);
      else if ("pan" in action) views.pan(action.pan);
      else if ("rows" in action) timeline.zoomRows(action.rows);
      else timeline.scrollBy(Math.sign(action.scroll), Math.abs(action.scroll) >= 1);
      return;
    }
    switch (action) {
      case "reset":
        views.reset();
        break;
      case "escape": // one thing at a time: the help, the ruler, the area, the search, else the whole profile
        if (help.shown) help.hide();
        else if (timeline.clearRuler()) break;
        else if (area.clear()) break;
        else if (search.matches) search.clear();
        else views.reset();
        break;
      case "area-tool":
        area.toggleTool();
        break;
      case "fit":
        if (focus === "selection" && selected) fit("sample", selected.sample);
        else fit("matching");
        break;
      case "fit-filters":
        fit("matching");
        break;
      case "search":
        search.focus();
        break;
      case "next":
        search.go(1);
        break;
      case "previous":
        search.go(-1);
        break;
      case "pin":
        if (selected) timeline.togglePin(selected.tile);
        break;
      case "help":
        help.toggle();
        break;
      case "baseline":
        baselineToggle.flip();
        break;
      default:
        unhandled(action);
    }
  };
  bindKeys(root, act, bag);
  const resize = () => {
    const width = Math.max(300, left.clientWidth || root.clientWidth - 340);
    timeline.resize(width);
    overview.resize(width);
    flame.resize();
    themes.refresh(); // the first resize comes once the view is attached and styled
    request();
  };
  const observer = new ResizeObserver(() => resize());
  observer.observe(left);
  bag.add(() => observer.disconnect());

  header.render();
  legend.render();
  controls.sync();
  root.dataset.showing = model.get("showing");
  applyTracks(timeline.choice, model.get("tracks"), info().rows.length); // the rows as the state left them
  root.dataset.view = view().join(",");
  timeline.layout(); // the track bar shows the rows at once
  resize();
  send({ type: "hello" });
  return () => bag.dispose();
};

export default { render };
