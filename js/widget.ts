// ProfileWidget front end: header, controls, legend, overview, timeline, inspector and
// flame graph. Holds no profile: windows, summaries and sample details come from the
// kernel; selections go back through the synced traits (docs/widget-protocol.md). This
// module puts the parts together and applies the kernel's messages to them; each part,
// the request flow control and the message checks live in their own modules.

import "./widget.css";
import type { Render } from "@anywidget/types";
import { decodeWindow, float32 } from "./buffers";
import { ThemeWatcher } from "./colors";
import { Connection } from "./connection";
import { Controls } from "./controls";
import { Disposers } from "./disposers";
import { el } from "./dom";
import { Flame } from "./flame";
import { frameScheduler } from "./frames";
import { Groups } from "./groups";
import { Header } from "./header";
import { Inbox, type SideMessage } from "./inbox";
import { Inspector } from "./inspector";
import { bindKeys } from "./keys";
import { Legend } from "./legend";
import { withMetadata } from "./metadata";
import { Overview } from "./overview";
import { type SampleInfo, type ToKernel, unhandled, type WindowReply } from "./protocol";
import { Deferred, WindowRequests } from "./requests";
import { Status } from "./status";
import { Timeline } from "./timeline";
import { Tooltip } from "./tooltip";
import { Trips } from "./trips";
import type { Filters, Traits } from "./types";
import { ViewState } from "./viewstate";
import { vocabularyOf } from "./vocabulary";

let instances = 0;

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
    changed: () => {
      root.dataset.undo = String(views.depth);
      onView();
    },
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
  const timeline = new Timeline(
    {
      view,
      span,
      rows: () => info().rows,
      legend: legendOf,
      at: () => model.get("at"),
      selected: () => selected,
      noKernel: () => words.no_kernel,
      setView,
      zoom: (factor, anchor) => views.wheelZoom(factor, anchor),
      undoZoom: () => views.undo(),
      pick: (row, x) => {
        // Drawn at once; the kernel sets `at` and `selected` together from the pick (one
        // message, one inspector update) and syncs both back.
        model.set("at", x);
        send({ type: "pick", row, x });
        timeline.drawOverlay();
      },
      hover: (row, x, cx, cy) => tooltip.hover(row, x, cx, cy),
      unhover: () => tooltip.unhover(),
    },
    bag,
  );
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
  const inspector = new Inspector(
    {
      clockHz: () => info().clock_hz,
      filterMetadata: (name, value) => setFilters(withMetadata(model.get("filters"), name, value)),
    },
    bag,
    words,
    groups.root,
  );
  const flame = new Flame(
    { filters: () => model.get("filters"), setFilters, colorBy: () => model.get("color_by"), legend: legendOf },
    bag,
    words,
  );

  const main = el("div", "ipu-nb-main");
  const left = el("div", "ipu-nb-left");
  left.append(overview.root, timeline.root);
  main.append(left, inspector.root);
  root.append(connection.banner, header.root, controls.root, legend.root, main, flame.root, status.root, tooltip.root);
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

  // ---- windows: requested on every change, drawn at the next frame --------------------------
  const trips = new Trips(root);
  const requests = new WindowRequests(id, {
    wanted: () => {
      const [start, end] = view();
      const pixels = timeline.pixels();
      const labels = timeline.wantsLabels();
      // Filters and colours change the answer for the same window.
      const key = JSON.stringify([start, end, pixels, labels, model.get("filters"), model.get("color_by")]);
      return { ask: { start, end, pixels, labels }, key };
    },
    send,
    log: trips,
  });
  const drawSoon = frameScheduler(bag, () => {
    header.render();
    timeline.draw();
    overview.draw();
  });
  let disposed = false;
  bag.add(() => (disposed = true));
  const request = () => {
    if (!disposed) requests.request();
  };
  function onView() {
    request();
    drawSoon();
  }
  // The kernel answers with its own filters and colours: ask once the trait update that
  // `setFilters` / `setColorBy` save right after `model.set` has gone out ahead of the request.
  const requestAfterSave = () => queueMicrotask(request);
  function onFilters() {
    groupsDirty = true;
    requestAfterSave();
    controls.sync();
    flame.render();
  }
  function onColour() {
    requestAfterSave();
    controls.sync();
    legend.render();
    flame.render(); // coloured like the timeline
  }

  // ---- messages from the kernel -------------------------------------------------------------
  const onWindow = (msg: WindowReply, buffers: DataView[]) => {
    const arrived = performance.now();
    const data = { ...decodeWindow(msg, buffers), colorBy: msg.color_by };
    const decoded = performance.now();
    const t1 = performance.now();
    timeline.setData(data);
    const drawMs = performance.now() - t1;
    const roundTrip = trips.answered(msg, data, { arrived, decoded, drawMs });
    status.window(data, roundTrip, drawMs);
    if (groupsDirty) askGroups();
  };
  const onSideMessage = (msg: SideMessage, buffers: DataView[]) => {
    switch (msg.type) {
      case "overview":
        overview.setSeries(float32(buffers[0]), float32(buffers[1]), msg.filtered);
        break;
      case "groups":
        groups.set(msg);
        break;
      case "flame":
        flame.set(msg);
        break;
      case "panel":
        selected = msg.selected;
        inspector.set(msg.at, msg.selected);
        timeline.drawOverlay();
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
    window: onWindow,
    side: onSideMessage,
    failed: (type, err) => status.error(`${type === "window" ? "error drawing window" : `error showing ${type}`}: ${err}`),
  });
  bag.on(model, "msg:custom", (content: unknown, buffers: DataView[]) => inbox.receive(content, buffers));

  // ---- trait changes from Python ------------------------------------------------------------
  bag.on(model, "change:view", () => onView());
  bag.on(model, "change:filters", () => onFilters());
  bag.on(model, "change:color_by", () => onColour());
  bag.on(model, "change:at", () => timeline.drawOverlay());
  const onGrouping = () => {
    groups.sync();
    askGroups();
  };
  bag.on(model, "change:group_by", onGrouping);
  bag.on(model, "change:metadata_key", onGrouping);

  // ---- input and size -----------------------------------------------------------------------
  bindKeys(root, { zoom: (f) => views.zoom(f), pan: (f) => views.pan(f), reset: () => views.reset() }, bag);
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
  resize();
  send({ type: "hello" });
  return () => bag.dispose();
};

export default { render };
