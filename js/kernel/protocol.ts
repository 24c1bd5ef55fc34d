// The messages between the kernel (ipu_nb/_widget/widget.py) and this front end, typed once, and
// the one place where what the kernel sends is checked before anything acts on it.
// docs/widget-protocol.md describes the same protocol in words, with the buffer layouts.

import {
  arrayOf,
  boolean,
  type Check,
  integer,
  isObject,
  literal,
  nullable,
  number,
  optional,
  record,
  recordOf,
  ShapeError,
  string,
  tuple,
} from "./checks";
import type { Area, Filters } from "./types";

// ---- front end → kernel ------------------------------------------------------------------

/** Draw `[start, end)` `pixels` device pixels wide; `labels` asks for operation names with raw intervals. */
export interface WindowRequest {
  type: "window";
  view: string;
  id: number;
  start: number;
  end: number;
  pixels: number;
  labels: boolean;
}

/** Describe the sample of timeline row `row` (0-based, top to bottom) covering offset `x`. */
export interface HoverRequest {
  type: "hover";
  view: string;
  id: number;
  row: number;
  x: number;
}

/** A click: the kernel sets `at` to `x` and `selected` to the sample there, and sends a panel. */
export interface PickRequest {
  type: "pick";
  row: number;
  x: number;
}

/** Send the group table for the current filters and grouping. */
export interface GroupsRequest {
  type: "groups";
  id?: number;
}

/** A view opened: send every side view (overview, flame graph, panel). */
export interface HelloRequest {
  type: "hello";
}

/**
 * Blocks of the timeline's level-of-detail cache (js/timeline/levels.ts): `blocks` of `level`, `bins`
 * cells a row each, answered for `filters` and `color_by` (a `blocks` reply marked `stale`
 * when the kernel holds others by then). `start`, `end`: the view, whose samples the reply counts.
 */
export interface BlocksRequest {
  type: "blocks";
  view: string;
  id: number;
  level: number;
  bins: number;
  blocks: number[];
  labels: boolean;
  filters: Filters;
  color_by: string;
  start: number;
  end: number;
  /** The profile shown (a widget with a baseline); the kernel refuses blocks for the other. */
  showing?: "after" | "baseline";
}

/** Find the samples matching the filters whose operation or kernel contains `text`. */
export interface SearchRequest {
  type: "search";
  id: number;
  text: string;
  case_sensitive: boolean;
}

/** The range to zoom to: the samples matching the filters, one sample, or one phase (as `widget.zoom_to`). */
export interface FitRequest {
  type: "fit";
  id: number;
  by: "matching" | "sample" | "phase";
  value?: number;
}

/** The "copy as code" button: send `widget.to_code()`. */
export interface CodeRequest {
  type: "code";
  id: number;
}

export type ToKernel =
  | WindowRequest
  | HoverRequest
  | PickRequest
  | GroupsRequest
  | HelloRequest
  | BlocksRequest
  | SearchRequest
  | FitRequest
  | CodeRequest;

/** Every `ToKernel` type (tsc checks the list is complete). */
export const TO_KERNEL_TYPES = Object.keys({
  window: 0,
  hover: 0,
  pick: 0,
  groups: 0,
  hello: 0,
  blocks: 0,
  search: 0,
  fit: 0,
  code: 0,
} satisfies Record<ToKernel["type"], 0>) as ToKernel["type"][];

// ---- payloads ------------------------------------------------------------------------------

/** One sample as the kernel describes it (hover replies leave out `metadata`). */
export interface SampleInfo {
  sample: number;
  tile: number;
  kind: string;
  inactive: boolean;
  operation: string;
  kernel: string;
  phase: number;
  epoch: number;
  offset: number;
  duration: number;
  local_index: number;
  start: number;
  end: number;
  matched: boolean;
  metadata?: [name: string, value: string][];
}

/** What is active at the cursor among the matching samples: counts and the top names. */
export interface AtSummary {
  at: number;
  count: number;
  tiles: number;
  kinds: [string, number][];
  operations: [string, number][];
  kernels: [string, number][];
  metadata: [name: string, value: string, count: number][];
}

/** A flame-graph node; `parent` indexes `nodes` (-1 for the root), `path` is null for merged "…" nodes. */
export interface FlameNode {
  name: string;
  level: number;
  value: number;
  parent: number;
  path: Record<string, string | number> | null;
}

export interface FlameMetadata {
  name: string;
  value: string;
  cycles: number;
  samples: number;
}

/** One row of the query core's group table. */
export interface GroupRow {
  name: string;
  dimensions: Record<string, string>;
  sample_count: number;
  phase_cycles: number;
  work_cycles: number;
  average_active_tiles: number;
}

// ---- kernel → front end --------------------------------------------------------------------

interface WindowReplyBase {
  type: "window";
  /** The request's `view` and `id`, echoed. */
  view: string | null;
  id: number | null;
  /** The colouring and whether filters are set, as the kernel answered (not as the request asked). */
  color_by: string;
  filtered: boolean;
  /** The range answered (may be narrower than asked for at the profile's end) and the samples in it. */
  start: number;
  end: number;
  count: number;
  /** For the answer to a `blocks` request: which block of which level this is. */
  level?: number;
  block?: number;
}

/** Raw intervals; buffers: x0 f32, x1 f32 (relative to `start`), row u16, flags u8, sample u32 [, label index u32]. */
export interface RawWindowReply extends WindowReplyBase {
  mode: "raw";
  labels?: string[];
}

/** Per-pixel summaries, `rows` × `bins` cells; buffers: cells u8, or three when `compressed` is "xor-runs". */
export interface LodWindowReply extends WindowReplyBase {
  mode: "lod";
  rows: number;
  bins: number;
  compressed: "xor-runs" | null;
  runs?: number;
}

export type WindowReply = RawWindowReply | LodWindowReply;

export interface HoverReply {
  type: "hover";
  view: string | null;
  id: number | null;
  sample: SampleInfo | null;
}

/** The inspector: the cursor summary and the selected sample (with its metadata). */
export interface PanelMessage {
  type: "panel";
  at: AtSummary | null;
  selected: SampleInfo | null;
}

export interface FlameMessage {
  type: "flame";
  total: number;
  nodes: FlameNode[];
  metadata: FlameMetadata[];
  /** The graph is the selected area's (clipped cycles). */
  area?: boolean;
  /** With a baseline: each node's after − before cycles on its path (null: a merged node). */
  deltas?: (number | null)[];
}

/** Active compute tiles over the whole profile in `bins` bins; buffers: all f32, matching f32. */
export interface OverviewMessage {
  type: "overview";
  bins: number;
  span: number;
  filtered: boolean;
}

/** A group's Δ columns: its `compare(baseline, after)` status and phase cycles (null where absent). */
export interface GroupDelta {
  status: string;
  before: number | null;
  after: number | null;
  delta: number;
  ratio: number | null;
}

export interface GroupsReply {
  type: "groups";
  id: number | null;
  group_by: string;
  error: string | null;
  rows: GroupRow[];
  /** With a baseline: each row's phase cycles before and after (null: no such group). */
  deltas?: (GroupDelta | null)[];
  /** The rows are the selected area's (`widget.selection_groups`, clipped cycles). */
  area?: boolean;
}

/**
 * A request failed. `request` names it where known: a message type (window, hover, pick,
 * groups, hello), "update" (a refused trait change) or a side view (overview, flame, panel).
 */
export interface ErrorReply {
  type: "error";
  request?: string;
  id?: number;
  view?: string;
  message: string;
}

/** A `blocks` request is answered (its blocks were sent before this, as `window` replies). */
export interface BlocksReply {
  type: "blocks";
  view: string | null;
  id: number | null;
  /** The kernel held other filters or colours than asked for: nothing was sent. */
  stale: boolean;
  /** Samples overlapping the request's `[start, end)` (the view), and those matching the filters. */
  count: number;
  matched: number;
  /** The kernel's cost of each block sent, milliseconds (summary and encoding). */
  cost_ms: number[];
}

/** Matches of a search, the first `sent` of `count` by offset; buffers: start f64, end f64, row u16, sample u32. */
export interface SearchReply {
  type: "search";
  id: number | null;
  text: string;
  case_sensitive: boolean;
  count: number;
  sent: number;
}

/** The answer to a `fit`: the range to show (null: nothing to fit, e.g. no sample matches). */
export interface FitReply {
  type: "fit";
  id: number | null;
  view: [number, number] | null;
}

/** One of an area's longest samples: its own interval and its cycles inside the area. */
export interface AreaSample {
  sample: number;
  tile: number;
  offset: number;
  duration: number;
  clipped_cycles: number;
  kind: string;
  operation: string;
  kernel: string;
  phase: number;
  epoch: number;
}

/** The selected area (null: cleared), within the filters (`window` null: it misses them), and what it holds. */
export interface AreaMessage {
  type: "area";
  selection: Area | null;
  window: [number, number] | null;
  tiles: number[] | null;
  count: number;
  tiles_hit: number;
  cycles: number;
  longest: AreaSample[];
}

/** `widget.highlight(frame)`: `count` samples, the first `sent` by offset; buffers: start f64, end f64, row u16, sample u32. */
export interface HighlightMessage {
  type: "highlight";
  count: number;
  sent: number;
}

/** The answer to a `code` request. */
export interface CodeReply {
  type: "code";
  id: number | null;
  code: string;
}

export type FromKernel =
  | BlocksReply
  | SearchReply
  | FitReply
  | WindowReply
  | HoverReply
  | PanelMessage
  | FlameMessage
  | OverviewMessage
  | GroupsReply
  | ErrorReply
  | AreaMessage
  | HighlightMessage
  | CodeReply;

/** For a `switch` over every message type: a new type not handled is a compile error. */
export function unhandled(message: never): never {
  throw new Error(`unhandled message ${JSON.stringify(message)}`);
}

// ---- checking what arrives -----------------------------------------------------------------

const pair = tuple<[string, number]>(string, number);

const sampleInfo = record<SampleInfo>({
  sample: integer,
  tile: integer,
  kind: string,
  inactive: boolean,
  operation: string,
  kernel: string,
  phase: integer,
  epoch: integer,
  offset: integer,
  duration: integer,
  local_index: integer,
  start: integer,
  end: integer,
  matched: boolean,
  metadata: optional(arrayOf(tuple<[string, string]>(string, string))),
});

const atSummary = record<AtSummary>({
  at: integer,
  count: integer,
  tiles: integer,
  kinds: arrayOf(pair),
  operations: arrayOf(pair),
  kernels: arrayOf(pair),
  metadata: arrayOf(tuple<[string, string, number]>(string, string, integer)),
});

const stringOrNumber: Check<string | number> = (v, path) => (typeof v === "number" ? number(v, path) : string(v, path));

const windowBase = {
  type: literal("window"),
  view: nullable(string),
  id: nullable(integer),
  color_by: string,
  filtered: boolean,
  start: integer,
  end: integer,
  count: integer,
  level: optional(integer),
  block: optional(integer),
};

const checks: { [T in FromKernel["type"]]: Check<Extract<FromKernel, { type: T }>> } = {
  window: (v, path) =>
    isObject(v) && v.mode === "raw"
      ? record<RawWindowReply>({ ...windowBase, mode: literal("raw"), labels: optional(arrayOf(string)) })(v, path)
      : record<LodWindowReply>({
          ...windowBase,
          mode: literal("lod"),
          rows: integer,
          bins: integer,
          compressed: nullable(literal("xor-runs")),
          runs: optional(integer),
        })(v, path),
  hover: record<HoverReply>({
    type: literal("hover"),
    view: nullable(string),
    id: nullable(integer),
    sample: nullable(sampleInfo),
  }),
  panel: record<PanelMessage>({ type: literal("panel"), at: nullable(atSummary), selected: nullable(sampleInfo) }),
  flame: record<FlameMessage>({
    type: literal("flame"),
    total: number,
    nodes: arrayOf(
      record<FlameNode>({
        name: string,
        level: integer,
        value: number,
        parent: integer,
        path: nullable(recordOf(stringOrNumber)),
      }),
    ),
    metadata: arrayOf(record<FlameMetadata>({ name: string, value: string, cycles: number, samples: integer })),
    area: optional(boolean),
    deltas: optional(arrayOf(nullable(integer))),
  }),
  overview: record<OverviewMessage>({ type: literal("overview"), bins: integer, span: integer, filtered: boolean }),
  groups: record<GroupsReply>({
    type: literal("groups"),
    id: nullable(integer),
    group_by: string,
    error: nullable(string),
    rows: arrayOf(
      record<GroupRow>({
        name: string,
        dimensions: recordOf(string),
        sample_count: integer,
        phase_cycles: number,
        work_cycles: number,
        average_active_tiles: number,
      }),
    ),
    area: optional(boolean),
    deltas: optional(
      arrayOf(
        nullable(
          record<GroupDelta>({
            status: string,
            before: nullable(integer),
            after: nullable(integer),
            delta: integer,
            ratio: nullable(number),
          }),
        ),
      ),
    ),
  }),
  blocks: record<BlocksReply>({
    type: literal("blocks"),
    view: nullable(string),
    id: nullable(integer),
    stale: boolean,
    count: integer,
    matched: integer,
    cost_ms: arrayOf(number),
  }),
  search: record<SearchReply>({
    type: literal("search"),
    id: nullable(integer),
    text: string,
    case_sensitive: boolean,
    count: integer,
    sent: integer,
  }),
  fit: record<FitReply>({
    type: literal("fit"),
    id: nullable(integer),
    view: nullable(tuple<[number, number]>(integer, integer)),
  }),
  area: record<AreaMessage>({
    type: literal("area"),
    selection: nullable(record<Area>({ start: integer, end: integer, tiles: nullable(arrayOf(integer)) })),
    window: nullable(tuple<[number, number]>(integer, integer)),
    tiles: nullable(arrayOf(integer)),
    count: integer,
    tiles_hit: integer,
    cycles: integer,
    longest: arrayOf(
      record<AreaSample>({
        sample: integer,
        tile: integer,
        offset: integer,
        duration: integer,
        clipped_cycles: integer,
        kind: string,
        operation: string,
        kernel: string,
        phase: integer,
        epoch: integer,
      }),
    ),
  }),
  highlight: record<HighlightMessage>({ type: literal("highlight"), count: integer, sent: integer }),
  code: record<CodeReply>({ type: literal("code"), id: nullable(integer), code: string }),
  error: record<ErrorReply>({
    type: literal("error"),
    request: optional(string),
    id: optional(integer),
    view: optional(string),
    message: string,
  }),
};

/** Every `FromKernel` type. */
export const FROM_KERNEL_TYPES = Object.keys(checks) as FromKernel["type"][];

/** Byte lengths the buffers of `message` must have (null: any), or null when it carries none. */
function bufferLayout(message: FromKernel): (number | null)[] | null {
  if (message.type === "overview") return [4 * message.bins, 4 * message.bins];
  if (message.type === "search" || message.type === "highlight") {
    return [8 * message.sent, 8 * message.sent, 2 * message.sent, 4 * message.sent];
  }
  if (message.type !== "window") return null;
  const n = message.count;
  if (message.mode === "raw") return [4 * n, 4 * n, 2 * n, n, 4 * n, ...(message.labels ? [4 * n] : [])];
  if (message.compressed === "xor-runs") {
    if (message.runs === undefined) throw new ShapeError("window.runs: expected an integer with compressed cells");
    return [null, null, null];
  }
  return [message.rows * message.bins];
}

function checkBuffers(message: FromKernel, buffers: readonly DataView[]): void {
  const layout = bufferLayout(message);
  if (layout === null) return;
  if (buffers.length !== layout.length) {
    throw new ShapeError(`${message.type}: expected ${layout.length} buffers, got ${buffers.length}`);
  }
  layout.forEach((bytes, i) => {
    if (bytes !== null && buffers[i].byteLength !== bytes) {
      throw new ShapeError(`${message.type} buffer ${i}: expected ${bytes} bytes, got ${buffers[i].byteLength}`);
    }
  });
}

export type Parsed =
  | { ok: true; message: FromKernel }
  | {
      ok: false;
      /** What is wrong, one line. */
      problem: string;
      /** The message's `type` when it is a string (a known type with a bad field, or an unknown one). */
      type: string | null;
      /** Its `view` and `id` where well-formed, so a broken window reply can still release its request. */
      view: string | null;
      id: number | null;
    };

/** `content` as a message from the kernel, or why it is not one; never throws. */
export function parseKernelMessage(content: unknown, buffers: readonly DataView[]): Parsed {
  const field = (name: string): unknown => {
    try {
      return isObject(content) ? content[name] : undefined;
    } catch {
      return undefined; // a getter that throws: not a message from JSON
    }
  };
  const refuse = (problem: string): Parsed => {
    const [type, view, id] = [field("type"), field("view"), field("id")];
    return {
      ok: false,
      problem,
      type: typeof type === "string" ? type : null,
      view: typeof view === "string" ? view : null,
      id: Number.isInteger(id) ? (id as number) : null,
    };
  };
  try {
    if (!isObject(content))
      return refuse(`a message must be an object, got ${content === null ? "null" : typeof content}`);
    const type = content.type;
    // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; the bundle targets ES2020
    if (typeof type !== "string" || !Object.prototype.hasOwnProperty.call(checks, type)) {
      return refuse(`unknown message type ${JSON.stringify(type) ?? String(type)}`);
    }
    const message = checks[type as FromKernel["type"]](content, type);
    checkBuffers(message, buffers);
    return { ok: true, message };
  } catch (error) {
    return refuse(error instanceof ShapeError ? error.message : "unreadable message");
  }
}
