// Shapes shared by the front-end modules: the synced traits and the decoded windows
// (the kernel's messages are in protocol.ts).

import type { AnyModel } from "@anywidget/types";

/** A metadata filter: (name, value), value null meaning "has an entry named name". */
export type MetadataFilter = [name: string, value: string | null];

export interface Filters {
  kind: string | null;
  kernel: string | null;
  operation_contains: string | null;
  tiles: number[];
  phases: number[];
  metadata: MetadataFilter[];
}

export interface Info {
  tiles: number;
  samples: number;
  span: number;
  clock_hz: number;
  granularity: string;
  rows: number[];
  legend: { kind: string[]; kernel: string[] };
  kernels: string[];
}

export interface Traits {
  filters: Filters;
  at: number | null;
  view: [number, number];
  selected: number | null;
  group_by: string;
  metadata_key: string | null;
  color_by: "kind" | "kernel";
  info: Info;
}

/** The widget's model as anywidget types it, over these traits. */
export type Model = AnyModel<Traits>;

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
  cells: Uint8Array;
}

export type WindowData = (RawWindow | LodWindow) & { colorBy: string };
