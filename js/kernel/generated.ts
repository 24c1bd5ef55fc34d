// Generated from ipu_nb/_widget/protocol.py by `python -m ipu_nb._widget.protocol_gen`: do not edit.
// The types, checks and buffer layouts of every widget message (docs/widget-protocol.md).

import type { Layout } from "./buffers";
import {
  arrayOf,
  boolean,
  type Check,
  integer,
  literal,
  nullable,
  number,
  oneOf,
  optional,
  record,
  recordOf,
  string,
  tagged,
  tuple,
} from "./checks";

// ---- the messages' types (protocol.py's TypedDicts) ----------------------------------------------------------------

/** The widget's `info["vocabulary"]`. */
export interface VocabularyInfo {
  kinds: string[];
  group_bys: string[];
  sort_bys: string[];
  color_bys: string[];
  flame_hierarchies: string[];
  no_kernel: string;
  missing: string;
  accounting_parts: Record<string, string>;
  palette: Record<string, string>;
  kernel_palette: string[];
  activity_palette: Record<string, string>;
  activity_labels: Record<string, string>;
  color_by_labels: Record<string, string>;
}

/** The `filters` trait as the front end holds it (`ipu_nb._query.filters_codec.normalise_filters`' form). */
export interface Filters {
  kind: string | null;
  kernel: string | null;
  /** Exact operation names (any of them); the flame graph's focus sets one. */
  operation: string[];
  operation_contains: string | null;
  tiles: number[];
  phases: number[];
  /** `[name, value]` pairs, value None meaning "has an entry named name". */
  metadata: [string, string | null][];
  /** Samples overlapping `[start, end)` (set from Python; the front end keeps it as it is). */
  window: [number, number] | null;
}

/** The `selection` trait: offsets `[start, end)` on physical tiles `tiles` (None: every tile). */
export interface Area {
  start: number;
  end: number;
  tiles: number[] | null;
}

/** Draw offsets `[start, end)` `pixels` wide; `labels` asks for operation names of raw samples. */
export interface WindowRequest {
  type: "window";
  view?: string;
  id?: number;
  start: number;
  end: number;
  pixels: number;
  labels?: boolean;
}

/** Describe the sample of timeline row `row` at offset `x` (answered by `HoverReply`). */
export interface HoverRequest {
  type: "hover";
  view?: string;
  id?: number;
  row: number;
  x: number;
}

/** A click: sets the `at` trait to `x` and `selected` to the sample there (then a `PanelPush`). */
export interface PickRequest {
  type: "pick";
  row: number;
  x: number;
}

/** Send the group table for the current state (answered by `GroupsReply`). */
export interface GroupsRequest {
  type: "groups";
  id?: number;
}

/** A new view opened: send every side view (overview, flame graph, panel). */
export interface HelloRequest {
  type: "hello";
}

/**
 * Cache blocks `blocks` of `level` (`bins` cells a row), for the `filters` and `color_by` the front end holds; `[start,
 * end)` is its view (answered by `WindowReply`s, then a `BlocksReply`).
 */
export interface BlocksRequest {
  type: "blocks";
  view?: string;
  id?: number;
  level: number;
  bins: number;
  blocks: number[];
  labels?: boolean;
  filters: Filters;
  color_by: string;
  start: number;
  end: number;
  /** With a baseline: the profile shown (`"after"` / `"baseline"`); other answers are stale. */
  showing?: "after" | "baseline";
  /** The clock of `start`, `end` and the blocks (the `clock` trait); answers on another are stale. */
  clock?: "tile" | "cropped" | "shared";
}

/** Samples matching the filters whose operation or kernel contains `text` (answered by `SearchReply`). */
export interface SearchRequest {
  type: "search";
  id?: number;
  text: string;
  case_sensitive?: boolean;
}

/** The range to zoom to: `by` "matching" (the filters), "sample" or "phase" (`value`); a `FitReply`. */
export interface FitRequest {
  type: "fit";
  id?: number;
  by: "matching" | "sample" | "phase";
  value?: number;
}

/** A click on a finding: `widget.show_finding(rank)` (its filters, view, named tile pinned and highlighted). */
export interface FindingRequest {
  type: "finding";
  id?: number;
  rank: number;
}

/** The "copy as code" button: send `widget.to_code()` (answered by `CodeReply`). */
export interface CodeRequest {
  type: "code";
  id?: number;
}

/**
 * A window of raw intervals. Buffers: x0 and x1 (f32, relative to `start`), row (u16), flags (u8: colour class | 0x80
 * when matching), sample id (u32); with labels, one more: each sample's index (u32) into `labels`.
 */
export interface RawHeader {
  mode: "raw";
  start: number;
  end: number;
  count: number;
}

/**
 * A summarised window: `planes` grids of u8 cells per (row, bin), one per colour class of `classes` (ascending; 0:
 * samples not matching the filters), each cell the share of its cycles that class covers in 255ths
 * (`ipu_nb._widget.lod.shares`); packed as `"xor-runs"` (`runs` runs over the buffers of
 * `ipu_nb._widget.lod.pack_cells`, the planes one under the other).
 */
export interface LodHeader {
  mode: "lod";
  start: number;
  end: number;
  rows: number;
  bins: number;
  planes: number;
  classes: number[];
  count: number;
  compressed: "xor-runs" | null;
  runs?: number;
}

/**
 * A `WindowReply` with `mode: "raw"` (a `RawHeader`). A window of raw intervals. Buffers: x0 and x1 (f32, relative to
 * `start`), row (u16), flags (u8: colour class | 0x80 when matching), sample id (u32); with labels, one more: each
 * sample's index (u32) into `labels`.
 */
export interface RawWindowReply {
  type: "window";
  view: string | null;
  id: number | null;
  color_by: string;
  filtered: boolean;
  mode: "raw";
  start: number;
  end: number;
  count: number;
  labels?: string[];
  level?: number;
  block?: number;
}

/**
 * A `WindowReply` with `mode: "lod"` (a `LodHeader`). A summarised window: `planes` grids of u8 cells per (row, bin),
 * one per colour class of `classes` (ascending; 0: samples not matching the filters), each cell the share of its cycles
 * that class covers in 255ths (`ipu_nb._widget.lod.shares`); packed as `"xor-runs"` (`runs` runs over the buffers of
 * `ipu_nb._widget.lod.pack_cells`, the planes one under the other).
 */
export interface LodWindowReply {
  type: "window";
  view: string | null;
  id: number | null;
  color_by: string;
  filtered: boolean;
  mode: "lod";
  start: number;
  end: number;
  count: number;
  rows: number;
  bins: number;
  planes: number;
  classes: number[];
  compressed: "xor-runs" | null;
  runs?: number;
  labels?: string[];
  level?: number;
  block?: number;
}

/** The answer to a `WindowRequest`: its `view` and `id` echoed, and a raw or summary header. */
export type WindowReply = RawWindowReply | LodWindowReply;

/**
 * A `BlocksRequest` answered: its blocks went out before as `WindowReply`s (`stale`: none did, the kernel held other
 * filters or colours); `count`/`matched`: samples in the request's view.
 */
export interface BlocksReply {
  type: "blocks";
  view: string | null;
  id: number | null;
  stale: boolean;
  count: number;
  matched: number;
  cost_ms: number[];
}

/** The first `sent` of `count` matches by offset. Buffers: start, end (f64), row (u16), sample (u32). */
export interface SearchReply {
  type: "search";
  id: number | null;
  text: string;
  case_sensitive: boolean;
  count: number;
  sent: number;
}

/** The range a `FitRequest` zooms to, or None when there is nothing to fit. */
export interface FitReply {
  type: "fit";
  id: number | null;
  view: [number, number] | null;
}

/** One sample as the tooltip and the inspector show it. */
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
}

/**
 * `SampleInfo` plus the sample's metadata entries as `[name, value]` pairs in position order, its exchange activities
 * as `[kind, start, end]` (offsets in its window), its role cycles (`ROLE_COLUMNS` names; none without a window) and
 * the newest runtime's accounting parts as `[name, offset, end]`.
 */
export interface SampleDetail extends SampleInfo {
  metadata: [string, string][];
  activities: [string, number, number][];
  roles: Record<string, number>;
  parts: [string, number, number][];
}

/**
 * The answer to a `HoverRequest`: the sample there, or None; in colour mode "activity" also the display piece there
 * (`[class, offset, end]`) and the newest runtime's accounting part there (`[name, offset, end]`).
 */
export interface HoverReply {
  type: "hover";
  view: string | null;
  id: number | null;
  sample: SampleInfo | null;
  piece?: [string, number, number];
  part?: [string, number, number];
}

/**
 * The samples matching the filters and active at offset `at`: counts and the top names.
 *
 * `kinds`, `operations` and `kernels` are `[name, count]` pairs, `metadata` `[name, value, count]` triples, most
 * frequent first.
 */
export interface AtSummary {
  at: number;
  count: number;
  tiles: number;
  kinds: [string, number][];
  operations: [string, number][];
  kernels: [string, number][];
  metadata: [string, string, number][];
}

/** The inspector: the cursor's summary (None without `at`) and the selected sample (None without one). */
export interface PanelPush {
  type: "panel";
  at: AtSummary | null;
  selected: SampleDetail | null;
}

/** One node of the flame graph; `path` holds the filters that focus it (None for a merged `…` node). */
export interface FlameNode {
  name: string;
  level: number;
  value: number;
  parent: number;
  path: Record<string, string | number> | null;
}

/** A metadata entry of the focused operation's samples: summed cycles and sample count. */
export interface FlameMetadata {
  name: string;
  value: string;
  cycles: number;
  samples: number;
}

/** The flame graph of the matching samples, one level per key of `levels` (`flame_hierarchy`). */
export interface FlameTree {
  total: number;
  /** The filter key of each level below the root, outermost first (a node at level d has the first d in its path). */
  levels: string[];
  nodes: FlameNode[];
  metadata: FlameMetadata[];
}

/** `FlameTree` as sent; `area`: of the selected area (its clipped cycles), not of every matching sample. */
export interface FlamePush extends FlameTree {
  type: "flame";
  area?: boolean;
  /** With a baseline: each node's after − before cycles on its path (None: a merged node). */
  deltas?: (number | null)[];
}

/**
 * The whole span in `bins` bins, coloured by `color_by`: per plane (colour class of the `classes` buffer; 0: samples
 * not matching the filters), each bin's tile-cycles of that class / (tiles × bin width)
 * (`ipu_nb._widget.lod.overview_shares`). Drawn as stacks of those shares of the strip's height, the mean colour of any
 * columns is the cycle-weighted mean over all tiles.
 */
export interface OverviewPush {
  type: "overview";
  bins: number;
  span: number;
  planes: number;
  color_by: string;
}

/** One row of the group table (the top of `query(profile, widget.query).groups`). */
export interface GroupRow {
  name: string;
  dimensions: Record<string, string>;
  sample_count: number;
  phase_cycles: number;
  work_cycles: number;
  average_active_tiles: number;
}

/** The answer to a `GroupsRequest`: rows, or the query's error (a metadata group-by without its key). */
export interface GroupsReply {
  type: "groups";
  id: number | null;
  group_by: string;
  error: string | null;
  rows: GroupRow[];
  /** The rows are the selected area's (`widget.selection_groups`, clipped cycles). */
  area?: boolean;
  /** With a baseline: each row's phase cycles before and after (`compare(baseline, after)`); None: no such group. */
  deltas?: (GroupDelta | null)[];
}

/** A group's Δ columns: its `Comparison.groups` status and phase cycles (before/after null where absent). */
export interface GroupDelta {
  status: string;
  before: number | null;
  after: number | null;
  delta: number;
  ratio: number | null;
}

/** One entry of the findings panel (`widget.finding_rows`): a ranked finding and the state that shows it. */
export interface FindingRow {
  rank: number;
  category: string;
  subject: string;
  message: string;
  cycles: number;
  ms: number;
  share: number;
  filters: Filters;
  view: [number, number];
  /** The physical tile it names (pinned and highlighted when it is shown), or None. */
  tile: number | null;
}

/**
 * One note on the timeline (`widget.marker_rows`): offsets `[start, end]` (equal: a point in time) and a label,
 * untrusted text the front end shows escaped.
 */
export interface Marker {
  start: number;
  end: number;
  label: string;
}

/** Which request an error answers, where the (possibly bad) request said so well-formed. */
export interface ReplyAddress {
  request?: string;
  id?: number;
  view?: string;
}

/** A request or a trait update the kernel refused; `request`, `id` and `view` say which, where known. */
export interface ErrorReply extends ReplyAddress {
  type: "error";
  message: string;
}

/** One of an area's longest samples: its own interval, and its cycles inside the area. */
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

/**
 * The selected area (`widget.selection`, None when cleared) and what it holds.
 *
 * `window` and `tiles` are the area within the filters (None: it misses them, or no tiles filter); `count`, `tiles_hit`
 * and `cycles` count the matching samples overlapping it, the tiles they are on and their clipped cycles; `longest` the
 * top samples by clipped cycles. The groups and flame graph of the area come as `GroupsReply` / `FlamePush` with
 * `area`.
 */
export interface AreaPush {
  type: "area";
  selection: Area | null;
  window: [number, number] | null;
  tiles: number[] | null;
  count: number;
  tiles_hit: number;
  cycles: number;
  longest: AreaSample[];
}

/**
 * `widget.highlight(frame)`: `count` samples marked, the first `sent` by offset in the buffers (start, end f64; row
 * u16; sample id u32), as a search reply's; `count` 0 clears.
 */
export interface HighlightPush {
  type: "highlight";
  count: number;
  sent: number;
}

/** The answer to a `CodeRequest`: the Python reproducing the view. */
export interface CodeReply {
  type: "code";
  id: number | null;
  code: string;
}

/** Every message the front end sends. */
export type FromFrontEnd =
  | WindowRequest
  | HoverRequest
  | PickRequest
  | GroupsRequest
  | HelloRequest
  | BlocksRequest
  | SearchRequest
  | FitRequest
  | CodeRequest
  | FindingRequest;

/** Every message the kernel sends. */
export type ToFrontEnd =
  | WindowReply
  | HoverReply
  | PanelPush
  | FlamePush
  | OverviewPush
  | GroupsReply
  | ErrorReply
  | BlocksReply
  | SearchReply
  | FitReply
  | AreaPush
  | HighlightPush
  | CodeReply;

/** The `type` tags of `FromFrontEnd`. */
export const REQUEST_TYPES: readonly FromFrontEnd["type"][] = [
  "window",
  "hover",
  "pick",
  "groups",
  "hello",
  "blocks",
  "search",
  "fit",
  "code",
  "finding",
];

/** The `type` tags of `ToFrontEnd`. */
export const REPLY_TYPES: readonly ToFrontEnd["type"][] = [
  "window",
  "hover",
  "panel",
  "flame",
  "overview",
  "groups",
  "error",
  "blocks",
  "search",
  "fit",
  "area",
  "highlight",
  "code",
];

// ---- their checks --------------------------------------------------------------------------------------------------

export const checkVocabularyInfo = record<VocabularyInfo>({
  kinds: arrayOf(string),
  group_bys: arrayOf(string),
  sort_bys: arrayOf(string),
  color_bys: arrayOf(string),
  flame_hierarchies: arrayOf(string),
  no_kernel: string,
  missing: string,
  accounting_parts: recordOf(string),
  palette: recordOf(string),
  kernel_palette: arrayOf(string),
  activity_palette: recordOf(string),
  activity_labels: recordOf(string),
  color_by_labels: recordOf(string),
});

export const checkFilters = record<Filters>({
  kind: nullable(string),
  kernel: nullable(string),
  operation: arrayOf(string),
  operation_contains: nullable(string),
  tiles: arrayOf(integer),
  phases: arrayOf(integer),
  metadata: arrayOf(tuple<[string, string | null]>(string, nullable(string))),
  window: nullable(tuple<[number, number]>(integer, integer)),
});

export const checkArea = record<Area>({
  start: integer,
  end: integer,
  tiles: nullable(arrayOf(integer)),
});

export const checkWindowRequest = record<WindowRequest>({
  type: literal("window"),
  view: optional(string),
  id: optional(integer),
  start: integer,
  end: integer,
  pixels: integer,
  labels: optional(boolean),
});

export const checkHoverRequest = record<HoverRequest>({
  type: literal("hover"),
  view: optional(string),
  id: optional(integer),
  row: integer,
  x: integer,
});

export const checkPickRequest = record<PickRequest>({
  type: literal("pick"),
  row: integer,
  x: integer,
});

export const checkGroupsRequest = record<GroupsRequest>({
  type: literal("groups"),
  id: optional(integer),
});

export const checkHelloRequest = record<HelloRequest>({
  type: literal("hello"),
});

export const checkBlocksRequest = record<BlocksRequest>({
  type: literal("blocks"),
  view: optional(string),
  id: optional(integer),
  level: integer,
  bins: integer,
  blocks: arrayOf(integer),
  labels: optional(boolean),
  filters: checkFilters,
  color_by: string,
  start: integer,
  end: integer,
  showing: optional(literal("after", "baseline")),
  clock: optional(literal("tile", "cropped", "shared")),
});

export const checkSearchRequest = record<SearchRequest>({
  type: literal("search"),
  id: optional(integer),
  text: string,
  case_sensitive: optional(boolean),
});

export const checkFitRequest = record<FitRequest>({
  type: literal("fit"),
  id: optional(integer),
  by: literal("matching", "sample", "phase"),
  value: optional(integer),
});

export const checkFindingRequest = record<FindingRequest>({
  type: literal("finding"),
  id: optional(integer),
  rank: integer,
});

export const checkCodeRequest = record<CodeRequest>({
  type: literal("code"),
  id: optional(integer),
});

export const checkRawHeader = record<RawHeader>({
  mode: literal("raw"),
  start: integer,
  end: integer,
  count: integer,
});

export const checkLodHeader = record<LodHeader>({
  mode: literal("lod"),
  start: integer,
  end: integer,
  rows: integer,
  bins: integer,
  planes: integer,
  classes: arrayOf(integer),
  count: integer,
  compressed: nullable(literal("xor-runs")),
  runs: optional(integer),
});

export const checkRawWindowReply = record<RawWindowReply>({
  type: literal("window"),
  view: nullable(string),
  id: nullable(integer),
  color_by: string,
  filtered: boolean,
  mode: literal("raw"),
  start: integer,
  end: integer,
  count: integer,
  labels: optional(arrayOf(string)),
  level: optional(integer),
  block: optional(integer),
});

export const checkLodWindowReply = record<LodWindowReply>({
  type: literal("window"),
  view: nullable(string),
  id: nullable(integer),
  color_by: string,
  filtered: boolean,
  mode: literal("lod"),
  start: integer,
  end: integer,
  count: integer,
  rows: integer,
  bins: integer,
  planes: integer,
  classes: arrayOf(integer),
  compressed: nullable(literal("xor-runs")),
  runs: optional(integer),
  labels: optional(arrayOf(string)),
  level: optional(integer),
  block: optional(integer),
});

export const checkWindowReply = tagged<WindowReply>("mode", {
  raw: checkRawWindowReply,
  lod: checkLodWindowReply,
});

export const checkBlocksReply = record<BlocksReply>({
  type: literal("blocks"),
  view: nullable(string),
  id: nullable(integer),
  stale: boolean,
  count: integer,
  matched: integer,
  cost_ms: arrayOf(number),
});

export const checkSearchReply = record<SearchReply>({
  type: literal("search"),
  id: nullable(integer),
  text: string,
  case_sensitive: boolean,
  count: integer,
  sent: integer,
});

export const checkFitReply = record<FitReply>({
  type: literal("fit"),
  id: nullable(integer),
  view: nullable(tuple<[number, number]>(integer, integer)),
});

export const checkSampleInfo = record<SampleInfo>({
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
});

export const checkSampleDetail = record<SampleDetail>({
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
  metadata: arrayOf(tuple<[string, string]>(string, string)),
  activities: arrayOf(tuple<[string, number, number]>(string, integer, integer)),
  roles: recordOf(integer),
  parts: arrayOf(tuple<[string, number, number]>(string, integer, integer)),
});

export const checkHoverReply = record<HoverReply>({
  type: literal("hover"),
  view: nullable(string),
  id: nullable(integer),
  sample: nullable(checkSampleInfo),
  piece: optional(tuple<[string, number, number]>(string, integer, integer)),
  part: optional(tuple<[string, number, number]>(string, integer, integer)),
});

export const checkAtSummary = record<AtSummary>({
  at: integer,
  count: integer,
  tiles: integer,
  kinds: arrayOf(tuple<[string, number]>(string, integer)),
  operations: arrayOf(tuple<[string, number]>(string, integer)),
  kernels: arrayOf(tuple<[string, number]>(string, integer)),
  metadata: arrayOf(tuple<[string, string, number]>(string, string, integer)),
});

export const checkPanelPush = record<PanelPush>({
  type: literal("panel"),
  at: nullable(checkAtSummary),
  selected: nullable(checkSampleDetail),
});

export const checkFlameNode = record<FlameNode>({
  name: string,
  level: integer,
  value: integer,
  parent: integer,
  path: nullable(recordOf(oneOf(string, integer))),
});

export const checkFlameMetadata = record<FlameMetadata>({
  name: string,
  value: string,
  cycles: integer,
  samples: integer,
});

export const checkFlameTree = record<FlameTree>({
  total: integer,
  levels: arrayOf(string),
  nodes: arrayOf(checkFlameNode),
  metadata: arrayOf(checkFlameMetadata),
});

export const checkFlamePush = record<FlamePush>({
  total: integer,
  levels: arrayOf(string),
  nodes: arrayOf(checkFlameNode),
  metadata: arrayOf(checkFlameMetadata),
  type: literal("flame"),
  area: optional(boolean),
  deltas: optional(arrayOf(nullable(integer))),
});

export const checkOverviewPush = record<OverviewPush>({
  type: literal("overview"),
  bins: integer,
  span: integer,
  planes: integer,
  color_by: string,
});

export const checkGroupRow = record<GroupRow>({
  name: string,
  dimensions: recordOf(string),
  sample_count: integer,
  phase_cycles: integer,
  work_cycles: integer,
  average_active_tiles: number,
});

export const checkGroupDelta = record<GroupDelta>({
  status: string,
  before: nullable(integer),
  after: nullable(integer),
  delta: integer,
  ratio: nullable(number),
});

export const checkGroupsReply = record<GroupsReply>({
  type: literal("groups"),
  id: nullable(integer),
  group_by: string,
  error: nullable(string),
  rows: arrayOf(checkGroupRow),
  area: optional(boolean),
  deltas: optional(arrayOf(nullable(checkGroupDelta))),
});

export const checkFindingRow = record<FindingRow>({
  rank: integer,
  category: string,
  subject: string,
  message: string,
  cycles: integer,
  ms: number,
  share: number,
  filters: checkFilters,
  view: tuple<[number, number]>(integer, integer),
  tile: nullable(integer),
});

export const checkMarker = record<Marker>({
  start: integer,
  end: integer,
  label: string,
});

export const checkReplyAddress = record<ReplyAddress>({
  request: optional(string),
  id: optional(integer),
  view: optional(string),
});

export const checkErrorReply = record<ErrorReply>({
  request: optional(string),
  id: optional(integer),
  view: optional(string),
  type: literal("error"),
  message: string,
});

export const checkAreaSample = record<AreaSample>({
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
});

export const checkAreaPush = record<AreaPush>({
  type: literal("area"),
  selection: nullable(checkArea),
  window: nullable(tuple<[number, number]>(integer, integer)),
  tiles: nullable(arrayOf(integer)),
  count: integer,
  tiles_hit: integer,
  cycles: integer,
  longest: arrayOf(checkAreaSample),
});

export const checkHighlightPush = record<HighlightPush>({
  type: literal("highlight"),
  count: integer,
  sent: integer,
});

export const checkCodeReply = record<CodeReply>({
  type: literal("code"),
  id: nullable(integer),
  code: string,
});

/** The check of each `FromFrontEnd` message, by its type. */
export const REQUEST_CHECKS: { [T in FromFrontEnd["type"]]: Check<Extract<FromFrontEnd, { type: T }>> } = {
  window: checkWindowRequest,
  hover: checkHoverRequest,
  pick: checkPickRequest,
  groups: checkGroupsRequest,
  hello: checkHelloRequest,
  blocks: checkBlocksRequest,
  search: checkSearchRequest,
  fit: checkFitRequest,
  code: checkCodeRequest,
  finding: checkFindingRequest,
};

/** The check of each `ToFrontEnd` message, by its type. */
export const REPLY_CHECKS: { [T in ToFrontEnd["type"]]: Check<Extract<ToFrontEnd, { type: T }>> } = {
  window: checkWindowReply,
  hover: checkHoverReply,
  panel: checkPanelPush,
  flame: checkFlamePush,
  overview: checkOverviewPush,
  groups: checkGroupsReply,
  error: checkErrorReply,
  blocks: checkBlocksReply,
  search: checkSearchReply,
  fit: checkFitReply,
  area: checkAreaPush,
  highlight: checkHighlightPush,
  code: checkCodeReply,
};

// ---- the binary buffers (protocol.LAYOUTS) -------------------------------------------------------------------------

/** Each message's buffers, in order: element type and count (the product of its header's `length` keys). */
export const LAYOUTS = {
  /** A window of raw intervals (`RawHeader`): one entry per sample overlapping it, unclipped. */
  raw_window: {
    message: "window",
    when: { mode: "raw" },
    needs: [],
    buffers: [
      /** start offset minus the header's `start` (may be negative) */
      { name: "x0", dtype: "f32", length: ["count"], only_with: null },
      /** end offset minus `start` */
      { name: "x1", dtype: "f32", length: ["count"], only_with: null },
      /** timeline row */
      { name: "row", dtype: "u16", length: ["count"], only_with: null },
      /** bits 0–4: colour class (legend index + 1); bit 7: matches the filters */
      { name: "flags", dtype: "u8", length: ["count"], only_with: null },
      /** sample id */
      { name: "sample", dtype: "u32", length: ["count"], only_with: null },
      /** index into the header's `labels` (the operation names) */
      { name: "label", dtype: "u32", length: ["count"], only_with: "labels" },
    ],
  },
  /** A summarised window (`LodHeader`) as it is: one byte a cell and plane. */
  lod_window: {
    message: "window",
    when: { mode: "lod", compressed: null },
    needs: [],
    buffers: [
      /** per plane (class of `classes`), per (row, bin): the class's share of the cell in 255ths, row-major */
      { name: "cells", dtype: "u8", length: ["planes", "rows", "bins"], only_with: null },
    ],
  },
  /** A summarised window packed by `ipu_nb._widget.lod.pack_cells`: each row XOR the row above, as `runs` runs. */
  packed_window: {
    message: "window",
    when: { mode: "lod", compressed: "xor-runs" },
    needs: ["runs"],
    buffers: [
      /** the zeros before each run, as counts (one byte below 255, else 255 and a u32) */
      { name: "gaps", dtype: "u8", length: [], only_with: null },
      /** the length of each run, as counts */
      { name: "lengths", dtype: "u8", length: [], only_with: null },
      /** the runs' bytes */
      { name: "literals", dtype: "u8", length: [], only_with: null },
    ],
  },
  /** The first `sent` matches of a search by offset, then timeline row. */
  search_matches: {
    message: "search",
    when: {},
    needs: [],
    buffers: [
      /** start offset */
      { name: "start", dtype: "f64", length: ["sent"], only_with: null },
      /** end offset */
      { name: "end", dtype: "f64", length: ["sent"], only_with: null },
      /** timeline row */
      { name: "row", dtype: "u16", length: ["sent"], only_with: null },
      /** sample id */
      { name: "sample", dtype: "u32", length: ["sent"], only_with: null },
    ],
  },
  /** The first `sent` highlighted samples by offset, then timeline row (as a search's). */
  highlight_matches: {
    message: "highlight",
    when: {},
    needs: [],
    buffers: [
      /** start offset */
      { name: "start", dtype: "f64", length: ["sent"], only_with: null },
      /** end offset */
      { name: "end", dtype: "f64", length: ["sent"], only_with: null },
      /** timeline row */
      { name: "row", dtype: "u16", length: ["sent"], only_with: null },
      /** sample id */
      { name: "sample", dtype: "u32", length: ["sent"], only_with: null },
    ],
  },
  /** The overview's share planes: only the classes present, one row of `bins` shares each. */
  overview_shares: {
    message: "overview",
    when: {},
    needs: [],
    buffers: [
      /** the colour class of each plane, ascending */
      { name: "classes", dtype: "u8", length: ["planes"], only_with: null },
      /** per plane, per bin: the class's share of all tiles' cycles */
      { name: "shares", dtype: "f32", length: ["planes", "bins"], only_with: null },
    ],
  },
} as const satisfies Record<string, Layout>;
