// Shapes shared by the front-end modules: the synced traits and the decoded windows (the
// kernel's messages, and the `filters` and `selection` traits they carry, are generated from
// ipu_nb/_widget/protocol.py: generated.ts, re-exported by protocol.ts).

import type { Clock } from "../common/clock";
import type { Vocabulary } from "../common/vocabulary";
import type { FindingRow } from "../panels/findings";
import type { Area, Filters, Marker } from "./generated";

export type { Area, Filters } from "./generated";

/** A metadata filter: (name, value), value null meaning "has an entry named name". */
export type MetadataFilter = Filters["metadata"][number];

/** The filters that select every sample. */
export function noFilters(): Filters {
  return {
    kind: null,
    kernel: null,
    operation: [],
    operation_contains: null,
    tiles: [],
    phases: [],
    metadata: [],
    window: null,
  };
}

/** The read-only `info` trait: facts about the profile and the names the front end offers. */
export interface Info {
  tiles: number;
  samples: number;
  span: number;
  clock_hz: number;
  granularity: string;
  /** Physical tile id of each timeline row, top to bottom. */
  rows: number[];
  /** Per colouring (a `vocabulary.color_bys` name), the names of colour classes 1, 2, … */
  legend: Record<string, string[]>;
  /** Kernel names for the kernel filter's suggestions (the first 500). */
  kernels: string[];
  /** Read it through `vocabularyOf(info)`, which checks it. */
  vocabulary: Vocabulary;
  /** The widget has a baseline profile (`ProfileWidget(after, baseline=before)`). */
  baseline?: boolean;
}

/** The `tracks` trait: the timeline's row layout (js/timeline/tracks.ts `TrackChoice`, its tiles filter aside). */
export interface Tracks {
  order: "physical" | "logical" | "grid";
  /** Physical tile ids shown first. */
  pinned: number[];
  /** Tiles in view (0: all). */
  rows: number;
  /** First unpinned tile position on screen. */
  scroll: number;
}

export interface Traits {
  filters: Filters;
  at: number | null;
  view: [number, number];
  selected: number | null;
  /** One of `info.vocabulary.group_bys`. */
  group_by: string;
  metadata_key: string | null;
  /** One of `info.vocabulary.color_bys`. */
  color_by: string;
  info: Info;
  selection: Area | null;
  tracks: Tracks;
  /** Which profile is shown: the one given first or its baseline. */
  showing: Showing;
  /** The findings panel's entries (js/panels/findings.ts). */
  finding_rows: FindingRow[];
  /** The markers, by time (js/timeline/markers.ts). */
  marker_rows: Marker[];
  /** The clock of every offset the kernel sends and takes (js/common/clock.ts). */
  clock: Clock;
  /** The flame graph's levels, one of `info.vocabulary.flame_hierarchies` (js/panels/flame.ts). */
  flame_hierarchy: string;
}

export type Showing = "after" | "baseline";

export interface RawWindow {
  mode: "raw";
  start: number;
  end: number;
  count: number;
  x0: Float32Array;
  x1: Float32Array;
  row: Uint16Array;
  flags: Uint8Array;
  sample: Uint32Array;
  labels: string[] | null;
  labelIndex: Uint32Array | null;
}

export interface LodWindow {
  mode: "lod";
  start: number;
  end: number;
  count: number;
  bins: number;
  /** The colour class of each plane of `cells`, ascending (0: samples not matching the filters). */
  classes: number[];
  /** Per plane, per (row, bin), row-major: the class's share of the cell's cycles in 255ths. */
  cells: Uint8Array;
}

export type WindowData = (RawWindow | LodWindow) & { colorBy: string };
