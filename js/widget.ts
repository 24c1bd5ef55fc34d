// ProfileWidget front end: header, controls, legend, overview, timeline, inspector and
// flame graph. Holds no profile: windows, summaries and sample details come from the
// kernel; selections go back through the synced traits.

import "./widget.css";
import { decodeWindow, float32 } from "./buffers";
import { classColours, css, GREY } from "./colors";
import { Controls } from "./controls";
import { Disposers } from "./disposers";
import { clear, el } from "./dom";
import { cycles, grouped, ms } from "./format";
import { Flame } from "./flame";
import { Groups } from "./groups";
import { Inspector } from "./inspector";
import { withMetadata } from "./metadata";
import { Overview } from "./overview";
import { Timeline } from "./timeline";
import type { Render } from "@anywidget/types";
import {
  type ErrorReply,
  type FromKernel,
  parseKernelMessage,
  type SampleInfo,
  type ToKernel,
  unhandled,
  type WindowReply,
} from "./protocol";
import type { Filters, Traits, WindowData } from "./types";
import { clampView, pan, zoomAt, type Range } from "./view";

let instances = 0;

/** One window request as the widget saw it (kept on the root element for benchmarks). */
interface Trip {
  id: number;
  mode: string;
  sentEpochMs: number; // wall clock, to line up with the kernel's log
  arrivedEpochMs: number;
  waitMs: number; // view change → request sent (waiting for an earlier reply)
  roundTripMs: number; // request sent → reply decoded
  decodeMs: number; // reply arrived → decoded
  drawMs: number;
}

const render: Render<Traits> = ({ model, el: host }) => {
  const id = `${++instances}-${Math.random().toString(36).slice(2, 8)}`;
  const bag = new Disposers();
  const root = el("div", "ipu-nb-widget");
  root.tabIndex = 0;
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  // Right-click means "undo zoom" / "up" here, not JupyterLab's context menu.
  root.setAttribute("data-jp-suppress-context-menu", "true");
  host.append(root);

  const info = () => model.get("info");
  const span = () => Math.max(info().span, 1);
  const view = (): Range => {
    const v = model.get("view");
    return [v[0], v[1]];
  };
  const send = (message: ToKernel) => model.send(message);
  const undo: Range[] = [];
  let selected: SampleInfo | null = null;

  const setView = (next: Range, remember: boolean) => {
    const v = clampView(next, span());
    const cur = view();
    if (v[0] === cur[0] && v[1] === cur[1]) return;
    if (remember) undo.push(cur);
    root.dataset.undo = String(undo.length);
    model.set("view", v);
    model.save_changes();
    onView();
  };
  const zoom = (factor: number, anchor = 0.5) => setView(zoomAt(view(), factor, anchor, span()), true);
  // A wheel gesture is many events: remember the view once per gesture, not per event.
  let lastWheel = 0;
  const wheelZoom = (factor: number, anchor: number) => {
    const now = performance.now();
    setView(zoomAt(view(), factor, anchor, span()), now - lastWheel > 600);
    lastWheel = now;
  };
  const reset = () => setView([0, span()], true);
  const setFilters = (f: Filters) => {
    model.set("filters", f);
    model.save_changes();
    onFilters();
  };

  // ---- header, controls, legend -------------------------------------------------------------
  const header = el("div", "ipu-nb-header");
  const controls = new Controls(
    {
      filters: () => model.get("filters"),
      setFilters,
      colorBy: () => model.get("color_by"),
      setColorBy: (mode) => {
        model.set("color_by", mode as "kind" | "kernel");
        model.save_changes();
        onColour();
      },
      kernels: () => info().kernels,
      zoom: (f) => zoom(f),
      reset,
    },
    bag,
    id,
  );
  const legend = el("div", "ipu-nb-legend");
  const status = el("div", "ipu-nb-status");

  // ---- overview, timeline, inspector, flame ---------------------------------------------------
  const overview = new Overview({ view, span, tiles: () => info().tiles, setView }, bag);
  const tooltip = el("div", "ipu-nb-tooltip");
  tooltip.hidden = true;
  let hoverId = 0;
  const timeline = new Timeline({
    view,
    span,
    rows: () => info().rows,
    legend: (mode) => info().legend[mode as "kind" | "kernel"] ?? [],
    at: () => model.get("at"),
    selected: () => selected,
    setView,
    zoom: (factor, anchor) => wheelZoom(factor, anchor),
    undoZoom: () => {
      const prev = undo.pop();
      root.dataset.undo = String(undo.length);
      if (prev) {
        model.set("view", prev);
        model.save_changes();
        onView();
      }
    },
    pick: (row, x) => {
      // Drawn at once; the kernel sets `at` and `selected` together from the pick (one
      // message, one inspector update) and syncs both back.
      model.set("at", x);
      send({ type: "pick", row, x });
      timeline.drawOverlay();
    },
    hover: (row, x, cx, cy) => {
      send({ type: "hover", view: id, id: ++hoverId, row, x });
      tooltip.dataset.x = String(cx);
      tooltip.dataset.y = String(cy);
    },
    unhover: () => {
      hoverId++;
      tooltip.hidden = true;
    },
  }, bag);
  let groupsDirty = true;
  const askGroups = () => {
    groupsDirty = false;
    send({ type: "groups" });
  };
  const groups = new Groups({
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
  }, bag);
  const inspector = new Inspector(
    {
      clockHz: () => info().clock_hz,
      filterMetadata: (name, value) => setFilters(withMetadata(model.get("filters"), name, value)),
    },
    bag,
    groups.root,
  );
  const flame = new Flame({ filters: () => model.get("filters"), setFilters }, bag);

  const main = el("div", "ipu-nb-main");
  const left = el("div", "ipu-nb-left");
  left.append(overview.root, timeline.root);
  main.append(left, inspector.root);
  root.append(header, controls.root, legend, main, flame.root, status, tooltip);

  // ---- window requests: at most one in flight, always for the latest view ---------------------
  // A change sends its request at once (drawing waits for the next frame), unless one is in
  // flight: then the latest view goes out when that reply lands, so a burst of wheel events
  // never queues stale windows in the kernel.
  let requestId = 0;
  let inFlight = false;
  let dirty = false;
  let sentAt = 0;
  let sentKey = ""; // what the latest request asked for
  let changedAt = 0; // when the view first changed since the last request (0: none pending)
  const sentTimes = new Map<number, number>();
  const waits = new Map<number, number>(); // view change → request sent
  const request = () => {
    if (!changedAt) changedAt = performance.now();
    const [s, e] = view();
    const pixels = timeline.pixels();
    const labels = timeline.wantsLabels();
    // Filters and colours change the answer for the same window.
    const key = JSON.stringify([s, e, pixels, labels, model.get("filters"), model.get("color_by")]);
    if (key === sentKey) {
      dirty = false; // already asked for (a trait echo, a second listener, a resize to the same width)
      changedAt = 0;
      return;
    }
    // One request in flight; a lost reply (kernel busy or restarted) stops blocking after 5 s.
    if (inFlight && performance.now() - sentAt < 5000) {
      dirty = true;
      return;
    }
    inFlight = true;
    dirty = false;
    sentKey = key;
    sentAt = performance.now();
    if (sentTimes.size > 100) {
      sentTimes.clear(); // replies lost to a kernel restart
      waits.clear();
    }
    sentTimes.set(requestId + 1, sentAt);
    waits.set(requestId + 1, sentAt - changedAt);
    changedAt = 0;
    root.dataset.requestId = String(requestId + 1);
    send({ type: "window", view: id, id: ++requestId, start: s, end: e, pixels, labels });
  };
  let frame = 0;
  const drawSoon = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      renderHeader();
      timeline.draw();
      overview.draw();
    });
  };
  bag.add(() => cancelAnimationFrame(frame));

  const renderHeader = () => {
    clear(header);
    const i = info();
    const [s, e] = view();
    const item = (label: string, value: string) => {
      const box = el("span", "ipu-nb-fact");
      box.append(el("span", "ipu-nb-fact-label", label), el("span", "ipu-nb-fact-value", value));
      header.append(box);
    };
    item("tiles", grouped(i.tiles));
    item("samples", grouped(i.samples));
    item("span", `${grouped(i.span)} cycles · ${ms(i.span, i.clock_hz)}`);
    item("view", `${cycles(s)} – ${cycles(e)} (${grouped(e - s)} cycles · ${ms(e - s, i.clock_hz)})`);
    item("granularity", i.granularity);
  };
  const renderLegend = () => {
    clear(legend);
    const mode = model.get("color_by");
    const names = info().legend[mode] ?? [];
    const colours = classColours(mode, names);
    names.forEach((name, i) => {
      const item = el("span", "ipu-nb-legend-item");
      const sw = el("span", "ipu-nb-swatch");
      sw.style.background = css(colours[i + 1]);
      item.append(sw, el("span", undefined, name));
      legend.append(item);
    });
    const grey = el("span", "ipu-nb-legend-item");
    const sw = el("span", "ipu-nb-swatch");
    sw.style.background = css(GREY);
    grey.append(sw, el("span", undefined, "not matching filters"));
    legend.append(grey);
    if (mode === "kind") legend.append(el("span", "ipu-nb-legend-note", "compute with active=false drawn as idle"));
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
    renderLegend();
  }

  // ---- messages from the kernel -----------------------------------------------------------
  // The latest round trips, for benchmarks: request sent → reply decoded, and its drawing.
  const trips: Trip[] = [];
  (root as HTMLElement & { ipuTrips?: Trip[] }).ipuTrips = trips;
  const onWindow = (msg: WindowReply, buffers: DataView[]) => {
    const arrived = performance.now();
    const replyId = msg.id ?? -1;
    const data: WindowData = { ...decodeWindow(msg, buffers), colorBy: msg.color_by };
    const t0 = performance.now();
    const sent = sentTimes.get(replyId) ?? sentAt;
    const wait = waits.get(replyId) ?? 0;
    sentTimes.delete(replyId);
    waits.delete(replyId);
    inFlight = false;
    if (dirty) request(); // the latest view leaves before this reply is drawn
    const t1 = performance.now();
    timeline.setData(data);
    const draw = performance.now() - t1;
    const rt = t0 - sent;
    trips.push({
      id: replyId,
      mode: data.mode,
      sentEpochMs: performance.timeOrigin + sent,
      arrivedEpochMs: performance.timeOrigin + arrived,
      waitMs: wait,
      roundTripMs: rt,
      decodeMs: t0 - arrived,
      drawMs: draw,
    });
    if (trips.length > 200) trips.shift();
    status.textContent = `${data.mode === "raw" ? "raw intervals" : `summary ${data.bins} px`} · ${grouped(data.count)} samples in window · round trip ${rt.toFixed(0)} ms · draw ${draw.toFixed(0)} ms`;
    root.dataset.windowId = String(replyId);
    root.dataset.roundTripMs = rt.toFixed(1);
    root.dataset.drawMs = draw.toFixed(1);
    root.dataset.mode = data.mode;
    root.dataset.colorBy = data.colorBy; // what the kernel answered with (tests check it follows the controls)
    root.dataset.filtered = String(Boolean(msg.filtered));
    if (!root.dataset.firstDrawAt) root.dataset.firstDrawAt = String(Date.now());
    if (groupsDirty) askGroups();
  };
  // Side views (panel, tooltip, groups, flame graph, overview) that arrive while a window is
  // in flight are applied right after it: their DOM updates would each cost a frame first,
  // and the window reply would wait behind them.
  let deferred: (() => void)[] = [];
  const deferTimer = bag.timer(() => flushDeferred());
  const flushDeferred = () => {
    deferTimer.cancel();
    const jobs = deferred;
    deferred = [];
    for (const job of jobs) job();
  };
  // Malformed or unknown messages are dropped, each kind reported once on the console.
  const reported = new Set<string>();
  const onMessage = (content: unknown, buffers: DataView[]) => {
    const parsed = parseKernelMessage(content, buffers);
    if (!parsed.ok) {
      const kind = parsed.type ?? "(no type)";
      if (!reported.has(kind)) {
        reported.add(kind);
        console.warn(`ipu-nb widget: dropped a message from the kernel (${parsed.problem})`);
      }
      if (parsed.type === "window" && parsed.view === id) {
        // The reply to a request of this view is unusable: that request is over.
        onSideMessage({ type: "error", request: "window", view: id, message: parsed.problem }, []);
      }
      return;
    }
    const msg = parsed.message;
    if (msg.type === "window") {
      if (msg.view !== id) return; // another view of the same widget asked for this one
      try {
        onWindow(msg, buffers);
      } catch (err) {
        inFlight = false;
        status.textContent = `error drawing window: ${err}`;
      }
      flushDeferred();
    } else if (inFlight && msg.type !== "error") {
      deferred.push(() => onSideMessage(msg, buffers));
      if (!deferTimer.pending) deferTimer.start(300);
    } else {
      onSideMessage(msg, buffers);
    }
  };
  const onSideMessage = (msg: Exclude<FromKernel, WindowReply>, buffers: DataView[]) => {
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
        if (msg.view !== id) return;
        if (msg.id !== hoverId || !msg.sample) {
          if (msg.id === hoverId) tooltip.hidden = true;
          return;
        }
        showTooltip(msg.sample);
        break;
      case "error":
        onError(msg);
        break;
      default:
        unhandled(msg);
    }
  };
  const onError = (msg: ErrorReply) => {
    status.textContent = `error: ${msg.message}`;
    root.dataset.error = msg.message;
    if ((msg.request === "window" && (msg.view ?? id) === id) || msg.request === undefined) {
      inFlight = false; // the window asked for is not coming
      flushDeferred();
    }
  };
  const showTooltip = (s: SampleInfo) => {
    clear(tooltip);
    const c = info().clock_hz;
    tooltip.append(
      el("div", "ipu-nb-tooltip-title", s.operation || "(no operation)"),
      el("div", undefined, `${s.kind}${s.inactive ? " (inactive)" : ""} · kernel ${s.kernel || "(none)"}`),
      el("div", undefined, `tile ${s.tile} · phase ${s.phase}/${s.epoch}`),
      el("div", undefined, `offset ${grouped(s.offset)} · ${grouped(s.duration)} cycles (${ms(s.duration, c)})`),
    );
    const rect = root.getBoundingClientRect();
    tooltip.style.left = `${Number(tooltip.dataset.x) - rect.left + 14}px`;
    tooltip.style.top = `${Number(tooltip.dataset.y) - rect.top + 14}px`;
    tooltip.hidden = false;
  };
  bag.on(model, "msg:custom", onMessage);

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

  // ---- keyboard -------------------------------------------------------------------------------
  bag.listen(root, "keydown", (e) => {
    const target = e.target as HTMLElement;
    if (target.tagName === "INPUT" || target.tagName === "SELECT") {
      e.stopPropagation();
      return;
    }
    let handled = true;
    if (e.key === "+" || e.key === "=") zoom(0.5);
    else if (e.key === "-" || e.key === "_") zoom(2);
    else if (e.key === "0" || e.key === "Escape") reset();
    else if (e.key === "ArrowLeft") setView(pan(view(), -0.25, span()), false);
    else if (e.key === "ArrowRight") setView(pan(view(), 0.25, span()), false);
    else handled = false;
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  });
  bag.listen(root, "mousedown", (e) => {
    if ((e.target as HTMLElement).tagName === "CANVAS") root.focus({ preventScroll: true });
  });

  // ---- size -----------------------------------------------------------------------------------
  const resize = () => {
    const width = Math.max(300, left.clientWidth || root.clientWidth - 340);
    timeline.resize(width);
    overview.resize(width);
    request();
  };
  const observer = new ResizeObserver(() => resize());
  observer.observe(left);
  bag.add(() => observer.disconnect());

  renderHeader();
  renderLegend();
  controls.sync();
  resize();
  send({ type: "hello" });

  bag.add(() => root.remove());
  return () => bag.dispose();
};

export default { render };
